"""The mutation command's own logic (tools/mutation.py): which modules a change touches,
the staging layout mutmut can follow, and the score. (Running mutmut itself is the
command's job, not the suite's: docs/testing.md.)"""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from hustings.tools import mutation

ROOT = mutation.ROOT


def test_every_defended_module_and_test_file_exists():
    for module, tests in mutation.MODULES.items():
        assert (ROOT / module).is_file(), module
        assert tests, module
        for test in tests:
            assert (ROOT / "tests" / test).is_file(), (module, test)


def test_the_stage_puts_the_package_under_src_hustings_and_names_the_module(tmp_path):
    folder = tmp_path / "stage"
    mutation.stage("interpreter/rng.py", ("test_properties.py", "test_missing.py"), folder)
    assert (folder / "src" / "hustings" / "interpreter" / "rng.py").read_text() == \
        (ROOT / "interpreter" / "rng.py").read_text()
    assert (folder / "tests" / "test_properties.py").is_file()
    assert (folder / "content").is_dir() and (folder / "docs").is_dir()
    assert not list(folder.rglob("__pycache__"))
    config = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert config["only_mutate"] == ["src/hustings/interpreter/rng.py"]
    assert config["source_paths"] == ["src"]
    # a test file that does not exist is left out, not handed to pytest
    assert config["pytest_add_cli_args_test_selection"] == ["tests/test_properties.py"]
    # the staged copy is the one imported from src/, ahead of the editable install
    found = subprocess.run(
        [sys.executable, "-c", "import hustings.interpreter.rng as r; print(r.__file__)"],
        cwd=folder, env={"PYTHONPATH": str(folder / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True).stdout.strip()
    assert found == str(folder / "src" / "hustings" / "interpreter" / "rng.py")


@pytest.mark.parametrize(("counts", "expected"), [
    ({"killed": 17, "survived": 3, "timeout": 0}, 85.0),
    ({"killed": 8, "survived": 1, "timeout": 1}, 90.0),  # a hang is a kill
])
def test_the_score_counts_timeouts_as_kills(counts, expected):
    assert mutation.score(counts) == pytest.approx(expected)


def test_no_mutant_tried_has_no_score():
    """mutmut could not run the tests (a failing test, a bad selection): not a 100%."""
    assert mutation.score({"killed": 0, "survived": 0, "timeout": 0}) is None


def test_a_change_touches_a_module_through_itself_or_its_tests(monkeypatch):
    changed = {"interpreter/rng.py\nREADME.md\n": ["interpreter/rng.py"],
               "tests/test_yaml_reading.py\n": ["dsl/yamlsource.py"],
               "docs/dsl.md\n": []}
    for diff, modules in changed.items():
        monkeypatch.setattr(mutation.subprocess, "run", lambda *a, diff=diff, **k:
                            subprocess.CompletedProcess(a, 0, stdout=diff))
        assert mutation.changed_modules("HEAD~1") == modules


def test_nothing_changed_is_said_and_exits_0(monkeypatch, capsys):
    monkeypatch.setattr(mutation, "changed_modules", lambda ref: [])
    assert mutation.main(["--changed-since", "HEAD~1"]) == 0
    assert capsys.readouterr().out == "mutation: no defended module changed; nothing to run\n"


def test_an_unknown_module_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        mutation.main(["interpreter/nothing.py"])
    assert exit_.value.code == 2
    assert "not a defended module: interpreter/nothing.py" in capsys.readouterr().err
