"""The board a person sees, drawn from what the pack's `view:` declares.

Nothing here knows a game: the view names the values, pools, groups and zones to show,
and pack functions (asked through `Game.evaluate`) compute totals. Narrow terminals get
groups as wrapped rows; from WIDE columns on, the groups of a section stand side by side.
"""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...interpreter.game import Game
from ...interpreter.plurals import noun
from ...interpreter.support import holdings
from ...interpreter.teams import mates_table
from ..wording import heading, ui
from .look import place_name, player_marks, player_name, player_style, shown, shown_to

WIDE = 110
COLUMN_GAP = 3  # spaces between the columns of a wide group


def render_board(game: Game, player: str | None, width: int = 80, colour: bool = False) -> str:
    """The board as text no wider than `width` (with ANSI colour codes if `colour`)."""
    return to_text(board(game, player, width), width, colour)


def to_text(renderable: RenderableType, width: int, colour: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=colour, no_color=not colour,
                      color_system="standard" if colour else None, highlight=False,
                      emoji=False, legacy_windows=False)
    console.print(renderable)
    return "\n".join(trim(line) for line in out.getvalue().splitlines())


_TRAILING = re.compile(r"(?:\s|\x1b\[[0-9;]*m)+$")
_CODE = re.compile(r"\x1b\[[0-9;]*m")


def trim(line: str) -> str:
    """The line without trailing blanks (colour codes among them are kept)."""
    return _TRAILING.sub(lambda m: "".join(_CODE.findall(m.group())), line)


def board(game: Game, player: str | None, width: int) -> RenderableType:
    view = game.program.view
    viewer = player or game.program.players[0]
    obs = game.observation(viewer)
    parts: list[RenderableType] = [status_line(game, obs, width)]
    if view.get("player_rows") or obs.get("out"):  # who is out shows even with no rows
        parts.append(player_table(game, obs))
    side_by_side: list[RenderableType] = []
    for group in view.get("groups", []):
        if width >= WIDE and not group.get("by"):
            side_by_side.append(location_group(game, obs, group, width))
        else:
            parts.append(location_group(game, obs, group, width))
    if side_by_side:
        grid = Table.grid(padding=(0, 4))
        grid.add_row(*side_by_side)
        parts.append(grid)
    if player is not None:
        parts.extend(hand_lines(game, obs, player))
    return Group(*parts)


# ---- values -----------------------------------------------------------------
def value_of(game: Game, obs: dict, spec: dict, player: str | None) -> Any:
    if spec.get("variable"):
        return obs["vars"].get(spec["variable"])
    if spec.get("counter"):
        return obs["counters"][spec["counter"]].get(player)
    if spec.get("function"):
        return game.evaluate(spec["function"], *([player] if player is not None else []))
    if spec.get("token"):
        return obs["tokens"].get(player)
    if spec.get("zone"):
        key = spec["zone"] if player is None else f"{spec['zone']}:{player}"
        return zone_text(game, obs["zones"].get(key, obs["zones"].get(spec["zone"])))
    zone = f"{spec['face_of']}:{player}"
    cards = obs["zones"].get(zone)
    if not isinstance(cards, list) or not cards:
        return ui(game.program, "used")
    face = obs["faces"].get(str(cards[0]), "front")
    return spec.get("faces", {}).get(face, face)


def zone_text(game: Game, cards: Any) -> str:
    """The titles of a zone's cards, or how many there are where they are hidden."""
    if isinstance(cards, int):
        return ui(game.program, "{n} {noun}", n=cards, noun=noun(game.program, cards, "card"))
    if not cards:
        return "—"
    return ", ".join(game.program.cards.get(c, {}).get("title", str(c)) for c in cards)


def status_line(game: Game, obs: dict, width: int) -> Text:
    """The title and the status values on one line; if they do not fit, the short name,
    narrower gaps, then as many lines as needed, broken between values."""
    parts = status_values(game, obs)
    for name in (game.program.view.get("title"), game.program.name):
        for gap in ("  ·  ", " · "):
            line = Text(name or game.program.name, style="bold")
            for part in parts:
                line.append(gap)
                line.append_text(part)
            if len(line) <= width:
                return line
    lines = [Text(game.program.name, style="bold")]
    for part in parts:
        if len(lines[-1]) + 3 + len(part) > width:
            lines.append(Text())
        if len(lines[-1]):
            lines[-1].append(" · ")
        lines[-1].append_text(part)
    return Text("\n").join(lines)


def status_values(game: Game, obs: dict) -> list[Text]:
    parts = []
    for spec in game.program.view.get("status", []):
        value = value_of(game, obs, spec, None)
        if value in (None, "—", [], ""):
            continue  # nothing to show (no card in play, no initiative yet)
        part = Text(f"{spec['label']} ")  # the view's label: translated with the view
        part.append(shown(game.program, value), style=player_style(game.program, value)
                    if value in game.program.players else "bold")
        parts.append(part)
    return parts


