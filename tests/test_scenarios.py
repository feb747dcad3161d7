"""Runs every scenario file of every built-in pack (1960, Campaign Trail, tic-tac-toe); each
scenario is one test, run on the pack whose folder holds it.

Test ids carry the pack, the folder and the rule ids a scenario proves (its `rules:` list),
so rule coverage can be counted from the test names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hustings.dsl.diagnostics import Report
from hustings.dsl.loading import BUILTIN_PACKS
from hustings.dsl.scenarios import Runner, load_scenarios, scenario_files

PACKS = sorted(p.parent for p in BUILTIN_PACKS.glob("*/pack.yaml"))


def collect():
    report = Report()
    cases = []
    for pack in PACKS:
        for path in scenario_files([pack / "scenarios"]):
            for sc, where in load_scenarios(path, report):
                rules = "-".join(sc.rules)
                tag = f"{rules}-{sc.name}" if rules else sc.name
                cases.append(pytest.param(pack, sc, where,
                                          id=f"{pack.name}/{path.parent.name}/{tag}"))
    assert not report.errors, "\n".join(str(d) for d in report.errors)
    return cases


RUNNERS = {pack: Runner(pack) for pack in PACKS}


@pytest.mark.parametrize(("pack", "scenario", "where"), collect())
def test_scenario(pack, scenario, where):
    outcome = RUNNERS[pack].run(scenario, where)
    assert outcome.ok, "\n".join(outcome.failures)


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_scenario_files_exist(pack):
    assert list(Path(pack / "scenarios").rglob("*.yaml")), "the pack ships scenario files"


def test_both_games_are_built_in():
    assert {p.name for p in PACKS} >= {"1960", "campaign-trail"}
