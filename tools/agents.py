"""Players that pick actions: random, greedy (one step of look-ahead) and ismcts (tree search).

An agent is a function from a game to the index of the action it picks. Agents play fair:
greedy and ismcts weigh options in a determinization (interpreter/determinize.py), a copy
of the game in which what their player cannot see is drawn at random, never in the real
hidden state. Agents name no game:
what a position is worth comes from the pack's value function (`agents: value:` in pack.yaml),
a function written in the effect language. The human at a prompt is in tools/terminal/human.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from ..interpreter.determinize import determinize
from ..interpreter.errors import RuleError
from ..interpreter.game import Game
from ..interpreter.teams import result_winners

Agent = Callable[[Game], int]

WIN = 1e9  # the value of a finished game for its winner (minus for the loser)


def position_value(game: Game, player: str) -> float:
    """How good the position is for `player`, by the pack's value function.

    A finished game is worth WIN to the winner and -WIN to the others; a pack that declares
    no value function makes every unfinished position worth 0 (greedy then plays at random).
    """
    if game.is_terminal():
        won = result_winners(game.result())  # a team's members win together
        return 0.0 if not won else (WIN if player in won else -WIN)
    name = game.program.agents.get("value")
    if not name:
        return 0.0
    return float(game.evaluate(name, player))


def winning_chance(game: Game, player: str) -> float:
    """The value turned into a number in [0, 1]: 1 a sure win, 0.5 level, 0 a sure loss."""
    if game.is_terminal():
        won = result_winners(game.result())
        return 0.5 if not won else (1.0 if player in won else 0.0)
    scale = float(game.program.agents.get("scale") or 100.0)
    x = max(-50.0, min(50.0, position_value(game, player) / scale))
    return 1.0 / (1.0 + math.exp(-x))


def random_agent(seed: int) -> Agent:
    rng = random.Random(seed)
    return lambda game: rng.randrange(game.num_actions())


def setting(value: Any, name: str, low: float, high: float, whole: bool = True) -> Any:
    """An agent's setting checked: a number (whole, unless not `whole`) from low to high."""
    kinds = (int,) if whole else (int, float)
    if not isinstance(value, kinds) or isinstance(value, bool) or not low <= value <= high:
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"{name} must be {kind} from {low:,} to {high:,}, not {value!r}")
    return value


def greedy_agent(seed: int, breadth: int = 24) -> Agent:
    """Try each legal action on a determinization and keep the one the pack values most.

    The determinization (interpreter/determinize.py) is a copy of the game consistent with
    what the player knows: the cards they cannot see dealt afresh from the agent's own
    generator, chance reseeded. One is drawn per decision, so every option is weighed in
    the same guessed world; the choice never depends on the real hidden cards (see `tried`).
    With more than `breadth` legal actions, a seeded sample of that many is tried.
    """
    setting(breadth, "breadth", 1, 10_000)
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        count = game.num_actions()
        if count == 1:
            return 0
        me = game.current_player()
        assert me is not None
        indices = list(range(count))
        if len(indices) > breadth:
            indices = sorted(rng.sample(indices, breadth))
        world = determinize(game, me, rng)
        best, best_score = indices[0], float("-inf")
        for i in indices:
            value = tried(world, i, me, game)
            if value is None:
                continue
            value += rng.random() * 0.01
            if value > best_score:
                best, best_score = i, value
        return best

    return choose


def tried(world: Game, index: int, me: str, real: Game | None = None) -> float | None:
    """The value for `me` of taking action `index` in a guessed world, or None when the
    guess makes the rules fail there: a guess can put a card where no rule would (see
    docs/simulate.md), and the option is then passed over.

    Only then, and only to tell a wrong guess from broken content, the option is tried on
    the `real` game: if the rules fail there too, that RuleError is the content's and
    propagates (reported with its file and line, as when the action is taken). Either way
    the option is not chosen, so what the agent picks never depends on the real hidden
    cards.
    """
    trial = world.fork(narrate=False)  # a look-ahead nobody reads
    try:
        trial.apply_action(index)
        return position_value(trial, me)
    except RuleError:
        if real is not None:
            check = real.fork(narrate=False)
            check.apply_action(index)  # raises if the content itself is broken
            position_value(check, me)
        return None


def ismcts_agent(seed: int, **budget: Any) -> Agent:
    """Information-set Monte Carlo tree search (see tools/search.py for the budget's keys)."""
    from .search import ismcts_agent as build

    return build(seed, **budget)


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": random_agent,
    "greedy": greedy_agent,
    "ismcts": ismcts_agent,
}


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """`ismcts:iterations=200,depth=4` -> ("ismcts", {"iterations": 200, "depth": 4}).

    Raises ValueError with a message a user can act on.
    """
    name, _, params = spec.partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(AGENTS)}")
    settings: dict[str, Any] = {}
    for item in filter(None, params.split(",")):
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise ValueError(f"agent setting {item!r} is not KEY=VALUE")
        settings[key.strip()] = _number(text.strip())
    return name, settings


def make_agent(spec: str, seed: int) -> Agent:
    """An agent from a spec such as `greedy`, `ismcts` or `ismcts:iterations=50`."""
    name, settings = parse_agent(spec)
    try:
        return AGENTS[name](seed, **settings)
    except TypeError as e:
        raise ValueError(f"agent {name!r} does not take these settings: {e}") from None


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
