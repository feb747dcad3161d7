// The web board: draws what the server sends (the pack's `view:` for one seat) and sends
// the chosen option back. It knows no game: every name and value comes from the server.
// The seat is this browser's by an HttpOnly cookie the server set (the page never sees
// it): the address holds only the game's id, or once an invitation to claim.
"use strict";

const COLOURS = { blue: "#2563c9", red: "#c8322d", green: "#2f8f46", magenta: "#a23a9a",
  yellow: "#c99a06", cyan: "#1b8a9a", default: "#555" };
const SVG = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);
const ui = { setup: null, state: null, game: params.get("game"), invite: params.get("invite"),
  filter: "", place: null, busy: false, showRule: false, drawn: "",
  seen: null, changed: new Set(), info: null };

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
const $ = (id) => document.getElementById(id);
const colour = (player) => {
  const p = ui.state && ui.state.board.players.find((x) => x.id === player);
  return p ? (COLOURS[p.colour] || p.colour) : COLOURS.default;
};
// The page's own words in the game's language (the server sends them as `words`, by the
// English each stands for; an English game sends none), `{name}` filled from `values`.
const t = (text, values = {}) => {
  const shown = (ui.state && ui.state.words && ui.state.words[text]) || text;
  return shown.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
};
const nameOf = (player) => {
  const board = ui.state && ui.state.board;
  const p = board && (board.players.find((x) => x.id === player)
    || (board.teams || []).find((x) => x.id === player));
  return p ? p.name : player;
};
// A player's mark beside a count (`K3`): the shortest prefix of the name no other player's
// shares (USA and USSR are USA and USS), made by the server as the terminal makes it.
const markOf = (player) => {
  const p = ui.state && ui.state.board.players.find((x) => x.id === player);
  return p ? p.mark : player;
};

