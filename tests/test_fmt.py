"""`hustings fmt`: canonical layout of content YAML that keeps every comment."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.loading import builtin_pack
from hustings.tools.cli import main
from hustings.tools.formatting import CARD, format_text

SCHEMA_LINE = "# yaml-language-server: $schema=../../../schemas/json/card.schema.json"

# Out of order, oddly indented, with a comment in every place one can go.
COMMENTED_CARD = f"""\
{SCHEMA_LINE}
# top: what this card is for
title: Volunteers      # eol: the title
number: 5   # eol: the number

# above cp, after a blank line
cp: 1
rest: 0
icon: both
tags:     # eol: the list
    - first    # eol: inside the list
    # between list items
    - second
issue:   defense
state: OR
persistent: null
# above text
text: >-
  Player gains 1 momentum marker.
# above the event block
event: |
  # a comment of the effect language, inside the block
  player gains 1 momentum
# at the very end
"""

COMMENTS = [line[line.index("#"):] for line in COMMENTED_CARD.splitlines() if "#" in line]


def card_file(folder: Path, text: str, name: str = "005-volunteers.yaml") -> Path:
    cards = folder / "cards"
    cards.mkdir(parents=True, exist_ok=True)
    path = cards / name
    path.write_text(text, encoding="utf-8")
    return path


def keys(path: Path) -> list[str]:
    return list(YAML(typ="rt").load(path.read_text(encoding="utf-8")))


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*.yaml"))}


def test_fmt_keeps_every_comment_in_order(tmp_path, capsys):
    path = card_file(tmp_path, COMMENTED_CARD)
    assert main(["fmt", str(path)]) == 0
    out = path.read_text(encoding="utf-8")
    assert out != COMMENTED_CARD and "reformatted" in capsys.readouterr().out
    assert out.splitlines()[0] == SCHEMA_LINE
    found = [line[line.index("#"):] for line in out.splitlines() if "#" in line]
    assert sorted(found) == sorted(COMMENTS)
    # Comments above a key move with it; the schema line and the last comment stay put.
    assert out.index("# eol: the number") < out.index("# eol: the title")
    assert out.index("# above the event block") < out.index("event: |")
    assert out.index("# above text") < out.index("text: >-")
    assert out.rstrip().endswith("# at the very end")
    # The list moved to 2 spaces: the comment between its items moved along.
    assert "\n  - first " in out and "\n  # between list items\n  - second\n" in out
    assert format_text(out, "card") == out


def test_card_keys_out_of_order_are_reordered(tmp_path):
    path = card_file(tmp_path, COMMENTED_CARD)
    main(["fmt", str(path)])
    assert keys(path) == ["number", "title", "cp", "rest", "icon", "issue", "state",
                          "persistent", "tags", "text", "event"]


def test_unknown_keys_keep_their_order_between_known_and_prose(tmp_path):
    text = (f"{SCHEMA_LINE}\nevent: |\n  player gains 1 momentum\nzeta: 1\ntext: t\nalpha: 2\n"
            "number: 7\ntitle: T\ncp: 2\n")
    path = card_file(tmp_path, text, "007-t.yaml")
    main(["fmt", str(path)])
    assert keys(path) == ["number", "title", "cp", "zeta", "alpha", "text", "event"]
    assert "event: |\n  player gains 1 momentum\n" in path.read_text(encoding="utf-8")


def test_fmt_check_exits_1_on_a_non_canonical_file_and_changes_nothing(tmp_path, capsys):
    path = card_file(tmp_path, COMMENTED_CARD)
    assert main(["fmt", "--check", str(path)]) == 1
    assert f"would reformat {path}" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == COMMENTED_CARD


def test_fmt_check_exits_0_on_a_canonical_file(tmp_path, capsys):
    path = card_file(tmp_path, (builtin_pack() / "cards/002-nixons-knee.yaml").read_text())
    before = path.read_text(encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 0
    assert "would reformat" not in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == before


def test_built_in_pack_is_canonical(tmp_path):
    copy = shutil.copytree(builtin_pack(), tmp_path / "1960")
    assert main(["fmt", "--check", str(copy)]) == 0
    assert snapshot(copy) == snapshot(builtin_pack())


def relaid(text: str) -> str:
    """The same data in another layout: 4-space mappings, unindented lists, and in card
    files the number and title lines moved to the end."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=4, sequence=2, offset=0)
    out = io.StringIO()
    yaml.dump(yaml.load(text), out)
    lines = out.getvalue().splitlines(keepends=True)
    moved = [line for line in lines if line.startswith(("number:", "title:"))]
    return "".join([line for line in lines if line not in moved] + moved)


def test_fmt_twice_equals_fmt_once_on_every_content_file(tmp_path):
    copy = shutil.copytree(builtin_pack(), tmp_path / "1960")
    for path in copy.rglob("*.yaml"):
        path.write_text(relaid(path.read_text(encoding="utf-8")), encoding="utf-8")
    relaid_files = snapshot(copy)
    assert main(["fmt", str(copy)]) == 0
    once = snapshot(copy)
    assert main(["fmt", str(copy)]) == 0
    assert snapshot(copy) == once  # (`--check` on canonical files: the tests above)
    assert once != relaid_files
    # Card files have no wrapped flow lists: their canonical form is the pack's own.
    original = snapshot(builtin_pack())
    cards = [name for name in once if name.startswith("cards/")]
    assert len(cards) >= 90
    assert all(once[name] == original[name] for name in cards)


