"""A fixed-size numeric view of what one player sees, and the fixed action space, for any pack.

The vector is built from the player's observation (Game.observation) and from nothing else,
so hidden cards never leak: for each zone, its size, and for each card whether the player
sees it there and whether they were shown it there (the observation's "shown"); counters and
support per player; tokens' locations; variables that are numbers; whose turn it is. Its
layout depends only on the program, so every state of a pack gives the same length.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...interpreter.game import Game
from ...interpreter.program import Program
from ...interpreter.support import holdings
from ...interpreter.teams import result_winners

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
                + 2 * len(self.zones) * len(self.cards) + n * (len(self.locations) + 1)
                + len(self.numbers) + n)

    def encode(self, game: Game, player: str) -> list[float]:
        """The vector of what `player` sees: their observation's, and nothing else."""
        return self.encode_observation(game.observation(player))

    def encode_observation(self, obs: dict[str, Any]) -> list[float]:
        out: list[float] = []
        for name in self.counters:
            table = obs["counters"].get(name, {})
            out.extend(float(table.get(p, 0)) for p in self.players)
        for pool, where in self.places:
            counts = holdings(obs["pools"].get(pool, {}).get(where))
            out.extend(float(counts.get(p, 0)) for p in self.players)
        out.extend(self._cards(obs))
        for p in self.players:
            where = obs["tokens"].get(p)
            out.extend(1.0 if where == loc else 0.0 for loc in self.locations)
            out.append(1.0 if where is None else 0.0)
        for name in self.numbers:
            value = obs["vars"].get(name)
            out.append(float(value) if isinstance(value, (int, float)) else 0.0)
        turn = (obs.get("pending") or {}).get("player")
        out.extend(1.0 if turn == p else 0.0 for p in self.players)
        return out

    def _cards(self, obs: dict[str, Any]) -> list[float]:
        """Each zone's size, then a zone-by-card grid of the cards seen there, then one of
        the cards the player was shown there (where they were when shown)."""
        card_index = {c: i for i, c in enumerate(self.cards)}
        zone_index = {key: z for z, key in enumerate(self.zones)}
        sizes: list[float] = []
        seen = [0.0] * (len(self.zones) * len(self.cards))
        for z, key in enumerate(self.zones):
            content = obs["zones"].get(key, [])
            sizes.append(float(content if isinstance(content, int) else len(content)))
            if isinstance(content, list):
                for card in content:
                    if card in card_index:
                        seen[z * len(self.cards) + card_index[card]] = 1.0
        shown = [0.0] * (len(self.zones) * len(self.cards))
        for text, key in (obs.get("shown") or {}).items():
            card = int(text) if str(text).lstrip("-").isdigit() else text
            if card in card_index and key in zone_index:
                shown[zone_index[key] * len(self.cards) + card_index[card]] = 1.0
        return sizes + seen + shown


def options_seen(obs: dict[str, Any]) -> list[str]:
    """The labels of the decision, as the observation shows them to the player who makes it
    (empty for everyone else, and when nothing is pending)."""
    options = (obs.get("pending") or {}).get("options")
    return list(options) if isinstance(options, list) else []


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
    """+1 for the winner and -1/(n-1) for each other player; 0 for all on a tie or unfinished.
    A team's k members win together: +1 each, and each of the n-k others -k/(n-k)."""
    players = game.program.players
    won = [p for p in result_winners(game.result()) if p in players] \
        if game.is_terminal() else []
    if not won or len(won) == len(players):
        return [0.0] * len(players)
    # a team's members win together: +1 each, the losers share what the winners gained
    loss = -len(won) / (len(players) - len(won))
    return [1.0 if p in won else loss for p in players]


def observation_text(game: Game, player: str) -> str:
    """The player's observation as canonical JSON (for string observations)."""
    import json

    data: dict[str, Any] = game.observation(player)
    data.pop("log", None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