def player_table(game: Game, obs: dict) -> Table:
    program = game.program
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    table.add_column("")
    rows = program.view["player_rows"]
    for spec in rows:
        numeric = spec.get("counter") or spec.get("function")
        table.add_column(spec["label"], no_wrap=True, justify="right" if numeric else "left")
    out = set(obs.get("out") or ())
    for p in program.players:
        name = player_name(program, p)
        if p in out:  # eliminated: the same words as the web board's
            name = ui(program, "{player} (out)", player=name)
        cells = [Text(name, style=player_style(program, p))]
        for spec in rows:
            cells.append(Text(shown(program, value_of(game, obs, spec, p))))
        table.add_row(*cells)
    return table


# ---- locations ----------------------------------------------------------------
def locations_of(game: Game, group: dict) -> list[str]:
    program = game.program
    if group.get("order"):
        return list(game.state.tracks[group["order"]])
    kind = group.get("kind") or program.pools[group["pool"]].kind
    return list(program.kinds.get(kind, []))


def support_text(game: Game, obs: dict, pool: str, where: str) -> Text:
    """The owner's mark and count (`K3`); in a stacking pool each player's, in seat order."""
    counts = holdings(obs["pools"][pool].get(where))
    if not counts:
        return Text("·", style="dim")
    program = game.program
    text = Text()
    for who in [p for p in program.players if p in counts]:
        if text:
            text.append(" ")
        text.append(f"{player_marks(program)[who]}{counts[who]}", style=player_style(program, who))
    return text


def cell(game: Game, obs: dict, group: dict, where: str, name: str, name_width: int,
         position: int | None = None) -> Text:
    program = game.program
    if position is not None:
        name = f"{position} {name}"
    text = Text(name.ljust(name_width))
    if group.get("value"):
        value = program.locations[where].get(group["value"])
        text.append(f" {'' if value is None else value:>2}", style="dim")
    text.append(" ")
    text.append(support_text(game, obs, group["pool"], where))
    return text


def location_group(game: Game, obs: dict, group: dict, width: int) -> RenderableType:
    """A group of locations: on a wide terminal one column per section, the places by id
    and name, or by id alone where the names would not fit; else rows that wrap."""
    places = locations_of(game, group)
    sections = grouped(game.program, places, group.get("by"))
    if len(sections) > 1 and width >= WIDE:
        for named in (True, False):
            cells = group_cells(game, obs, group, places, named)
            if columns_width(sections, cells) <= width:
                return columns(group["title"], sections, cells)
    cells = group_cells(game, obs, group, places, False)
    if width >= WIDE and len(sections) == 1:
        return column(group["title"], places, cells)
    return rows(group["title"], sections, cells, width)


def group_cells(game: Game, obs: dict, group: dict, places: list[str],
                named: bool) -> dict[str, Text]:
    """Each place's cell: its label (`named`: the id followed by the name), then its value
    and support."""
    numbered = bool(group.get("order"))
    names = {w: label(game.program, group, w, named) for w in places}
    name_width = max((len(n) for n in names.values()), default=2) + (2 if numbered else 0)
    return {w: cell(game, obs, group, w, names[w], name_width,
                    places.index(w) + 1 if numbered else None) for w in places}


def columns_width(sections: list[tuple[str, list[str]]], cells: dict) -> int:
    """The width `columns` lays the sections out in: each as wide as its widest line."""
    widths = [max([len(name), *(len(cells[w].plain) for w in items)]) for name, items in sections]
    return sum(widths) + COLUMN_GAP * (len(widths) - 1)


def label(program, group: dict, where: str, wide: bool) -> str:
    """A location by id or name; on wide screens an id is followed by the name."""
    if group.get("names") == "name":
        return place_name(program, where)
    name = place_name(program, where)
    return f"{where} {name}" if wide and name != where else where


def grouped(program, places: list[str], by: str | None) -> list[tuple[str, list[str]]]:
    """Places split by the value of property `by`, in the board's order of those values."""
    if not by:
        return [("", places)]
    groups: dict[Any, list[str]] = {}
    for where in places:
        groups.setdefault(program.locations[where].get(by), []).append(where)

    def rank(key: Any) -> tuple:
        info = program.locations.get(key) if isinstance(key, str) else None
        if info is None:
            return (1, 0, str(key))
        return (0, program.kinds[info["kind"]].index(key), "")

    return [(place_name(program, k), groups[k]) for k in sorted(groups, key=rank)]