def test_wrapped_flow_lists_keep_their_breaks_aligned_under_the_first_item(tmp_path):
    text = ("scenarios:\n  - name: x\n    steps:\n"
            "      - do: [\"one\", \"two\",\n   \"three\", \"four\",\n"
            "                                 \"five\"]\n")
    path = tmp_path / "pack" / "scenarios" / "s.yaml"
    path.parent.mkdir(parents=True)
    (tmp_path / "pack" / "pack.yaml").write_text("name: p\n")
    path.write_text(text)
    assert main(["fmt", str(path)]) == 0
    assert path.read_text() == ("scenarios:\n  - name: x\n    steps:\n"
                                "      - do: [\"one\", \"two\",\n"
                                "             \"three\", \"four\",\n"
                                "             \"five\"]\n")


def test_null_layout_anchor_and_trailing_space(tmp_path):
    text = "number: 1  \ntitle: T\nissue:\nstate: ~\nsteps: &shared [a]\nagain: *shared\n\n\n"
    out = format_text(text, "card")
    assert out == ("number: 1\ntitle: T\nissue: null\nstate: null\nsteps: &shared [a]\n"
                   "again: *shared\n")


def test_a_comment_fmt_cannot_keep_leaves_the_file_alone(tmp_path, capsys):
    text = f"{SCHEMA_LINE}\nnumber: 1\ntitle: T\ncp: [1,   # inside a flow list\n  2]\n"
    path = card_file(tmp_path, text, "001-t.yaml")
    assert main(["fmt", str(path)]) == 1
    assert "inside a flow list" in capsys.readouterr().err
    assert path.read_text() == text


def test_yaml_that_is_not_content_is_skipped(tmp_path):
    other = tmp_path / "workflow.yml"
    other.write_text("jobs:\n    build:\n        runs-on: x\n")
    assert main(["fmt", "--check", str(other), str(tmp_path)]) == 0
    assert other.read_text() == "jobs:\n    build:\n        runs-on: x\n"


@pytest.mark.parametrize("bad", ["title: [unclosed\n", "a: 1\n a: 2\n"])
def test_broken_yaml_is_an_error_not_a_crash(tmp_path, bad, capsys):
    path = card_file(tmp_path, f"{SCHEMA_LINE}\n{bad}", "001-t.yaml")
    assert main(["fmt", "--check", str(path)]) == 1
    assert "error" in capsys.readouterr().err


def test_missing_path_is_a_usage_error(tmp_path):
    assert main(["fmt", str(tmp_path / "nope")]) == 2


def test_card_order_is_the_documented_one():
    assert CARD.arrange(["event", "text", "x", "persistent", "title", "number"]) == [
        "number", "title", "persistent", "x", "text", "event"]


MOD_RULES = """\
procedures:
  take_turn:
    params: [player]
    doc: "The pack's turn, with a whistle-stop first."
    body: |
      stop
    replaces: true   # the pack's own procedure
  before_turn:
    # runs before the pack's procedure of the same name
    body: |
      stop
    extends: before
functions:
  value:
    params: [who]
    expr: 1
    replaces: true
"""


def test_flags_of_a_mod_procedure_stay_beside_its_name(tmp_path):
    """`replaces:` and `extends:` are read with the name: they come before params and body."""
    rules = tmp_path / "mod" / "rules" / "90-turn.yaml"
    rules.parent.mkdir(parents=True)
    (tmp_path / "mod" / "mod.yaml").write_text("name: m\n")
    rules.write_text(MOD_RULES)
    assert main(["fmt", str(rules)]) == 0
    data = YAML(typ="rt").load(rules.read_text())
    assert list(data["procedures"]["take_turn"]) == ["replaces", "params", "doc", "body"]
    assert list(data["procedures"]["before_turn"]) == ["extends", "body"]
    assert list(data["functions"]["value"]) == ["replaces", "params", "expr"]
    text = rules.read_text()
    assert "    replaces: true   # the pack's own procedure\n    params: [player]\n" in text
    assert ("  before_turn:\n    # runs before the pack's procedure of the same name\n"
            "    extends: before\n    body: |\n") in text
    assert format_text(text, "rules") == text  # a second run changes nothing


def test_rows_lined_up_by_hand_stay_lined_up(tmp_path):
    text = ("locations:\n  spaces:\n"
            "    - {id: a,  name: \"Alpha  Base\", vp: 1}\n"
            "    - {id: bb, name: \"Beta\",        vp: 12}\n"
            "links:\n  - [a,  bb]\n  - [bb, c]\n")
    assert format_text(text, "board") == text
    # rows nobody lined up stay as written: alignment is kept, never invented
    loose = ("locations:\n  spaces:\n"
             "    - {id: a, name: \"Alpha  Base\", vp: 1}\n"
             "    - {id: bb, name: \"Beta\", vp: 12}\n")
    assert format_text(loose, "board") == loose


def test_a_row_lined_up_by_hand_is_still_re_indented(tmp_path):
    text = "links:\n    - [a,  bb]\n    - [bb, c]\n"
    assert format_text(text, "board") == "links:\n  - [a,  bb]\n  - [bb, c]\n"
