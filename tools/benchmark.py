"""What `hustings bench` measures: random-vs-random games, in one process or several.

Game i is played with seed S+i by a random agent seeded the same way, so the games, and
the number of decisions they take, are the same whichever process plays them. The seeds
are split into contiguous blocks, one per process.

Two kinds of time, reported apart: CPU time (`time.process_time`) of the games alone,
summed over the processes, gives the speed of one core; wall-clock time from the first
game's start to the last game's end (less the yardsticks' turns in between) gives the
throughput of all of them together. The yardsticks (yardsticks.py) are other games the
pack is measured against; in one process they run between its games, a slice after
every chunk, so that both meet the same host.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .yardsticks import CHUNK_SECONDS, SHARE

if TYPE_CHECKING:
    from ..interpreter.program import Program
    from .yardsticks import Yardsticks


@dataclass
class Tally:
    """Games played by one process: how many, their decisions, and the time they took."""

    games: int = 0
    decisions: int = 0
    cpu: float = 0.0  # time.process_time of the games alone
    started: float = 0.0  # time.time at the first game's start
    ended: float = 0.0  # time.time at the last game's end
    paused: float = 0.0  # wall-clock time the yardsticks took between the games


def play_games(program: Program, seeds: list[int], yardsticks: Yardsticks | None = None,
               chunk: float = CHUNK_SECONDS, narrate: bool = False) -> Tally:
    """The games of `seeds`; with `yardsticks`, a slice of each after every `chunk` of
    CPU time of games (and after the last), its time kept out of the games'. The games
    are played as simulations play them, without the engine's narration (`narrate`: with
    it, as a person's game is; `narrated_speed`)."""
    from ..interpreter.errors import RuleError
    from ..interpreter.game import Game
    from .agents import random_agent
    from .failures import InputError

    tally = Tally(len(seeds), started=time.time())
    decisions, cpu = 0, time.process_time()
    for seed in seeds:
        try:
            game = Game.new(program, seed=seed, safe=False, narrate=narrate)
            agent = random_agent(seed)
            while not game.is_terminal():
                game.apply_action(agent(game))
                decisions += 1
        except RuleError as e:  # the content's fault: said as such, with the game's seed
            raise InputError(f"rule error in game {seed}: {e}") from None
        if yardsticks is not None and time.process_time() - cpu >= chunk:
            cpu = _yardstick_turn(tally, cpu, yardsticks)
    spent = time.process_time() - cpu
    tally.decisions, tally.cpu, tally.ended = decisions, tally.cpu + spent, time.time()
    if yardsticks is not None and spent > 0:  # the last chunk's turn
        yardsticks.run(spent * SHARE)
    return tally


def _yardstick_turn(tally: Tally, cpu: float, yardsticks: Yardsticks) -> float:
    """Count the games' time since `cpu`, run the yardsticks for their share of it,
    and answer the CPU clock the games start again from."""
    spent = time.process_time() - cpu
    tally.cpu += spent
    wall = time.time()
    yardsticks.run(spent * SHARE)
    tally.paused += time.time() - wall
    return time.process_time()


# Games replayed, off the clock, to count the options of a decision: a few of the pack's
# (one of 1960 takes 6 ms), many more of tic-tac-toe's (30 µs each, and they vary more).
BRANCHING_GAMES = 20
REFERENCE_BRANCHING_GAMES = 1000


NARRATED_GAMES = 20  # games played again with the narration a person's game has


def narrated_speed(program: Program, seeds: list[int]) -> float:
    """Games/s (CPU time) of the first seeds' games with the engine's narration of every
    decision and change, as `play` and `serve` play them."""
    tally = play_games(program, seeds[:NARRATED_GAMES], narrate=True)
    return tally.games / max(tally.cpu, 1e-9)


