"""Runs every scenario file of the 1960 pack; each scenario is one test.

Test ids carry the rule ids a scenario proves (its `rules:` list), so rule
coverage can be counted from the test names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hustings.dsl.diagnostics import Report
from hustings.dsl.pack import builtin_pack
from hustings.dsl.scenarios import Runner, load_scenarios, scenario_files

SCENARIOS = builtin_pack() / "scenarios"


def collect():
    report = Report()
    cases = []
    for path in scenario_files([SCENARIOS]):
        for sc, where in load_scenarios(path, report):
            rules = "-".join(sc.rules)
            tag = f"{rules}-{sc.name}" if rules else sc.name
            cases.append(pytest.param(sc, where, id=f"{path.parent.name}/{tag}"))
    assert not report.errors, "\n".join(str(d) for d in report.errors)
    return cases


RUNNER = Runner()


@pytest.mark.parametrize(("scenario", "where"), collect())
def test_scenario(scenario, where):
    outcome = RUNNER.run(scenario, where)
    assert outcome.ok, "\n".join(outcome.failures)


def test_scenario_files_exist():
    assert list(Path(SCENARIOS).rglob("*.yaml")), "the pack ships scenario files"