async function api(method, path, body) {
  const response = await fetch(path, { method, credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message || "";
}

// ---- talking to the server ------------------------------------------------------------
const gamePath = () => `/api/games/${encodeURIComponent(ui.game)}`;

async function refresh() {
  show(await api("GET", gamePath()));
}

async function post(action, body = {}) {
  if (ui.busy) return;
  ui.busy = true;
  document.body.classList.add("busy");
  let ok = false;
  try {
    showError("");
    const started = performance.now();
    const state = await api("POST", `${gamePath()}/${action}`, body);
    window.lastActionMs = performance.now() - started;
    ui.filter = ""; ui.place = null;
    show(state);
    ok = true;
  } catch (e) {
    showError(e.message);
  } finally {
    ui.busy = false;
    document.body.classList.remove("busy");
  }
  // the AI moves on while it can; after an error (the rules failing on its move, say) the
  // page does not ask again by itself: asking again would fail the same way
  if (ok && ui.state && ui.state.ai_turn) setTimeout(() => post("advance"), 30);
}

function choose(index) { post("act", { index, at: ui.state.actions }); }

let polling = null;
// The page asks again every 1.5 s while the game goes on (the other players move, join,
// ask to take back); it redraws only what changed, so a filter being typed is kept.
function show(state) {
  const text = JSON.stringify(state);
  ui.state = state;
  if (text !== ui.drawn) { ui.drawn = text; draw(); }
  clearTimeout(polling);
  if (!state.over && !state.ai_turn) polling = setTimeout(() => refresh().catch((e) => showError(e.message)), 1500);
}

// ---- drawing -----------------------------------------------------------------------------
function draw() {
  const { board } = ui.state;
  if (ui.seen && ui.seen.actions !== ui.state.actions) {
    // a move that changed no place (a card chosen, say) keeps the last places marked
    const changed = changedPlaces(ui.seen.board, board);
    if (changed.size || ui.state.actions < ui.seen.actions) ui.changed = changed;
    ui.info = null;
  }
  if (!ui.seen || ui.seen.actions !== ui.state.actions) ui.seen = { actions: ui.state.actions, board };
  $("game").hidden = false;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  $("title").textContent = board.title;
  document.title = board.title;
  drawStatus(board);
  drawResult(board);
  drawPlayers(board);
  drawGroups(board);
  drawDecision();
  drawHands(board);
  drawNarration(board);
  drawSeats();
  drawTakeBack();
  $("undo").disabled = !ui.state.can_undo || Boolean(ui.state.takeback);
  // the session file holds the seed: the server hands it out once the game is over
  $("save").hidden = !ui.state.over;
  $("save").href = `${gamePath()}/save`;
  document.body.dataset.actions = ui.state.actions;
  document.body.dataset.viewer = ui.state.viewer;
}

function drawStatus(board) {
  const parts = board.status.filter((s) => s.value !== "").map((s) =>
    el("span", {}, `${s.label} `, el("b", { text: s.value })));
  const who = t(ui.state.table ? "hot seat: {player} to look" : "you: {player}",
    { player: nameOf(ui.state.viewer) });
  parts.push(el("span", { class: "dim", "data-you": ui.state.viewer,
    text: ui.state.seed === null ? who : `seed ${ui.state.seed} · ${who}` }));
  $("status").replaceChildren(...parts);
}

function drawResult(board) {
  const box = $("result");
  box.hidden = !board.result;
  if (!board.result) return;
  const value = (v) => (Array.isArray(v) ? v.map(nameOf).join(", ")
    : v && typeof v === "object"
      ? Object.entries(v).map(([p, n]) => `${nameOf(p)} ${n}`).join(", ") : nameOf(v));
  const bits = Object.entries(board.result).map(([k, v]) => `${k.replace(/_/g, " ")}: ${value(v)}`);
  const team = board.result.team;  // a team's members win together: named first
  if (team) bits.unshift(t("{team} win together", { team: nameOf(team) }));
  box.replaceChildren(el("b", { text: t("Game over — ") }), bits.join(" · "));
}

function drawPlayers(board) {
  const head = el("tr", {}, el("th"), ...board.rows.map((r) => el("th", { text: r.label })));
  const rows = board.players.map((p) => el("tr", {},
    el("th", { style: `color:${colour(p.id)}`, text: p.out ? t("{player} (out)", { player: p.name }) : p.name }),
    ...board.rows.map((r) => el("td", { class: /^\d+$/.test(r.values[p.id]) ? "num" : null,
      text: r.values[p.id] }))));
  $("players").replaceChildren(head, ...rows);
}

function choosablePlaces() {
  const d = ui.state.decision;
  const places = {};
  if (!d) return places;
  for (const o of d.options) if (o.place) (places[o.place] = places[o.place] || []).push(o);
  return places;
}

function fill(place) {
  if (!place.owner) return place.holders.length ? "#b3ae9f" : "#d8d4c8";  // a tie, or nobody
  const alpha = Math.min(1, 0.28 + 0.18 * place.count);
  const hex = colour(place.owner);
  return hex.startsWith("#") && hex.length === 7
    ? hex + Math.round(alpha * 255).toString(16).padStart(2, "0") : hex;
}

// A map: each place filled in its leader's colour, outlined when the last move changed it.
// Its labels are laid out once the map is on the page (layoutLabels), at a size read on
// screen whatever the map's width.
function drawMap(group, map) {
  const choosable = choosablePlaces();
  const svg = el("svg:svg", { class: "map", viewBox: `0 0 ${map.width} ${map.height}`,
    role: "img", "aria-label": group.title, "data-map": group.map });
  const shapes = el("svg:g", { class: "shapes" });
  for (const [id, place] of Object.entries(group.places)) {
    const shape = map.shapes[id];
    if (!shape) continue;
    const options = choosable[id];
    const tip = placeTip(place, options);
    const changed = ui.changed.has(`${group.title}\u0000${id}`);
    shapes.append(el("svg:path", { d: shape.path, fill: fill(place), "data-place": id,
      class: [options ? "choosable" : "", changed ? "changed" : ""].join(" ").trim() || null,
      onclick: options ? () => clickPlace(id, options) : () => showInfo(group, id, tip) },
    el("svg:title", { text: tip })));
  }
  // the changed places last, so their outline is not hidden under a neighbour's edge
  shapes.append(...[...shapes.querySelectorAll("path.changed")]);
  svg.append(shapes, el("svg:g", { class: "labels" }));
  const info = el("div", { class: "map-info", "data-info": group.map,
    text: ui.info && ui.info.group === group.title ? ui.info.text : "" });
  const box = el("div", { class: "map-box" }, svg, info, legend(group));
  box.layout = () => layoutLabels(svg, group, map);
  return box;
}

function placeTip(place, options) {
  return `${place.name}${place.value !== null ? ` (${place.value})` : ""}` +
    (place.holders.length ? ` — ${place.holders.map(([p, n]) => `${nameOf(p)} ${n}`).join(", ")}` : "") +
    (options ? `\n${options.map((o) => o.label + (o.note ? ` — ${o.note}` : "")).join("\n")}` : "");
}

// A tap on a place that offers nothing to choose says what is there (a phone has no hover).
function showInfo(group, id, tip) {
  ui.info = { group: group.title, place: id, text: tip.split("\n")[0] };
  document.querySelectorAll(`.map-info`).forEach((box) => { box.textContent = ui.info.text; });
}

// the labels' size on screen, whatever the map's width: a little smaller on a phone, where
// each label is one line and the map keeps most of the width
const labelPx = (width) => (width < 600 ? 9.5 : 11);
const MAX_COLUMN = 0.2;  // a column of callouts takes at most this share of the map's width
// A text's width in font sizes, measured in the page's own font (bold: the wider)
const measurer = document.createElement("canvas").getContext("2d");
function ems(text) {
  measurer.font = `700 100px ${getComputedStyle(document.body).fontFamily}`;
  return measurer.measureText(text).width / 100;
}

// Labels where they fit: the biggest places first, each label centred on its place's label
// point unless it would overlap a label already placed or spill far out of its place;
// those are called out in a column beside the map (the side nearer the place), joined to
// it by a line. The map's viewBox grows by that column, so the whole is still one picture.
function layoutLabels(svg, group, map) {
  const width = svg.getBoundingClientRect().width || map.width;
  const paths = [...svg.querySelectorAll("path[data-place]")];
  const boxes = Object.fromEntries(paths.map((p) => [p.dataset.place, p.getBBox()]));
  let margins = { left: 0, right: 0 };
  let plan = null;
  for (let pass = 0; pass < 3; pass++) {  // the column shrinks the map: size again
    const scale = width / (map.width + margins.left + margins.right);
    plan = planLabels(group, map, boxes, labelPx(width) / scale, width < 600);
    const next = { left: plan.columns.left, right: plan.columns.right };
    if (next.left === margins.left && next.right === margins.right) break;
    margins = next;
  }
  svg.setAttribute("viewBox", `${-margins.left} 0 ${map.width + margins.left + margins.right} ${map.height}`);
  svg.querySelector("g.labels").replaceChildren(...plan.nodes);
}

// A place's label: its id and value (a phone's, its id only: the value is a tap away),
// and each player's count.
function labelLines(group, id, place, compact) {
  const head = `${id}${place.value !== null && !compact ? " " + place.value : ""}`;
  let counts = [];
  if (group.stacking && place.holders.length) counts = place.holders.map(([p, n]) => [p, `${n}`]);
  else if (place.owner) counts = [[place.owner, `${place.count}`]];
  return { head, counts };
}

function planLabels(group, map, boxes, size, compact) {
  const line = size * 1.1;
  const placed = [];
  const out = [];
  const overlaps = (r) => placed.some((q) => r.x < q.x + q.w && q.x < r.x + r.w && r.y < q.y + q.h && q.y < r.y + r.h);
  const ids = Object.keys(group.places).filter((id) => map.shapes[id] && boxes[id])
    .sort((a, b) => boxes[b].width * boxes[b].height - boxes[a].width * boxes[a].height);
  const nodes = [];
  const dots = tokens(map, size);
  // the tokens first: a label never covers one
  for (const d of dots) {
    const [cx, cy, r] = ["cx", "cy", "r"].map((k) => Number(d.getAttribute(k)));
    placed.push({ x: cx - r, y: cy - r, w: 2 * r, h: 2 * r });
  }
  for (const id of ids) {
    const { head, counts } = labelLines(group, id, group.places[id], compact);
    const countText = counts.map(([, n]) => n).join(" ");
    const [x, y] = map.shapes[id].label;
    const b = boxes[id];
    // the label as it is, then (on a phone) the place's id alone: the first that fits its
    // place, spilling a little at most, and overlaps no label placed before it
    const tries = [[head, counts, compact || !counts.length]];
    if (compact && counts.length) tries.push([id, [], true]);
    let done = false;
    for (const [text, shown, oneLine] of tries) {
      const shownText = shown.map(([, n]) => n).join(" ");
      const w = (oneLine ? ems(shownText ? `${text} ${shownText}` : text)
        : Math.max(ems(text), ems(shownText))) * size;
      const h = line * (oneLine ? 1 : 2);
      const r = { x: x - w / 2, y: y - line * 0.8, w, h };
      if (w > b.width * 1.3 || h > b.height * 1.4 || overlaps(r)) continue;
      placed.push(r);
      nodes.push(labelText(x, y, size, oneLine && shownText ? `${text} ` : text, shown, id,
        "middle", oneLine));
      done = true;
      break;
    }
    if (!done) out.push({ id, x, y, text: `${head}${countText ? " · " : ""}`, counts });
  }
  const columns = { left: 0, right: 0 };
  for (const side of ["left", "right"]) {
    // the column holds what fits in the map's height, the biggest places first; the
    // others are left unlabelled (a tap or a hover on the place tells it)
    const room = Math.floor((map.height - line * 0.3) / line);
    const mine = out.filter((o) => (side === "right") === (o.x > map.width / 2)).slice(0, room)
      .sort((a, b) => a.y - b.y);
    if (!mine.length) continue;
    const widest = Math.max(...mine.map((o) => ems(o.text + o.counts.map(([, n]) => n).join(" ")) * size));
    const gap = size * 0.6;
    columns[side] = Math.ceil(Math.min(widest + 2 * gap, map.width * MAX_COLUMN));
    // stacked top to bottom near each place's height, then pushed up if past the bottom
    const ys = [];
    mine.forEach((o, i) => { ys.push(Math.max(o.y, i ? ys[i - 1] + line : line)); });
    const over = ys.length ? ys[ys.length - 1] - (map.height - line * 0.3) : 0;
    for (let i = ys.length - 1; i >= 0 && over > 0; i--) {
      ys[i] = Math.min(ys[i], i === ys.length - 1 ? ys[i] - over : ys[i + 1] - line);
    }
    mine.forEach((o, i) => {
      const tx = side === "right" ? map.width + gap : -gap;
      nodes.push(el("svg:line", { class: "leader", x1: o.x, y1: o.y, x2: side === "right" ? tx - gap * 0.3 : tx + gap * 0.3, y2: ys[i] - line * 0.35 }));
      const t = labelText(tx, ys[i], size, o.text, o.counts, o.id, side === "right" ? "start" : "end", true);
      nodes.push(t);
    });
  }
  nodes.push(...dots);
  return { nodes, columns };
}

// One label: its head (id and value) and under it each player's count in their colour;
// a callout has both on one line.
function labelText(x, y, size, head, counts, id, anchor = "middle", oneLine = false) {
  const t = el("svg:text", { x, y, "font-size": size.toFixed(1), "text-anchor": anchor,
    "data-label": id, class: anchor === "middle" ? null : "callout" }, head);
  if (!counts.length) return t;
  const spans = counts.map(([p, n], i) => el("svg:tspan", { fill: colour(p), "font-weight": 700,
    text: `${i ? " " : ""}${n}` }));
  if (oneLine) { t.append(...spans); return t; }
  spans[0].setAttribute("x", x);
  spans[0].setAttribute("dy", (size * 1.1).toFixed(1));
  t.append(...spans);
  return t;
}

function tokens(map, size) {
  return Object.entries(ui.state.board.tokens).flatMap(([player, where], n) => {
    const shape = map.shapes[where];
    if (!shape) return [];
    const [x, y] = shape.label;
    const r = size * 0.45;
    return [el("svg:circle", { class: "token", cx: x - r * 1.3 + n * r * 2.6, cy: y - size * 1.45, r,
      fill: colour(player), "data-token": player }, el("svg:title", { text: `${nameOf(player)} is here` }))];
  });
}

// What the map's colours and dots mean, from the board's own players and names.
function legend(group) {
  const board = ui.state.board;
  const swatch = (style) => el("span", { class: "swatch", style });
  const items = board.players.map((p) => el("span", { class: "item", "data-legend": p.id },
    swatch(`background:${colour(p.id)}`), t("{player} leads (darker: more)", { player: p.name })));
  items.push(el("span", { class: "item" }, swatch("background:#b3ae9f"), t("tied")),
    el("span", { class: "item" }, swatch("background:#d8d4c8"), t("nobody")));
  const tokenPlayers = Object.keys(board.tokens);
  if (tokenPlayers.length) {
    items.push(...tokenPlayers.map((p) => el("span", { class: "item", "data-legend-token": p },
      el("span", { class: "dot", style: `background:${colour(p)}` }), t("{player}'s token", { player: nameOf(p) }))));
  }
  if (group.stacking) items.push(el("span", { class: "item dim", text: "numbers: each player's pieces" }));
  items.push(el("span", { class: "item" }, swatch("background:#fff;outline:2px solid #f0b400"), t("changed by the last move")));
  return el("div", { class: "legend", "data-legend-for": group.title }, ...items);
}

function clickPlace(id, options) {
  if (options.length === 1) return choose(options[0].index);
  ui.place = ui.place === id ? null : id;  // several: show only this place's options
  drawDecision();
}

function drawGroups(board) {
  const parts = [];
  for (const group of board.groups) {
    const map = group.map && ui.setup.maps[group.map];
    const box = el("div", { class: "group" }, el("h2", { text: group.title }));
    if (map) {
      box.append(drawMap(group, map));
    } else {
      for (const section of group.sections) {
        const row = el("div", { class: "places" });
        if (section.name) row.append(el("span", { class: "section-name", text: section.name }));
        section.places.forEach((id, n) => {
          const p = group.places[id];
          const changed = ui.changed.has(`${group.title}\u0000${id}`);
          row.append(el("span", { class: changed ? "place changed" : "place", "data-place": id },
            `${group.ordered ? n + 1 + ". " : ""}${p.short}${p.value !== null ? " " + p.value : ""}`,
            support(group, p)));
        });
        box.append(row);
      }
    }
    parts.push(box);
  }
  $("groups").replaceChildren(...parts);
  document.querySelectorAll("#groups .map-box").forEach((box) => box.layout());
}

// The places (of every group) and tokens the last change of the game moved: the board of
// this observation against the one before it; nothing of the game is known here.
function changedPlaces(before, after) {
  const found = new Set();
  if (!before) return found;
  const was = Object.fromEntries(before.groups.map((g) => [g.title, g.places]));
  for (const group of after.groups) {
    const old = was[group.title] || {};
    for (const [id, place] of Object.entries(group.places)) {
      const prev = old[id];
      if (!prev || JSON.stringify(prev.holders) !== JSON.stringify(place.holders)) found.add(`${group.title}\u0000${id}`);
    }
  }
  for (const [player, where] of Object.entries(after.tokens)) {
    if (before.tokens[player] === where) continue;
    for (const group of after.groups) if (where in group.places) found.add(`${group.title}\u0000${where}`);
  }
  return found;
}

// A place's support in a list: the owner's mark and count (`K3`), or in a stacking pool
// every player's, each in their colour.
function support(group, place) {
  if (!place.holders.length) {
    return el("span", { class: "support", style: `color:${colour(null)}`, text: "·" });
  }
  if (!group.stacking) {
    return el("span", { class: "support", style: `color:${colour(place.owner)}`,
      text: `${markOf(place.owner)}${place.count}` });
  }
  return el("span", { class: "support" }, ...place.holders.map(([p, n], i) =>
    el("span", { style: `color:${colour(p)}`, text: `${i ? " " : ""}${markOf(p)}${n}` })));
}

function cardTip(card) {
  if (!card) return null;
  const fields = Object.entries(card.fields).map(([k, v]) => `${k} ${v}`).join(", ");
  return `${card.number} ${card.title}${fields ? ` (${fields})` : ""}\n${card.text}`;
}

// A place off the map's regions is named as the board names it (the map shows its own
// short labels; a region or a space elsewhere has only its name).
function placeName(id) {
  for (const group of ui.state.board.groups) {
    const place = group.places && group.places[id];
    if (place && place.name) return place.name;
  }
  return id;
}

function optionButton(o, d, label) {
  return el("button", { type: "button", class: "option", "data-index": o.index,
    title: cardTip(d.cards[o.card]) || o.label, onclick: () => choose(o.index) },
  label || o.label, o.note && !label ? el("span", { class: "note", text: o.note }) : null);
}

function drawDecision() {
  const box = $("decision");
  const s = ui.state;
  if (s.board.result) { box.replaceChildren(el("b", { text: t("The game is over.") })); return; }
  if (!s.decision) {
    const who = s.waiting ? nameOf(s.waiting.player) : "";
    box.replaceChildren(el("span", { class: "dim",
      text: s.ai_turn ? t("{player} is thinking…", { player: who })
        : t("Waiting for {player}: {prompt}", { player: who, prompt: s.waiting ? s.waiting.prompt : "" }) }));
    return;
  }
  const d = s.decision;
  const words = ui.filter.toLowerCase().split(/\W+/).filter(Boolean);
  const shown = d.options.filter((o) => (!ui.place || o.place === ui.place) &&
    words.every((w) => `${o.label} ${o.note || ""}`.toLowerCase().split(/\W+/).some((x) => x.startsWith(w))));
  const visible = new Set(shown.map((o) => o.index));
  const list = el("div", { class: "options" });
  const places = ui.state.board.groups.find((g) => g.map) || ui.state.board.groups[0];
  for (const section of d.sections) {
    const members = section.options.map((i) => d.options[i]).filter((o) => visible.has(o.index));
    if (!members.length) continue;
    if (section.by_place && members.length > 2) {
      const row = el("div", { class: "option-row" },
        section.title ? el("span", { class: "title", text: section.title }) : null);
      const regions = places ? places.sections : [];
      for (const region of regions) {
        const inRegion = members.filter((o) => region.places.includes(o.place));
        if (!inRegion.length) continue;
        row.append(el("span", { class: "section-name", text: region.name }));
        inRegion.forEach((o) => row.append(optionButton(o, d, o.place)));
      }
      members.filter((o) => !regions.some((r) => r.places.includes(o.place)))
        .forEach((o) => row.append(optionButton(o, d, placeName(o.place))));
      list.append(row);
    } else {
      members.forEach((o) => list.append(el("div", { class: "option-row" }, optionButton(o, d))));
    }
  }
  const filter = el("input", { class: "filter", type: "search", placeholder: t("filter options"),
    value: ui.filter, oninput: (e) => { ui.filter = e.target.value; drawDecision(); focusFilter(); } });
  box.replaceChildren(...[
    el("div", { class: "prompt",
      text: d.question ? `${nameOf(d.player)}: ${d.question}` : t("{player} to choose", { player: nameOf(d.player) }) }),
    d.status ? el("div", { class: "remark", text: d.status }) : null,
    ui.place ? el("div", { class: "dim" }, t("only {place} ", { place: ui.place }),
      el("button", { type: "button", onclick: () => { ui.place = null; drawDecision(); } }, t("show all"))) : null,
    d.options.length > 8 ? filter : null,
    list,
    el("div", { class: "dim" },
      el("button", { type: "button", id: "rule-toggle",
        onclick: () => { ui.showRule = !ui.showRule; drawDecision(); } }, t("Rule")),
      // the file and line (the column is the API's, for tools)
      ui.showRule ? el("span", { class: "rule", id: "rule",
        text: ` ${d.rule ? d.rule.replace(/(:\d+):\d+$/, "$1") : t("(no position)")}` }) : null),
  ].filter(Boolean));
}

function focusFilter() {
  const f = document.querySelector(".filter");
  if (f) { f.focus(); f.setSelectionRange(f.value.length, f.value.length); }
}

function handCards(list, attrs) {
  const cards = el("div", { class: "cards", ...attrs });
  for (const c of list) {
    const fields = Object.entries(c.fields).map(([k, v]) => `${k} ${v}`).join(" · ");
    cards.append(el("div", { class: "card", "data-card": c.number, title: cardTip(c) },
      el("div", { class: "ctitle", text: `${c.number} ${c.title}` }),
      el("div", { class: "fields", text: fields }),
      el("div", { class: "text", text: c.text })));
  }
  if (!list.length) cards.append(el("span", { class: "dim", text: "no cards" }));
  return cards;
}

function drawHands(board) {
  const parts = [];
  for (const hand of board.hands) {
    const others = Object.entries(hand.counts).filter(([p]) => p !== ui.state.viewer)
      .map(([p, n]) => t("{player} holds {n}", { player: nameOf(p), n })).join(", ");
    parts.push(el("h2", { text: t("{hand} of {player}", { hand: hand.name, player: nameOf(ui.state.viewer) })
      + (others ? ` (${others})` : "") }));
    parts.push(handCards(hand.cards, { "data-hand": hand.zone }));
    for (const mate of hand.mates || []) {  // a teammate's hand shown to the team
      parts.push(el("h2", { text: t("{hand} of {player}", { hand: hand.name, player: nameOf(mate.player) }) }));
      parts.push(handCards(mate.cards, { "data-mate-hand": hand.zone, "data-mate": mate.player }));
    }
  }
  if (board.shown.length) {  // what the rules showed this player once, as it was then
    parts.push(el("h2", { text: t("Shown to you") }));
    parts.push(el("div", { class: "cards", "data-shown": "" }, ...board.shown.map(({ card: c, from }) =>
      el("div", { class: "card", "data-card": c.number, title: cardTip(c) },
        el("div", { class: "ctitle", text: `${c.number} ${c.title}` }),
        el("div", { class: "fields", text: t("seen in {zone}", { zone: from }) }),
        el("div", { class: "text", text: c.text })))));
  }
  $("hands").replaceChildren(...parts);
}

// The seats: who has joined, the invitations still open (the creator's page only, with a
// button to copy each link), and this browser's own way back to the game.
function drawSeats() {
  const s = ui.state;
  const parts = [];
  for (const [player, token] of Object.entries(s.invitations)) {
    const url = `${location.origin}/?game=${encodeURIComponent(s.id)}&invite=${encodeURIComponent(token)}`;
    parts.push(el("div", { class: "invite" }, `Invite ${nameOf(player)}: send them `,
      el("input", { type: "text", readonly: "", value: url, "data-invite": player, size: 40 }),
      el("button", { type: "button", onclick: () => navigator.clipboard.writeText(url)
        .then(() => showError(""), () => showError("copy the link from the box")) }, "Copy"),
      el("span", { class: "dim", text: " (it opens once: the first browser to open it takes the seat)" })));
  }
  const joined = Object.entries(s.joined).filter(([p]) => p !== s.viewer || s.table)
    .map(([p, yes]) => `${nameOf(p)} ${yes ? "has joined" : "has not opened their invitation yet"}`);
  if (joined.length && !s.table) parts.push(el("div", { class: "dim", text: joined.join(" · ") }));
  if (!s.table && !s.over) {
    parts.push(el("div", { class: "dim", id: "way-back" },
      `You play ${nameOf(s.viewer)} in this browser; come back at `,
      el("a", { href: `/?game=${encodeURIComponent(s.id)}` }, `${location.origin}/?game=${s.id}`)));
  }
  $("seats-box").replaceChildren(...parts);
  $("seats-box").hidden = parts.length === 0;
}

// A take-back waiting for answers (accept / decline for the players asked, withdraw for
// the one who asked), or the answer to the last one.
function drawTakeBack() {
  const box = $("takeback");
  const t = ui.state.takeback;
  const a = ui.state.answer;
  const parts = [];
  if (t) {
    const waiting = t.waiting.map(nameOf).join(" and ");
    const asker = t.mine && !ui.state.table ? "You ask to take back your last decision"
      : `${nameOf(t.player)} asks to take back their last decision`;
    parts.push(el("b", { text: asker }),
      ` (${t.undone} action${t.undone === 1 ? "" : "s"}; asked because ${t.why}). `);
    if (t.may_answer) {
      parts.push(el("button", { type: "button", id: "accept", onclick: () => post("answer", { accept: true }) }, "Accept"),
        " ", el("button", { type: "button", id: "decline", onclick: () => post("answer", { accept: false }) }, "Decline"));
    } else {
      parts.push(el("span", { class: "dim", text: `Waiting for ${waiting}. ` }));
      if (t.mine) parts.push(el("button", { type: "button", id: "withdraw", onclick: () => post("answer", { accept: false }) }, "Withdraw"));
    }
  } else if (a) {
    parts.push(`${nameOf(a.by)} ${a.accepted ? "accepted" : "declined"} ${nameOf(a.player)}'s take-back.`);
  }
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
}

// The whole narration: `== … ==` lines as headings, the lines a move caused (indented by
// the rules) indented, every card name the server found in it a link to the card; the
// newest line in view.
function drawNarration(board) {
  const list = $("narration");
  const cards = Object.values(ui.state.log_cards || {});
  const byTitle = Object.fromEntries(cards.map((c) => [c.title, c]));
  const titles = cards.map((c) => c.title).sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const names = titles.length ? new RegExp(`(?<![\\w])(${titles.join("|")})(?![\\w])`) : null;
  list.replaceChildren(...board.narration.map((text) => {
    const heading = /^==\s*(.*?)\s*==$/.exec(text.trim());
    if (heading) return el("li", { class: "heading", text: heading[1] });
    const item = el("li", { class: /^\s/.test(text) ? "sub" : null });
    const parts = names ? text.split(names) : [text];
    parts.forEach((part, i) => {
      if (i % 2 === 0) { if (part) item.append(part); return; }
      const c = byTitle[part];
      item.append(el("button", { type: "button", class: "cardref", "data-card": c.number,
        title: cardTip(c), onclick: (e) => popCard(c, e.currentTarget) }, part));
    });
    return item;
  }));
  list.scrollTop = list.scrollHeight;
}

// A card named in the log, shown beside its name (a tap on a phone, a click elsewhere).
function popCard(c, anchor) {
  const pop = $("card-pop");
  const fields = Object.entries(c.fields).map(([k, v]) => `${k} ${v}`).join(" · ");
  pop.replaceChildren(el("div", { class: "ctitle", text: `${c.number} ${c.title}` }),
    el("div", { class: "fields", text: fields }), el("div", { class: "text", text: c.text }));
  pop.dataset.card = c.number;
  pop.hidden = false;
  const r = anchor.getBoundingClientRect();
  const width = Math.min(260, window.innerWidth - 16);
  pop.style.width = `${width}px`;
  pop.style.left = `${Math.max(8, Math.min(r.left, window.innerWidth - width - 8))}px`;
  const below = r.bottom + 6;
  pop.style.top = `${below + pop.offsetHeight < window.innerHeight ? below : Math.max(8, r.top - pop.offsetHeight - 6)}px`;
}

document.addEventListener("click", (e) => {
  if (!e.target.closest(".cardref") && !e.target.closest("#card-pop")) $("card-pop").hidden = true;
});
let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => ui.state && document.querySelectorAll("#groups .map-box").forEach((b) => b.layout()), 120);
});