def options_per_decision(new_game: Callable[[int], Any], seeds: Iterable[int]) -> float:
    """The mean number of options a decision offers (the game's branching factor) over
    the games of `seeds`, replayed by the bench's random agent off the clock (the same
    games as timed). Decisions/s alone does not say what a decision weighs: a menu of
    fifty places costs more to offer than one of five squares."""
    from .agents import random_agent

    options = decisions = 0
    for seed in seeds:
        game, agent = new_game(seed), random_agent(seed)
        while not game.is_terminal():
            options += game.num_actions()
            decisions += 1
            game.apply_action(agent(game))
    return options / max(decisions, 1)


def branching(program: Program, first_seed: int, games: int) -> tuple[float, float]:
    """Options per decision of the pack's first games (at most BRANCHING_GAMES) and of
    plain tic-tac-toe's first REFERENCE_BRANCHING_GAMES, from the seed the bench starts at."""
    from ..interpreter.game import Game
    from .reference_game import TicTacToe

    seeds = range(first_seed, first_seed + min(games, BRANCHING_GAMES))
    pack = options_per_decision(lambda s: Game.new(program, seed=s, safe=False,
                                                   narrate=False), seeds)
    plain = range(first_seed, first_seed + REFERENCE_BRANCHING_GAMES)
    return pack, options_per_decision(lambda _: TicTacToe(), plain)


def seed_blocks(first: int, games: int, jobs: int) -> list[list[int]]:
    """The seeds first..first+games-1 in `jobs` contiguous blocks as even as can be
    (fewer blocks when there are fewer games than jobs)."""
    jobs = min(jobs, games)
    size, extra = divmod(games, jobs)
    blocks, start = [], first
    for i in range(jobs):
        end = start + size + (1 if i < extra else 0)
        blocks.append(list(range(start, end)))
        start = end
    return blocks


_PROGRAM: Program | None = None  # a worker's program: inherited when forked, else loaded


def _init_worker(pack: Path | None, options: dict[str, bool], mods: list[Path]) -> None:
    global _PROGRAM
    if _PROGRAM is None:
        from ..dsl.loading import load_pack

        _PROGRAM = load_pack(pack, options, mods)


def _play_block(seeds: list[int]) -> Tally:
    assert _PROGRAM is not None
    return play_games(_PROGRAM, seeds)


def run_games(program: Program, blocks: list[list[int]], pack: Path | None,
              options: dict[str, bool], mods: list[Path],
              yardsticks: Yardsticks | None = None) -> list[Tally]:
    """One tally per block: in this process for one block, between turns of the
    yardsticks; else one process per block (the yardsticks wait for the end)."""
    global _PROGRAM
    from ..interpreter.game import prepare

    prepare(program)  # compiled before any clock starts, and shared by forked workers
    if len(blocks) == 1:
        return [play_games(program, blocks[0], yardsticks)]
    _PROGRAM = program
    try:
        with multiprocessing.Pool(len(blocks), _init_worker, (pack, options, mods)) as pool:
            return pool.map(_play_block, blocks, chunksize=1)
    finally:
        _PROGRAM = None


@contextmanager
def on_one_cpu(active: bool = True) -> Iterator[None]:
    """Keep this process, and the processes it starts meanwhile, on one CPU (where the
    platform allows it). The games and the yardsticks then take turns on the same CPU:
    on a shared host each CPU has its own weather, and slices that hopped between CPUs
    met different ones (measured: OpenSpiel's ratio varied 1.04-1.39 over six runs
    unpinned, 1.08-1.11 pinned)."""
    pin = getattr(os, "sched_setaffinity", None)
    allowed: set[int] = set()
    if active and pin is not None:
        try:
            allowed = os.sched_getaffinity(0)
            pin(0, {min(allowed)})
        except OSError:  # not allowed here: measure unpinned
            allowed = set()
    try:
        yield
    finally:
        if allowed and pin is not None:
            pin(0, allowed)


def peak_mb() -> tuple[float, float] | None:
    """Peak resident memory (MB) of this process and of its largest finished child."""
    try:
        import resource
    except ImportError:  # not on this platform (Windows)
        return None
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KB
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 1e6
    return own, children


