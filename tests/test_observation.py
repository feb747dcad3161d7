"""Per-player observations follow what the rules reveal."""

from __future__ import annotations

from hustings.dsl.scenarios import Runner
from hustings.interpreter.ops import Expire
from hustings.schemas.scenario import Scenario


def test_a_revealed_hand_is_seen_until_the_turn_ends():
    scenario = Scenario.model_validate({
        "name": "reveal",
        "setup": {"vars": {"turn": 1}, "zones": {"hand:kennedy": [5, 6], "hand:nixon": [56]}},
        "run": {"procedure": "take_turn", "args": {"player": "nixon"}},
        "steps": [{"do": "Opposition Research: event"}],
    })
    outcome = Runner().run(scenario, "test")
    assert outcome.ok, outcome.failures
    game = outcome.game
    assert game.observation("nixon")["zones"]["hand:kennedy"] == [5, 6]
    assert game.observation("kennedy")["zones"]["hand:nixon"] == 0  # a count: hidden
    # the rules end a turn with `expire turn effects`; a reveal ends with it (ruling 1)
    Expire("turn").run(game.machine, None)
    assert game.observation("nixon")["zones"]["hand:kennedy"] == 2