// ---- new game, load, undo -------------------------------------------------------------------
function openSetup() {
  const s = ui.setup;
  const seatedBy = (p) => (s.seated_by && s.seated_by[p] ? ` (with ${s.seated_by[p].join(", ").replace(/_/g, " ")})` : "");
  $("seats").replaceChildren(...s.players.map((p, n) => el("label", { "data-seat-row": p }, `${s.names[p]}${seatedBy(p)} `,
    el("select", { name: `seat-${p}`, "data-seat": p },
      ...s.agents.map((a) => el("option", { value: a, selected: a === (n === 0 ? "human" : "random") ? "" : null }, a))))));
  $("options").replaceChildren(el("legend", { text: "Options" }),
    ...Object.entries(s.options).map(([name, o]) => el("label", { title: o.doc },
      el("input", { type: "checkbox", name, checked: (s.defaults[name] ?? o.default) ? "" : null }),
      ` ${name.replace(/_/g, " ")} `, el("span", { class: "dim", text: o.doc }))));
  $("mods").replaceChildren(...(s.mods.length ? [el("legend", { text: "Mods (started with the server)" })] : []),
    ...s.mods.map((name, i) => el("label", {}, el("input", { type: "checkbox", "data-mod": i, checked: "" }), ` ${name}`)));
  // a pack without options, a server without mods: no empty boxes
  $("options").hidden = Object.keys(s.options).length === 0;
  $("mods").hidden = s.mods.length === 0;
  $("me").replaceChildren(...s.players.map((p, n) => el("option", { value: p, selected: n === 0 ? "" : null }, s.names[p])));
  // the languages the pack has catalogs for: everything the game shows comes in the one chosen
  const langs = s.languages || ["en"];
  $("lang").replaceChildren(...langs.map((l) => el("option", { value: l }, l)));
  $("lang-box").hidden = langs.length < 2;
  // a pack with a player count: how many play; the seats past it are left out
  const count = s.player_count;
  $("count-box").hidden = !count;
  if (count) {
    const counts = [];
    for (let n = count.min; n <= count.max; n++) counts.push(n);
    $("count").replaceChildren(...counts.map((n) => el("option", { value: n, selected: n === count.default ? "" : null }, String(n))));
    $("count").onchange = showCounted;
    showCounted();
  }
  $("links").hidden = true;
  $("start").hidden = false;
  $("setup").showModal();
}

