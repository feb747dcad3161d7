"""The docs stay true: the language reference keeps up with the grammar (every form is
documented); the README stays short, for a newcomer, and every link in it and in docs/
resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hustings.interpreter.builtins import ARITY

ROOT = Path(__file__).resolve().parents[1]
GRAMMAR = (ROOT / "dsl" / "grammar.lark").read_text()
REFERENCE = (ROOT / "docs" / "dsl.md").read_text()


def grammar_forms() -> set[str]:
    rules = set(re.findall(r"^(\w+_(?:stmt|phrase)):", GRAMMAR, flags=re.M))
    aliases = set(re.findall(r"->\s*(\w+)", GRAMMAR))
    return rules | aliases


def test_every_grammar_form_is_in_the_reference():
    missing = sorted(f for f in grammar_forms() if f"`{f}`" not in REFERENCE)
    assert not missing, f"docs/dsl.md does not document: {', '.join(missing)}"


def test_every_builtin_function_is_in_the_reference():
    missing = sorted(n for n in ARITY if f"`{n}" not in REFERENCE)
    assert not missing, f"docs/dsl.md does not document: {', '.join(missing)}"


def test_the_forms_are_found():
    forms = grammar_forms()
    assert {"let_stmt", "add_phrase", "where", "prop"} <= forms


# ---- the README and the docs it leads to ----------------------------------------------
README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def local_links(path: Path) -> list[tuple[Path, str]]:
    """(target file, anchor) of every relative link of a Markdown file."""
    found = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto: ...
        file, _, anchor = target.partition("#")
        found.append(((path.parent / file).resolve() if file else path, anchor))
    return found


@pytest.mark.parametrize("doc", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_every_local_link_resolves(doc):
    broken = []
    for target, anchor in local_links(doc):
        if not target.exists():
            broken.append(f"{target.relative_to(ROOT)} (no such file)")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{target.relative_to(ROOT)}#{anchor} (no such heading)")
    assert not broken, f"{doc.name}: {broken}"


@pytest.mark.parametrize("doc", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_every_docs_file_named_in_prose_exists(doc):
    named = set(re.findall(r"`(docs/[\w./-]+\.md)`", doc.read_text()))
    assert {n for n in named if not (ROOT / n).is_file()} == set()


def test_the_readme_is_short_and_its_table_rows_are_too():
    lines = README.splitlines()
    assert len(lines) <= 150
    rows = [line for line in lines if line.startswith("|")]
    assert all(len(row) <= 200 for row in rows)


def test_the_readme_links_into_docs_one_line_each():
    linked = {target for target in LINK.findall(README) if target.startswith("docs/")}
    for page in ("playing.md", "commands.md", "authoring.md", "dsl.md", "architecture.md",
                 "performance.md", "web.md"):
        assert f"docs/{page}" in linked, page


def test_how_to_play_yourself_comes_right_after_the_quickstart():
    titles = re.findall(r"^## (.+)$", README, flags=re.M)
    assert titles[0].startswith("Quickstart")
    after = README[README.index(f"## {titles[1]}"):README.index(f"## {titles[2]}")]
    for command in ("hustings play --kennedy human", "hustings serve", "pip install '.[web]'"):
        assert command in after, command


def test_the_readme_card_is_the_real_card():
    """Every line of the example card is a line of card 2's file, in the file's order (a
    field added to the file later does not make the README wrong; a changed one does)."""
    shown = re.search(r"```yaml\n(.*?)```", README, flags=re.S).group(1).splitlines()
    card = iter((ROOT / "content" / "1960" / "cards" / "002-nixons-knee.yaml")
                .read_text().splitlines())
    assert len(shown) >= 10
    assert all(line in card for line in shown)  # `in` on an iterator: in order


def test_the_playing_guide_starts_with_the_game_for_a_newcomer():
    guide = (ROOT / "docs" / "playing.md").read_text()
    titles = re.findall(r"^## (.+)$", guide, flags=re.M)
    assert titles[0] == "The game in one page"
    page = section_of(guide, titles[0])
    for term in ("Initiative", "CP", "event", "campaign", "Momentum", "Debates",
                 "Election Day", "support check", "trigger", "preempt"):
        assert term in page, term
    assert len(page.splitlines()) <= 80  # a page, not a manual


def section_of(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]
