"""`hustings simulate`: many seeded games between agents, streamed to JSON Lines, summarised."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

from .. import cli
from ..agents import make_agent
from ..simulation.records import Matchup, read_records, write_records
from ..simulation.runner import Job, PackSpec, run_local, run_ray
from ..simulation.summary import compare, summarize

NAME = "simulate"
HELP = "play many seeded games between agents; results as JSON Lines, summary and report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the first game; game i has seed SEED + i (default 1)")
    parser.add_argument("--seat", action="append", default=[], metavar="PLAYER=AGENT",
                        help="who plays a side: random, greedy, ismcts or e.g. "
                        "ismcts:iterations=50 (repeatable; unseated players are greedy)")
    parser.add_argument("--swap", action="store_true",
                        help="rotate the agents between the seats on every other game")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (local backend)")
    parser.add_argument("--backend", choices=["local", "ray"], default="local")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (default: start a local Ray)")
    parser.add_argument("--out", type=Path, default=None,
                        help="results file (default: REPORT/results.jsonl or simulate.jsonl)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the games already in the results file and play the rest")
    parser.add_argument("--report", type=Path, default=None, metavar="DIR",
                        help="write summary.json, PNG plots and report.html into DIR")
    parser.add_argument("--compare", type=Path, default=None, metavar="BASELINE",
                        help="a previous results file: report each figure's difference")
    cli.add_pack_arguments(parser)
    cli.add_players_argument(parser)


def add_player_flags(parser: argparse.ArgumentParser, players: list[str] | None) -> None:
    """`--PLAYER AGENT`: one flag per player of the pack named (as `play` has)."""
    cli.add_seat_flags(parser, players, None)


def seat_specs(args: argparse.Namespace) -> list[str]:
    """--seat PLAYER=AGENT entries, with the per-player flags added as the same."""
    flagged = [f"{p}={getattr(args, f'seat_{p}')}" for p in getattr(args, "player_flags", [])
               if getattr(args, f"seat_{p}", None) is not None]
    return [*args.seat, *flagged]


# What `--report` imports, and the extra of the package that installs it.
REPORT_NEEDS = ("matplotlib",)
REPORT_EXTRA = "pip install '.[sim]'  (or, installed from an index: pip install 'hustings[sim]')"


def missing_report_modules() -> list[str]:
    """The modules `--report` needs that do not import here. Imported, not just looked up:
    a package present but broken (a dependency of its own missing) fails the same way."""
    missing = []
    for name in REPORT_NEEDS:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def run(args: argparse.Namespace) -> int:
    if args.report is not None and (missing := missing_report_modules()):
        # Checked before any game, so that an hour of games is not played for a report that
        # cannot be drawn, nor a results file left behind that a rerun would refuse.
        print(f"hustings simulate: --report needs {', '.join(missing)}, which the `sim` extra "
              f"installs: {REPORT_EXTRA}", file=sys.stderr)
        return 2
    spec = PackSpec(str(args.pack) if args.pack else None, cli.parse_options(args.option),
                    tuple(str(m) for m in args.mods), args.players)
    program = cli.load_or_report(args.pack, dict(spec.options), args.mods, args.players)
    if program is None:
        return 1
    if args.compare is not None and not args.compare.is_file():
        print(f"hustings simulate: --compare {args.compare}: no such results file",
              file=sys.stderr)
        return 2
    try:
        matchup = Matchup(seats(seat_specs(args), program.players), args.swap)
        out = results_path(args)
        done = previous(out, args.resume, args.seed, matchup)
    except ValueError as e:
        print(f"hustings simulate: {e}", file=sys.stderr)
        return 2
    todo = tuple(i for i in range(args.games) if args.seed + i not in done)
    job = Job(matchup, args.seed, todo)
    start = time.perf_counter()
    if args.backend == "ray":
        if importlib.util.find_spec("ray") is None:
            print("hustings simulate: the Ray backend needs `pip install 'hustings[ray]'`",
                  file=sys.stderr)
            return 2
        stream = run_ray(program, job, args.address)
    else:
        stream = run_local(spec, program, job, max(1, args.jobs))
    with_progress(write_records(out, stream), len(todo))
    elapsed = time.perf_counter() - start
    records = [r for r in read_records(out) if args.seed <= r["seed"] < args.seed + args.games]
    summary = summarize(records)
    print(f"{len(todo)} games played in {elapsed:.1f} s ({len(records) - len(todo)} resumed); "
          f"results in {out}")
    print_summary(summary)
    comparison = None
    if args.compare is not None:
        try:
            baseline = read_records(args.compare)
        except ValueError as e:
            print(f"hustings simulate: {e}", file=sys.stderr)
            return 2
        comparison = compare(summarize(baseline), summary)
        print_comparison(comparison)
    if args.report is not None:
        return write_report(args, program, summary, comparison, matchup)
    return 0


def seats(values: list[str], players: list[str]) -> dict[str, str]:
    chosen = dict.fromkeys(players, "greedy")
    given: dict[str, str] = {}
    for value in values:
        player, eq, agent = value.partition("=")
        if not eq:
            raise ValueError(f"--seat {value!r}: write PLAYER=AGENT, e.g. {players[0]}=greedy")
        if player not in chosen:
            raise ValueError(f"--seat {value!r}: no player {player!r}; players: "
                             + ", ".join(players))
        make_agent(agent, 0)  # its name and settings checked now, not in a worker
        if given.setdefault(player, agent) != agent:
            raise ValueError(f"{player} is seated twice: {given[player]} and {agent}")
        chosen[player] = agent
    return chosen


def results_path(args: argparse.Namespace) -> Path:
    if args.out is not None:
        return args.out
    if args.report is not None:
        args.report.mkdir(parents=True, exist_ok=True)
        return args.report / "results.jsonl"
    return Path("simulate.jsonl")


def previous(out: Path, resume: bool, first_seed: int, matchup: Matchup) -> set[int]:
    """Seeds already in the results file (with --resume); the file is trimmed to whole lines."""
    if not out.exists() or out.stat().st_size == 0:
        return set()
    if not resume:
        raise ValueError(f"{out} already exists: add --resume to continue it, "
                         "or choose another --out")
    records = read_records(out)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    out.write_text(text)  # drops a line torn by an interruption
    for r in records:
        index = r["seed"] - first_seed
        if 0 <= index and r["seats"] != matchup.for_seed(index):
            raise ValueError(f"{out} holds game {r['seed']} with seats {r['seats']}, "
                             f"not {matchup.for_seed(index)}: use another --out")
    return {r["seed"] for r in records}


def with_progress(stream, total: int) -> None:
    """Consume the stream showing games done, games/s and time left (rich if installed)."""
    try:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
    except ImportError:
        return plain_progress(stream, total)
    columns = [TextColumn("games"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("left"),
               TimeRemainingColumn()]
    start = time.perf_counter()
    with Progress(*columns, transient=False, console=_stderr_console()) as progress:
        task = progress.add_task("games", total=total, rate="")
        for n, _ in enumerate(stream, 1):
            rate = n / max(1e-9, time.perf_counter() - start)
            progress.update(task, advance=1, rate=f"{rate:.2f} games/s")


def plain_progress(stream, total: int) -> None:
    start = time.perf_counter()
    for n, _ in enumerate(stream, 1):
        rate = n / max(1e-9, time.perf_counter() - start)
        print(f"\rgames {n}/{total}  {rate:.2f} games/s  {(total - n) / rate:.0f} s left",
              end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def print_summary(s: dict[str, Any]) -> None:
    for name, r in [*s["sides"].items(), *(("agent " + a, r) for a, r in s["agents"].items())]:
        print(f"  {name:<28} {r['wins']:>5}/{r['games']:<5} {100 * r['rate']:5.1f}%  "
              f"95% CI {100 * r['low']:.1f}-{100 * r['high']:.1f}%")
    m = s["margin"]
    if m["n"]:
        print(f"  mean margin of the winner: {m['mean']:.1f}")
    for agent, t in s["think"].items():
        print(f"  {agent}: {1000 * t['per_decision']:.1f} ms per decision")


def print_comparison(c: dict[str, Any]) -> None:
    print(f"against the baseline ({c['test']}):")
    for p, r in c["sides"].items():
        flag = "significant" if r["significant"] else "not significant"
        print(f"  {p} win rate {100 * r['base']:.1f}% -> {100 * r['other']:.1f}% "
              f"({100 * r['diff']:+.1f} points, p = {r['p']:.3g}, {flag})")
    m = c["signed_margin"]
    print(f"  mean signed margin {m['base']:.1f} -> {m['other']:.1f} (p = {m['p']:.3g})")


def write_report(args, program, summary, comparison, matchup: Matchup) -> int:
    try:
        from ..simulation.report import write_report as write
    except ImportError:
        print(f"hustings simulate: --report needs matplotlib: {REPORT_EXTRA}", file=sys.stderr)
        return 2
    titles = {str(n): c["title"] for n, c in program.cards.items()}
    label = f"{program.name}: " + ", ".join(f"{p}={a}" for p, a in matchup.seats.items())
    if matchup.swap:
        label += " (seats swapped every other game)"
    try:
        paths = write(args.report, summary, titles, comparison, label)
    except ImportError:
        print(f"hustings simulate: --report needs matplotlib: {REPORT_EXTRA}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}")
    return 0

