"""Mods: folders that change a pack as it loads (cards, setup, board, rules, options)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from hustings.dsl.diagnostics import ContentError, Report
from hustings.dsl.loading import BUILTIN_PACKS, builtin_pack, check_pack, load_pack
from hustings.dsl.mods import find_mod_root
from hustings.dsl.scenarios import Runner, load_scenarios, run_paths, scenario_files
from hustings.tools.cli import main

MOD = BUILTIN_PACKS / "mods" / "whistle-stops"
BASE = '"1960"'


def write_mod(root: Path, name: str, manifest: str = "", files: dict[str, str] | None = None,
              versions: str = '["1.0.0"]') -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "mod.yaml").write_text(
        f"name: {name}\nversion: \"0.1\"\nbase: {{pack: {BASE}, versions: {versions}}}\n"
        + manifest)
    for rel, text in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def card(number: int, title: str, event: str, extra: str = "") -> str:
    return (f"number: {number}\n{extra}title: {title}\ncp: 2\nrest: 1\nicon: both\n"
            f"issue: defense\nstate: NY\npersistent: null\ntext: A test card.\n"
            f"event: |\n  {event}\n")


def position(path: Path, needle: str, occurrence: int = 0) -> str:
    """`path:line:col` of the n-th line holding `needle` (column of the needle)."""
    hits = [(i, line) for i, line in enumerate(path.read_text().splitlines()) if needle in line]
    i, line = hits[occurrence]
    return f"{path}:{i + 1}:{line.index(needle) + 1}"


def errors(loaded, code: str) -> list:
    return [d for d in loaded.report.errors if d.code == code]


def pack_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(builtin_pack().rglob("*")):
        if path.is_file():
            h.update(str(path).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


# ---- the example mod --------------------------------------------------------------
@pytest.fixture(scope="module")
def modded():
    return load_pack(mods=[MOD])


def test_example_mod_adds_its_cards(modded):
    base = load_pack()
    assert 98 not in base.cards and 99 not in base.cards
    assert modded.cards[98]["title"] == "Whistle-Stop Tour"
    assert modded.cards[99]["title"] == "Campaign Rally"
    assert 98 in modded.events and 99 in modded.events
    assert "replaces" not in modded.cards[98]


def test_example_mod_replaces_volunteers(modded):
    base = load_pack()
    assert base.cards[5]["title"] == "Volunteers"
    assert modded.cards[5]["title"] == "Volunteer Corps"
    assert "replaces" not in modded.cards[5]
    assert modded.blocks[modded.events[5]] != base.blocks[base.events[5]]
    first_statement = modded.positions[modded.events[5]][0]
    assert "mods/whistle-stops/cards/005-volunteer-corps.yaml" in first_statement


def test_example_mod_changes_the_starting_momentum(modded):
    assert load_pack().initial["counters"]["momentum"] == {"kennedy": 2, "nixon": 2}
    assert modded.initial["counters"]["momentum"] == {"kennedy": 3, "nixon": 3}


def test_example_mod_deck_holds_its_cards(modded):
    from hustings.interpreter.game import initial_state

    state = initial_state(modded, 0)
    assert {5, 98, 99} <= set(state.zones["deck"])


def test_the_base_pack_is_unchanged_by_loading_mods(tmp_path):
    before_files = pack_digest()
    before = dataclasses.asdict(load_pack())
    load_pack(mods=[MOD])
    other = write_mod(tmp_path, "other", "remove: [33]\nboard: {states: {CA: {ev: 40}}}\n"
                      "options: {vice_presidents: true}\n",
                      {"rules/90.yaml": "procedures:\n  collect_rest:\n    replaces: true\n"
                       "    params: [player, card]\n    body: |\n      say \"no rest\"\n"})
    load_pack(mods=[other])
    assert dataclasses.asdict(load_pack()) == before
    assert pack_digest() == before_files


def test_play_with_the_mod_reaches_the_final_tally(capsys):
    assert main(["play", "--mod", str(MOD), "--seed", "3", "--quiet"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["winner"] in ("kennedy", "nixon", None)
    assert 0 < sum(result["electoral_votes"].values()) <= 537


def test_play_log_records_the_mods_and_replays_with_them(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", "--mod", str(MOD), "--seed", "4", "--quiet", "--log", str(log)]) == 0
    played = capsys.readouterr().out
    recorded = json.loads(log.read_text())["mods"]
    assert [m["name"] for m in recorded] == ["whistle-stops"] and len(recorded[0]["hash"]) == 64
    assert main(["play", "--replay", str(log), "--quiet"]) == 2  # the log never loads a mod
    assert "whistle-stops" in capsys.readouterr().err
    assert main(["play", "--replay", str(log), "--quiet", "--mod", str(MOD)]) == 0
    assert capsys.readouterr().out == played


def test_bench_takes_mods(capsys):
    assert main(["bench", "--games", "1", "--mod", str(MOD)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 1


def test_check_counts_cards_after_mods(capsys, tmp_path):
    assert main(["check", "--mod", str(MOD)]) == 0
    out = capsys.readouterr().out
    assert "99 campaign cards" in out and "16 endorsement cards" in out
    remover = write_mod(tmp_path, "remover", "remove: [33, 34]\n")
    assert main(["check", "--mod", str(MOD), "--mod", str(remover), "--format", "json"]) == 0
    assert "97 campaign cards" in json.loads(capsys.readouterr().out)["summary"]


def mod_scenarios():
    report = Report()
    out = []
    for path in scenario_files([MOD / "scenarios"]):
        out.extend(load_scenarios(path, report))
    assert not report.errors
    return out


def test_example_mod_scenarios_pass():
    outcomes, report = run_paths([MOD / "scenarios"])
    assert not report.errors
    assert len(outcomes) >= 5
    assert all(o.ok for o in outcomes), [(o.name, o.failures) for o in outcomes if not o.ok]


def test_example_mod_scenarios_fail_without_the_mod():
    runner = Runner()
    for sc, where in mod_scenarios():
        assert not runner.run(sc, where, mods=()).ok, sc.name


def test_scenario_command_with_mod(capsys):
    assert main(["scenario", "--mod", str(MOD), str(MOD / "scenarios")]) == 0
    assert " 0 failed" in capsys.readouterr().out


def test_pack_scenarios_never_pick_up_a_mod():
    assert find_mod_root(builtin_pack() / "scenarios" / "rules" / "setup.yaml") is None
    assert find_mod_root(MOD / "scenarios" / "cards.yaml") == MOD.resolve()


def mod_files():
    for path in sorted(MOD.rglob("*.yaml")):
        yield pytest.param(path, id=str(path.relative_to(MOD)))


@pytest.mark.parametrize("path", list(mod_files()))
def test_mod_file_names_the_mod_schema_for_its_kind(path):
    # tests/test_schemas.py validates every content file against the schema it names;
    # here: a mod's files name the mod schemas, not the pack's
    first = path.read_text().splitlines()[0]
    expected = {"mod.yaml": "mod", "cards": "modcard", "scenarios": "scenario"}
    kind = expected["mod.yaml" if path.name == "mod.yaml" else path.parent.name]
    assert first.endswith(f"/{kind}.schema.json")


def test_content_mods_is_not_a_pack():
    assert builtin_pack() == BUILTIN_PACKS / "1960"
    assert not (BUILTIN_PACKS / "mods" / "pack.yaml").exists()
    loaded = check_pack(BUILTIN_PACKS / "mods")
    assert loaded.program is None and loaded.report.errors[0].code == "E100"


# ---- conflicts and mistakes -----------------------------------------------------------
CONFLICTING = """\
setup:
  counters:
    momentum: {start: START}
