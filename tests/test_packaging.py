"""What a new user meets first stays true: the README's commands, its CLI table, the install.

(.ci/run builds the wheel, installs it in a fresh venv and runs it outside the checkout.)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from hustings.tools import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TOP_LEVEL = ("dsl", "interpreter", "schemas", "tools", "content")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def subparsers(parser) -> dict:
    return parser._subparsers._group_actions[0].choices


def table_rows() -> list[tuple[list[str], str]]:
    """(command words, whole row) for each row of the README's CLI table."""
    rows = []
    for line in section("The command line").splitlines():
        found = re.match(r"^\| `hustings ([^`]*)`", line)
        if found:
            words = []
            for word in found.group(1).split():
                if not re.fullmatch(r"[a-z][a-z-]*", word):
                    break
                words.append(word)
            rows.append((words, line))
    return rows


def help_of(words: list[str]) -> str:
    # play and simulate add a flag per player of the pack the command line names
    named = [words[0]] if words[0] in ("play", "simulate") else []
    parser = subparsers(cli.build_parser(named))[words[0]]
    for word in words[1:]:
        parser = subparsers(parser)[word]
    return parser.format_help()


def test_every_subcommand_is_in_the_readme_table_and_every_row_is_a_subcommand():
    listed = {words[0] for words, _ in table_rows()}
    real = set(subparsers(cli.build_parser([])))
    assert real - listed == set(), "missing from the README's CLI table"
    assert listed - real == set(), "README rows that are no subcommand"


@pytest.mark.parametrize(("words", "row"), table_rows(), ids=lambda v: v if isinstance(v, str)
                         and len(v) < 20 else None)
def test_each_rows_flags_exist(words, row):
    text = help_of(words)
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", row))
    missing = sorted(f for f in flags if f not in text)
    assert not missing, f"`hustings {' '.join(words)} --help` has no {missing}"


def test_the_shared_flags_are_where_the_readme_says():
    text = README[README.index("One way to name the content everywhere"):]
    text = text[:text.index("\n\n")]
    commands = re.findall(r"`(\w+)`", text.split("take")[0])
    assert len(commands) >= 6
    for command in commands:
        for flag in ("--pack", "--option", "--mod"):
            assert flag in help_of([command]), (command, flag)


def quickstart_commands() -> list[str]:
    return [line.strip() for line in section("Quickstart").splitlines()
            if line.startswith("    ")]


def test_the_quickstart_is_two_commands_each_in_a_virtual_environment():
    commands = quickstart_commands()
    assert len(commands) == 2
    for command in commands:
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert commands[0].endswith("hustings play --seed 1")


def test_ci_runs_the_readmes_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    tests = quickstart_commands()[1]
    assert "pytest" in tests
    assert f"\n  {tests}\n" in ci
    assert re.search(r"^readme_tests$", ci, re.M)


# a flag of the README's test command, and the package of the plugin that reads it
PLUGIN_FLAGS = {" -n ": "pytest-xdist", "--snapshot": "syrupy", "--hypothesis": "hypothesis"}


def test_the_test_extra_has_what_the_readme_command_uses():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]
             for r in project["optional-dependencies"]["test"]}
    command = quickstart_commands()[1]
    needed = {"pytest"} | {pkg for flag, pkg in PLUGIN_FLAGS.items() if flag in command}
    assert "pytest" in command and needed <= extra, sorted(needed - extra)
    # the extra also holds what the suite imports beyond the package itself
    assert {"hypothesis", "pytest-xdist", "syrupy", "jsonschema"} <= extra


def test_every_code_folder_is_a_package_so_setup_py_installs_it():
    """setup.py installs every folder holding an __init__.py; a code folder without one
    would be left out of the wheel."""
    missing = sorted(
        str(folder.relative_to(ROOT))
        for top in TOP_LEVEL for folder in [ROOT / top, *(ROOT / top).rglob("*")]
        if folder.is_dir() and "__pycache__" not in folder.parts
        and any(folder.glob("*.py")) and not (folder / "__init__.py").is_file()
    )
    assert not missing


def test_package_data_covers_every_data_file():
    """Every non-Python file under the package folders matches a package-data pattern."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]
    uncovered = []
    for top in TOP_LEVEL:
        patterns = data.get(f"hustings.{top}", [])
        for path in (ROOT / top).rglob("*"):
            rel = path.relative_to(ROOT / top)
            if (path.is_dir() or path.suffix in (".py", ".pyc") or "__pycache__" in rel.parts
                    or "__snapshots__" in rel.parts):
                continue
            if not any(rel.match(p) or (p.startswith("**/") and rel.match(p[3:]))
                       for p in patterns):
                uncovered.append(f"{top}/{rel}")
    assert not uncovered, uncovered[:10]
