"""Reading an answer at the prompt against the legal options, and laying long lists out.

An answer is a number (the one shown beside the option, see numbering.py), a label (any
case), a unique prefix of one, or text that filters the options. Options that name a
place are grouped by the place's property the pack's view names (`choices_by`), in
columns on wide terminals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...interpreter.game import Game
from .look import place_name

SHORT_LIST = 12
WIDE = 110


@dataclass
class Option:
    index: int  # its place among the legal actions (what the game is given)
    label: str
    note: str | None
    place: str | None  # the place the option names, if any
    plain: bool = False  # a menu option of its own, not one of a list (`for x in ...`)
    number: int = -1  # the number shown beside it (-1: its index)
    shown: str | None = None  # the place as the label words it: its display name

    def __post_init__(self) -> None:
        if self.number < 0:
            self.number = self.index


def options_of(game: Game) -> list[Option]:
    pending = game.state.pending or {}
    labels = game.legal_actions()
    notes = game.remarks()["notes"]
    payloads = pending.get("payloads") or [None] * len(labels)
    places = [place_of(game, payload) for payload in payloads]
    return [Option(i, label, notes[i], place, plain_option(payloads[i]),
                   shown=place_name(game.program, place) if place else None)
            for i, (label, place) in enumerate(zip(labels, places, strict=True))]


def plain_option(payload: Any) -> bool:
    """A menu's option that stands alone (`"stop":`), not one drawn from a list:
    its payload names its block and no variable."""
    return (isinstance(payload, list) and len(payload) == 4 and payload[0] == "branch"
            and payload[2] is None)


def place_of(game: Game, payload: Any) -> str | None:
    """The place an option binds, if its value is a location of the board."""
    if not isinstance(payload, list) or not payload:
        return None
    value = payload[2] if payload[0] == "bind" else payload[-1]
    return value if isinstance(value, str) and value in game.program.locations else None


@dataclass
class Answer:
    """What an answer means: one option, or a subset to show (possibly empty), or the
    number of an option this decision no longer offers (`gone`: its label)."""

    index: int | None = None
    subset: list[Option] | None = None
    gone: str | None = None


def interpret(options: list[Option], text: str, gone: dict[int, str] | None = None) -> Answer:
    """Number (as shown), label (any case), unique prefix, `/filter`, or plain text that
    filters. `gone`: the numbers of options offered earlier in this decision, by number."""
    answer = text.strip()
    if answer.isascii() and answer.isdigit():  # not '²', which int() refuses
        digits = answer.lstrip("0") or "0"
        n = int(digits) if len(digits) <= 9 else -1  # nor 5,000 digits
        numbered = [o for o in options if o.number == n]
        if numbered:
            return Answer(index=numbered[0].index)
        if gone and n in gone:
            return Answer(gone=gone[n])
        return Answer(subset=[])
    query = answer[1:].strip() if answer.startswith("/") else answer
    lowered = query.lower()
    if not answer.startswith("/"):
        exact = [o for o in options if o.label.lower() == lowered]
        if len(exact) == 1:
            return Answer(index=exact[0].index)
        starting = [o for o in options if o.label.lower().startswith(lowered)]
        if len(starting) == 1:
            return Answer(index=starting[0].index)
        if starting:
            return Answer(subset=starting)
    return Answer(subset=[o for o in options if matches(o, lowered)])


def matches(option: Option, query: str) -> bool:
    """Every word of the query starts a word of the label or note (any case): `pa` finds
    'build in B2' and 'move to B2' but not every 'build'."""
    words = re.findall(r"\w+", f"{option.label} {option.note or ''}".lower())
    return all(any(w.startswith(q) for w in words) for q in re.findall(r"\w+", query))


# ---- layout -------------------------------------------------------------------------
def option_text(option: Option, label: str | None = None) -> Text:
    text = Text(f"  {option.number:3d}. ", style="dim")
    text.append(label if label is not None else option.label, style="bold")
    if option.note:
        text.append(f" — {option.note}", style="cyan")
    return text


def option_list(game: Game, options: list[Option], width: int) -> RenderableType:
    """Options one per line; a long list in sections of one label and note, by place."""
    by = game.program.view.get("choices_by")
    if len(options) <= SHORT_LIST or not by:
        return Group(*[option_text(o) for o in options])
    parts: list[RenderableType] = []
    for title, members in sections(options):
        if len(members) <= 2 or not all(o.place for o in members):
            parts.extend(option_text(o) for o in members)
            continue
        if title:
            parts.append(Text(title, style="bold"))
        parts.append(place_groups(game, members, by, width))
    return Group(*parts)


def sections(options: list[Option]) -> list[tuple[str, list[Option]]]:
    """Options sorted by their label with the place left out, and their note:
    'build in … — 2 gold'. Options that are only a place have the title '' (no '…')."""
    out: dict[str, list[Option]] = {}
    for o in options:
        key = o.label.replace(o.shown or o.place, "…") if o.place else o.label
        if key == "…":
            key = ""
        if o.note:
            key = f"{key} — {o.note}" if key else o.note
        out.setdefault(key, []).append(o)
    return list(out.items())


def place_groups(game: Game, members: list[Option], by: str, width: int) -> RenderableType:
    """The options' places by group: side by side on wide terminals, else one row each."""
    program = game.program
    groups: dict[str, list[Option]] = {}
    for o in members:
        key = program.locations[o.place].get(by)
        groups.setdefault(place_name(program, key) if key else "", []).append(o)
    cell_width = max(len(short_cell(o).plain) for o in members) + 2
    if width >= WIDE and len(groups) > 1:
        per_cell = max(1, (width // len(groups) - 2) // cell_width)
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        for name in groups:
            table.add_column(name, header_style="bold", no_wrap=True)
        chunks = {n: [v[i:i + per_cell] for i in range(0, len(v), per_cell)]
                  for n, v in groups.items()}
        for i in range(max(len(c) for c in chunks.values())):
            table.add_row(*[cell_line(c[i], cell_width) if i < len(c) else Text("")
                            for c in chunks.values()])
        return table
    label_width = max(len(name) for name in groups) + 2
    per_line = max(1, (width - label_width) // cell_width)
    lines: list[Text] = []
    for name, items in groups.items():
        for start in range(0, len(items), per_line):
            line = Text(("  " + name if start == 0 else "").ljust(label_width), style="bold")
            line.append_text(cell_line(items[start:start + per_line], cell_width))
            lines.append(line)
    return Group(*lines)


def cell_line(items: list[Option], cell_width: int) -> Text:
    line = Text()
    for o in items:
        c = short_cell(o)
        c.pad_right(cell_width - len(c.plain))
        line.append_text(c)
    line.rstrip()
    return line


def short_cell(option: Option) -> Text:
    """The option's number and place: the rest is its section's title."""
    text = Text(f"{option.number:3d} ", style="dim")
    text.append(option.place or option.label, style="bold")
    return text


# ---- giving something up --------------------------------------------------------------
_DIGITS = re.compile(r"\d+")


def given_up(option: Option, options: list[Option], status: str | None) -> str | None:
    """What picking `option` leaves unused, in the decision's own words (its status, e.g.
    "1 point left"), or None when it gives nothing up.

    The rules mark no option as "the one that stops"; the tool reads it from the shape of
    the decision: the one option that stands alone beside options drawn from a list (as
    "stop" beside "place a piece in …"), while the status counts something
    that is not zero. A status counting nothing, or a menu of options that all stand
    alone (yes / no), gives nothing up."""
    if not option.plain or not status:
        return None
    if sum(o.plain for o in options) != 1 or len(options) < 2:
        return None
    if not any(d.strip("0") for d in _DIGITS.findall(status)):
        return None
    return status
