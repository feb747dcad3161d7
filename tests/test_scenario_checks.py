"""Scenario files naming what the pack does not have (E502-E510) fail with the spot, and
`hustings scenario --format github` turns each failure into a workflow annotation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hustings.dsl.scenarios import run_paths
from hustings.tools.cli import main

HEAD = ("scenarios:\n  - name: names\n    run: {procedure: resolve_card_event, "
        "args: {player: kennedy, card: 5}}\n")


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "names.yaml"
    path.write_text(HEAD + body)
    return path


def spot(path: Path, needle: str, after: str = "") -> tuple[int, int]:
    text = path.read_text()
    at = text.index(needle, text.index(after) if after else 0)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def problems(path: Path) -> list[tuple[str, int, int, str]]:
    (outcome,), report = run_paths([path])
    assert not report.errors and not outcome.ok
    return [(d.code, d.source.line, d.source.column, d.hint) for d in outcome.problems]


# code, the scenario text after its head, the misspelt name, the hint
CASES = [
    ("E502", "    setup:\n      tokens: {kennedy: CAA}\n", "CAA", "did you mean `CA`?"),
    ("E502", "    steps:\n      - expect:\n          support: {state: {defense: null}}\n",
     "defense", "one of the states, such as `AL`"),
    ("E503", "    setup:\n      zones: {discard: [5, 999]}\n", "999",
     "no card of the pack has this number, with the scenario's options and mods"),
    ("E503", "    steps:\n      - cards: [5, 976]\n", "976", "did you mean `97`?"),
    ("E504", "    setup:\n      support: {state: {NY: [kenedy, 1]}}\n", "kenedy",
     "did you mean `kennedy`?"),
    ("E504", "    steps:\n      - expect:\n          player: nixn\n", "nixn",
     "did you mean `nixon`?"),
    ("E505", "    setup:\n      counters: {momentun: {kennedy: 1}}\n", "momentun",
     "did you mean `momentum`?"),
    ("E506", "    setup:\n      clear: [stat]\n", "stat", "did you mean `state`?"),
    ("E507", "    steps:\n      - expect:\n          zone_lacks: {\"hand:kenedy\": [5]}\n",
     "\"hand:kenedy\"", "did you mean `hand:kennedy`?"),
    ("E508", "    setup:\n      tracks: {issue_trak: [defense]}\n", "issue_trak",
     "did you mean `issue_track`?"),
    ("E508", "    steps:\n      - expect:\n          tracks: {issue_track: [defence]}\n",
     "defence", "did you mean `defense`?"),
    ("E509", "    steps:\n      - expect:\n          vars: {trun: 1}\n", "trun",
     "did you mean `turn`?"),
    ("E510", "    setup:\n      effects: [[campaign_taxx, nixon, 1, turn]]\n",
     "campaign_taxx", "did you mean `campaign_tax`?"),
]


@pytest.mark.parametrize("code,body,word,hint", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_an_unknown_name_fails_the_scenario_at_its_spot(tmp_path, code, body, word, hint):
    path = write(tmp_path, body)
    assert problems(path) == [(code, *spot(path, word, "    "), hint)]


def test_every_unknown_name_of_a_scenario_is_reported_in_file_order(tmp_path):
    path = write(tmp_path, "    setup:\n      tokens: {nixen: CA, kennedy: CAA}\n"
                 "    steps:\n      - expect:\n          counters: {momentum: {kenedy: 1}}\n")
    assert [p[:3] for p in problems(path)] == [
        ("E504", *spot(path, "nixen")), ("E502", *spot(path, "CAA")),
        ("E504", *spot(path, "kenedy"))]


def test_names_that_exist_pass(tmp_path):
    path = write(tmp_path, "    setup:\n      vars: {turn: 1}\n      tokens: {kennedy: CA}\n"
                 "      zones: {\"hand:kennedy\": [5]}\n"
                 "    steps:\n      - expect:\n          tracks: {issue_track: "
                 "[defense, economy, civil_rights]}\n          zone_lacks: "
                 "{\"hand:nixon\": [5]}\n")
    (outcome,), _ = run_paths([path])
    assert outcome.ok, outcome.failures


def test_the_command_reports_the_spot_and_fails(tmp_path, capsys):
    path = write(tmp_path, "    setup:\n      tokens: {kennedy: CAA}\n")
    assert main(["scenario", str(path)]) == 1
    line, col = spot(path, "CAA")
    out = capsys.readouterr().out
    assert f"{path}:{line}:{col}: error[E502]: unknown place 'CAA' (did you mean `CA`?)" in out
    assert "0 passed, 1 failed" in out


# ---- --format github ---------------------------------------------------------------------
ANNOTATION = re.compile(r"^::error file=[^,:]+,line=\d+,col=\d+::.+$")


def test_github_format_annotates_each_failure_at_its_line(tmp_path, capsys):
    path = write(tmp_path, "    setup:\n      tokens: {kennedy: CAA}\n"
                 "      counters: {momentun: {kennedy: 1}}\n")
    assert main(["scenario", str(path), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "0 passed, 1 failed"
    assert all(ANNOTATION.match(line) for line in lines[:-1]), lines
    line, col = spot(path, "CAA")
    assert lines[0] == (f"::error file={path},line={line},col={col}::[E502] scenario 'names': "
                        "unknown place 'CAA' (did you mean `CA`?)")
    assert len(lines) == 3


def test_github_format_points_a_failed_step_at_the_step(tmp_path, capsys):
    path = tmp_path / "steps.yaml"
    path.write_text("scenarios:\n  - name: a wrong expectation\n    setup:\n"
                    "      vars: {turn: 1}\n"
                    "    run: {procedure: campaign, args: {player: kennedy, cp: 3}}\n"
                    "    steps:\n      - expect:\n          player: kennedy\n"
                    "      - expect:\n          player: nixon\n")
    assert main(["scenario", str(path), "--format", "github"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    line, col = spot(path, "- expect:\n          player: nixon")
    assert first == (f"::error file={path},line={line},col={col + 2}::scenario 'a wrong "
                     "expectation': step 2: player to act: expected 'nixon', got 'kennedy'")


def test_github_format_of_passing_scenarios_is_the_summary_alone(tmp_path, capsys):
    path = write(tmp_path, "    setup:\n      tokens: {kennedy: CA}\n")
    assert main(["scenario", str(path), "--format", "github"]) == 0
    assert capsys.readouterr().out.splitlines() == ["1 passed, 0 failed"]
