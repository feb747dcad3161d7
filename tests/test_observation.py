"""Per-player observations follow what the rules reveal."""

from __future__ import annotations

from types import SimpleNamespace

from hustings.dsl.scenarios import Runner
from hustings.interpreter.ops import Expire, Reveal
from hustings.schemas.scenario import Scenario


def _game_at_turn_one():
    scenario = Scenario.model_validate({
        "name": "hands",
        "setup": {"vars": {"turn": 1}, "zones": {"hand:kennedy": [5, 6], "hand:nixon": [56]}},
        "run": {"procedure": "take_turn", "args": {"player": "nixon"}},
        "steps": [{"expect": {"player": "nixon"}}],
    })
    outcome = Runner().run(scenario, "test")
    assert outcome.ok, outcome.failures
    return outcome.game


def test_a_revealed_zone_is_seen_until_the_turn_ends():
    game = _game_at_turn_one()
    assert game.observation("nixon")["zones"]["hand:kennedy"] == 2  # a count: hidden
    # `reveal hand of kennedy to nixon`, as the compiler lowers it
    Reveal(("const", "hand:kennedy"), ("const", "nixon")).run(game.machine, SimpleNamespace(env={}))
    assert game.observation("nixon")["zones"]["hand:kennedy"] == [5, 6]
    assert game.observation("kennedy")["zones"]["hand:nixon"] == 1  # a count: hidden
    # the rules end a turn with `expire turn effects`; a reveal ends with it (ruling 1)
    Expire("turn").run(game.machine, None)
    assert game.observation("nixon")["zones"]["hand:kennedy"] == 2


def test_opposition_research_shows_the_hand_once_and_leaves_it_hidden():
    game = _game_at_turn_one()
    game.apply_action(game.legal_actions().index("Opposition Research: event"))
    shown = "Kennedy reveals his hand to Nixon: Volunteers, New England"
    assert shown in game.observation("nixon")["log"]
    # the hand is not left open: a card Kennedy takes later would stay hidden (issue 9)
    assert game.observation("nixon")["zones"]["hand:kennedy"] == 2
