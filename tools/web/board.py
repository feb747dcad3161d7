"""What one seat's page is sent: the board the pack's `view:` declares, from that player's
observation only (the opponent's hand, face-down cards and deck order never leave here).

The values and groupings are the terminal board's (tools/terminal), so both boards show
the same things; this module only turns them into plain JSON for the page to draw.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...interpreter.game import Game
from ...interpreter.support import holdings, leader
from ...interpreter.teams import mates_table, team_name
from ..terminal.board import grouped, locations_of, value_of, zone_name
from ..terminal.choices import options_of, sections
from ..terminal.look import place_name, player_marks, player_name, shown, shown_to
from ..wording import heading

NARRATION_LINES = 120


def board_for(game: Game, viewer: str) -> dict[str, Any]:
    """The board as `viewer` sees it."""
    program = game.program
    view = program.view
    obs = game.observation(viewer)
    marks = player_marks(program)  # the terminal's: the shortest distinct name prefixes
    out = obs.get("out", [])  # who is out of the game: every seat sees it
    return {
        "title": view.get("title") or program.name,
        "players": [{"id": p, "name": player_name(program, p), "mark": marks[p],
                     "colour": view.get("players", {}).get(p, {}).get("colour", "default"),
                     **({"out": True} if p in out else {})}
                    for p in program.players],
        "status": [{"label": s["label"], "value": text(game, value_of(game, obs, s, None))}
                   for s in view.get("status", [])],
        "rows": [{"label": s["label"],
                  "values": {p: text(game, value_of(game, obs, s, p)) for p in program.players}}
                 for s in view.get("player_rows", [])],
        "tokens": obs["tokens"],
        "groups": [location_group(game, obs, g) for g in view.get("groups", [])],
        "hands": hands(game, obs, viewer),
        # what the rules showed this player once (`show ... to P`), as it was then
        "shown": [{"card": card(game, number), "from": where}
                  for number, where in shown_to(program, obs)],
        "narration": obs["log"][-NARRATION_LINES:],
        "result": obs.get("result") if game.is_terminal() else None,
        # teams of this game: the result names the winning team by its id
        "teams": [{"id": t, "name": team_name(program, t), "members": list(members)}
                  for t, members in program.teams.items()],
    }


def text(game: Game, value: Any) -> str:
    return "" if value in (None, "—") else shown(game.program, value)


def location_group(game: Game, obs: dict, group: dict) -> dict[str, Any]:
    program = game.program
    places = locations_of(game, group)
    pool = obs["pools"][group["pool"]]
    by_name = group.get("names") == "name"
    return {
        "title": group["title"],
        "map": group.get("map"),
        "ordered": bool(group.get("order")),
        "stacking": program.pools[group["pool"]].stacking,
        "sections": [{"name": name, "places": members}
                     for name, members in grouped(program, places, group.get("by"))],
        "places": {w: {"name": place_name(program, w), "short": place_name(program, w)
                       if by_name else w,
                       "value": program.locations[w].get(group["value"])
                       if group.get("value") else None,
                       **support_at(program, pool.get(w))}
                   for w in places},
    }


def support_at(program, entry: Any) -> dict[str, Any]:
    """One place's support for the page: `owner` (the leader, or none) with `count` (the
    leader's pieces), and `holders`, each player's pieces in seat order (a stacking pool
    may list several)."""
    counts = holdings(entry)
    owner = leader(counts)
    return {"owner": owner, "count": counts.get(owner, 0) if owner else 0,
            "holders": [[p, counts[p]] for p in program.players if p in counts]}


def card(game: Game, number: int) -> dict[str, Any]:
    info = game.program.cards.get(number, {})
    columns = game.program.view.get("card_columns", ["number", "title", "text"])
    fields = {heading(c, game.program): shown(game.program, info.get(c)) for c in columns
              if info.get(c) not in (None, "") and c not in ("number", "title", "text")}
    return {"number": number, "title": info.get("title", str(number)),
            "text": info.get("text", ""), "fields": fields}


def hands(game: Game, obs: dict, viewer: str) -> list[dict[str, Any]]:
    """The viewer's own cards with their text; of the others, only how many they hold, but
    for teammates whose hand their observation shows (`shown_to_team`): their cards too."""
    out = []
    program = game.program
    for zone in program.view.get("hands", []):
        mine = obs["zones"].get(f"{zone}:{viewer}")
        counts = {}
        for p in game.program.players:
            held = obs["zones"].get(f"{zone}:{p}")
            counts[p] = len(held) if isinstance(held, list) else held
        mates = [{"player": p, "cards": [card(game, c) for c in held]}
                 for p in mates_table(program).get(viewer, ())
                 for held in [obs["zones"].get(f"{zone}:{p}")] if isinstance(held, list)]
        out.append({"zone": zone, "name": zone_name(program, zone).capitalize(),
                    "cards": [card(game, c) for c in mine] if isinstance(mine, list) else [],
                    "counts": counts, "mates": mates})
    return out


def card_of(game: Game, payload: Any) -> int | None:
    """The card an option binds, if its value is a card of the pack."""
    if not isinstance(payload, list) or not payload:
        return None
    value = payload[2] if payload[0] == "bind" else payload[-1]
    is_card = isinstance(value, int) and not isinstance(value, bool)
    return value if is_card and value in game.program.cards else None


def decision(game: Game) -> dict[str, Any] | None:
    """The pending decision for the player who takes it: options grouped like the
    terminal's (one section per label with the place left out), notes, status, rule."""
    pending = game.state.pending
    if pending is None:
        return None
    options = options_of(game)
    payloads = pending.get("payloads") or [None] * len(options)
    cards = {}
    listed = []
    for o in options:
        number = card_of(game, payloads[o.index])
        if number is not None:
            cards[number] = card(game, number)
        listed.append({"index": o.index, "label": o.label, "note": o.note, "place": o.place,
                       "card": number})
    return {
        "player": pending["player"],
        "prompt": pending["prompt"],
        "question": game.question(),
        "status": game.remarks()["status"],
        "options": listed,
        "sections": [{"title": title, "options": [o.index for o in members],
                      "by_place": len(members) > 2 and all(o.place for o in members)}
                     for title, members in named_sections(game, options)],
        "cards": {str(k): v for k, v in cards.items()},
        "rule": rule_position(game),
    }


def named_sections(game: Game, options: list) -> list:
    """The terminal's sections (choices.sections), with each option's place left out of its
    label by its display name, the name the label shows."""
    program = game.program
    named = [replace(o, place=place_name(program, o.place)) if o.place else o for o in options]
    out = sections(named)
    by_index = {o.index: o for o in options}
    return [(title, [by_index[o.index] for o in members]) for title, members in out]


def rule_position(game: Game) -> str | None:
    """The content file, line and column of the rule asking the pending decision."""
    if game.state.pending is None or not game.state.stack:
        return None
    frame = game.state.stack[-1]
    positions = game.program.positions
    if frame.block >= len(positions) or not 0 < frame.pc <= len(positions[frame.block]):
        return None
    return positions[frame.block][frame.pc - 1] or None
