"""`hustings interactions`: cards whose events act on other cards or reach into the rules."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from ...dsl.outline import format_interactions, interactions
from .. import cli

NAME = "interactions"
HELP = "list cards that prevent, move or resolve other cards, persistent cards, lasting effects"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument("--pack", type=Path, default=None, help="pack folder (default: 1960)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME[=off]")


def run(args: argparse.Namespace) -> int:
    program = cli.load_or_report(args.pack, cli.parse_options(args.option))
    if program is None:
        return 1
    rows = interactions(program)
    if args.format == "json":
        print(json.dumps([asdict(r) for r in rows], indent=1))
    else:
        print(format_interactions(rows), end="")
    return 0
