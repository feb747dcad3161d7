"""`hustings graph CARD`: a card's compiled event as a DOT and/or Mermaid graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import cli
from ..failures import UsageError

NAME = "graph"
HELP = "draw a card's compiled event as a graph (Graphviz DOT and/or Mermaid)"

# File endings that pick a format when --out is given without --format.
_BY_SUFFIX = {".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", help="card number or title (any case)")
    parser.add_argument("--format", choices=["dot", "mermaid"], default=None,
                        help="one format only (default: both, or as --out's file ending says)")
    parser.add_argument("--out", type=Path, default=None, help="write to this file")
    parser.add_argument("--depth", type=int, default=0,
                        help="also draw the bodies of called procedures, this many levels deep")
    cli.add_pack_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..reading.effect_graph import effect_graph

    found = cli.load_card(args)
    if found is None:
        return 1
    program, number = found
    graph = effect_graph(program, number, depth=max(0, args.depth))
    fmt = args.format or (_BY_SUFFIX.get(args.out.suffix.lower()) if args.out else None)
    text = render(graph, fmt)
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            args.out.write_text(text)
        except OSError as e:
            raise UsageError(f"--out {args.out}: cannot write there ({e.strerror})") from None
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def render(graph, fmt: str | None) -> str:
    """One format, or both (DOT first) when none is asked for."""
    from ..reading.effect_graph import to_dot, to_mermaid

    if fmt == "dot":
        return to_dot(graph)
    if fmt == "mermaid":
        return to_mermaid(graph)
    return "// Graphviz DOT\n" + to_dot(graph) + "\n%% Mermaid\n" + to_mermaid(graph)
