"""Content fuzzing in the suite: seeded mutants of the 1960 pack never crash the engine.

Each mutant (one file changed at the YAML or effect-text level, tools/fuzzing.py)
must give diagnostics that each name a file:line:col, or compile and play
three short seeded games, where a RuleError is acceptable if it names a
file:line:col (a rule error nobody can find is a crash). Long runs:
`hustings fuzz --mutants 10000`.
"""

from __future__ import annotations

import random
from pathlib import Path

from hustings.dsl.loading import builtin_pack
from hustings.tools import fuzzing
from hustings.tools.commands.fuzz import run as fuzz_command
from hustings.tools.fuzzing import Mutator, Summary, block_lines, fuzz

MUTANTS = 60  # a sample of every kind of mutation; the long runs are `hustings fuzz`


def kind_of(mutant) -> str:
    return mutant.mutation.split(":")[-1].strip().split(" ")[0]


def test_sixty_mutants_never_crash():
    # the sample holds every kind of mutation, of the effect text and of the YAML
    mutator = Mutator(builtin_pack(), 20261123)
    kinds = {kind_of(mutator.mutant(i)) for i in range(MUTANTS)}
    assert {"delete", "insert", "swap", "change", "indentation"} <= kinds  # effect text
    assert {"truncate", "duplicate", "value"} <= kinds  # YAML
    summary = Summary()
    for outcome in fuzz(builtin_pack(), seed=20261123, count=MUTANTS):
        summary.add(outcome)
    crashes = [f"{c.mutant.file}: {c.mutant.mutation}\n{c.detail}" for c in summary.crashes]
    assert not crashes, "\n\n".join(crashes[:3])
    assert summary.mutants == MUTANTS
    # The mutations bite (most break the pack) but do not all break it.
    assert summary.diagnostics > MUTANTS // 4
    assert summary.clean + summary.rule_errors > 0
    # every mutant that checked clean was played with three seeds
    assert summary.games == fuzzing.PLAY_SEEDS * (summary.clean + summary.rule_errors)


def test_mutants_are_reproducible_from_seed_and_index():
    a, b = Mutator(builtin_pack(), 7), Mutator(builtin_pack(), 7)
    for i in (0, 1, 99):
        assert a.mutant(i) == b.mutant(i)
    assert a.mutant(0) != Mutator(builtin_pack(), 8).mutant(0) or \
        a.mutant(1) != Mutator(builtin_pack(), 8).mutant(1)


def test_mutations_reach_both_levels():
    m = Mutator(builtin_pack(), 3)
    kinds = {kind_of(m.mutant(i)) for i in range(200)}
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
                              crashes=tmp_path / "crashes", every=1, agent="random")
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


def test_a_rule_error_without_file_line_col_is_a_crash(monkeypatch):
    """`check` passed the mutant, so a rule error its author cannot find is the engine's."""
    from hustings.interpreter.errors import RuleError
    from hustings.interpreter.game import Game
    from hustings.tools.fuzzing import Mutant, judge

    pack = builtin_pack("tic-tac-toe")
    mutant = Mutant(0, "rules/10-game.yaml", "none", "")

    def fails(error):
        def remarks(self):
            raise error
        return remarks

    for where in ("", "x.yaml", "x.yaml:0:1", "x.yaml:3", ":1:1"):
        monkeypatch.setattr(Game, "remarks", fails(RuleError("planted", where)))
        outcome = judge(pack, mutant, 3)
        assert outcome.verdict == "crash", where
        assert "no file:line:col" in outcome.detail and "planted" in outcome.detail
    monkeypatch.setattr(Game, "remarks", fails(RuleError("planted", "rules/x.yaml:12:7")))
    assert judge(pack, mutant, 3).verdict == "rule-error"


def test_each_clean_mutant_is_played_with_three_seeds(monkeypatch):
    """A fault that shows only in one seed's game is still found: each seed is played,
    the first crash is the verdict, else the first rule error."""
    from hustings.tools.fuzzing import Mutant, Outcome, judge

    pack = builtin_pack("tic-tac-toe")
    mutant = Mutant(0, "rules/10-game.yaml", "none", "")
    seeds = []
    real = fuzzing.play

    def by_seed(program, m, seed, agent="random"):
        seeds.append(seed)
        return real(program, m, seed, agent)

    monkeypatch.setattr(fuzzing, "play", by_seed)
    outcome = judge(pack, mutant, 40)
    assert seeds == [40, 41, 42] and outcome.verdict == "clean" and outcome.games == 3

    def second_rule_error(program, m, seed, agent="random"):
        return Outcome(m, "rule-error", "x.yaml:1:1: planted") if seed == 41 else \
            real(program, m, seed, agent)

    monkeypatch.setattr(fuzzing, "play", second_rule_error)
    outcome = judge(pack, mutant, 40)
    assert outcome.verdict == "rule-error" and outcome.games == 3

    def last_crashes(program, m, seed, agent="random"):
        return Outcome(m, "crash", "planted") if seed == 42 else real(program, m, seed, agent)

    monkeypatch.setattr(fuzzing, "play", last_crashes)
    outcome = judge(pack, mutant, 40)
    assert outcome.verdict == "crash" and outcome.detail == "planted"


def test_the_clean_mutants_are_played_by_the_agent_named(monkeypatch, tmp_path, capsys):
    """`--agent last` plays each clean mutant's games by always taking the last option;
    an unknown name is refused before any work."""
    import argparse

    from hustings.interpreter.game import Game

    taken = []
    real = Game.apply_action

    def noted(self, action):
        taken.append(action == self.num_actions() - 1)
        return real(self, action)

    monkeypatch.setattr(Game, "apply_action", noted)
    args = argparse.Namespace(pack=builtin_pack("tic-tac-toe"), mutants=6, seed=2, first=0,
                              crashes=tmp_path / "crashes", every=0, agent="last")
    assert fuzz_command(args) == 0
    assert taken and all(taken)
    assert "checked clean and played" in capsys.readouterr().out
    args.agent = "nobody"
    assert fuzz_command(args) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
