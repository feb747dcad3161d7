"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration
1. *determinizes* (interpreter/determinize.py, shared with greedy): copies the state and
   deals every card the searching player cannot see (other players' hidden zones, and the
   order and content of secret decks), bar those they were shown, at random among the
   unseen places, keeping each zone's size and each place's card kind; the chance seed is
   replaced, so bag draws and shuffles differ between iterations. The deal depends only on
   what the player knows and on the agent's generator;
2. descends one tree shared by all determinizations, keyed by action labels, picking
   children by UCB among those legal in this determinization (counting availability);
3. adds one new node, plays `depth` random actions from it (0 by default: random play only
   adds noise to a good value function) and scores the position by the pack's value
   function turned into a winning chance (a finished game scores 1 for the winner, 0 for
   the loser);
4. backs the score up, each node credited from the view of the player who chose it.

An iteration whose guessed deal leads the rules into an error is dropped (see `iterate`).
The move played is the most visited legal child of the root (the first action if every
iteration was dropped). With an iteration budget the search is fully determined by the
agent's seed and the game; a time budget is not.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from ..interpreter.determinize import deal_unseen, shown_to
from ..interpreter.errors import RuleError
from ..interpreter.game import Game
from .agents import Agent, setting, winning_chance


class Node:
    __slots__ = ("player", "children", "visits", "reward", "available")

    def __init__(self, player: str | None) -> None:
        self.player = player  # who chose the action leading here
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def ismcts_agent(seed: int, iterations: int = 100, seconds: float | None = None,
                 depth: int = 0, exploration: float = 0.1) -> Agent:
    """An ISMCTS player: `iterations` per decision (or `seconds` per decision if given)."""
    setting(iterations, "iterations", 1, 1_000_000)
    setting(depth, "depth", 0, 10_000)
    setting(exploration, "exploration", 0, 100, whole=False)
    if seconds is not None:
        setting(seconds, "seconds", 0.001, 3600, whole=False)
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        actions = game.legal_actions()
        if len(actions) == 1:
            return 0
        me = game.current_player()
        assert me is not None
        shown = shown_to(game, me)  # what the player was shown: the same for every deal
        root = Node(None)
        deadline = time.perf_counter() + seconds if seconds else None
        done = 0
        while (done < iterations) if deadline is None else (time.perf_counter() < deadline):
            iterate(game, me, root, rng, depth, exploration, shown)
            done += 1
        ranked = [(root.children[a].visits if a in root.children else -1, -i)
                  for i, a in enumerate(actions)]
        return -max(ranked)[1]

    return choose


def iterate(game: Game, me: str, root: Node, rng: random.Random, depth: int,
            exploration: float, shown: dict[str, str] | None = None) -> bool:
    """One iteration; False when it was dropped. A deal can put a card where no rule would
    have put it (the rules keep it out of that zone by a condition the deal cannot see),
    and the rules may then fail: that iteration is dropped as if never tried, its new node
    and its availability counts taken back. Only the search's guesses are thrown away; a
    failure of the real game still stops it."""
    sim = game.fork(narrate=False)  # the search reads values, never the narration
    deal_unseen(game.program, sim.state, me, rng, shown)
    node, path, counted, added = root, [], [], None
    try:
        while not sim.is_terminal():
            legal = sim.legal_actions()
            player = sim.current_player()
            untried = [i for i, a in enumerate(legal) if a not in node.children]
            for a in legal:
                child = node.children.get(a)
                if child is not None:
                    child.available += 1
                    counted.append(child)
            if untried:
                i = rng.choice(untried)
                child = node.children[legal[i]] = Node(player)
                added = (node, legal[i])
                child.available = 1
                sim.apply_action(i)
                path.append(child)
                break
            i = select(node, legal, exploration)
            node = node.children[legal[i]]
            sim.apply_action(i)
            path.append(node)
        for _ in range(depth):
            if sim.is_terminal():
                break
            sim.apply_action(rng.randrange(sim.num_actions()))
        scores: dict[str | None, float] = {}
        for n in path:
            if n.player not in scores:
                scores[n.player] = winning_chance(sim, n.player)
    except RuleError:
        for child in counted:
            child.available -= 1
        if added is not None:
            del added[0].children[added[1]]
        return False
    for n in path:
        n.visits += 1
        n.reward += scores[n.player]
    return True


def select(node: Node, legal: list[str], exploration: float) -> int:
    """UCB1 over the children legal now, with availability counts in place of parent visits."""
    best, best_score = 0, float("-inf")
    for i, a in enumerate(legal):
        child = node.children[a]
        score = child.reward / child.visits + exploration * math.sqrt(
            math.log(child.available) / child.visits)
        if score > best_score:
            best, best_score = i, score
    return best


def describe(settings: dict[str, Any]) -> str:
    """A budget in words, for reports."""
    if settings.get("seconds"):
        return f"{settings['seconds']} s per decision"
    iterations, depth = settings.get("iterations", 100), settings.get("depth", 0)
    return f"{iterations} iterations per decision, rollout depth {depth}"
