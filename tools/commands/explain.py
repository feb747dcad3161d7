"""`hustings explain CARD`: what a card's compiled event asks, reads, changes and limits."""

from __future__ import annotations

import argparse
import json
import sys

from ...dsl.card_lookup import CardNotFound, find_card
from ...dsl.outline import format_outline, outline
from .. import cli

NAME = "explain"
HELP = "explain a card's event: decisions, reads, changes, limits, timing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", help="card number or title (any case)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    cli.add_pack_arguments(parser)


def run(args: argparse.Namespace) -> int:
    program = cli.load_or_report(args.pack, cli.parse_options(args.option), args.mods)
    if program is None:
        return 1
    try:
        number = find_card(program, args.card)
    except CardNotFound as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    result = outline(program, number)
    if args.format == "json":
        print(json.dumps(result.as_dict(), indent=1, default=str))
    else:
        sys.stdout.write(format_outline(result))
    return 0
