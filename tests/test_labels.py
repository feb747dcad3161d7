"""Labels on demand: a decision keeps what each option does (its payloads) and its
labels are made from the paused instruction only when they are asked for (legal
actions, an action named by its label, a save, an observation). Agents that play by
index never pay for them; made later, they are the labels offering would have made,
and the variables around the decision are left exactly as they were."""

from __future__ import annotations

import copy
import json
import random

import pytest
from minipack import make_pack

from hustings.dsl.loading import load_pack
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.machine import numbered
from hustings.interpreter.ops import Choose, Menu
from hustings.interpreter.state import clone
from hustings.interpreter.unit import build_offer, building


@pytest.fixture(scope="module")
def program():
    return load_pack()


def envs(game: Game) -> str:
    """The variables of every frame, in their order (a save writes them so)."""
    return json.dumps([f.env for f in game.state.stack])


def offered_eagerly(game: Game) -> tuple[list, list]:
    """The labels and payloads of the pending menu, offered again with each label made
    as its option is offered, on a copy of the menu's variables (which must come out as
    the menu left them)."""
    program, state = game.program, game.state
    f = state.stack[-1]
    ins = program.blocks[f.block][f.pc - 1]
    with building(program):
        offers = [build_offer(option, True) for option in ins[2]]
    env = copy.deepcopy(f.env)
    offered: list = []
    for offer in offers:
        offer(game.machine, env, offered)
    assert json.dumps(env) == json.dumps(f.env)
    return numbered([label for label, _ in offered]), [p for _, p in offered]


def test_playing_by_index_makes_no_label(program):
    game = Game.new(program, seed=4)
    agent = random.Random(4)
    decisions = 0
    while not game.is_terminal():
        assert game.state.pending["options"] is None
        game.apply_action(agent.randrange(game.num_actions()))
        decisions += 1
    assert decisions > 100
    assert all(isinstance(i, int) for i in game.state.history)


def test_labels_made_later_are_those_offering_made(program):
    game = Game.new(program, seed=6)
    agent = random.Random(6)
    menus = chosen = 0
    while not game.is_terminal():
        before = envs(game)
        top = game.state.stack[-1]
        op = game.machine.ops[top.block][top.pc - 1]
        assert op.lazy  # nothing in the pack's decisions draws chance
        labels = game.legal_actions()
        assert envs(game) == before  # made, and the variables left exactly as they were
        assert game.state.pending["options"] == labels
        if isinstance(op, Menu):
            menus += 1
            assert offered_eagerly(game) == (labels, game.state.pending["payloads"])
        else:
            assert isinstance(op, Choose)
            chosen += 1
        game.apply_action(agent.randrange(len(labels)))
    assert menus > 50 and chosen > 5


def test_a_copy_makes_its_labels_from_its_own_stack(program):
    game = Game.new(program, seed=8)
    for _ in range(12):
        game.apply_action(0)
    expected = clone(game.state).labels()
    forked, copied = game.fork(), clone(game.state)
    assert game.state.pending["options"] is None  # the copies made their own
    game.apply_action(game.num_actions() - 1)  # the original moves on
    assert forked.legal_actions() == copied.labels() == expected
    assert game.state.pending["options"] is None
    assert Game(program, copied).save() == forked.save()


def test_a_save_holds_the_labels_and_loads_back(program):
    game = Game.new(program, seed=9)
    for _ in range(5):
        game.apply_action(0)
    text = game.save()
    assert json.loads(text)["pending"]["options"] == game.legal_actions()
    loaded = Game.load(program, text)  # the decision offered again, labels and all
    assert loaded.legal_actions() == game.legal_actions()
    assert loaded.save() == text


def rules(turn: str) -> dict[str, str]:
    """The mini pack with `turn` as the body of each player's turn (one round)."""
    body = "\n".join("      " + line for line in turn.strip("\n").split("\n"))
    return {"rules/10-game.yaml": f"""\
procedures:
  game:
    body: |
      for p in players:
        do turn(player: p)
  turn:
    params: [player]
    body: |
{body}
"""}


def mini(tmp_path, turn: str):
    return load_pack(make_pack(tmp_path, rules=rules(turn)))


def test_repeated_labels_are_numbered_when_made(tmp_path):
    program = mini(tmp_path, """
player chooses x from [1, 2, 1, 1] labelled "take {x}"
say "took {x}"
player chooses:
  "pass":
    say "first"
  "pass" if x == 1:
    say "second"
""")
    game = Game.new(program, 1)
    assert game.state.pending["options"] is None
    assert game.legal_actions() == ["take 1", "take 2", "take 1 (2)", "take 1 (3)"]
    game.apply_action("take 1 (3)")
    assert game.state.history == [3] and game.state.log[-1] == "took 1"
    assert game.legal_actions() == ["pass", "pass (2)"]
    game.apply_action("pass (2)")
    assert game.state.log[-1] == "second"


def test_a_label_drawing_chance_is_made_as_the_option_is_offered(tmp_path):
    program = mini(tmp_path, """
player chooses:
  "roll {roll(6)}":
    say "rolled"
  "pass":
    say "passed"
""")
    game = Game.new(program, 1)
    top = game.state.stack[-1]
    assert not game.machine.ops[top.block][top.pc - 1].lazy
    labels = game.state.pending["options"]  # made already, drawing as written
    assert labels is not None and labels[0].startswith("roll ") and labels[1] == "pass"
    assert Game.new(program, 1).save() == game.save()


def test_a_label_reading_a_later_options_variable_is_made_when_offered(tmp_path):
    program = mini(tmp_path, """
let t = 5
player chooses:
  "a {t}":
    say "a"
  "b {t}" for t in [1, 2]:
    say "b"
""")
    game = Game.new(program, 1)
    assert game.legal_actions() == ["a 5", "b 1", "b 2"]
    assert game.state.stack[-1].env["t"] == 2  # the loop left it at its last item


def test_a_label_that_fails_is_an_error_when_labels_are_asked_for(tmp_path):
    program = mini(tmp_path, """
let s = "before"
player chooses:
  "count {range(1, 9999)}{range(1, 9999)}" for s in ["A", "B"]:
    say "counted"
  "pass":
    say "passed"
""")
    game = Game.new(program, 1)
    assert game.num_actions() == 3
    before = envs(game)
    with pytest.raises(RuleError, match=r"10-game\.yaml:\d+:\d+: .*longer than 100,000 characters"):
        game.legal_actions()
    assert envs(game) == before and game.state.pending["options"] is None
    with pytest.raises(RuleError, match="longer than 100,000 characters"):
        game.apply_action("pass")
    assert envs(game) == before
    game.apply_action(2)  # by index, the rules go on
    assert game.state.log[-1] == "passed"
