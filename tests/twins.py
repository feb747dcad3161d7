"""Twin games for non-interference tests: the same game but for what one player cannot know.

Issue 34: what a seat receives, and what an agent decides for it, must not change when
only the facts hidden from that seat change (the cards it cannot see, the generator).
"""

from __future__ import annotations

import random

from hustings.interpreter.determinize import unseen_slots
from hustings.interpreter.game import Game
from hustings.interpreter.state import clone
from hustings.tools.agents import make_agent


def twin(game: Game, player: str, seed: int) -> Game:
    """The same game but for what `player` cannot know: the cards in the zones they do not
    see permuted among those places (each place keeping its card kind), another generator
    state, other forced outcomes."""
    state = clone(game.state)
    rng = random.Random(seed)
    kind = {card: spec["kind"] for card, spec in game.program.cards.items()}
    slots = unseen_slots(game.program, state, player)
    for k in sorted({kind[state.zones[key][i]] for key, i in slots}):  # a fixed order
        mine = [(key, i) for key, i in slots if kind[state.zones[key][i]] == k]
        cards = [state.zones[key][i] for key, i in mine]
        rng.shuffle(cards)
        for (key, i), card in zip(mine, cards, strict=True):
            state.zones[key][i] = card
    state.rng = rng.getrandbits(64)
    state.forced_rolls = [rng.randint(1, 6)]
    other = Game(game.program, state, safe=False)
    assert other.observation(player) == game.observation(player)  # nothing they may know
    return other


def midgame_states(program, count: int) -> list[Game]:
    """Up to `count` games stopped at a decision with a choice, after 15 to 184 random
    actions (seeded: the same states on every run)."""
    states = []
    for seed in range(count):
        game = Game.new(program, seed=100 + seed, safe=False)
        walker = make_agent("random", seed)
        for _ in range(15 + 23 * seed % 170):
            if game.is_terminal():
                break
            game.apply_action(walker(game))
        if not game.is_terminal() and game.num_actions() > 1:
            states.append(game)
    return states
