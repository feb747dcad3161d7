"""Exploring agents (tools/explorers.py) and `hustings soak --agent NAME`.

The agents must play only legal options, do what their name says on every decision of
real games, and push where uniform random play does not: an agent that repeats its kind of
choice drives a loop a player may keep choosing into its bound, which random play misses.
The small soak below is the suite's copy of the long runs (docs/soak.md).
"""

from __future__ import annotations

import json

import pytest
from minipack import make_pack

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter.game import Game
from hustings.tools.cli import main
from hustings.tools.explorers import EXPLORERS, explorer, kind_of, option_kinds


def test_a_menu_options_kind_is_its_branch_and_a_lists_its_variable():
    assert kind_of(["branch", 73, "s", "AL"], "campaign in AL") == \
        kind_of(["branch", 73, "s", "AK"], "campaign in AK")
    assert kind_of(["branch", 73, "s", "AL"], "campaign in AL") != \
        kind_of(["branch", 74, "s", "AL"], "travel to AL")
    assert kind_of(["bind", "r", "west"], "media in west") == \
        kind_of(["bind", "r", "east"], "media in east")
    assert kind_of(["bind", "r", "west"], "x") != kind_of(["bind", "k", "west"], "x")
    # a value that is itself a list or table still gives a kind one can compare
    nested = ["a", {"b": [1]}]
    assert kind_of(["bind", nested, 3], "x") == kind_of(["bind", nested, 4], "y")
    assert kind_of(None, "pass the turn") == kind_of("?", "pass now")
    assert kind_of(None, "pass the turn") != kind_of(None, "score now")


def play_noting(spec: str, seed: int, steps: int, pack: str | None = None):
    """Play `steps` actions of a seeded game with the agent; yield (game before, index)."""
    program = load_pack(builtin_pack(pack) if pack else None, {}, [])
    game = Game.new(program, seed=seed)
    agent = explorer(spec, seed)
    for _ in range(steps):
        if game.is_terminal():
            return
        index = agent(game)
        assert 0 <= index < game.num_actions()
        yield game, index
        game.apply_action(index)


@pytest.mark.parametrize("pack", [None, "campaign-trail"])
def test_first_and_last_take_the_first_and_the_last_option(pack):
    firsts = [(index, game.num_actions()) for game, index in play_noting("first", 3, 80, pack)]
    assert all(i == 0 for i, _ in firsts) and any(n > 1 for _, n in firsts)
    lasts = [(index, game.num_actions()) for game, index in play_noting("last", 3, 80, pack)]
    assert len(lasts) == 80 and all(i == n - 1 for i, n in lasts)
    assert any(n > 1 for _, n in lasts)


@pytest.mark.parametrize("pack", [None, "campaign-trail"])
def test_repeat_makes_its_last_kind_of_choice_whenever_it_is_offered(pack):
    last: dict = {}
    repeated = changed = 0
    for game, index in play_noting("repeat", 11, 300, pack):
        kinds = option_kinds(game)
        player = game.current_player()
        if game.num_actions() > 1:
            if last.get(player) in kinds:
                assert kinds[index] == last[player]
                repeated += 1
            else:
                changed += 1
            last[player] = kinds[index]
    assert repeated > 20 and changed > 5  # both paths were walked


def test_search_plays_legal_options_the_same_way_for_the_same_seed():
    a = [i for _, i in play_noting("search", 4, 25)]
    b = [i for _, i in play_noting("search", 4, 25)]
    assert a == b and len(a) == 25


def test_an_agent_is_an_explorer_or_any_agent_spec():
    assert set(EXPLORERS) == {"random", "repeat", "first", "last", "search"}
    program = load_pack(builtin_pack("tic-tac-toe"), {}, [])
    game = Game.new(program, seed=1)
    assert 0 <= explorer("greedy", 1)(game) < game.num_actions()
    with pytest.raises(ValueError, match="unknown agent 'dice'.*or an explorer: random, repeat"):
        explorer("dice", 1)


# A turn a player may keep choosing to lengthen: only "spend" moves the loop on.
RESTLESS = """\
procedures:
  game:
    body: |
      for r from 1 to 3:
        for p in players:
          do turn(player: p)
      record winner as none
  turn:
    params: [player]
    body: |
      let left = 2
      while left > 0, at most 30 times:
        player chooses:
          "spend a point":
            let left = left - 1
          "rest a while":
            say "{player} rests"
"""


def test_repeat_finds_the_loop_a_player_can_run_past_its_bound_and_random_does_not(
        tmp_path, capsys):
    pack = make_pack(tmp_path, rules={"rules/10-game.yaml": RESTLESS})
    assert main(["soak", "--games", "10", "--pack", str(pack)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["violations"] == 0
    assert main(["soak", "--games", "10", "--agent", "repeat", "--pack", str(pack)]) == 1
    captured = capsys.readouterr()
    assert "10-game.yaml:12:7: a while loop ran past its bound" in captured.out
    assert "hustings soak --games 1 --seed" in captured.err and "--agent repeat" in captured.err
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["agent"] == "repeat" and summary["violations"] > 0


def test_soak_refuses_an_unknown_agent(capsys):
    assert main(["soak", "--games", "1", "--agent", "nobody"]) == 2
    assert "--agent: unknown agent 'nobody'" in capsys.readouterr().err


# The small soak: a few whole games of each shipped pack (and a mod) with each explorer,
# every invariant checked after every action, no rule error. Search is slow: one game.
SMALL_SOAK = [(pack, agent, 1 if agent == "search" else games)
              for pack, games in [("1960", 1), ("campaign-trail", 1), ("tic-tac-toe", 10)]
              for agent in ("repeat", "first", "last", "search")]


@pytest.mark.parametrize(("pack", "agent", "games"), SMALL_SOAK)
def test_small_soak_with_each_explorer(pack, agent, games, capsys):
    args = ["soak", "--games", str(games), "--agent", agent, "--seed", "7",
            "--pack", str(builtin_pack(pack))]
    assert main(args) == 0, capsys.readouterr().out[-2000:]
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games"] == games and summary["violations"] == 0


def test_small_soak_of_a_mod_with_the_repeat_agent(capsys):
    mod = builtin_pack().parent / "mods" / "whistle-stops"
    assert main(["soak", "--games", "1", "--agent", "repeat", "--mod", str(mod)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["violations"] == 0