// The seats of the players the count leaves out (the last of those no option seats) hide.
function showCounted() {
  const s = ui.setup;
  const n = Number($("count").value);
  const counted = s.players.filter((p) => !(s.seated_by && s.seated_by[p]));
  const out = new Set(counted.slice(n));
  document.querySelectorAll("[data-seat-row]").forEach((row) => { row.hidden = out.has(row.dataset.seatRow); });
  [...$("me").options].forEach((o) => { o.hidden = out.has(o.value); });
  if (out.has($("me").value)) $("me").value = counted[0];
}

async function startGame() {
  const seats = {};
  document.querySelectorAll("[data-seat]").forEach((s) => { if (!s.closest("label").hidden) seats[s.dataset.seat] = s.value; });
  const players = ui.setup.player_count ? Number($("count").value) : undefined;
  const options = {};
  document.querySelectorAll("#options input").forEach((i) => { options[i.name] = i.checked; });
  const mods = [...document.querySelectorAll("[data-mod]")].filter((m) => m.checked)
    .map((m) => Number(m.dataset.mod));
  const seed = $("seed").value === "" ? undefined : Number($("seed").value);
  const hot_seat = $("hot-seat").checked;
  const me = !hot_seat && seats[$("me").value] === "human" ? $("me").value : undefined;
  const lang = $("lang").value || "en";
  try {
    started(await api("POST", "/api/games", { seed, options, seats, mods, hot_seat, me, lang, players }));
  } catch (e) { showError(e.message); }
}

