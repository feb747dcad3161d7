"""The engine knows no game: no 1960 word or card title in its Python code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hustings.dsl.loading import load_pack

ROOT = Path(__file__).resolve().parents[1]
GAME_WORDS = re.compile(r"kennedy|nixon|momentum|electoral|endorse", re.I)


def python_files(*folders: str) -> list[Path]:
    return [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))]


@pytest.mark.parametrize("folder", ["interpreter", "dsl", "schemas", "tools/reading"])
def test_no_game_words_in_the_engine(folder):
    files = python_files(folder) + sorted((ROOT / folder).rglob("*.lark"))
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in files
            for n, line in enumerate(p.read_text().splitlines(), 1) if GAME_WORDS.search(line)]
    assert not hits, hits


def test_no_game_words_in_the_tools():
    # What a tool needs to know of a game is declared by the pack (view:, agents:).
    words = re.compile(r"\b(kennedy|nixon|momentum|electoral|endorse)", re.I)
    files = [p for ext in ("*.py", "*.js", "*.html", "*.css")
             for p in sorted((ROOT / "tools").rglob(ext))]
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in files
            for n, line in enumerate(p.read_text().splitlines(), 1) if words.search(line)]
    assert not hits, hits


def test_no_card_title_in_any_python_file_outside_tests():
    titles = {c["title"] for c in load_pack().cards.values()}
    source = {p: p.read_text() for p in python_files("interpreter", "dsl", "schemas", "tools")}
    hits = [(str(p.relative_to(ROOT)), t) for p, text in source.items() for t in titles
            if re.search(r"\b" + re.escape(t) + r"\b", text)]
    assert not hits, hits


# The second game, Campaign Trail, is content only as well.
SECOND_GAME = re.compile(r"campaign.trail|politick|fundrais", re.I)


@pytest.mark.parametrize("folder", ["interpreter", "dsl", "schemas", "tools"])
def test_the_engine_and_tools_never_name_the_second_game(folder):
    files = [p for p in sorted((ROOT / folder).rglob("*"))
             if p.is_file() and p.suffix in (".py", ".lark", ".js", ".html", ".css", ".json")]
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in files
            for n, line in enumerate(p.read_text().splitlines(), 1) if SECOND_GAME.search(line)]
    assert not hits, hits


def test_no_card_title_of_the_second_game_in_any_python_file_outside_tests():
    from hustings.dsl.loading import builtin_pack

    program = load_pack(builtin_pack("campaign-trail"),
                        options={"third_party": True, "dirty_politics": True})
    titles = {c["title"] for c in program.cards.values()}
    source = {p: p.read_text() for p in python_files("interpreter", "dsl", "schemas", "tools")}
    hits = [(str(p.relative_to(ROOT)), t) for p, text in source.items() for t in titles
            if re.search(r"\b" + re.escape(t) + r"\b", text)]
    assert not hits, hits
