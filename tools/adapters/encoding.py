"""A fixed-size numeric view of what one player sees, and the fixed action space, for any pack.

The vector is built from the player's observation (Game.observation), so hidden cards never
leak: for each zone, its size, and for each card whether the player sees it there; counters
and support per player; tokens' locations; variables that are numbers; whose turn it is.
Its layout depends only on the program, so every state of a pack gives the same length.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...interpreter.game import Game
from ...interpreter.program import Program
from ...interpreter.support import holdings

DISCOVERY_GAMES = 20  # random games played to find the action space when a pack declares none


@dataclass
class Layout:
    players: list[str]
    counters: list[str]
    places: list[tuple[str, str]]  # (pool, location) in board order
    zones: list[str]  # zone keys
    cards: list[int]
    locations: list[str]
    numbers: list[str]  # variables that hold numbers at the start

    @classmethod
    def of(cls, program: Program) -> Layout:
        places = [(pool, where) for pool, spec in program.pools.items()
                  for where in program.kinds.get(spec.kind, [])]
        numbers = [k for k, v in sorted(program.variables.items())
                   if isinstance(v, (int, float)) and not isinstance(v, bool)]
        zones = sorted(program.initial["zones"])
        return cls(list(program.players), list(program.counters), places, zones,
                   sorted(program.cards), list(program.locations), numbers)

    @property
    def size(self) -> int:
        n = len(self.players)
        return (n * len(self.counters) + n * len(self.places) + len(self.zones)
                + len(self.zones) * len(self.cards) + n * (len(self.locations) + 1)
                + len(self.numbers) + n)

    def encode(self, game: Game, player: str) -> list[float]:
        obs = game.observation(player)
        out: list[float] = []
        for name in self.counters:
            table = obs["counters"].get(name, {})
            out.extend(float(table.get(p, 0)) for p in self.players)
        for pool, where in self.places:
            counts = holdings(obs["pools"].get(pool, {}).get(where))
            out.extend(float(counts.get(p, 0)) for p in self.players)
        card_index = {c: i for i, c in enumerate(self.cards)}
        seen = [0.0] * (len(self.zones) * len(self.cards))
        for z, key in enumerate(self.zones):
            content = obs["zones"].get(key, [])
            out.append(float(content if isinstance(content, int) else len(content)))
            if isinstance(content, list):
                for card in content:
                    if card in card_index:
                        seen[z * len(self.cards) + card_index[card]] = 1.0
        out.extend(seen)
        for p in self.players:
            where = obs["tokens"].get(p)
            out.extend(1.0 if where == loc else 0.0 for loc in self.locations)
            out.append(1.0 if where is None else 0.0)
        for name in self.numbers:
            value = obs["vars"].get(name)
            out.append(float(value) if isinstance(value, (int, float)) else 0.0)
        turn = game.current_player()
        out.extend(1.0 if turn == p else 0.0 for p in self.players)
        return out


def max_actions(program: Program) -> int:
    """The pack's declared action space, or the most legal actions seen in seeded random
    games with room to spare. Decisions offering more expose only the first this many."""
    declared = (program.agents or {}).get("max_actions")
    if declared:
        return int(declared)
    most = 2
    for seed in range(DISCOVERY_GAMES):
        game, rng = Game.new(program, seed=seed, safe=False), random.Random(seed)
        while not game.is_terminal():
            n = game.num_actions()
            most = max(most, n)
            game.apply_action(rng.randrange(n))
    return most + most // 4


def returns(game: Game) -> list[float]:
    """+1 for the winner and -1/(n-1) for each other player; 0 for all on a tie or unfinished."""
    players = game.program.players
    winner = (game.result() or {}).get("winner") if game.is_terminal() else None
    if winner not in players:
        return [0.0] * len(players)
    return [1.0 if p == winner else -1.0 / (len(players) - 1) for p in players]


def observation_text(game: Game, player: str) -> str:
    """The player's observation as canonical JSON (for string observations)."""
    import json

    data: dict[str, Any] = game.observation(player)
    data.pop("log", None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
