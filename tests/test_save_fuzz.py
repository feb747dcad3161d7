"""Seeded random corruptions of saved games (tools/commands/fuzz_saves.py): each one is
refused with a SaveError message, or loads into a state that passes every invariant
and plays on to the end with random agents. `hustings fuzz-saves --saves 1000` runs
the long version."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from hustings.dsl.loading import load_pack
from hustings.tools.commands.fuzz_saves import corrupt, fuzz

MUTANTS = 300


@pytest.fixture(scope="module")
def program():
    return load_pack()


def test_corrupted_saves_are_refused_or_play_on_soundly(program):
    tally: Counter = Counter()
    failures = []
    for seed, outcome, detail in fuzz(program, 1, MUTANTS):
        tally[outcome] += 1
        if outcome == "FAILED":
            failures.append(f"seed {seed}: {detail}")
        if outcome == "refused":
            assert detail and "\n" not in detail
    assert not failures, "\n".join(failures[:10])
    # the corruptor really corrupts: most saves are refused, and both outcomes occur
    assert tally["refused"] > MUTANTS // 2
    assert tally["played"] > 0
    # a loaded game refuses (RuleError, rolled back) an action that would break an
    # invariant: a variable retyped by the corruptor may lead there, rarely
    assert tally["rule error"] <= MUTANTS // 50


def test_the_corruptor_is_seeded_and_changes_the_save(program):
    from hustings.interpreter.game import Game

    text = Game.new(program, seed=1).save()
    a = corrupt(json.loads(text), random.Random(9))
    b = corrupt(json.loads(text), random.Random(9))
    assert a == b
    changed = sum(corrupt(json.loads(text), random.Random(s)) != text for s in range(50))
    assert changed == 50
