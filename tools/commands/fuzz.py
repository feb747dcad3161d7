"""`hustings fuzz --mutants N`: mutate a pack N ways; every mutant must fail cleanly or play.

Each mutant must give diagnostics with file:line:col, or compile and play
three short seeded games in which any rule error names its file:line:col
(see tools/fuzzing.py). Crashing mutants are written, as
whole packs, to the --crashes folder; the exit status is 1 if any crashed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...dsl.loading import builtin_pack

if TYPE_CHECKING:
    from ..fuzzing import Summary

NAME = "fuzz"
HELP = "check and play seeded mutants of a pack; exit 1 if any crashes the engine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pack", nargs="?", type=Path, default=None,
                        help="pack folder (default: the built-in 1960)")
    parser.add_argument("--mutants", type=int, default=500, help="how many mutants")
    parser.add_argument("--seed", type=int, default=1, help="seed of the mutations")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first mutant (to reproduce one)")
    parser.add_argument("--crashes", type=Path, default=Path("fuzz-crashes"),
                        help="folder for crashing mutants (default: fuzz-crashes)")
    parser.add_argument("--agent", default="random",
                        help="who plays the clean mutants: random (default), repeat, first, "
                             "last, search, or an agent spec such as greedy (docs/soak.md)")
    parser.add_argument("--every", type=int, default=100,
                        help="print progress every this many mutants")


def run(args: argparse.Namespace) -> int:
    from ..explorers import explorer
    from ..fuzzing import Summary, fuzz, save_crash

    pack = (args.pack or builtin_pack()).resolve()
    if not (pack / "pack.yaml").is_file():
        print(f"error: {pack} is not a pack folder (no pack.yaml)", file=sys.stderr)
        return 2
    try:
        explorer(args.agent, 0)
    except ValueError as e:
        print(f"error: --agent: {e}", file=sys.stderr)
        return 2
    summary = Summary()
    start = time.perf_counter()
    for outcome in fuzz(pack, args.seed, max(0, args.mutants), args.first, args.agent):
        summary.add(outcome)
        if outcome.verdict == "crash":
            saved = save_crash(pack, outcome, args.crashes, args.seed)
            m = outcome.mutant
            print(f"CRASH mutant {m.index}: {m.file}: {m.mutation} -> {saved}", flush=True)
        if args.every > 0 and summary.mutants % args.every == 0:
            print(progress(summary, time.perf_counter() - start), flush=True)
    elapsed = time.perf_counter() - start
    print(progress(summary, elapsed))
    return 1 if summary.crashes else 0


def progress(s: Summary, elapsed: float) -> str:
    return (f"{s.mutants} mutants: {s.diagnostics} diagnostics, "
            f"{s.clean + s.rule_errors} checked clean and played ({s.games} games: "
            f"{s.clean} mutants clean, {s.rule_errors} with a rule error at a line), "
            f"{len(s.crashes)} crashes ({elapsed:.1f} s)")