// A game made (or loaded): this browser holds its seat now (the cookie); with other people
// to invite the dialog shows their links first, else the board opens.
function started(game) {
  const board = `/?game=${encodeURIComponent(game.id)}`;
  const invitations = Object.entries(game.invitations);
  if (!invitations.length) { location.href = board; return; }
  const box = $("links");
  box.replaceChildren(el("p", { text: "Send each player their invitation (it opens once; the first browser to open it takes the seat):" }),
    ...invitations.map(([p, token]) => {
      const url = `${location.origin}/?game=${encodeURIComponent(game.id)}&invite=${encodeURIComponent(token)}`;
      return el("p", {}, `${ui.setup.names[p] || p}: `, el("input", { type: "text", readonly: "", value: url, "data-link": p, size: 48 }));
    }),
    el("p", {}, el("a", { href: board, id: "my-board" }, `Go to your board (${ui.setup.names[game.me] || game.me})`)));
  box.hidden = false;
  $("start").hidden = true;  // the game is made: starting again would make another
  if (!$("setup").open) $("setup").showModal();
}

async function loadFile(file) {
  try {
    started(await api("POST", "/api/load", { log: await file.text() }));
  } catch (e) { showError(e.message); }
}

async function main() {
  ui.setup = await api("GET", "/api/setup");
  const credits = Object.values(ui.setup.maps).map((m) => m.credit).filter(Boolean);
  $("credit").textContent = credits.join(" · ");
  $("new-game").onclick = openSetup;
  $("undo").onclick = () => post("undo", { at: ui.state.actions });
  $("load-file").onchange = (e) => e.target.files[0] && loadFile(e.target.files[0]);
  $("setup-form").addEventListener("submit", (e) => {
    if (e.submitter && e.submitter.value === "start") { e.preventDefault(); startGame(); }
  });
  if (!ui.game) { openSetup(); return; }
  try {
    if (ui.invite) {  // claim the seat, then drop the spent invitation from the address
      const invite = ui.invite;
      ui.invite = null;
      history.replaceState(null, "", `/?game=${encodeURIComponent(ui.game)}`);
      try {
        show(await api("POST", `${gamePath()}/claim`, { invite }));
      } catch (e) {
        showError(e.message);
        return;
      }
    } else {
      await refresh();
    }
    if (ui.state.ai_turn) post("advance");
  } catch (e) { showError(e.message); }
  window.pageReadyMs = performance.now();
}

main();
