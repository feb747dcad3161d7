"""What `hustings bench` measures: random-vs-random games, in one process or several.

Game i is played with seed S+i by a random agent seeded the same way, so the games, and
the number of decisions they take, are the same whichever process plays them. The seeds
are split into contiguous blocks, one per process.

Two kinds of time, reported apart: CPU time (`time.process_time`) of the games alone,
summed over the processes, gives the speed of one core; wall-clock time from the first
game's start to the last game's end gives the throughput of all of them together. The
yardstick is plain-Python tic-tac-toe (tools/reference_game.py) played in this process by
the same agent the same way. The same game written as content (the built-in tic-tac-toe
pack) is then played by hustings over the same seeds, and the plain-Python one again over
exactly those: the same games both ways, so their ratio is what rules as data cost against
the same rules as code. With the `openspiel` extra installed, OpenSpiel's own
pure-Python tic-tac-toe is measured too, driven through its game API as its examples
drive a game: a second, heavier yardstick (a game written against a general game API).
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..interpreter.program import Program

REFERENCE_CPU_SECONDS = 0.3  # play the reference game for at least this long
REFERENCE_BATCH = 500  # reference games between two looks at the clock


@dataclass
class Tally:
    """Games played by one process: how many, their decisions, and the time they took."""

    games: int = 0
    decisions: int = 0
    cpu: float = 0.0  # time.process_time of the games alone
    started: float = 0.0  # time.time at the first game's start
    ended: float = 0.0  # time.time at the last game's end


def play_games(program: Program, seeds: list[int]) -> Tally:
    from ..interpreter.errors import RuleError
    from ..interpreter.game import Game
    from .agents import random_agent
    from .failures import InputError

    started, cpu = time.time(), time.process_time()
    decisions = 0
    for seed in seeds:
        try:
            game = Game.new(program, seed=seed, safe=False)
            agent = random_agent(seed)
            while not game.is_terminal():
                game.apply_action(agent(game))
                decisions += 1
        except RuleError as e:  # the content's fault: said as such, with the game's seed
            raise InputError(f"rule error in game {seed}: {e}") from None
    return Tally(len(seeds), decisions, time.process_time() - cpu, started, time.time())


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
              options: dict[str, bool], mods: list[Path]) -> list[Tally]:
    """One tally per block: in this process for one block, else one process per block."""
    global _PROGRAM
    from ..interpreter.game import prepare

    prepare(program)  # compiled before any clock starts, and shared by forked workers
    if len(blocks) == 1:
        return [play_games(program, blocks[0])]
    _PROGRAM = program
    try:
        with multiprocessing.Pool(len(blocks), _init_worker, (pack, options, mods)) as pool:
            return pool.map(_play_block, blocks, chunksize=1)
    finally:
        _PROGRAM = None


def reference_speed(first_seed: int) -> tuple[int, float]:
    """(decisions, CPU seconds) of reference games played by the same random agent."""
    decisions, seed, start = 0, first_seed, time.process_time()
    while time.process_time() - start < REFERENCE_CPU_SECONDS:
        decisions += _play_reference(range(seed, seed + REFERENCE_BATCH))
        seed += REFERENCE_BATCH
    return decisions, time.process_time() - start


def _play_reference(seeds: range) -> int:
    """Plain-Python tic-tac-toe, one game a seed, by the random agent: its decisions."""
    from .agents import random_agent
    from .reference_game import TicTacToe

    decisions = 0
    for seed in seeds:
        game = TicTacToe()
        agent = random_agent(seed)
        while not game.is_terminal():
            game.apply_action(agent(game))
            decisions += 1
    return decisions


@dataclass
class SameGame:
    """Tic-tac-toe both ways over the same seeds: as content, run by hustings, and as
    plain Python (games, and CPU seconds of each)."""

    games: int
    content_cpu: float
    plain_cpu: float


def same_game_speed(first_seed: int) -> SameGame:
    """The tic-tac-toe pack played by hustings for REFERENCE_CPU_SECONDS, then the
    plain-Python game over exactly those seeds, as many times over as it takes to run as
    long (the same games: a player's last move, the only one left, is asked by the
    plain game and made at once by the pack, so games are compared, not decisions)."""
    from ..dsl.loading import builtin_pack, load_pack
    from ..interpreter.game import prepare

    program = load_pack(builtin_pack("tic-tac-toe"))
    prepare(program)
    seeds = range(first_seed, first_seed)
    start = time.process_time()
    while time.process_time() - start < REFERENCE_CPU_SECONDS:
        more = range(seeds.stop, seeds.stop + REFERENCE_BATCH)
        play_games(program, list(more))
        seeds = range(first_seed, more.stop)
    content_cpu = time.process_time() - start
    rounds, start = 0, time.process_time()
    while time.process_time() - start < REFERENCE_CPU_SECONDS:
        _play_reference(seeds)
        rounds += 1
    plain_cpu = (time.process_time() - start) / rounds
    return SameGame(len(seeds), content_cpu, plain_cpu)


def openspiel_speed(first_seed: int) -> tuple[int, float] | None:
    """(decisions, CPU seconds) of OpenSpiel's pure-Python tic-tac-toe: legal actions
    listed, one taken at random by index (as the random agent does), applied. None
    without the `openspiel` extra."""
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers the game
    except ImportError:
        return None
    import random

    game = pyspiel.load_game("python_tic_tac_toe")
    decisions, seed, start = 0, first_seed, time.process_time()
    while time.process_time() - start < REFERENCE_CPU_SECONDS:
        for _ in range(REFERENCE_BATCH):
            state = game.new_initial_state()
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
            seed += 1
    return decisions, time.process_time() - start


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


def summary(tallies: list[Tally], reference: tuple[int, float],
            memory: tuple[float, float] | None,
            openspiel: tuple[int, float] | None = None,
            same_game: SameGame | None = None) -> dict[str, Any]:
    """The figures of a run; per core ones in CPU time, the total in wall-clock time."""
    games = sum(t.games for t in tallies)
    decisions = sum(t.decisions for t in tallies)
    cpu = max(sum(t.cpu for t in tallies), 1e-9)
    wall = max(max(t.ended for t in tallies) - min(t.started for t in tallies), 1e-9)
    ref_decisions, ref_cpu = reference
    ref_speed = ref_decisions / max(ref_cpu, 1e-9)
    figures = {
        "games": games,
        "games_per_s": round(games / cpu, 1),
        "decisions_per_s": round(decisions / cpu),
        "decisions": decisions,
        "jobs": len(tallies),
        "wall_games_per_s": round(games / wall, 1),
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "peak_mb": round(max(memory), 1) if memory else None,
        "reference_decisions_per_s": round(ref_speed),
        "ratio": round(decisions / cpu / ref_speed, 4),
        "openspiel_decisions_per_s": None,
        "openspiel_ratio": None,
        "same_game_games_per_s": None,
        "same_game_reference_games_per_s": None,
        "same_game_ratio": None,
    }
    if same_game is not None:
        content = same_game.games / max(same_game.content_cpu, 1e-9)
        plain = same_game.games / max(same_game.plain_cpu, 1e-9)
        figures["same_game_games_per_s"] = round(content, 1)
        figures["same_game_reference_games_per_s"] = round(plain, 1)
        figures["same_game_ratio"] = round(content / plain, 4)
    if openspiel is not None:
        speed = openspiel[0] / max(openspiel[1], 1e-9)
        figures["openspiel_decisions_per_s"] = round(speed)
        figures["openspiel_ratio"] = round(decisions / cpu / speed, 4)
    return figures


def report_lines(s: dict[str, Any], memory: tuple[float, float] | None) -> list[str]:
    jobs = f"{s['jobs']} process" + ("es" if s["jobs"] > 1 else "")
    lines = [
        f"{s['games']} games, {s['decisions']:,} decisions in {jobs}",
        f"  per core, CPU time ({s['cpu_seconds']:.2f} s summed over the processes): "
        f"{s['games_per_s']:.1f} games/s, {s['decisions_per_s']:,} decisions/s",
        f"  total, wall clock ({s['wall_seconds']:.2f} s, first game's start to last "
        f"game's end): {s['wall_games_per_s']:.1f} games/s",
        f"reference: plain-Python tic-tac-toe, same random agent, CPU time: "
        f"{s['reference_decisions_per_s']:,} decisions/s; hustings decisions/s / "
        f"reference = {s['ratio']:.4f}",
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
