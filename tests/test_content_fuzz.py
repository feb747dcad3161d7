"""Content fuzzing in the suite: seeded mutants of the 1960 pack never crash the engine.

Each mutant (one file changed at the YAML or effect-text level, tools/fuzzing.py)
must give diagnostics that each name a file:line:col, or compile and play a
short seeded game, where a RuleError is acceptable. Long runs:
`hustings fuzz --mutants 10000`.
"""

from __future__ import annotations

import random
from pathlib import Path

from hustings.dsl.loading import builtin_pack
from hustings.tools.commands.fuzz import run as fuzz_command
from hustings.tools.fuzzing import Mutator, Summary, block_lines, fuzz

MUTANTS = 200  # about half a minute on one core


def test_two_hundred_mutants_never_crash():
    summary = Summary()
    for outcome in fuzz(builtin_pack(), seed=20261123, count=MUTANTS):
        summary.add(outcome)
    crashes = [f"{c.mutant.file}: {c.mutant.mutation}\n{c.detail}" for c in summary.crashes]
    assert not crashes, "\n\n".join(crashes[:3])
    assert summary.mutants == MUTANTS
    # The mutations bite (most break the pack) but do not all break it.
    assert summary.diagnostics > MUTANTS // 4
    assert summary.clean + summary.rule_errors > 0


def test_mutants_are_reproducible_from_seed_and_index():
    a, b = Mutator(builtin_pack(), 7), Mutator(builtin_pack(), 7)
    for i in (0, 1, 99):
        assert a.mutant(i) == b.mutant(i)
    assert a.mutant(0) != Mutator(builtin_pack(), 8).mutant(0) or \
        a.mutant(1) != Mutator(builtin_pack(), 8).mutant(1)


def test_mutations_reach_both_levels():
    m = Mutator(builtin_pack(), 3)
    kinds = {m.mutant(i).mutation.split(":")[-1].strip().split(" ")[0] for i in range(200)}
    assert {"delete", "insert", "swap", "change", "indentation"} & kinds  # effect text
    assert any(k in kinds for k in ("truncate", "duplicate", "value"))  # YAML


def test_effect_text_lines_are_found_inside_blocks():
    text = "a: 1\nevent: |\n  gain 1\n  say \"x\"\nb: 2\n"
    assert block_lines(text.splitlines()) == [2, 3]


def test_the_command_writes_each_crash_and_fails(tmp_path: Path, monkeypatch, capsys):
    """A crash (here: an engine fault planted in the checker) is saved and exits 1."""
    import argparse

    from hustings.tools import fuzzing

    real, calls = fuzzing.check_pack, []

    def broken(root):
        calls.append(root)
        if len(calls) == 1:
            return real(root)  # the warm-up load of the unchanged pack
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(fuzzing, "check_pack", broken)
    args = argparse.Namespace(pack=None, mutants=2, seed=5, first=random.Random(1).randrange(9),
                              crashes=tmp_path / "crashes", every=1)
    assert fuzz_command(args) == 1
    out = capsys.readouterr().out
    assert "2 crashes" in out
    saved = sorted((tmp_path / "crashes").iterdir())
    assert len(saved) == 2 and "planted" in (saved[0] / "CRASH.txt").read_text()
    assert (saved[0] / "1960" / "pack.yaml").is_file()


def test_a_mutants_game_is_judged_on_what_a_person_is_shown_too(monkeypatch):
    # labels and remarks are made only when asked for; the fuzzer asks, as a person's
    # board does, so a Python fault there is a crash and a rule error is the content's
    from hustings.interpreter.errors import RuleError
    from hustings.interpreter.game import Game
    from hustings.tools.fuzzing import Mutant, judge

    pack = builtin_pack("tic-tac-toe")
    mutant = Mutant(0, "rules/10-game.yaml", "none", "")
    assert judge(pack, mutant, 3).verdict == "clean"

    def fails(error):
        def remarks(self):
            raise error
        return remarks

    monkeypatch.setattr(Game, "remarks", fails(TypeError("planted")))
    outcome = judge(pack, mutant, 3)
    assert outcome.verdict == "crash" and "planted" in outcome.detail
    monkeypatch.setattr(Game, "remarks", fails(RuleError("planted", "x.yaml:1:1")))
    assert judge(pack, mutant, 3).verdict == "rule-error"
