"""What a new user meets first stays true: the README's quickstart, the command reference
(docs/commands.md) against the real parser, the install.

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
COMMANDS = (ROOT / "docs" / "commands.md").read_text()
TOP_LEVEL = ("dsl", "interpreter", "schemas", "tools", "content")
# The two commands CI runs and a newcomer copies, byte for byte.
QUICKSTART = [
    "python3 -m venv .venv && . .venv/bin/activate && python -m pip install . "
    "&& hustings play --seed 1",
    "python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e '.[test]' "
    "&& python -m pytest -n 2",
]


def section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def subparsers(parser) -> dict:
    return parser._subparsers._group_actions[0].choices


def reference_sections() -> list[tuple[list[str], str]]:
    """(command words, section text) for each `## hustings ...` section of docs/commands.md."""
    found = []
    for match in re.finditer(r"^## hustings ([a-z][a-z -]*)$", COMMANDS, flags=re.M):
        words = match.group(1).split()
        found.append((words, section(COMMANDS, f"hustings {match.group(1)}")))
    return found


def help_of(words: list[str]) -> str:
    # play and simulate add a flag per player of the pack the command line names
    named = [words[0]] if words[0] in ("play", "simulate") else []
    parser = subparsers(cli.build_parser(named))[words[0]]
    for word in words[1:]:
        parser = subparsers(parser)[word]
    return parser.format_help()


def flags(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def test_every_subcommand_has_a_section_and_every_section_is_a_subcommand():
    listed = {words[0] for words, _ in reference_sections()}
    real = set(subparsers(cli.build_parser([])))
    assert real - listed == set(), "missing from docs/commands.md"
    assert listed - real == set(), "docs/commands.md sections that are no subcommand"


@pytest.mark.parametrize(("words", "text"), reference_sections(),
                         ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_each_sections_flags_exist_and_every_flag_is_described(words, text):
    """Both ways: a flag the section names exists, and every flag of `--help` is named."""
    real = flags(help_of(words)) - {"--help"}
    named = flags(text) - {"--help"}
    assert named - real == set(), f"`hustings {' '.join(words)} --help` has no such flag"
    assert real - named == set(), f"docs/commands.md, `hustings {' '.join(words)}` leaves out"


def test_the_shared_flags_are_where_the_reference_says():
    text = section(COMMANDS, "Shared by every command")
    text = text[text.index("**The content.**"):]
    commands = re.findall(r"`([\w-]+)`", text.split(" take:")[0])
    assert len(commands) >= 6
    for command in commands:
        for flag in ("--pack", "--option", "--mod"):
            assert flag in help_of([command]), (command, flag)


def test_the_readme_links_the_command_reference():
    assert "](docs/commands.md)" in README


def quickstart_commands() -> list[str]:
    return [line.strip() for line in section(README, "Quickstart").splitlines()
            if line.startswith("    ")]


def test_the_quickstart_is_the_two_commands_ci_runs_byte_for_byte():
    assert quickstart_commands() == QUICKSTART


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
