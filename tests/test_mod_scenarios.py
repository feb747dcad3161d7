"""Runs the scenarios of every mod under content/mods/, each with its own mod loaded.

A mod is a designer's proof that the language can say what they meant without
copying base rules; its scenarios are that proof, so each one is a test here.
Every mod must also check clean and must not replace a base procedure or function.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.diagnostics import Report
from hustings.dsl.pack import builtin_pack
from hustings.dsl.scenarios import Runner, load_scenarios, scenario_files

MODS = builtin_pack().parent / "mods"


def mod_folders() -> list[Path]:
    return sorted(p.parent for p in MODS.glob("*/mod.yaml"))


def collect():
    report = Report()
    cases = []
    for mod in mod_folders():
        for path in scenario_files([mod / "scenarios"]):
            for sc, where in load_scenarios(path, report):
                cases.append(pytest.param(mod, sc, where, id=f"{mod.name}/{sc.name}"))
    assert not report.errors, "\n".join(str(d) for d in report.errors)
    return cases


RUNNER = Runner()


@pytest.mark.parametrize(("mod", "scenario", "where"), collect())
def test_mod_scenario(mod, scenario, where):
    outcome = RUNNER.run(scenario, where, (mod,))
    assert outcome.ok, "\n".join(outcome.failures)


@pytest.mark.parametrize("mod", mod_folders(), ids=lambda p: p.name)
def test_every_mod_has_scenarios(mod):
    assert list(scenario_files([mod / "scenarios"])), f"{mod.name} has no scenarios"


@pytest.mark.parametrize("mod", mod_folders(), ids=lambda p: p.name)
def test_mods_replace_no_base_rule(mod):
    # A mod extends the base rules; replacing one whole is the copying this language avoids.
    yaml = YAML(typ="safe")
    for path in sorted((mod / "rules").glob("*.yaml")):
        data = yaml.load(path.read_text()) or {}
        for section in ("procedures", "functions"):
            for name, body in (data.get(section) or {}).items():
                assert not (isinstance(body, dict) and body.get("replaces")), (
                    f"{path.name}: {section[:-1]} {name} replaces a base rule")
