"""Determinization: a game consistent with what one player knows, the rest drawn at random.

A search agent must not read what its player cannot see. Before it tries anything it takes
a copy of the game in which every card the player cannot see is dealt afresh, and chance is
reseeded; every agent (greedy, ISMCTS) uses this one function.

What is resampled:
* the cards of every zone the player does not see (`sees`: other players' hidden zones not
  revealed to them, every `ordered_secret` deck). They are gathered into one pool per card
  kind, SORTED, shuffled by the agent's generator and dealt back into those places: each
  zone keeps its size and each place the kind of card it held (a card's kind is taken as
  printed on its back: a deck of one kind stays that kind). Because the pool is sorted
  before it is shuffled, the deal depends on what the player knows and on the agent's
  generator only, never on where the hidden cards really are;
* a card the player was shown (`shown` in `Game.observation`: card -> the zone it was in
  then) and has not seen leave is put back in that zone, at a random place of its kind,
  when the zone is still unseen and has room: the player knows it was there, not whether
  it has moved since (their knowledge may be out of date; the real position never shows);
* the generator (`state.rng`): replaced by a number drawn from the agent's generator, so
  bag draws, shuffles, dice and random picks are sampled afresh;
* outcomes a scenario forced (`forced_cubes`, `forced_cards`, `forced_rolls`,
  `forced_picks`): cleared, they are future chance no player knows.

What is kept as it is:
* everything the observation shows (visible zones, variables, counters, support, tokens,
  the log, faces, which zones are revealed): the player knows it;
* the pending decision: agents determinize on their own turn, and the options' payloads do
  what the labels the player reads say;
* the paused rules' own values (frame locals, the list a `for` loop walks, a lasting
  reaction's variables). The language has no types at run time, so a card number there
  cannot be told from a plain number; a rule that holds a hidden card in a local while a
  decision is pending keeps the real card, and the rules go on with it after the decision.
  In the shipped packs such locals hold only cards already named in public
  (docs/simulate.md), and a deal that makes the rules fail is passed over by the agents,
  never reported as the content's fault.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .game import Game, sees
from .program import Program
from .rng import MASK
from .state import GameState


def unseen_zones(program: Program, state: GameState, player: str) -> list[str]:
    """The zones whose cards `player` cannot see, in the state's order."""
    return [key for key in state.zones if not sees(program, state, player, key)]


def unseen_slots(program: Program, state: GameState, player: str) -> list[tuple[str, int]]:
    """(zone key, position) of every card `player` cannot see."""
    return [(key, i) for key in unseen_zones(program, state, player)
            for i in range(len(state.zones[key]))]


def shown_to(game: Game, player: str) -> dict[str, str]:
    """What `player` was shown, from their observation: {card number as text: the zone key
    it was in when shown}; empty for a game whose language shows nothing privately."""
    shown = game.observation(player).get("shown", {})
    return dict(shown) if isinstance(shown, Mapping) else {}


def determinize(game: Game, player: str, rng: random.Random,
                shown: Mapping[str, str] | None = None) -> Game:
    """A copy of `game` consistent with what `player` knows, the unseen cards dealt at
    random and chance reseeded (see the module's docstring). `shown` is the player's
    observation's "shown" (read from the observation when not given)."""
    if shown is None:
        shown = shown_to(game, player)
    world = game.fork()
    deal_unseen(game.program, world.state, player, rng, shown)
    return world


def deal_unseen(program: Program, state: GameState, player: str, rng: random.Random,
                shown: Mapping[str, str] | None = None) -> GameState:
    """Deal the cards `player` cannot see afresh in `state` itself; reseed its chance."""
    kind_of = program.once("card kinds", card_kinds)
    places: dict[str, list[tuple[list, int]]] = {}  # kind -> (zone's list, position)
    pools: dict[str, list[Any]] = {}  # kind -> the unseen cards of that kind
    unseen = unseen_zones(program, state, player)
    for key in unseen:
        cards = state.zones[key]
        kinds = [kind_of.get(card, "") for card in cards]
        if kinds and kinds.count(kinds[0]) == len(kinds):  # most zones hold one kind
            places.setdefault(kinds[0], []).extend((cards, i) for i in range(len(cards)))
            pools.setdefault(kinds[0], []).extend(cards)
            continue
        for i, (card, kind) in enumerate(zip(cards, kinds, strict=True)):
            places.setdefault(kind, []).append((cards, i))
            pools.setdefault(kind, []).append(card)
    if shown:
        _put_back_shown(state, unseen, shown, kind_of, places, pools, rng)
    for kind in sorted(places):
        pool = sorted(pools[kind], key=_card_order)
        shuffle(pool, rng)
        for (cards, i), card in zip(places[kind], pool, strict=True):
            cards[i] = card
    state.rng = rng.getrandbits(64) & MASK
    state.forced_cubes, state.forced_cards = [], []
    state.forced_rolls, state.forced_picks = [], []
    return state


def _put_back_shown(state: GameState, unseen: list[str], shown: Mapping[str, str],
                    kind_of: dict, places: dict, pools: dict, rng: random.Random) -> None:
    """Put each shown card still unseen back in the zone it was shown in, at a random place
    of its kind there, taking that card and that place out of the deal. In card order, so
    when a zone has shrunk the same cards find room whatever the hidden truth is."""
    unseen_keys = set(unseen)
    for card, key in sorted(_cards_of(shown), key=lambda pair: _card_order(pair[0])):
        kind = kind_of.get(card, "")
        if key not in unseen_keys or card not in pools.get(kind, ()):
            continue  # shown in a zone the player sees now, or seen to be elsewhere
        zone = state.zones[key]
        free = [n for n, (cards, _) in enumerate(places[kind]) if cards is zone]
        if not free:
            continue  # no room left: it is dealt with the others
        cards, i = places[kind].pop(free[rng.randrange(len(free))])
        pools[kind].remove(card)
        cards[i] = card


def _cards_of(shown: Mapping[str, str]) -> list[tuple[int, str]]:
    """(card number, zone key) of each shown card (keys are numbers as text, as JSON has
    them; anything else names no card and is passed over)."""
    pairs = []
    for text, key in shown.items():
        try:
            pairs.append((int(text), str(key)))
        except (TypeError, ValueError):
            continue
    return pairs


def _card_order(card: Any) -> tuple[int, Any]:
    return (0, card) if isinstance(card, int) else (1, str(card))




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