board:
  states:
    CA: {ev: EV}
"""


def conflicting_pair(tmp_path):
    rules = ("procedures:\n  collect_rest:\n    replaces: true\n    params: [player, card]\n"
             "    body: |\n      say \"rest for {player}\"\n")
    a = write_mod(tmp_path, "a", CONFLICTING.replace("START", "3").replace("EV", "40"),
                  {"cards/027-a.yaml": card(27, "Rockefeller A", "nixon gains 1 momentum",
                                            "replaces: 27\n"),
                   "rules/90-a.yaml": rules})
    b = write_mod(tmp_path, "b", CONFLICTING.replace("START", "4").replace("EV", "41"),
                  {"cards/027-b.yaml": card(27, "Rockefeller B", "nixon gains 2 momentum",
                                            "replaces: 27\n"),
                   "rules/90-b.yaml": rules})
    return a, b


def test_each_conflicting_mod_alone_is_fine(tmp_path):
    a, b = conflicting_pair(tmp_path)
    for mod, title, ev in ((a, "Rockefeller A", 40), (b, "Rockefeller B", 41)):
        program = load_pack(mods=[mod])
        assert program.cards[27]["title"] == title
        assert program.locations["CA"]["ev"] == ev
        assert "rules/90-" in program.procedures["collect_rest"].source


def test_conflicting_mods_name_both_files_with_line_and_column(tmp_path):
    a, b = conflicting_pair(tmp_path)
    loaded = check_pack(mods=[a, b])
    assert loaded.program is None
    conflicts = errors(loaded, "E601")
    assert len(conflicts) == 4, [str(d) for d in loaded.report.errors]
    expected = [
        ("card 27", "cards/027-{}.yaml", "replaces"),
        ("setup counters.momentum.start", "mod.yaml", "start"),
        ("board states.CA.ev", "mod.yaml", "ev"),
        ("procedure 'collect_rest'", "rules/90-{}.yaml", "collect_rest"),
    ]
    for what, rel, needle in expected:
        (d,) = [d for d in conflicts if what in d.message]
        first = position(a / rel.format("a"), needle)
        second = position(b / rel.format("b"), needle)
        assert first in d.message and second in d.message, d.message
        assert str(d.source) == second
        assert "'a'" in d.message and "'b'" in d.message


def test_conflict_is_reported_by_check(tmp_path, capsys):
    a, b = conflicting_pair(tmp_path)
    assert main(["check", "--mod", str(a), "--mod", str(b)]) == 1
    out = capsys.readouterr().out
    assert "error[E601]" in out and str(a / "mod.yaml") in out and str(b / "mod.yaml") in out


def test_conflicting_option_and_removal(tmp_path):
    a = write_mod(tmp_path, "a", "remove: [33]\noptions: {vice_presidents: true}\n")
    b = write_mod(tmp_path, "b", "options:\n  vice_presidents: false\nremove: [12, 33]\n")
    loaded = check_pack(mods=[a, b])
    messages = [d.message for d in errors(loaded, "E601")]
    assert any("option vice_presidents" in m and f"{a}/mod.yaml:5:11" in m
               and f"{b}/mod.yaml:5:3" in m for m in messages), messages
    assert any("card 33" in m and f"{a}/mod.yaml:4:10" in m and f"{b}/mod.yaml:6:14" in m
               for m in messages), messages


def test_mod_for_another_version_is_reported(tmp_path):
    old = write_mod(tmp_path, "old", versions='["0.9.0", "0.9.*"]')
    loaded = check_pack(mods=[old])
    (d,) = errors(loaded, "E602")
    assert str(d.source) == position(old / "mod.yaml", "versions")
    assert "0.9.0" in d.message and "1.0.0" in d.message
    assert "version 1.0.0" in d.hint
    wildcard = write_mod(tmp_path, "wild", versions='["1.0.*"]')
    assert check_pack(mods=[wildcard]).program is not None


def test_mod_for_another_pack_is_reported(tmp_path):
    folder = write_mod(tmp_path, "other", "")
    text = (folder / "mod.yaml").read_text().replace('pack: "1960"', 'pack: "1964"')
    (folder / "mod.yaml").write_text(text)
    loaded = check_pack(mods=[folder])
    (d,) = errors(loaded, "E602")
    assert "'1964'" in d.message and str(d.source) == position(folder / "mod.yaml", "pack")


def test_broken_mod_card_is_reported_at_its_position(tmp_path):
    bad = write_mod(tmp_path, "bad", "", {
        "cards/098-bad.yaml": card(98, "Bad", "move player to XX"),
    })
    loaded = check_pack(mods=[bad])
    assert loaded.program is None
    (unknown,) = errors(loaded, "E315")
    assert str(unknown.source) == position(bad / "cards/098-bad.yaml", "XX")
    with pytest.raises(ContentError) as e:
        load_pack(mods=[bad])
    assert "098-bad.yaml" in str(e.value)
    untitled = write_mod(tmp_path, "untitled", "", {"cards/099.yaml": "number: 99\ncp: 1\n"})
    (missing,) = check_pack(mods=[untitled]).report.errors
    assert missing.code == "E103" and "title" in missing.message
    assert missing.source.path == str(untitled / "cards/099.yaml")


def test_broken_mod_yaml_is_a_diagnostic(tmp_path):
    bad = write_mod(tmp_path, "bad", "remove: [33\n")
    loaded = check_pack(mods=[bad])
    (d,) = loaded.report.errors
    assert d.code == "E101" and d.source.path == str(bad / "mod.yaml") and d.source.line > 1
    typo = write_mod(tmp_path, "typo", "remuve: [33]\n")
    (d,) = check_pack(mods=[typo]).report.errors
    assert d.code == "E102" and "remove" in d.hint and str(d.source).endswith("mod.yaml:4:1")


def test_undeclared_redefinitions_are_reported(tmp_path):
    sneaky = write_mod(tmp_path, "sneaky", "", {
        "cards/027-x.yaml": card(27, "Not Declared", "nixon gains 1 momentum"),
        "rules/90.yaml": "procedures:\n  collect_rest:\n    params: [player, card]\n"
                         "    body: |\n      say \"x\"\n",
    })
    loaded = check_pack(mods=[sneaky])
    found = errors(loaded, "E603")
    assert len(found) == 2
    card_error = next(d for d in found if "card 27" in d.message)
    assert "027-nelson-rockefeller.yaml:2:1" in card_error.message
    assert "replaces: 27" in card_error.hint
    proc_error = next(d for d in found if "collect_rest" in d.message)
    assert "40-support.yaml" in proc_error.message or "20-activity.yaml" in proc_error.message
    assert "replaces: true" in proc_error.hint


def test_references_to_missing_things_are_reported(tmp_path):
    mod = write_mod(tmp_path, "missing", (
        "remove: [500]\noptions: {vice_president: true}\n"
        "board:\n  states:\n    CX: {ev: 4}\n    CA: {ev: \"lots\"}\n"
        "setup:\n  bag: {start: {kenedy: 3}}\n"), {
        "cards/120.yaml": card(120, "Wrong", "player gains 1 momentum", "replaces: 121\n"),
        "cards/121.yaml": card(121, "Nothing", "player gains 1 momentum", "replaces: 121\n"),
        "rules/90.yaml": "procedures:\n  campain:\n    replaces: true\n    body: |\n"
                         "      say \"x\"\n",
    })
    loaded = check_pack(mods=[mod])
    got = {(d.code, d.message) for d in loaded.report.errors}
    hints = " ".join(d.hint for d in loaded.report.errors)
    assert ("E604", "there is no card 500 to remove") in got
    assert ("E604", "the pack has no option 'vice_president'") in got
    assert ("E604", "no states 'CX' on the board") in got
    assert ("E604", "'kenedy' is not a player") in got
    assert ("E604", "there is no card 121 to replace") in got
    assert ("E604", "there is no procedure 'campain' to replace") in got
    assert any(c == "E605" for c, _ in got)
    assert any(c == "E607" and "ev" in m for c, m in got)
    for hint in ("`vice_presidents`", "`kennedy`", "`campaign`"):
        assert hint in hints


def test_missing_mod_folder_and_pack_given_as_mod(tmp_path):
    loaded = check_pack(mods=[tmp_path / "nowhere"])
    assert [d.code for d in loaded.report.errors] == ["E600"]
    loaded = check_pack(mods=[builtin_pack()])
    (d,) = loaded.report.errors
    assert d.code == "E600" and "pack" in d.hint
    loaded = check_pack(mods=[MOD, MOD / "mod.yaml"])
    assert [d.code for d in loaded.report.errors] == ["E600"]


def test_one_mod_changing_a_card_twice(tmp_path):
    mod = write_mod(tmp_path, "twice", "remove: [27]\n", {
        "cards/027.yaml": card(27, "Again", "nixon gains 1 momentum", "replaces: 27\n"),
    })
    (d,) = check_pack(mods=[mod]).report.errors
    assert d.code == "E606" and f"{mod}/mod.yaml:4:10" in d.hint
    mod = write_mod(tmp_path, "twice2", "remove: [12]\n", {
        "cards/a.yaml": card(98, "One", "nixon gains 1 momentum"),
        "cards/b.yaml": card(98, "Two", "nixon gains 1 momentum"),
    })
    (d,) = check_pack(mods=[mod]).report.errors
    assert d.code == "E606" and str(mod / "cards/a.yaml") in d.message


# ---- stacking and the other kinds of change ------------------------------------------------
def test_mods_stack_in_order(tmp_path):
    first = write_mod(tmp_path, "first", "", {
        "cards/098.yaml": card(98, "First Card", "player gains 1 momentum"),
        "rules/90.yaml": "procedures:\n  bonus:\n    params: [who]\n    body: |\n"
                         "      who gains 2 momentum\n",
    })
    second = write_mod(tmp_path, "second", "", {
        "cards/098.yaml": card(98, "Second Card", "do bonus(who: player)", "replaces: 98\n"),
    })
    program = load_pack(mods=[first, second])
    assert program.cards[98]["title"] == "Second Card"
    assert "second/cards/098.yaml" in program.positions[program.events[98]][0]
    alone = check_pack(mods=[second])
    assert {d.code for d in alone.report.errors} >= {"E604"}
    assert load_pack(mods=[first]).cards[98]["title"] == "First Card"
    reversed_order = check_pack(mods=[second, first])
    assert reversed_order.program is None


def test_mod_removes_cards(tmp_path):
    mod = write_mod(tmp_path, "lean", "remove: [33, 201]\n")
    loaded = check_pack(mods=[mod])
    assert loaded.program is not None
    assert 33 not in loaded.program.cards and 201 not in loaded.program.cards
    assert loaded.stats.kinds["campaign"] == 96 and loaded.stats.kinds["candidate"] == 1


def test_mod_switches_an_option(tmp_path):
    mod = write_mod(tmp_path, "vp", "options: {vice_presidents: true}\n")
    assert load_pack().options["vice_presidents"] is False
    assert load_pack(mods=[mod]).options["vice_presidents"] is True
    # an explicit option still wins over the mod's default
    assert load_pack(options={"vice_presidents": False}, mods=[mod]).options[
        "vice_presidents"] is False


def test_mod_changes_board_and_setup(tmp_path):
    mod = write_mod(tmp_path, "board", (
        "board:\n  states:\n    CA: {ev: 40, edge: kennedy}\n"
        "    AK: {support: {owner: nixon, count: 2}}\n"
        "  tokens: {nixon: NY}\n"
        "setup:\n  bag: {start: {kennedy: 14}}\n  variables: {reseed: false, mod_flag: 1}\n"
        "  tracks: {issue_track: [economy, defense, civil_rights]}\n"))
    base, program = load_pack(), load_pack(mods=[mod])
    assert program.locations["CA"]["ev"] == 40 and program.locations["CA"]["edge"] == "kennedy"
    assert program.locations["CA"]["region"] == base.locations["CA"]["region"]
    assert program.initial["pools"]["state"]["AK"] == ["nixon", 2]
    assert program.initial["tokens"]["nixon"] == "NY"
    assert program.initial["bag"] == {"kennedy": 14, "nixon": 12}
    supply = base.initial["counters"]["supply"]["kennedy"]
    assert program.initial["counters"]["supply"]["kennedy"] == supply - 2
    assert program.variables["reseed"] is False and program.variables["mod_flag"] == 1
    assert program.tracks["issue_track"] == ["economy", "defense", "civil_rights"]


def test_mod_setup_name_close_to_an_existing_one_warns(tmp_path):
    mod = write_mod(tmp_path, "typo", "setup:\n  counters:\n    momentun: {start: 3}\n")
    loaded = check_pack(mods=[mod])
    (w,) = [d for d in loaded.report.warnings if d.code == "W601"]
    assert "`momentum`" in w.hint and str(w.source) == position(mod / "mod.yaml", "momentun")


def test_w601_never_compares_a_mod_with_its_own_new_names(tmp_path):
    """Paired names a mod adds (`rally_a`, `rally_b`) are not each other's misspelling."""
    mod = write_mod(tmp_path, "pairs",
                    "setup:\n  variables: {rally_a: 0, rally_b: 0}\n"
                    "  counters:\n    tokens_a: {start: 0}\n    tokens_b: {start: 0}\n"
                    "  board_fields:\n    states:\n      scandal: {type: int}\n"
                    "      scandals: {type: int}\n"
                    "board:\n  states:\n    NY: {scandal: 1}\n    CA: {scandals: 2}\n")
    loaded = check_pack(mods=[mod])
    assert loaded.program is not None
    assert [str(d) for d in loaded.report.warnings if d.code == "W601"] == []


