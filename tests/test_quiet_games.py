"""A game nobody reads (`Game.new(..., narrate=False)`: simulations, the benchmark, the
agents' look-ahead) is the same game as a person's, decision for decision and state for
state; only the engine's narration of decisions and changes is left out of its log."""

from __future__ import annotations

import json
import random

import pytest

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter.game import Game

PACKS = ["1960", "campaign-trail", "tic-tac-toe"]


def played(program, seed: int, narrate: bool) -> tuple[Game, list[int]]:
    game = Game.new(program, seed=seed, safe=False, narrate=narrate)
    rng, counts = random.Random(seed), []
    while not game.is_terminal():
        counts.append(game.num_actions())
        game.apply_action(rng.randrange(game.num_actions()))
    return game, counts


def without_narration(game: Game) -> dict:
    data = json.loads(game.save())
    return {k: v for k, v in data.items() if k not in ("log", "told")}


@pytest.mark.parametrize("pack", PACKS)
def test_a_quiet_game_is_the_same_game_without_the_engines_narration(pack):
    program = load_pack(builtin_pack(pack))
    for seed in (1, 2):
        told, told_counts = played(program, seed, narrate=True)
        quiet, quiet_counts = played(program, seed, narrate=False)
        assert quiet_counts == told_counts  # the same decisions, each as wide
        assert without_narration(quiet) == without_narration(told)
        assert quiet.result() == told.result()
        # the narration is what is missing: every quiet line is in the told log, in order
        lines = iter(told.state.log)
        assert all(any(line == t for t in lines) for line in quiet.state.log)
        assert len(quiet.state.log) < len(told.state.log)


def test_a_fork_narrates_as_its_game_unless_told_otherwise():
    program = load_pack(builtin_pack("tic-tac-toe"))
    game = Game.new(program, seed=3)
    assert game.fork().machine.narrating
    quiet = game.fork(narrate=False)
    before = len(quiet.state.log)
    quiet.apply_action(0)
    assert len(quiet.state.log) == before  # no "x: mark ..." nor the square's change
    told = game.fork()
    told.apply_action(0)
    assert len(told.state.log) > before
    assert Game.new(program, seed=3, narrate=False).fork().machine.narrating is False
