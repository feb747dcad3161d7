"""`hustings new card`: a skeleton card file that `hustings check` flags until written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from hustings.dsl.loading import BUILTIN_PACKS, builtin_pack, check_pack
from hustings.schemas.export import DEFAULT_FOLDER
from hustings.tools.cli import main
from hustings.tools.commands.new import PLACEHOLDER, card_text, schema_ref
from hustings.tools.formatting import format_text

BUILTIN_MODS = BUILTIN_PACKS / "mods"
CAMPAIGN_FIELDS = ["number", "title", "cp", "rest", "icon", "issue", "state", "persistent",
                   "text", "event"]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return shutil.copytree(builtin_pack(), tmp_path / "1960")


def new_card(path: Path, *extra: str) -> int:
    return main(["new", "card", str(path), *extra])


def test_new_card_validates_against_the_card_schema(pack):
    path = pack / "cards" / "098-whistle-stop.yaml"
    assert new_card(path) == 0
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    assert list(data) == CAMPAIGN_FIELDS
    assert data["number"] == 98 and data["title"] == "Whistle Stop"
    schema = json.loads((DEFAULT_FOLDER / "card.schema.json").read_text())
    jsonschema.validate(data, schema)


def test_check_reports_exactly_one_error_at_the_placeholder(pack):
    before = len(check_pack(pack).report.errors)
    path = pack / "cards" / "098-whistle-stop.yaml"
    assert new_card(path) == 0
    placeholder_line = path.read_text().splitlines().index(f"  {PLACEHOLDER}") + 1
    errors = check_pack(pack).report.errors
    assert len(errors) == before + 1
    mine = [d for d in errors if Path(d.source.path).resolve() == path.resolve()]
    assert len(mine) == 1
    assert mine[0].source.line == placeholder_line
    assert mine[0].hint  # check says how to go on, not only what is wrong


def test_the_skeleton_is_already_canonical():
    text = card_text(builtin_pack() / "cards" / "098-x.yaml", None, None)
    assert format_text(text, "card") == text


def test_refuses_to_overwrite(pack, capsys):
    path = pack / "cards" / "002-nixons-knee.yaml"
    before = path.read_text()
    assert new_card(path) == 1
    assert "already exists" in capsys.readouterr().err
    assert path.read_text() == before


@pytest.mark.parametrize("args", [["card", "{dir}/x.txt"],
                                  ["card", "{dir}/x.yaml", "--number", "0"]])
def test_usage_errors_exit_2(tmp_path, args):
    assert main(["new", *(a.format(dir=tmp_path) for a in args)]) == 2
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args", [["new"], ["new", "card"], ["new", "card", "x.yaml", "--number",
                                                             "many"]])
def test_argument_errors_exit_2(args):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2


def test_schema_comment_is_relative_to_the_new_file_never_absolute(tmp_path):
    inside = builtin_pack() / "cards" / "999-not-written.yaml"
    existing = (builtin_pack() / "cards" / "002-nixons-knee.yaml").read_text().splitlines()[0]
    assert existing.endswith("$schema=" + schema_ref(inside))
    outside = schema_ref(tmp_path / "x.yaml")
    assert not Path(outside).is_absolute()
    assert (tmp_path / outside).resolve() == (DEFAULT_FOLDER / "card.schema.json").resolve()
    text = card_text(tmp_path / "x.yaml", 5, "X")
    assert text.splitlines()[0] == f"# yaml-language-server: $schema={outside}"


def test_number_and_title_options_and_an_awkward_title(tmp_path):
    path = tmp_path / "card.yaml"
    assert new_card(path, "--number", "142", "--title", 'Say "hi": #1') == 0
    data = YAML(typ="safe").load(path.read_text())
    assert data["number"] == 142 and data["title"] == 'Say "hi": #1'


def test_missing_folders_are_made(tmp_path):
    path = tmp_path / "my-mod" / "cards" / "100-x.yaml"
    assert main(["new", "card", str(path)]) == 0
    assert path.is_file()


def test_a_number_another_card_has_is_refused(pack, capsys):
    """101 is an endorsement card's number (endorsements.yaml), not only a campaign card's."""
    path = pack / "cards" / "101-rally.yaml"
    assert new_card(path, "--number", "101") == 1
    err = capsys.readouterr().err
    assert "card number 101 is taken by 'Endorsement in the West'" in err
    assert "endorsements.yaml" in err and "the next free number is 117" in err
    assert not path.exists()


def test_the_number_from_the_file_name_is_checked_too(pack, capsys):
    assert new_card(pack / "cards" / "005-again.yaml") == 1
    assert "taken by 'Volunteers'" in capsys.readouterr().err


def test_the_cards_of_the_mods_given_are_taken(tmp_path, capsys):
    mod = BUILTIN_MODS / "whistle-stops"
    path = tmp_path / "card.yaml"
    assert new_card(path, "--number", "98") == 0
    assert new_card(tmp_path / "other.yaml", "--number", "98", "--mod", str(mod)) == 1
    assert "taken by 'Whistle-Stop Tour'" in capsys.readouterr().err


def test_a_new_card_of_a_pack_declaring_its_kinds_is_of_the_first_kind(tmp_path):
    # Campaign Trail declares action, dirty, candidate and topic cards: the skeleton is an
    # action card with the action card fields, which check flags only for its placeholder.
    pack = shutil.copytree(builtin_pack("campaign-trail"), tmp_path / "ct")
    path = pack / "cards" / "200-whistle-stop.yaml"
    assert new_card(path, "--pack", str(pack)) == 0
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    assert data["kind"] == "action" and "politick" in data and "start_money" not in data
    assert [d.code for d in check_pack(pack).report.errors] == ["E201"]
