"""`hustings interactions`: cards whose events act on other cards or reach into the rules."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from .. import cli

NAME = "interactions"
HELP = "list cards that prevent, move or resolve other cards, persistent cards, lasting effects"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["table", "json"], default="table")
    cli.add_pack_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..reading.interactions import format_interactions, interactions

    program = cli.load_or_report(args.pack, cli.parse_options(args.option), args.mods)
    if program is None:
        return 1
    rows = interactions(program)
    if args.format == "json":
        print(json.dumps([asdict(r) for r in rows], indent=1))
    else:
        print(format_interactions(rows), end="")
    return 0
