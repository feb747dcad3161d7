"""`hustings explain CARD`: what a card's compiled event asks, reads, changes and limits."""

from __future__ import annotations

import argparse
import json
import sys

from .. import cli

NAME = "explain"
HELP = "explain a card's event: decisions, reads, changes, limits, timing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", help="card number or title (any case)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    cli.add_pack_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..reading.outline import format_outline, outline

    found = cli.load_card(args)
    if found is None:
        return 1
    program, number = found
    result = outline(program, number)
    if args.format == "json":
        print(json.dumps(result.as_dict(), indent=1, default=str))
    else:
        sys.stdout.write(format_outline(result))
    return 0