def summary(tallies: list[Tally], yardsticks: Yardsticks, memory: tuple[float, float] | None,
            options: tuple[float, float]) -> dict[str, Any]:
    """The figures of a run; per core ones in CPU time, the total in wall-clock time.
    `options`: the options per decision of the pack and of the reference (branching)."""
    games = sum(t.games for t in tallies)
    decisions = sum(t.decisions for t in tallies)
    cpu = max(sum(t.cpu for t in tallies), 1e-9)
    span = max(t.ended for t in tallies) - min(t.started for t in tallies)
    wall = max(span - sum(t.paused for t in tallies), 1e-9)
    speed = decisions / cpu
    plain = yardsticks.plain.speed()
    content, same_plain = yardsticks.same_content.speed(), yardsticks.same_plain.speed()
    figures = {
        "games": games,
        "games_per_s": round(games / cpu, 1),
        "decisions_per_s": round(speed),
        "decisions": decisions,
        "jobs": len(tallies),
        "wall_games_per_s": round(games / wall, 1),
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "peak_mb": round(max(memory), 1) if memory else None,
        "reference_decisions_per_s": round(plain),
        "ratio": round(speed / plain, 4),
        "options_per_decision": round(options[0], 2),
        "reference_options_per_decision": round(options[1], 2),
        "options_ratio": round(speed * options[0] / (plain * options[1]), 4),
        "openspiel_decisions_per_s": None,
        "openspiel_ratio": None,
        "same_game_games_per_s": round(content, 1),
        "same_game_reference_games_per_s": round(same_plain, 1),
        "same_game_ratio": round(content / same_plain, 4),
    }
    if yardsticks.openspiel is not None:
        openspiel = yardsticks.openspiel.speed()
        figures["openspiel_decisions_per_s"] = round(openspiel)
        figures["openspiel_ratio"] = round(speed / openspiel, 4)
    return figures


def report_lines(s: dict[str, Any], memory: tuple[float, float] | None) -> list[str]:
    jobs = f"{s['jobs']} process" + ("es" if s["jobs"] > 1 else "")
    lines = [
        f"{s['games']} games, {s['decisions']:,} decisions in {jobs}",
        f"  per core, CPU time ({s['cpu_seconds']:.2f} s summed over the processes): "
        f"{s['games_per_s']:.1f} games/s, {s['decisions_per_s']:,} decisions/s",
        f"  total, wall clock ({s['wall_seconds']:.2f} s, first game's start to last "
        f"game's end, less the yardsticks' turns): {s['wall_games_per_s']:.1f} games/s",
        f"reference: plain-Python tic-tac-toe, same random agent, CPU time: "
        f"{s['reference_decisions_per_s']:,} decisions/s; hustings decisions/s / "
        f"reference = {s['ratio']:.4f}",
        f"  options a decision offers, over the first {min(s['games'], BRANCHING_GAMES)} "
        f"games: {s['options_per_decision']:.2f} (tic-tac-toe: "
        f"{s['reference_options_per_decision']:.2f}); options offered per second, "
        f"hustings / reference = {s['options_ratio']:.4f}",
    ]
    if s["same_game_ratio"] is not None:
        lines.append(
            f"the same game as content: the tic-tac-toe pack run by hustings, CPU time: "
            f"{s['same_game_games_per_s']:,.0f} games/s, against "
            f"{s['same_game_reference_games_per_s']:,.0f} for plain Python over the same "
            f"seeds (the same games); hustings / plain Python = {s['same_game_ratio']:.4f}")
    if s["openspiel_decisions_per_s"] is not None:
        lines.append(
            f"OpenSpiel's pure-Python tic-tac-toe, through its game API, same random choice, "
            f"CPU time: {s['openspiel_decisions_per_s']:,} decisions/s; hustings "
            f"decisions/s / it = {s['openspiel_ratio']:.4f}")
    if memory is not None:
        own, child = memory
        largest = f", largest worker {child:.0f} MB" if s["jobs"] > 1 else ""
        lines.append(f"peak memory (max resident): this process {own:.0f} MB{largest}")
    return lines
