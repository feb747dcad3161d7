"""Declared card and board fields (dsl/fields.py): list fields, allowed values, locations of
a kind, board_fields, mod declarations, field values as names in effect text, the pack's own
JSON Schemas (`hustings schema --pack`) and the W101 warning on plain `none`, `yes`, `no`.

Each test copies the built-in pack to tmp_path and breaks one thing; positions are found by
searching the broken text, so nothing depends on where things sit in the shipped content.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from hustings.dsl.compiler import Compiler, Symbols
from hustings.dsl.diagnostics import Report, Source
from hustings.dsl.loading import builtin_pack, check_pack
from hustings.dsl.pack import pack_declarations
from hustings.schemas.export import DEFAULT_FOLDER, pack_schemas
from hustings.tools.cli import main
from hustings.tools.commands.new import field_lines

CARD = ("number: {number}\ntitle: Broken\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
        "state: NY\npersistent: null\n{extra}text: A test card.\nevent: |\n  {event}\n")
SAFE = YAML(typ="safe")



def add_card(pack: Path, extra: str = "", event: str = "stop", number: int = 901) -> Path:
    path = pack / "cards" / f"{number}-broken.yaml"
    path.write_text(CARD.format(number=number, extra=extra, event=event))
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def declare(pack: Path, lines: str) -> None:
    """Add card field declarations (one `name: {...}` per line) to pack.yaml."""
    edit(pack / "pack.yaml", "card_fields:\n", "card_fields:\n" + "".join(
        f"  {line}\n" for line in lines.splitlines()))


def position(path: Path, needle: str, nth: int = 1) -> tuple[int, int]:
    text = path.read_text()
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def at(loaded, code: str, path: Path, needle: str, nth: int = 1):
    """The diagnostic `code` at the spot of `needle` in `path` (asserting there is one)."""
    line, col = position(path, needle, nth)
    for d in loaded.report.diagnostics:
        if (d.code, Path(d.source.path).name, d.source.line, d.source.column) == (
                code, path.name, line, col):
            return d
    raise AssertionError(f"no {code} at {path.name}:{line}:{col}; got "
                         + "; ".join(str(d) for d in loaded.report.diagnostics))


def codes(loaded) -> list[str]:
    return [d.code for d in loaded.report.diagnostics]


# ---- list-valued card fields --------------------------------------------------------------
def test_a_list_field_of_states_is_accepted_and_reaches_the_card(pack):
    declare(pack, "also: {type: list, items: name, kind_of: states}")
    add_card(pack, "also: [NY, MA]\n")
    loaded = check_pack(pack)
    assert not loaded.report.diagnostics, [str(d) for d in loaded.report.diagnostics]
    assert loaded.program.cards[901]["also"] == ["NY", "MA"]


def test_one_value_where_a_list_is_declared(pack):
    declare(pack, "also: {type: list, items: name, kind_of: states}")
    path = add_card(pack, "also: NY\n")
    d = at(check_pack(pack), "E104", path, "NY\ntext")
    assert d.message == "also: expected a list of names, got 'NY'"
    assert d.hint == "write [NY] for a list of one"


def test_a_list_where_one_value_is_declared(pack):
    path = add_card(pack)
    edit(path, "state: NY", "state: [NY, MA]")
    d = at(check_pack(pack), "E104", path, "[NY, MA]")
    assert "got a list" in d.message and "{type: list, items: name}" in d.hint


def test_each_element_is_checked_against_the_allowed_values(pack):
    declare(pack, "icons: {type: list, items: name, values: [kennedy, nixon, both]}")
    path = add_card(pack, "icons: [both, nixn]\n")
    d = at(check_pack(pack), "E104", path, "nixn")
    assert d.message == "icons[1]: 'nixn' is not one of kennedy, nixon, both"
    assert d.hint == "did you mean `nixon`?"


def test_each_element_has_the_declared_type(pack):
    declare(pack, "tally: {type: list, items: int}")
    path = add_card(pack, "tally: [1, two, 3]\n")
    d = at(check_pack(pack), "E104", path, "two")
    assert d.message == "tally[1]: expected a whole number, got 'two'"


def test_an_element_that_is_no_location_of_the_kind(pack):
    declare(pack, "also: {type: list, items: name, kind_of: states}")
    path = add_card(pack, "also: [NY, MAA]\n")
    d = at(check_pack(pack), "E104", path, "MAA")
    assert d.message == "also[1]: 'MAA' is not a location of kind 'states'"
    assert d.hint == "did you mean `MA`?"


def test_a_field_of_another_kind_of_card(pack):
    path = add_card(pack, "owner: nixon\n")
    d = at(check_pack(pack), "E102", path, "owner")
    assert "campaign card" in d.message and "candidate cards only" in d.hint


def test_a_misspelt_card_field_names_the_declared_one(pack):
    path = add_card(pack, "isue: economy\n")
    assert at(check_pack(pack), "E102", path, "isue").hint == "did you mean `issue`?"


# ---- declarations -------------------------------------------------------------------------
def test_items_on_a_field_that_is_no_list(pack):
    declare(pack, "tally: {type: int, items: int}")
    d = at(check_pack(pack), "E130", pack / "pack.yaml", "int}")
    assert "`items` is for list fields" in d.message and "type: list" in d.hint


def test_an_allowed_value_of_another_type(pack):
    declare(pack, "tally: {type: int, values: [1, two]}")
    d = at(check_pack(pack), "E130", pack / "pack.yaml", "two]")
    assert d.message == "tally: the allowed value 'two' is not a whole number"


def test_kind_of_on_numbers(pack):
    declare(pack, "tally: {type: int, kind_of: states}")
    at(check_pack(pack), "E130", pack / "pack.yaml", "states}", 1)


def test_a_built_in_field_cannot_be_declared(pack):
    edit(pack / "pack.yaml", "  regions: {}", "  regions: {name: {type: str}}")
    d = at(check_pack(pack), "E130", pack / "pack.yaml", "name: {type: str}")
    assert "'name'" in d.message


def test_kind_of_names_a_kind_the_board_lacks(pack):
    declare(pack, "home: {type: name, kind_of: regoins}")
    d = at(check_pack(pack), "E108", pack / "pack.yaml", "regoins")
    assert d.hint == "did you mean `regions`?"


def test_board_fields_of_a_kind_the_board_lacks(pack):
    edit(pack / "pack.yaml", "  issues: {}", "  isues: {}")
    d = at(check_pack(pack), "E108", pack / "pack.yaml", "isues")
    assert d.hint == "did you mean `issues`?"


# ---- board fields -------------------------------------------------------------------------
def test_a_misspelt_board_field_is_caught_once(pack):
    board = pack / "board.yaml"
    edit(board, '{id: AK, name: "Alaska", region: west', '{id: AK, name: "Alaska", regoin: west')
    loaded = check_pack(pack)
    d = at(loaded, "E102", board, "regoin")
    assert d.message == "unknown field 'regoin' of states location 'AK'"
    assert d.hint == "did you mean `region`?"
    assert codes(loaded) == ["E102"]  # not also "missing region": the same mistake


def test_a_board_value_of_the_wrong_type(pack):
    board = pack / "board.yaml"
    edit(board, "area: alaska, ev: 3,", 'area: alaska, ev: "3",')
    d = at(check_pack(pack), "E104", board, '"3"')
    assert d.message == "AK.ev: expected a whole number, got '3'"
    assert d.hint == "`ev` is declared as int under `board_fields: states:`"


def test_a_board_value_that_is_no_location_of_the_kind(pack):
    board = pack / "board.yaml"
    edit(board, '{id: AK, name: "Alaska", region: west', '{id: AK, name: "Alaska", region: wset')
    d = at(check_pack(pack), "E104", board, "wset")
    assert d.message == "AK.region: 'wset' is not a location of kind 'regions'"
    assert d.hint == "did you mean `west`?"


def test_a_board_value_not_among_the_values(pack):
    board = pack / "board.yaml"
    edit(board, "area: alaska", "area: alaksa")
    assert at(check_pack(pack), "E104", board, "alaksa").hint == "did you mean `alaska`?"


def test_a_required_board_field_is_missing(pack):
    board = pack / "board.yaml"
    edit(board, "ev: 3, edge: nixon}", "ev: 3}")
    d = at(check_pack(pack), "E103", board, "id: AK")
    assert d.message == "AK: missing field 'edge'"


def test_a_kind_with_no_declared_fields_takes_none(pack):
    edit(pack / "board.yaml", '{id: west, name: "West"}', '{id: west, name: "West", size: 3}')
    at(check_pack(pack), "E102", pack / "board.yaml", "size")


def test_a_kind_not_declared_takes_any_field(pack):
    edit(pack / "pack.yaml", "  issues: {}\n", "")
    edit(pack / "board.yaml", '{id: economy, name: "Economy"}',
         '{id: economy, name: "Economy", colour: green}')
    loaded = check_pack(pack)
    assert loaded.program is not None and not loaded.report.diagnostics
    assert loaded.program.locations["economy"]["colour"] == "green"


# ---- mods ---------------------------------------------------------------------------------
def write_mod(tmp_path: Path, manifest: str, cards: dict[str, str] | None = None) -> Path:
    root = tmp_path / "my-mod"
    (root / "cards").mkdir(parents=True)
    (root / "mod.yaml").write_text('name: my-mod\nversion: "0.1.0"\n'
                                   'base: {pack: "1960", versions: ["1.0.0"]}\n' + manifest)
    for name, text in (cards or {}).items():
        (root / "cards" / name).write_text(text)
    return root


MOD_FIELDS = ("setup:\n  card_fields:\n    stops: {type: list, items: name, kind_of: states}\n"
              "  board_fields:\n    states:\n      population: {type: int}\n")


def mod_card(stops: str) -> str:
    return CARD.format(number=98, extra=f"stops: {stops}\n", event="stop")


def test_a_mod_card_uses_a_field_the_mod_declares(tmp_path):
    mod = write_mod(tmp_path, MOD_FIELDS + "board:\n  states:\n    NY: {population: 17}\n",
                    {"098-tour.yaml": mod_card("[IL, OH]")})
    loaded = check_pack(mods=[mod])
    assert loaded.program is not None, [str(d) for d in loaded.report.errors]
    assert loaded.program.cards[98]["stops"] == ["IL", "OH"]
    assert loaded.program.locations["NY"]["population"] == 17
    # the pack's own declarations stay: the mod added a field of states, nothing else
    assert loaded.program.locations["NY"]["ev"] == 45


def test_a_mod_card_breaking_the_mods_declaration(tmp_path):
    mod = write_mod(tmp_path, MOD_FIELDS, {"098-tour.yaml": mod_card("[IL, XX]")})
    path = mod / "cards" / "098-tour.yaml"
    at(check_pack(mods=[mod]), "E104", path, "XX")


def test_a_card_field_no_one_declared_is_refused_in_a_mod_card(tmp_path):
    mod = write_mod(tmp_path, "", {"098-tour.yaml": mod_card("[IL]")})
    at(check_pack(mods=[mod]), "E102", mod / "cards" / "098-tour.yaml", "stops")


def test_a_mods_board_changes_follow_the_declared_types(tmp_path):
    mod = write_mod(tmp_path, MOD_FIELDS + "board:\n  states:\n"
                    "    CA: {population: lots, edgy: nixon, region: wset}\n")
    loaded = check_pack(mods=[mod])
    manifest = mod / "mod.yaml"
    assert at(loaded, "E104", manifest, "lots").message.startswith("CA.population:")
    assert at(loaded, "E102", manifest, "edgy").hint == "did you mean `edge`?"
    assert at(loaded, "E104", manifest, "wset").hint == "did you mean `west`?"
    assert "W601" not in codes(loaded)  # the undeclared field is an error, said once


def test_a_mod_declaration_that_does_not_hold_together(tmp_path):
    mod = write_mod(tmp_path, "setup:\n  board_fields:\n    states:\n"
                    "      population: {type: int, items: int}\n")
    at(check_pack(mods=[mod]), "E130", mod / "mod.yaml", "int}")


# ---- field values as names in effect text -------------------------------------------------
def test_a_declared_value_is_a_name_in_effect_text(pack):
    add_card(pack, event="if icon of card == both:\n    stop")
    loaded = check_pack(pack)
    assert loaded.program is not None, [str(d) for d in loaded.report.errors]


def test_a_declared_field_no_card_carries_is_still_a_property(pack):
    # The cards that carry `stops` may be ones an option leaves out: reading it compiles
    # (and gives none), while an undeclared, unused field stays unknown (E316).
    declare(pack, "stops: {type: list, items: name, kind_of: states}")
    add_card(pack, event="if stops of card != none:\n    stop")
    assert check_pack(pack).program is not None
    path = add_card(pack, event="if stopz of card != none:\n    stop", number=902)
    assert at(check_pack(pack), "E316", path, "stopz")


def test_a_misspelt_value_is_still_unknown_with_a_hint(pack):
    path = add_card(pack, event="if icon of card == bothh:\n    stop")
    assert at(check_pack(pack), "E315", path, "bothh").hint == "did you mean `both`?"


def symbols(**kw) -> Symbols:
    base = dict(players=["a", "b"], counters=set(), variables={}, pools={},
                locations={"west": {"kind": "regions", "name": "West", "id": "west"}},
                kinds={"regions": ["west"]}, zones={}, tracks=set(), effects=set(),
                attributes={"icon"}, field_values={"both", "west", "a"})
    return Symbols(**{**base, **kw})


@pytest.mark.parametrize(("text", "variables", "expected"), [
    ("both", {}, ("const", "both")),
    ("both", {"both": 1}, ("global", "both")),  # a variable comes first
    ("west", {}, ("const", "west")),  # a location: the same constant, resolved as a place
])
def test_field_values_resolve_last(text, variables, expected):
    comp = Compiler(symbols(variables=variables), Report())
    assert comp.compile_expression(text, Source("x.yaml"), "fn", []) == expected


def test_a_value_is_text_to_the_type_checks():
    report = Report()
    comp = Compiler(symbols(), report)
    assert comp.compile_expression("both + 1", Source("x.yaml"), "fn", []) is None
    assert [d.code for d in report.errors] == ["E320"]


# ---- the pack's own JSON Schemas ----------------------------------------------------------
@pytest.fixture(scope="module")
def schemas():
    manifest, places, report = pack_declarations(builtin_pack())
    assert not report.errors
    return pack_schemas(manifest, places)


def volunteers() -> dict:
    return SAFE.load(next((builtin_pack() / "cards").glob("005-*.yaml")).read_text())


@pytest.mark.parametrize("bad", [{"cp": "three"}, {"icon": "bothh"}, {"isue": "defense"},
                                 {"state": "XX"}, {"region": "west"}, {"owner": "nixon"}])
def test_the_pack_card_schema_rejects(schemas, bad):
    card = volunteers()
    jsonschema.validate(card, schemas["card"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**card, **bad}, schemas["card"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"cards": [{**card, **bad}]}, schemas["cardlist"])


def pack_card_files():
    root = builtin_pack()
    for path in sorted(root.glob("**/*.yaml")):
        data = SAFE.load(path.read_text())
        listing = isinstance(data, dict) and isinstance(data.get("cards"), list) and all(
            isinstance(c, dict) for c in data["cards"])
        if listing or isinstance(data, dict) and "number" in data:
            yield pytest.param(path, id=str(path.relative_to(root)))


@pytest.mark.parametrize("path", list(pack_card_files()))
def test_the_pack_card_schema_accepts_every_card_file(schemas, path):
    data = SAFE.load(path.read_text())
    jsonschema.validate(data, schemas["cardlist" if "cards" in data else "card"])


def test_the_pack_board_schema_types_the_locations(schemas):
    board = SAFE.load((builtin_pack() / "board.yaml").read_text())
    jsonschema.validate(board, schemas["board"])
    for change in [{"regoin": "west"}, {"ev": "3"}, {"region": "wset"}]:
        broken = json.loads(json.dumps(board))
        broken["locations"]["states"][1].update(change)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schemas["board"])
    broken = json.loads(json.dumps(board))
    del broken["locations"]["states"][1]["ev"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schemas["board"])


def test_the_mod_card_schemas_accept_the_example_mods_cards(schemas):
    for path in (builtin_pack().parent / "mods").glob("*/cards/*.yaml"):
        jsonschema.validate(SAFE.load(path.read_text()), schemas["modcard"])


def test_schema_pack_writes_the_packs_fields_and_without_it_the_generic_ones(tmp_path, capsys):
    assert main(["schema", "--pack", str(builtin_pack()), "--out", str(tmp_path / "p")]) == 0
    card = json.loads((tmp_path / "p" / "card.schema.json").read_text())
    assert card["additionalProperties"] is False and "both" in json.dumps(card["properties"])
    assert main(["schema", "--out", str(tmp_path / "g")]) == 0
    for path in DEFAULT_FOLDER.glob("*.json"):
        assert (tmp_path / "g" / path.name).read_text() == path.read_text()


def test_schema_pack_of_a_broken_pack_reports_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "pack.yaml").write_text("name: x\n")
    assert main(["schema", "--pack", str(tmp_path / "p"), "--out", str(tmp_path / "o")]) == 1
    assert "error[E103]" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# ---- W101: plain none, yes, no ------------------------------------------------------------
def test_w101_a_plain_none_in_variables(pack):
    edit(pack / "pack.yaml", "  drawn: null", "  drawn: none")
    loaded = check_pack(pack)
    d = at(loaded, "W101", pack / "pack.yaml", "none ")
    assert d.severity == "warning" and loaded.program is not None
    assert d.message == '`none` is read as the text "none"'
    assert d.hint == 'write `null` for no value, or quote it ("none") if you mean the text'


def test_w101_not_for_a_quoted_none(pack):
    edit(pack / "pack.yaml", "  drawn: null", '  drawn: "none"')
    assert "W101" not in codes(check_pack(pack))


def test_w101_in_a_list_of_a_variable(pack):
    edit(pack / "pack.yaml", "  withhold_states: []", "  withhold_states: [NY, no]")
    d = at(check_pack(pack), "W101", pack / "pack.yaml", "no]")
    assert "`true` or `false`" in d.hint


def test_w101_in_a_card_field_and_a_board_field(pack):
    edit(pack / "pack.yaml", "  issues: {}\n", "")
    edit(pack / "board.yaml", '{id: economy, name: "Economy"}',
         '{id: economy, name: "Economy", open: yes}')
    declare(pack, "note: {type: str}")
    path = add_card(pack, "note: off\n")
    loaded = check_pack(pack)
    at(loaded, "W101", path, "off")
    at(loaded, "W101", pack / "board.yaml", "yes")


def test_w101_not_for_a_declared_value(pack):
    declare(pack, "answer: {type: name, values: [yes, no]}")
    add_card(pack, "answer: yes\n")
    assert "W101" not in codes(check_pack(pack))


def test_w101_in_a_mods_setup(tmp_path):
    mod = write_mod(tmp_path, "setup:\n  variables:\n    mood: None\n")
    at(check_pack(mods=[mod]), "W101", mod / "mod.yaml", "None")


# ---- new card ----------------------------------------------------------------------------
def test_new_card_writes_an_empty_list_for_a_list_field():
    from hustings.schemas.content import CardFieldDef

    fields = {"stops": CardFieldDef(type="list", items="name", values=["a", "b"])}
    line = field_lines(fields)
    assert line.startswith("stops:") and "[]" in line and "each one of: a, b" in line
