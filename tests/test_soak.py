"""`hustings soak`: clean games pass; a violation names the seed and action and fails."""

from __future__ import annotations

import json

from hustings.interpreter import invariants
from hustings.tools.cli import main


def test_soak_plays_checked_games_and_summarises(capsys):
    assert main(["soak", "--games", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["games"] == 2 and summary["violations"] == 0
    assert summary["actions"] > 200  # two whole games were played


def test_a_violation_names_its_seed_and_action_and_fails(capsys, monkeypatch):
    real = invariants.first_violation
    calls = {"n": 0}

    def broken_after_three(program, state, ops=None):
        calls["n"] += 1
        return "planted problem" if calls["n"] == 4 else real(program, state, ops)

    monkeypatch.setattr(invariants, "first_violation", broken_after_three)
    assert main(["soak", "--games", "1", "--seed", "8"]) == 1
    captured = capsys.readouterr()
    assert "VIOLATION seed 8, action 3: planted problem" in captured.out
    assert "hustings soak --games 1 --seed 8" in captured.err
    assert json.loads(captured.out.strip().splitlines()[-1])["violations"] == 1
