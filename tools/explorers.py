"""Exploring agents: players that push a game where uniform random play seldom goes.

A random player spreads its choices evenly, so a path that needs the same kind of choice
many times in a row (the same menu option again and again) is almost never walked; these
agents walk such paths on purpose, to find rule errors and bounds that legal play can
reach (`hustings soak --agent NAME`, `hustings fuzz --agent NAME`).

- `repeat`: makes again the kind of choice it made last, whenever one is offered;
- `first` / `last`: always the first / the last option offered;
- `search`: a cheap look-ahead, a small ISMCTS of tools/agents.py;
- `random`: uniform random play, as before.

The *kind* of an option is worked out from the decision alone, naming no game: a menu's
option is its branch of the rules (every "go to {s}" of one `"go to {s}" for s in ...`
option is one kind, its sibling options others); an option picked from a list is the
list's variable (every `r` of `chooses r from ...` is one kind). An agent sees only the
pending decision, which is its own player's: the labels and payloads it is offered.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from ..interpreter.game import Game
from .agents import Agent, make_agent, random_agent

# The search agent's default effort: a few iterations, scored by the pack's value function.
SEARCH_SPEC = "ismcts:iterations=8"


def kind_of(payload: Any, label: str) -> Hashable:
    """What sort of choice an option is: its payload without the value it binds.

    A payload is a list whose last item is the value chosen (a menu's option:
    ["branch", target, variable, value]; a list's item: ["bind", variable, value]), so
    what comes before the value names the option's rule. Anything else falls back to
    the label's first word.
    """
    if isinstance(payload, (list, tuple)) and len(payload) >= 2:
        return tuple(_hashable(part) for part in payload[:-1])
    words = label.split()
    return ("label", words[0] if words else "")


def _hashable(value: Any) -> Hashable:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _hashable(v)) for k, v in value.items()))
    return value


def option_kinds(game: Game) -> list[Hashable]:
    """The kind of each option of the pending decision, in the order offered."""
    pending = game.state.pending
    if pending is None:
        return []
    labels = game.legal_actions()
    return [kind_of(p, label) for p, label in zip(pending["payloads"], labels, strict=True)]


def repeat_agent(seed: int) -> Agent:
    """Choose an option of the kind this player chose last whenever one is offered (at
    random among them), else any option at random; the kind chosen is remembered."""
    rng = random.Random(seed)
    last: dict[str | None, Hashable] = {}

    def choose(game: Game) -> int:
        count = game.num_actions()
        if count == 1:
            return 0
        kinds = option_kinds(game)
        player = game.current_player()
        same = [i for i, kind in enumerate(kinds) if kind == last.get(player)]
        index = rng.choice(same) if same else rng.randrange(count)
        last[player] = kinds[index]
        return index

    return choose


def first_agent(seed: int) -> Agent:
    """Always the first option offered (the seed is not used: the play is fixed)."""
    del seed
    return lambda game: 0


def last_agent(seed: int) -> Agent:
    """Always the last option offered."""
    del seed
    return lambda game: game.num_actions() - 1


def search_agent(seed: int) -> Agent:
    """A cheap look-ahead: ISMCTS with a few iterations (SEARCH_SPEC)."""
    return make_agent(SEARCH_SPEC, seed)


EXPLORERS: dict[str, Callable[[int], Agent]] = {
    "random": random_agent,
    "repeat": repeat_agent,
    "first": first_agent,
    "last": last_agent,
    "search": search_agent,
}


def explorer(spec: str, seed: int) -> Agent:
    """The agent named `spec`: an explorer above, or any agent tools/agents.py makes
    (`greedy`, `ismcts:iterations=20`). Raises ValueError naming the choices."""
    if spec in EXPLORERS:
        return EXPLORERS[spec](seed)
    try:
        return make_agent(spec, seed)
    except ValueError as e:
        raise ValueError(f"{e}; or an explorer: {', '.join(EXPLORERS)}") from None
