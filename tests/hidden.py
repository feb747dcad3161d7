"""Helpers for non-interference tests: change what one seat may not know, and collect
every byte that seat receives, so a test can assert the second does not follow the first.

    twin = perturb_hidden(game, seat, random.Random(1))
    assert received(twin, seat) == received(game, seat)

tests/test_noninterference.py runs this over the built-in packs and tests/packs/secrets;
the web board's tests may reuse it for the JSON and HTML a seat is sent.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from hustings.interpreter import rng as chance
from hustings.interpreter.game import Game, sees
from hustings.interpreter.program import Program


def perturb_hidden(game: Game, seat: str, rng: random.Random) -> Game:
    """A fork of `game` that differs only in what `seat` may not know.

    The cards of every zone `seat` does not see (other players' hidden zones not revealed
    to it, every deck) are dealt afresh among those zones, each zone keeping its size: the
    order of a deck, which card is in which hand. Cards are exchanged only with cards of
    the same kind (a seat knows a hand holds no card of a kind never dealt to hands). The
    generator's state is drawn anew. The pending decision's labels are left to be made
    again from the changed state, so a label built from a hidden card shows up."""
    twin = game.fork(safe=False)
    s = twin.state
    slots: dict[object, list[tuple[str, int]]] = {}
    for key, cards in s.zones.items():
        if not sees(twin.program, s, seat, key):
            for i, card in enumerate(cards):
                kind = twin.program.cards[card].get("kind")
                slots.setdefault(kind, []).append((key, i))
    for places in slots.values():
        cards = [s.zones[key][i] for key, i in places]
        rng.shuffle(cards)
        for (key, i), card in zip(places, cards, strict=True):
            s.zones[key][i] = card
    s.rng = rng.getrandbits(64) & chance.MASK
    if s.pending is not None:
        s.pending["options"] = None  # made again, from the changed state, when asked
    return twin


def received(game: Game, seat: str) -> tuple[str, list[str], list[str] | None]:
    """Everything `seat` is given: its observation as bytes, its narration, and the labels
    of the options when the decision is its own."""
    observation = json.dumps(game.observation(seat), sort_keys=True)
    labels = game.legal_actions() if game.current_player() == seat else None
    return observation, game.narration(seat), labels


def mid_game_states(program: Program, count: int, seed: int = 0,
                    per_game: int = 10) -> Iterator[Game]:
    """`count` positions of seeded random games, `per_game` from each, at decisions picked
    at random (games are forked there, so the positions are independent)."""
    rng = random.Random(seed)
    made, game_seed = 0, seed
    while made < count:
        game = Game.new(program, seed=game_seed, safe=False)
        game_seed += 1
        positions = []
        while not game.is_terminal():
            positions.append(game.fork())
            game.apply_action(rng.randrange(game.num_actions()))
        for position in rng.sample(positions, min(per_game, len(positions), count - made)):
            made += 1
            yield position