def columns(title: str, sections: list[tuple[str, list[str]]], cells: dict) -> Table:
    """Each section a column, one location per line (wide terminals)."""
    table = Table(title=title, title_justify="left", title_style="bold underline", box=None,
                  pad_edge=False, padding=(0, COLUMN_GAP, 0, 0), show_edge=False)
    for name, _ in sections:
        table.add_column(name, no_wrap=True, header_style="bold")
    depth = max(len(items) for _, items in sections)
    for i in range(depth):
        table.add_row(*[cells[items[i]] if i < len(items) else Text("")
                        for _, items in sections])
    return table


def column(title: str, places: list[str], cells: dict) -> Group:
    """One location per line under the title (a section beside others on wide screens)."""
    return Group(Text(title, style="bold underline"), *[cells[w] for w in places])


def rows(title: str, sections: list[tuple[str, list[str]]], cells: dict, width: int) -> Group:
    """Each section as wrapped rows of fixed-width cells (narrow terminals)."""
    lines: list[Text] = [Text(title, style="bold underline")]
    label_width = max((len(name) for name, _ in sections), default=0)
    label_width = label_width + 2 if label_width else 0
    cell_width = max(len(c.plain) for c in cells.values()) + 2 if cells else 1
    per_line = max(1, (width - label_width) // cell_width)
    for name, items in sections:
        for start in range(0, len(items), per_line):
            line = Text((name if start == 0 else "").ljust(label_width), style="bold")
            for where in items[start:start + per_line]:
                c = cells[where].copy()
                c.pad_right(cell_width - len(c.plain))
                line.append(c)
            line.rstrip()
            lines.append(line)
    return Group(*lines)


# ---- cards ------------------------------------------------------------------------
def zone_name(program, zone: str) -> str:
    """A zone as a person reads it: the pack's name for it, else its id in words."""
    return program.names.get(zone) or zone.replace("_", " ")



def card_fields(game: Game, card: int, columns: list[str]) -> list[str]:
    info = game.program.cards.get(card, {})
    return [shown(game.program, info.get(c)) if info.get(c) not in (None, "") else ""
            for c in columns]


def hand_lines(game: Game, obs: dict, player: str) -> list[RenderableType]:
    program = game.program
    columns = [c for c in program.view.get("card_columns", ["number", "title"]) if c != "text"]
    out: list[RenderableType] = []
    for zone in program.view.get("hands", []):
        mine = obs["zones"].get(f"{zone}:{player}")
        others = [ui(program, "{player}: {n} {cards}", player=player_name(program, p), n=n,
                     cards=noun(program, n, "card"))
                  for p in program.players if p != player
                  for held in [obs["zones"].get(f"{zone}:{p}")] if held is not None
                  for n in [held if isinstance(held, int) else len(held)]]
        counts = ", ".join(others)
        title = ui(program, "{zone} of {player}", zone=zone_name(program, zone).capitalize(),
                   player=player_name(program, player))
        # a line of its own: as the table's title it would wrap at the width of the cards
        out.append(Text(title + (f" ({counts})" if counts else ""), style="bold underline"))
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        for c in columns:
            table.add_column(heading(c, program), no_wrap=c != "title", overflow="ellipsis")
        for card in mine if isinstance(mine, list) else []:
            table.add_row(*card_fields(game, card, columns))
        out.append(table)
        out.extend(mate_hands(game, obs, player, zone, columns))
    out.extend(shown_lines(game, obs, columns))
    return out


def mate_hands(game: Game, obs: dict, player: str, zone: str,
               columns: list[str]) -> list[RenderableType]:
    """The hands of `player`'s teammates that their observation shows (a zone
    `shown_to_team`), each under its own title; nothing for a player alone."""
    program = game.program
    out: list[RenderableType] = []
    for mate in mates_table(program).get(player, ()):
        held = obs["zones"].get(f"{zone}:{mate}")
        if not isinstance(held, list):
            continue
        title = ui(program, "{zone} of {player}", zone=zone_name(program, zone).capitalize(),
                   player=player_name(program, mate))
        out.append(Text(title, style="bold underline"))
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        for c in columns:
            table.add_column(heading(c, program), no_wrap=c != "title", overflow="ellipsis")
        for card in held:
            table.add_row(*card_fields(game, card, columns))
        out.append(table)
    return out


def shown_lines(game: Game, obs: dict, columns: list[str]) -> list[RenderableType]:
    """What the rules showed this player once (`show ... to P`): the cards as they were
    then, with the place each was in; nothing when nothing was shown."""
    cards = shown_to(game.program, obs)
    if not cards:
        return []
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for c in columns:
        table.add_column(heading(c, game.program), no_wrap=c != "title", overflow="ellipsis")
    table.add_column(ui(game.program, "Seen in"), no_wrap=True)
    for number, where in cards:
        table.add_row(*card_fields(game, number, columns), where)
    return [Text(ui(game.program, "Shown to you"), style="bold underline"), table]
