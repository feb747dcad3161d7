"""Non-interference: what a seat may not know changes nothing that seat receives.

For 200 positions of seeded random games of each pack (1960, Campaign Trail,
tic-tac-toe, tests/packs/secrets, which uses every private form of the language, and
tests/packs/teams, whose hands a teammate sees),
and for each seat, the cards of the zones that seat does not see are dealt afresh and
the generator's state is drawn anew (tests/hidden.py); the seat's observation, its
narration and, at its own decision, the labels of its options must stay byte for byte
the same.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from hidden import mid_game_states, perturb_hidden, received

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter.game import Game

SECRETS = Path(__file__).parent / "packs" / "secrets"
TEAMS = Path(__file__).parent / "packs" / "teams"  # hands seen by a teammate (docs/dsl.md)
PACKS = {"1960": builtin_pack("1960"), "campaign-trail": builtin_pack("campaign-trail"),
         "tic-tac-toe": builtin_pack("tic-tac-toe"), "secrets": SECRETS, "teams": TEAMS}
POSITIONS = 200


def leaks(game: Game, twin: Game, seat: str) -> list[str]:
    """What of `seat`'s bytes differ between a game and its twin (the same game but for
    what `seat` may not know): observation keys, the narration or the labels."""
    base, twin = received(game, seat), received(twin, seat)
    if twin == base:
        return []
    mine, theirs = json.loads(base[0]), json.loads(twin[0])
    found = [f"observation[{k!r}]" for k in sorted(mine) if mine[k] != theirs.get(k)]
    if base[1] != twin[1]:
        found.append("narration")
    if base[2] != twin[2]:
        changed = [a for a, b in zip(base[2] or [], twin[2] or [], strict=False) if a != b]
        found.append(f"labels {changed[:3]}")
    return found


@pytest.mark.parametrize("name", sorted(PACKS))
def test_what_a_seat_may_not_know_changes_nothing_it_receives(name):
    program = load_pack(PACKS[name])
    rng = random.Random(34)
    positions = hidden_positions = 0
    for game in mid_game_states(program, POSITIONS, seed=34):
        positions += 1
        before = game.save()
        for seat in program.players:
            twin = perturb_hidden(game, seat, rng)
            hidden_positions += twin.state.zones != game.state.zones
            found = leaks(game, twin, seat)
            assert not found, (f"{name}: seat {seat} receives what it may not know "
                               f"({', '.join(found)}) at history {game.state.history}")
        assert game.save() == before  # the game itself was left alone
    assert positions == POSITIONS
    if name != "tic-tac-toe":  # a pack with secrets: the perturbation changed something
        assert hidden_positions > POSITIONS // 2, hidden_positions


def test_the_property_catches_a_label_built_from_a_hidden_card(tmp_path):
    # the secrets pack with one leaky label: the option names the deck's top card
    pack = tmp_path / "secrets"
    shutil.copytree(SECRETS, pack, ignore=shutil.ignore_patterns("scenarios"))
    rules = pack / "rules" / "10-game.yaml"
    rules.write_text(rules.read_text().replace(
        '"draw a card":', '"draw {title of last(cards(deck))}":'))
    program = load_pack(pack)
    game = Game.new(program, seed=1)
    seat = game.current_player()
    found = leaks(game, perturb_hidden(game, seat, random.Random(2)), seat)
    assert found and found[-1].startswith("labels ['draw ")


def test_the_property_catches_a_hidden_hand_in_the_observation():
    game = Game.new(load_pack(SECRETS), seed=1)
    game.state.revealed["hand:bob"] = ["ann"]  # a reveal makes the zone ann's to see ...
    twin = perturb_hidden(game, "ann", random.Random(2))
    assert twin.state.zones["hand:bob"] == game.state.zones["hand:bob"]  # ... so it is kept
    game.state.revealed.clear()
    twin = perturb_hidden(game, "ann", random.Random(2))
    assert twin.state.zones["hand:bob"] != game.state.zones["hand:bob"]
    # and a leak of a hidden zone into what ann receives is seen at once
    leaky = twin.fork()
    leaky.state.revealed["hand:bob"] = ["ann"]
    assert received(leaky, "ann")[0] != received(game.fork(), "ann")[0]


def test_the_generator_state_is_drawn_anew_and_never_received():
    game = Game.new(load_pack(SECRETS), seed=1)
    twin = perturb_hidden(game, "ann", random.Random(3))
    assert twin.state.rng != game.state.rng
    assert '"rng"' not in received(game, "ann")[0]