def test_a_misspelt_property_of_declared_board_fields_is_an_error_not_a_warning(tmp_path):
    # 1960 declares its states' fields: a new one is E102 at each place, never also W601
    mod = write_mod(tmp_path, "typo", "board:\n  states:\n    NY: {evv: 1}\n    CA: {evv: 2}\n")
    loaded = check_pack(mods=[mod])
    errors = [d for d in loaded.report.errors if d.code == "E102"]
    assert len(errors) == 2 and all("`ev`" in d.hint for d in errors)
    assert position(mod / "mod.yaml", "evv") in {str(d.source) for d in errors}
    assert not [d for d in loaded.report.warnings if d.code == "W601"]


def test_w601_compares_a_mod_with_the_names_of_earlier_mods(tmp_path):
    first = write_mod(tmp_path, "first", "setup:\n  variables: {rally_a: 0}\n")
    second = write_mod(tmp_path, "second", "setup:\n  variables: {rally_b: 0}\n")
    loaded = check_pack(mods=[first, second])
    (w,) = [d for d in loaded.report.warnings if d.code == "W601"]
    assert "`rally_a`" in w.hint and str(w.source) == position(second / "mod.yaml", "rally_b")


def test_mod_adds_a_procedure_a_card_calls(tmp_path):
    mod = write_mod(tmp_path, "proc", "", {
        "cards/098.yaml": card(98, "Caller", "do windfall(who: player)"),
        "rules/90.yaml": "procedures:\n  windfall:\n    params: [who]\n    body: |\n"
                         "      who gains 3 momentum\n"
                         "functions:\n  double:\n    params: [n]\n    expr: n * 2\n",
    })
    program = load_pack(mods=[mod])
    assert "windfall" in program.procedures and "double" in program.functions
