"""`hustings cards [FILTER]`: the pack's cards as a table, with the columns its view declares."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from .. import cli
from ..terminal.look import shown

if TYPE_CHECKING:
    from rich.table import Table

    from ...interpreter.program import Program

NAME = "cards"
HELP = "list the cards as a table (FILTER: title words, a number, a field value or FIELD=VALUE)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("filter", nargs="*", metavar="FILTER",
                        help="words of the title, a card number, a field's value (an id or its"
                             " name) or FIELD=VALUE; every word must match")
    parser.add_argument("--width", type=int, default=None,
                        help="table width (default: the terminal's)")
    cli.add_pack_arguments(parser)


def run(args: argparse.Namespace) -> int:
    program = cli.load_or_report(args.pack, cli.parse_options(args.option), args.mods)
    if program is None:
        return 1
    if args.width is not None and args.width < 20:
        print("hustings cards: --width must be at least 20", file=sys.stderr)
        return 2
    found = [n for n in sorted(program.cards) if matches(program, n, args.filter)]
    if not found:
        print(f"no card matches {' '.join(args.filter)!r}", file=sys.stderr)
        return 1
    from rich.console import Console

    console = Console(width=args.width, highlight=False, soft_wrap=False)
    console.print(card_table(program, found))
    print(f"{len(found)} card{'s' if len(found) != 1 else ''}")
    return 0


def card_table(program: Program, numbers: list[int]) -> Table:
    from rich import box
    from rich.table import Table

    columns = program.view.get("card_columns") or ["number", "title", "text"]
    table = Table(box=box.SIMPLE_HEAD, show_lines=True, header_style="bold", pad_edge=False)
    for c in columns:
        heading = c.upper() if len(c) <= 2 else c.replace("_", " ").capitalize()
        if c == "text":
            table.add_column(heading, ratio=1, overflow="fold")
        elif c == "title":
            table.add_column(heading, max_width=28)
        else:
            table.add_column("#" if c == "number" else heading, no_wrap=True,
                             justify="right" if numeric(program, numbers, c) else "left")
    for n in numbers:
        info = program.cards[n]
        table.add_row(*[shown(program, info.get(c)) if info.get(c) not in (None, "") else ""
                        for c in columns])
    return table


def numeric(program: Program, numbers: list[int], field: str) -> bool:
    """Whether a column holds numbers only (aligned right)."""
    values = [program.cards[n].get(field) for n in numbers]
    return all(isinstance(v, int) or v is None for v in values)


def matches(program: Program, number: int, words: list[str]) -> bool:
    """Every word matches: the number, a field's value (id or display name) or
    FIELD=VALUE, or the start of a word of the title (any case)."""
    info = program.cards[number]
    title = re.findall(r"\w+", info["title"].lower())
    for word in (w.lower() for w in words):
        field, eq, value = word.partition("=")
        if eq:
            if not value_is(program, info.get(field), value):
                return False
        elif not (word == str(number) or any(t.startswith(word) for t in title)
                  or any(value_is(program, v, word) for k, v in info.items()
                         if k not in ("title", "text", "number"))):
            return False
    return True


def value_is(program: Program, value, word: str) -> bool:
    if value is None:
        return False
    return word in (str(value).lower(), shown(program, value).lower())
