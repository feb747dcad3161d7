"""`asking "..."`: the question a decision puts to the deciding player.

Without it the prompt is the chosen name (a pick from a list) or `choice` (a menu), as
before; with it, the template is worked out as the decision starts and every player sees
it (the pending decision, saves, observations). It cannot name the choice it asks for,
and the designer's tools show it back as it was written.
"""

from __future__ import annotations

import pytest
from minipack import make_pack

from hustings.dsl.diagnostics import ContentError
from hustings.dsl.loading import load_pack
from hustings.interpreter.game import Game
from hustings.tools.reading.render import Renderer

RULES = "rules/10-game.yaml"


def game_of(tmp_path, body: str) -> Game:
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    pack = make_pack(tmp_path, rules={RULES: f"procedures:\n  game:\n    body: |\n{indented}"})
    return Game.new(load_pack(pack), seed=1)


def test_a_pick_from_a_list_asks_its_question_worked_out_as_it_starts(tmp_path):
    game = game_of(tmp_path, 'let n = 2\nann chooses k from [1, 2, 3] labelled "{k} of them" '
                             'asking "how many, up to {n + 1}?"\nsay "took {k}"')
    assert game.prompt() == "how many, up to 3?"
    assert game.current_player() == "ann"
    assert game.legal_actions() == ["1 of them", "2 of them", "3 of them"]
    assert game.observation("bob")["pending"]["prompt"] == "how many, up to 3?"
    resumed = Game.load(game.program, game.save())
    assert resumed.prompt() == "how many, up to 3?"
    resumed.apply_action("2 of them")
    assert resumed.state.log[-1].strip() == "took 2"


def test_a_menu_asks_its_question_beside_its_status(tmp_path):
    body = """\
let left = 3
bob chooses asking "what does bob do with {left} left?" noting "{left} left":
  "rest":
    say "rested"
  "work":
    say "worked"
"""
    game = game_of(tmp_path, body)
    assert game.prompt() == "what does bob do with 3 left?"
    assert game.remarks()["status"] == "3 left"
    game.apply_action("work")
    assert game.state.log[-1].strip() == "worked"


def test_without_asking_the_prompt_is_asked_in_words_never_the_name(tmp_path):
    game = game_of(tmp_path, 'ann chooses k from [1, 2]\nbob chooses:\n  "a":\n    say "a"\n'
                             '  "b":\n    say "b"\nann chooses p from players')
    assert game.prompt() == "ann, how many?"  # a number: not `k`
    assert game.question() is None  # the rules asked nothing of their own
    game.apply_action(0)
    assert game.prompt() == "bob to choose"
    game.apply_action(0)
    assert game.prompt() == "ann, which player?"


def test_the_question_cannot_name_the_choice_it_asks_for(tmp_path):
    with pytest.raises(ContentError) as caught:
        game_of(tmp_path, 'ann chooses k from [1, 2] asking "is it {k}?"')
    assert "10-game.yaml:4:48:" in str(caught.value)  # at the `{k}` in the question
    assert "'k'" in str(caught.value)


def test_the_designers_view_shows_the_question_as_written(tmp_path):
    game = game_of(tmp_path, 'ann chooses k from [1, 2] asking "which one?"\n'
                             'bob chooses asking "now?":\n  "yes":\n    say "y"\n'
                             '  "no":\n    say "n"')
    program = game.program
    block = program.blocks[program.procedures["game"].block]
    shown = [Renderer(program).statement(ins) for ins in block if ins[0] in ("choose", "menu")]
    assert shown == ['ann chooses k from [1, 2] asking "which one?"',
                     'bob chooses asking "now?":']


def test_the_terminal_shows_the_question_or_who_is_to_choose(tmp_path):
    from rich.console import Console

    from hustings.tools.terminal.choices import options_of
    from hustings.tools.terminal.human import decision

    def shown(game: Game) -> str:
        console = Console(width=80, record=True, force_terminal=False)
        console.print(decision(game, options_of(game), 80))
        return console.export_text()

    game = game_of(tmp_path, 'ann chooses k from [1, 2] asking "which one, ann?"\n'
                             'bob chooses k from [3, 4]')
    assert shown(game).splitlines()[0] == "ann: which one, ann?"  # the mini pack names no one
    game.apply_action(0)
    assert shown(game).splitlines()[0] == "bob to choose"


@pytest.mark.parametrize("body, word", [
    ('bob chooses noting "n" asking "q":\n  "a":\n    say "a"\n  "b":\n    say "b"', "asking"),
    ('ann chooses k from [1, 2] asking "q" labelled "{k}"', "labelled"),
])
def test_a_clause_out_of_its_place_says_where_it_goes(tmp_path, body, word):
    with pytest.raises(ContentError) as caught:
        game_of(tmp_path, body)
    text = str(caught.value)
    assert f"error[E201]: '{word}' is out of place here" in text
    assert 'labelled "..." asking "..."' in text  # the hint shows the order
