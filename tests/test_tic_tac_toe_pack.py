"""The tic-tac-toe pack (content/tic-tac-toe): the same game as tools/reference_game.py,
written as content. `hustings bench` compares the two, so they must play the same games."""

from __future__ import annotations

import pytest

from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter.game import Game
from hustings.tools.agents import random_agent
from hustings.tools.reference_game import SQUARES, TicTacToe


@pytest.fixture(scope="module")
def program():
    return load_pack(builtin_pack("tic-tac-toe"))


def test_the_pack_checks_clean():
    loaded = check_pack(builtin_pack("tic-tac-toe"))
    assert loaded.program is not None and not loaded.report.errors
    assert not loaded.report.warnings


def test_the_pack_plays_the_same_games_as_the_plain_python_one(program):
    for seed in range(300):
        game, agent, asked = Game.new(program, seed=seed), random_agent(seed), 0
        while not game.is_terminal():
            game.apply_action(agent(game))
            asked += 1
        plain, agent, plain_asked = TicTacToe(), random_agent(seed), 0
        while not plain.is_terminal():
            plain.apply_action(agent(plain))
            plain_asked += 1
        marks = {square: held[0] for square, held in game.state.pools["marks"].items()}
        board = {square: mark for square, mark in zip(SQUARES, plain.board, strict=True) if mark}
        assert marks == board, seed
        assert game.result() == plain.result(), seed
        # the last empty square is taken at once: the pack asks nothing when one is left
        assert asked == plain_asked - (1 if plain.moves == 9 else 0), seed


@pytest.mark.parametrize(("moves", "winner"), [
    (("a1", "a2", "b1", "b2", "c1"), "x"),  # a row
    (("a1", "b1", "a2", "b2", "c3", "b3"), "o"),  # a column
    (("c1", "a1", "b2", "b1", "a3"), "x"),  # the antidiagonal
    (("a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3"), None),  # the ninth move is forced: a draw
])
def test_moves_by_label_end_the_game_as_the_rules_say(program, moves, winner):
    game = Game.new(program, seed=1)
    for square in moves:
        assert game.legal_actions() == [s for s in SQUARES
                                        if s not in game.state.pools["marks"]]
        game.apply_action(square)
    assert game.is_terminal() and game.result() == {"winner": winner}
    assert game.state.log[-1] == (f"{winner} wins" if winner else "a draw")


def test_a_marked_square_is_refused_and_nothing_changes(program):
    from hustings.interpreter.errors import IllegalAction

    game = Game.new(program, seed=1)
    game.apply_action("b2")
    before = game.save()
    with pytest.raises(IllegalAction):
        game.apply_action("b2")
    assert game.save() == before
