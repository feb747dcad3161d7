"""Runs the scenarios of every mod under content/mods/, each with its own mod loaded.

A mod is a designer's proof that the language can say what they meant without
copying base rules; its scenarios are that proof, so each one is a test here.
Every mod must also check clean and must not replace a base procedure or function.

Scenarios about two mods together sit in `MOD/with/OTHER/`: they run with OTHER loaded
first, then MOD (`hustings scenario --mod content/mods/OTHER content/mods/MOD/with/OTHER`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.diagnostics import Report
from hustings.dsl.loading import builtin_pack
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


def collect_together():
    report = Report()
    cases = []
    for mod in mod_folders():
        for folder in sorted(p for p in (mod / "with").glob("*") if p.is_dir()):
            other = MODS / folder.name
            for path in scenario_files([folder]):
                for sc, where in load_scenarios(path, report):
                    cases.append(pytest.param((other, mod), sc, where,
                                              id=f"{mod.name}+{other.name}/{sc.name}"))
    assert not report.errors, "\n".join(str(d) for d in report.errors)
    return cases


RUNNER = Runner()


@pytest.mark.parametrize(("mod", "scenario", "where"), collect())
def test_mod_scenario(mod, scenario, where):
    outcome = RUNNER.run(scenario, where, (mod,))
    assert outcome.ok, "\n".join(outcome.failures)


@pytest.mark.parametrize(("mods", "scenario", "where"), collect_together())
def test_scenario_of_two_mods_together(mods, scenario, where):
    assert all((m / "mod.yaml").is_file() for m in mods), f"no such mod: {mods[0].name}"
    outcome = RUNNER.run(scenario, where, mods)
    assert outcome.ok, "\n".join(outcome.failures)


def test_two_mods_react_to_one_campaign_in_load_order():
    # head-to-head's whole-game rule reacts before the reaction Hometown Crowd started
    path = MODS / "hometown-crowd" / "with" / "head-to-head" / "both-react.yaml"
    sc, where = load_scenarios(path, Report())[0]
    outcome = RUNNER.run(sc, where, (MODS / "head-to-head", MODS / "hometown-crowd"))
    log = outcome.game.state.log
    rule = log.index("Nixon campaigns head to head with Kennedy in Ohio")
    assert rule < log.index("  Kennedy gains 1 momentum — Hometown Crowd")
    assert outcome.game.state.counters["momentum"] == {"kennedy": 3, "nixon": 3}


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
