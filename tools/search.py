"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration
1. *determinizes*: copies the state and deals every card the searching player cannot see
   (other players' hidden zones, and the order and content of secret decks) at random among
   the unseen places, keeping each zone's size and each place's card kind; the chance seed
   is replaced, so bag draws and shuffles differ between iterations;
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

from ..interpreter.errors import RuleError
from ..interpreter.game import Game, sees
from ..interpreter.program import Program
from ..interpreter.rng import MASK
from ..interpreter.state import GameState, clone
from ..interpreter.unit import per_program
from .agents import Agent, setting, winning_chance


class Node:
    __slots__ = ("player", "children", "visits", "reward", "available")

    def __init__(self, player: str | None) -> None:
        self.player = player  # who chose the action leading here
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def unseen_zones(program: Program, state: GameState, player: str) -> list[str]:
    """The zones whose cards `player` cannot see, in the state's order."""
    return [key for key in state.zones if not sees(program, state, player, key)]


def unseen_slots(program: Program, state: GameState, player: str) -> list[tuple[str, int]]:
    """(zone key, position) of every card `player` cannot see."""
    return [(key, i) for key in unseen_zones(program, state, player)
            for i in range(len(state.zones[key]))]


def determinize(game: Game, player: str, rng: random.Random) -> GameState:
    """A copy of the state with the unseen cards dealt at random and a fresh chance seed."""
    return deal_unseen(game.program, clone(game.state), player, rng)


def deal_unseen(program: Program, state: GameState, player: str,
                rng: random.Random) -> GameState:
    """Deal the cards `player` cannot see at random in `state` itself, each among the
    unseen places of its kind; a fresh chance seed. A zone of one kind is dealt whole."""
    kind_of = per_program(_KINDS, program, card_kinds)
    by_kind: dict[str, list[tuple[list, int | None]]] = {}  # (zone, position or None: all)
    for key in unseen_zones(program, state, player):
        cards = state.zones[key]
        kinds = [kind_of.get(card, "") for card in cards]
        if kinds and kinds.count(kinds[0]) == len(kinds):
            by_kind.setdefault(kinds[0], []).append((cards, None))
            continue
        for i, kind in enumerate(kinds):
            by_kind.setdefault(kind, []).append((cards, i))
    for kind in sorted(by_kind):
        places = by_kind[kind]
        dealt = []
        for cards, i in places:
            if i is None:
                dealt.extend(cards)
            else:
                dealt.append(cards[i])
        shuffle(dealt, rng)
        at = 0
        for cards, i in places:
            if i is None:
                cards[:] = dealt[at:at + len(cards)]
                at += len(cards)
            else:
                cards[i] = dealt[at]
                at += 1
    state.rng = rng.getrandbits(64) & MASK
    return state


_KINDS: dict = {}  # program -> {card: its kind}


def card_kinds(program: Program) -> dict[Any, str]:
    return {card: spec["kind"] for card, spec in program.cards.items()}


def shuffle(items: list, rng: random.Random) -> None:
    """Shuffle in place, drawing from `rng` exactly as random.shuffle does (Fisher-Yates,
    each index by rejection from getrandbits) without its two calls per item."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


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
        root = Node(None)
        deadline = time.perf_counter() + seconds if seconds else None
        done = 0
        while (done < iterations) if deadline is None else (time.perf_counter() < deadline):
            iterate(game, me, root, rng, depth, exploration)
            done += 1
        ranked = [(root.children[a].visits if a in root.children else -1, -i)
                  for i, a in enumerate(actions)]
        return -max(ranked)[1]

    return choose


def iterate(game: Game, me: str, root: Node, rng: random.Random, depth: int,
            exploration: float) -> bool:
    """One iteration; False when it was dropped. A deal can put a card where no rule would
    have put it (the rules keep it out of that zone by a condition the deal cannot see),
    and the rules may then fail: that iteration is dropped as if never tried, its new node
    and its availability counts taken back. Only the search's guesses are thrown away; a
    failure of the real game still stops it."""
    sim = game.fork()
    deal_unseen(game.program, sim.state, me, rng)
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
