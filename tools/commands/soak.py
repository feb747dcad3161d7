"""`hustings soak`: many games checking every invariant after every action.

Game i plays with seed S+i and an agent seeded the same way (`--agent`: random by
default, or an exploring agent of tools/explorers.py that pushes where random play
seldom goes), so a game is the same whichever process runs it. After every action
the state must pass every invariant of interpreter/invariants.py (the pending
decision re-derived included); at one action in 25 the game is saved, loaded
back, must save to the same text, and goes on from the loaded copy. A violation,
or any exception (a rule error too), is reported with the seed and the action
index; the command then exits 1.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import cli
from ..explorers import EXPLORERS, explorer

NAME = "soak"
HELP = "games in parallel (random or exploring agents), every invariant checked after every action"

ROUND_TRIP_EVERY = 25
CHUNK = 10  # games per task sent to a process


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    parser.add_argument("--jobs", type=int, default=1, help="processes to run them in (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("--agent", default="random",
                        help=f"who plays every seat: {', '.join(EXPLORERS)} (default random), "
                             "or an agent spec such as greedy (docs/soak.md)")
    cli.add_pack_arguments(parser)
    cli.add_players_argument(parser)


@dataclass
class Outcome:
    seed: int
    actions: int
    problem: str | None = None  # what went wrong, if anything
    action: int = 0  # index of the action after which it went wrong


def soak_game(program, seed: int, agent: str = "random") -> Outcome:
    """Play one game, every seat by `agent`, checking everything; the first problem
    ends it (a rule error too: legal play must never drive a pack into one)."""
    from ...interpreter.game import Game, ops_for
    from ...interpreter.invariants import first_violation

    ops = ops_for(program)
    choose = explorer(agent, seed)
    step = 0
    try:
        game = Game.new(program, seed=seed)
        problem = first_violation(program, game.state, ops)
        while problem is None and not game.is_terminal():
            game.apply_action(choose(game))
            step += 1
            problem = first_violation(program, game.state, ops)
            if problem is None and step % ROUND_TRIP_EVERY == seed % ROUND_TRIP_EVERY:
                text = game.save()
                game = Game.load(program, text)
                if game.save() != text:
                    problem = "a save loaded back saves differently"
        if problem is None and game.result() is None:
            problem = "the game ended without a result"
    except Exception as e:  # noqa: BLE001 - every failure is reported with its seed
        problem = f"{type(e).__name__}: {e}"
    return Outcome(seed, step, problem, step)


_PROGRAM = None
_AGENT = "random"


def _init_worker(pack: Path | None, options: dict[str, bool], mods: list[Path],
                 agent: str, players: int | None = None) -> None:
    global _PROGRAM, _AGENT
    from ...dsl.loading import load_pack

    _PROGRAM = load_pack(pack, options, mods, players)
    _AGENT = agent


def _soak_chunk(seeds: list[int]) -> list[Outcome]:
    return [soak_game(_PROGRAM, seed, _AGENT) for seed in seeds]


def chunks(first: int, games: int) -> list[list[int]]:
    seeds = list(range(first, first + games))
    return [seeds[i:i + CHUNK] for i in range(0, len(seeds), CHUNK)]


def outcomes(args: argparse.Namespace, program, options: dict[str, bool]) -> Iterator[Outcome]:
    tasks = chunks(args.seed, args.games)
    if args.jobs <= 1:
        for seeds in tasks:
            for seed in seeds:
                yield soak_game(program, seed, args.agent)
        return
    init = (args.pack, options, list(args.mods), args.agent, args.players)
    with multiprocessing.Pool(args.jobs, _init_worker, init) as pool:
        for batch in pool.imap_unordered(_soak_chunk, tasks):
            yield from batch


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.jobs < 1:
        print("error: --games and --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        explorer(args.agent, 0)
    except ValueError as e:
        print(f"error: --agent: {e}", file=sys.stderr)
        return 2
    options = cli.parse_options(args.option)
    program = cli.load_or_report(args.pack, options, args.mods, args.players)
    if program is None:
        return 1
    start = last = time.perf_counter()
    done = actions = 0
    failures: list[Outcome] = []
    for outcome in outcomes(args, program, options):
        done += 1
        actions += outcome.actions
        if outcome.problem:
            failures.append(outcome)
            print(f"VIOLATION seed {outcome.seed}, action {outcome.action}: {outcome.problem}",
                  flush=True)
        now = time.perf_counter()
        if now - last >= 10 or done == args.games:
            last = now
            print(f"{done}/{args.games} games, {actions} actions, {len(failures)} violations, "
                  f"{done / (now - start):.1f} games/s", flush=True)
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "agent": args.agent, "games": done, "actions": actions, "violations": len(failures),
        "seconds": round(elapsed, 1), "games_per_s": round(done / elapsed, 2),
    }))
    if failures:
        first = min(failures, key=lambda o: o.seed)
        extra = f" --agent {args.agent}" if args.agent != "random" else ""
        extra += f" --pack {args.pack}" if args.pack is not None else ""
        extra += "".join(f" --option {o}" for o in args.option)
        extra += f" --players {args.players}" if args.players is not None else ""
        extra += "".join(f" --mod {m}" for m in args.mods)
        print(f"reproduce: hustings soak --games 1 --seed {first.seed}{extra}  "
              f"(fails after action {first.action})", file=sys.stderr)
        return 1
    return 0
