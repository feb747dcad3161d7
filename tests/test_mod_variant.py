"""The Short Campaign variant (content/mods/short-campaign) plays whole games: five turns,
the Debates on turn 4, Election Day on turn 5, a winner, and never more than 3 momentum."""

from __future__ import annotations

import random

import pytest

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import first_violation
from hustings.tools.cli import main

VARIANT = builtin_pack().parent / "mods" / "short-campaign"


@pytest.fixture(scope="module")
def program():
    return load_pack(None, mods=[VARIANT])


def play_randomly(program, seed: int) -> tuple[Game, int]:
    """A whole game of random legal actions; the most momentum seen after any action."""
    game = Game.new(program, seed)
    pick = random.Random(seed)
    most = max(game.state.counters["momentum"].values())
    for _ in range(5000):
        if game.is_terminal():
            break
        game.apply_action(pick.choice(game.legal_actions()))
        most = max(most, *game.state.counters["momentum"].values())
    return game, most


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_variant_plays_five_turns_to_a_winner_with_at_most_3_momentum(program, seed):
    game, most = play_randomly(program, seed)
    assert game.is_terminal()
    assert game.result()["winner"] in ("kennedy", "nixon")
    assert most <= 3
    assert first_violation(program, game.state, None) is None
    log = game.state.log
    assert [line for line in log if line.startswith("== Turn ")] == [
        "== Turn 1 of 5 ==", "== Turn 2 of 5 ==", "== Turn 3 of 5 ==",
        "== Turn 4: the Debates ==", "== Turn 5: Election Day =="]


def test_the_cap_is_the_variant_s_not_the_pack_s():
    # without the mod, random play passes 3 momentum markers in some game
    plain = load_pack(None)
    assert any(play_randomly(plain, seed)[1] > 3 for seed in range(1, 6))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_variant_plays_from_the_command_line(capsys, seed):
    assert main(["play", "--mod", str(VARIANT), "--seed", str(seed), "--quiet"]) == 0
    assert '"winner": "' in capsys.readouterr().out
