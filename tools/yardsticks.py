"""The games `hustings bench` measures a pack against, run a slice at a time between the
pack's own games.

A shared host's speed wanders by tens of per cent within a second. Timed one after the
other, a pack and its yardstick could meet different weather and their ratio would say
more of the host than of either. So the yardsticks run interleaved with the pack's games:
after every chunk of games (CHUNK_SECONDS of CPU) each runs for a share of that chunk's
time, and every figure is summed over its slices. Each runs at least
MIN_YARDSTICK_SECONDS in all (what a short run lacks is run at its end).

- plain: tic-tac-toe written in plain Python (reference_game.py), by the bench's random
  agent, the same way (number of options, one picked at random, applied);
- same game: the tic-tac-toe pack run by hustings over a batch of seeds, then the plain
  game over exactly those seeds, as many times over as it takes to run as long (the same
  games both ways: their ratio is what rules as data cost against rules as code);
- OpenSpiel (with the `openspiel` extra): its pure-Python tic-tac-toe through its game
  API, in a helper process of its own, so its libraries (numpy among them, some 35 MB)
  stay out of the memory the bench reports. It is asked for a slice while the games
  wait, so it never runs beside them.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

CHUNK_SECONDS = 0.1  # CPU time of the pack's games between two slices
SHARE = 0.25  # a slice of each yardstick lasts this share of the chunk before it
MIN_YARDSTICK_SECONDS = 0.3  # every yardstick runs at least this long in all
BATCH = 20  # yardstick games between two looks at the clock


@dataclass
class Measure:
    """A yardstick's work (decisions or games) and its CPU seconds, over its slices."""

    units: int = 0
    cpu: float = 0.0

    def speed(self) -> float:
        return self.units / max(self.cpu, 1e-9)


class Yardsticks:
    """The yardsticks of one bench run, each measured a slice at a time."""

    def __init__(self, first_seed: int) -> None:
        from ..dsl.loading import builtin_pack, load_pack
        from ..interpreter.game import prepare

        self.plain = Measure()
        self.same_content = Measure()  # tic-tac-toe pack games, run by hustings
        self.same_plain = Measure()  # plain-Python games over the same seeds
        self.openspiel: Measure | None = None
        self._plain_seed = self._same_seed = first_seed
        self._tic_tac_toe = load_pack(builtin_pack("tic-tac-toe"))
        prepare(self._tic_tac_toe)
        self._helper = OpenSpielHelper.start(first_seed)
        if self._helper is not None:
            self.openspiel = Measure()

    def run(self, seconds: float) -> None:
        """One slice of each yardstick, each for about `seconds` of CPU."""
        self._run_plain(seconds)
        self._run_same_game(seconds)
        if self._helper is not None and self.openspiel is not None:  # set and unset together
            try:
                decisions, cpu = self._helper.run(seconds)
            except (EOFError, OSError):  # the helper died: no OpenSpiel figure this run
                self.close()
                self.openspiel = None
                return
            self.openspiel.units += decisions
            self.openspiel.cpu += cpu

    def top_up(self) -> None:
        """Run each yardstick on to MIN_YARDSTICK_SECONDS in all (a short bench)."""
        short = MIN_YARDSTICK_SECONDS - min(self.plain.cpu, self.same_content.cpu)
        if self.openspiel is not None:
            short = max(short, MIN_YARDSTICK_SECONDS - self.openspiel.cpu)
        if short > 0:
            self.run(short)

    def close(self) -> None:
        if self._helper is not None:
            self._helper.close()
            self._helper = None

    def _run_plain(self, seconds: float) -> None:
        decisions, self._plain_seed, spent = timed_batches(
            lambda first: play_plain(range(first, first + BATCH)), self._plain_seed, seconds)
        self.plain.units += decisions
        self.plain.cpu += spent

    def _run_same_game(self, seconds: float) -> None:
        from .benchmark import play_games

        first, pack = self._same_seed, self._tic_tac_toe
        games, self._same_seed, content = timed_batches(
            lambda s: play_games(pack, list(range(s, s + BATCH))).games, first, seconds)
        seeds, rounds, start = range(first, self._same_seed), 0, time.process_time()
        while True:  # the plain game over the same seeds, as long as the pack took
            play_plain(seeds)
            rounds += 1
            plain = time.process_time() - start
            if plain >= content:
                break
        self.same_content.units += games
        self.same_content.cpu += content
        self.same_plain.units += games
        self.same_plain.cpu += plain / rounds


def timed_batches(play: Callable[[int], int], first_seed: int,
                  seconds: float) -> tuple[int, int, float]:
    """Batches of BATCH games, `play(seed)` playing those from `seed` on and answering
    what it counted, until `seconds` of CPU time have gone (one batch at least): the
    counts summed, the seed after the last game, the CPU time."""
    counted, seed, start = 0, first_seed, time.process_time()
    while True:
        counted += play(seed)
        seed += BATCH
        spent = time.process_time() - start
        if spent >= seconds:
            return counted, seed, spent


def play_plain(seeds: range) -> int:
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


class OpenSpielHelper:
    """OpenSpiel's pure-Python tic-tac-toe in a process of its own, run on request."""

    def __init__(self, process: Any, conn: Any) -> None:
        self.process, self.conn = process, conn

    @staticmethod
    def start(first_seed: int) -> OpenSpielHelper | None:
        """The helper, once it has OpenSpiel loaded; None without the extra."""
        from importlib.util import find_spec

        if find_spec("pyspiel") is None:
            return None
        ctx = multiprocessing.get_context()
        try:
            conn, theirs = ctx.Pipe()
            process = ctx.Process(target=_serve_openspiel, args=(theirs, first_seed),
                                  daemon=True)
            process.start()
        except OSError:  # no second process here: no OpenSpiel figure
            return None
        theirs.close()
        helper = OpenSpielHelper(process, conn)
        try:
            ready = conn.recv()
        except EOFError:
            ready = False
        if not ready:
            helper.close()
            return None
        return helper

    def run(self, seconds: float) -> tuple[int, float]:
        """(decisions, CPU seconds) of a slice of about `seconds`."""
        self.conn.send(seconds)
        return self.conn.recv()

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:  # it has gone already
            pass
        self.conn.close()
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()


def _serve_openspiel(conn: Any, seed: int) -> None:
    """The helper's loop: slices of OpenSpiel's tic-tac-toe (legal actions listed, one
    taken at random by index, as the random agent does, applied), until told to stop."""
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers the game
    except ImportError:
        conn.send(False)
        return
    game = pyspiel.load_game("python_tic_tac_toe")
    conn.send(True)
    while True:
        try:
            seconds = conn.recv()
        except EOFError:  # the bench has gone
            return
        if seconds is None:
            return
        decisions, seed, spent = timed_batches(partial(_openspiel_games, game), seed, seconds)
        conn.send((decisions, spent))


def _openspiel_games(game: Any, first_seed: int) -> int:
    """BATCH games of OpenSpiel's tic-tac-toe from `first_seed` on: their decisions."""
    decisions = 0
    for seed in range(first_seed, first_seed + BATCH):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions
