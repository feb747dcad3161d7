"""Players that pick actions: random and greedy (one step of look-ahead).

The human at a prompt is in tools/terminal/human.py."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..interpreter.game import Game
from ..interpreter.state import clone

Agent = Callable[[Game], int]


def random_agent(seed: int) -> Agent:
    rng = random.Random(seed)
    return lambda game: rng.randrange(len(game.legal_actions()))


def score(game: Game, player: str) -> float:
    """A rough standing: value of places led, support, momentum; the pack's own numbers."""
    s, p = game.state, game.program
    total = 0.0
    for pool, held in s.pools.items():
        for where, (owner, count) in held.items():
            value = p.locations[where].get("ev") or 3
            weight = value * (1.0 + 0.25 * min(count, 4)) if pool == "state" else 4.0 * count
            total += weight if owner == player else -weight
    for name, table in s.counters.items():
        if name == "momentum":
            for who, n in table.items():
                total += 3.0 * n if who == player else -3.0 * n
    return total


def greedy_agent(seed: int, breadth: int = 24) -> Agent:
    """Try each legal action on a copy of the state and keep the best-scoring one."""
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        actions = game.legal_actions()
        me = game.current_player()
        indices = list(range(len(actions)))
        if len(indices) > breadth:
            indices = sorted(rng.sample(indices, breadth))
        best, best_score = indices[0], float("-inf")
        for i in indices:
            trial = Game(game.program, clone(game.state), safe=False)
            trial.apply_action(i)
            value = score(trial, me) + rng.random() * 0.01
            if value > best_score:
                best, best_score = i, value
        return best

    return choose


AGENTS = {"random": random_agent, "greedy": greedy_agent}
