"""Language versions (dsl/language.py, docs/language-changes.md) and `hustings upgrade`.

The corpus (tests/corpus/, its README says where each folder comes from) holds content in
older shapes, rebuilt from this repository's history: each one either checks and plays
to the end, or `check` refuses it with a positioned diagnostic naming the change and the
upgrade, and after `hustings upgrade` it checks and plays.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.diagnostics import ContentError
from hustings.dsl.language import CHANGES, CURRENT
from hustings.dsl.loading import BUILTIN_PACKS, check_pack, load_pack
from hustings.dsl.pack import pack_declarations
from hustings.interpreter.game import Game
from hustings.tools.cli import main

CORPUS = Path(__file__).parent / "corpus"
TIC_TAC_TOE = CORPUS / "tic-tac-toe-1cc8022"  # the pack's first commit, 2026-11-25
OLD_MOD = CORPUS / "campaign-trail-mod-2b424eb"  # the example mod as of 2026-11-23
TRAVEL = CORPUS / "travel-2b424eb-trimmed"  # moves tokens its board does not give
DOCS = Path(__file__).parent.parent / "docs"
SEEDS = (1, 2, 3)


def play_to_the_end(program, seed: int) -> Game:
    game = Game.new(program, seed)
    pick = random.Random(seed)
    for _ in range(20_000):
        if game.is_terminal():
            break
        game.apply_action(pick.choice(game.legal_actions()))
    assert game.is_terminal()
    return game


def copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


def texts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.yaml"))}


def errors(root: Path, mods=()) -> list:
    return check_pack(root, {}, list(mods)).report.errors


# ---- every pack and mod of the repository declares its language ----------------------
MANIFESTS = sorted([*BUILTIN_PACKS.rglob("pack.yaml"), *BUILTIN_PACKS.rglob("mod.yaml")])


def test_the_repository_has_packs_and_mods_to_check():
    kinds = {p.name for p in MANIFESTS}
    assert kinds == {"pack.yaml", "mod.yaml"} and len(MANIFESTS) >= 12


@pytest.mark.parametrize("manifest", MANIFESTS,
                         ids=[str(p.parent.relative_to(BUILTIN_PACKS)) for p in MANIFESTS])
def test_every_pack_and_mod_declares_the_current_language(manifest):
    data = YAML(typ="safe").load(manifest.read_text())
    assert data.get("language") == CURRENT


# ---- the corpus: content in older shapes --------------------------------------------
def test_a_pack_without_a_language_is_read_as_language_1_and_plays_as_it_did(capsys):
    assert "language" not in YAML(typ="safe").load((TIC_TAC_TOE / "pack.yaml").read_text())
    manifest, _, report = pack_declarations(TIC_TAC_TOE)
    assert manifest is not None and manifest.language == 1 and not report.errors
    assert main(["check", str(TIC_TAC_TOE)]) == 0
    program = load_pack(TIC_TAC_TOE)
    for seed in SEEDS:
        assert play_to_the_end(program, seed).result()["winner"] in ("x", "o", None)
    capsys.readouterr()
    assert main(["scenario", str(TIC_TAC_TOE / "scenarios"), "--pack", str(TIC_TAC_TOE)]) == 0
    assert "5 passed, 0 failed" in capsys.readouterr().out


def test_a_mod_without_a_language_checks_plays_and_passes_its_old_scenarios(capsys):
    assert main(["check", "--mod", str(OLD_MOD)]) == 0
    program = load_pack(None, mods=[OLD_MOD])
    assert program.cards[98] is not None  # the mod's card is in the game
    for seed in SEEDS:
        assert play_to_the_end(program, seed).result()["winner"] in ("kennedy", "nixon")
    capsys.readouterr()
    assert main(["scenario", str(OLD_MOD / "scenarios"), "--mod", str(OLD_MOD)]) == 0
    assert "7 passed, 0 failed" in capsys.readouterr().out


def test_language_1_moving_a_token_the_board_does_not_give_is_E151_at_each_move(capsys):
    assert main(["check", str(TRAVEL)]) == 1
    err = capsys.readouterr().out
    rules = TRAVEL / "rules" / "10-game.yaml"
    lines = rules.read_text().splitlines()
    moves = [(i + 1, line.index("move") + 1) for i, line in enumerate(lines)
             if line.strip().startswith("move ")]
    assert len(moves) == 3
    for line, col in moves:
        assert f"10-game.yaml:{line}:{col}: error[E151]" in err
    assert err.count("error[E151]") == 3
    assert "the board gives none to kennedy, nixon" in err
    assert "`hustings upgrade PATH`" in err and "tokens:" in err


def test_play_refuses_the_language_1_pack_before_its_first_move(capsys):
    assert main(["play", "--pack", str(TRAVEL), "--seed", "1", "--quiet"]) != 0
    assert "E151" in capsys.readouterr().err


def test_upgrade_check_reports_and_changes_nothing(tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    before = texts(folder)
    assert main(["upgrade", str(folder), "--check"]) == 1
    out = capsys.readouterr().out
    assert "would change" in out and "language: 1 -> 2" in out
    assert "tokens: kennedy and nixon start on CA" in out
    assert texts(folder) == before


def test_upgrade_gives_tokens_keeps_comments_and_the_pack_then_checks_and_plays(
        tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    before = texts(folder)
    assert main(["upgrade", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "needs a human: kennedy and nixon now start on CA" in out
    assert "`hustings check` reports no errors" in out
    after = texts(folder)
    # the only changes: one line in each of two files; every comment and line kept
    assert after["rules/10-game.yaml"] == before["rules/10-game.yaml"]
    assert after["pack.yaml"].replace("language: 2\n", "", 1) == before["pack.yaml"]
    assert after["board.yaml"] == before["board.yaml"] + "tokens: {kennedy: CA, nixon: CA}\n"
    assert errors(folder) == []
    program = load_pack(folder)
    for seed in SEEDS:
        game = play_to_the_end(program, seed)
        assert game.result()["winner"] in ("kennedy", "nixon")
        assert set(game.state.tokens) == {"kennedy", "nixon"}


def test_the_upgraded_pack_plays_the_games_the_engine_of_its_time_played(tmp_path, capsys):
    # travel-2b424eb-games.json: seeded games of the pack as it is in the corpus, played by
    # the engine of commit 2b424eb (tests/corpus/record_games.py). Upgraded, the pack offers
    # today the same menus to the same players, and ends with the same result and tokens.
    folder = copy(TRAVEL, tmp_path)
    assert main(["upgrade", str(folder)]) == 0
    program = load_pack(folder)
    recorded = json.loads((CORPUS / "travel-2b424eb-games.json").read_text())["games"]
    assert len(recorded) == 3
    for played in recorded:
        game = Game.new(program, played["seed"])
        for who, label, menu in played["choices"]:
            assert (game.current_player(), game.action_keys()) == (who, menu)
            game.apply_action(label)
        assert game.is_terminal()
        assert game.result() == played["result"]
        assert game.state.tokens == played["tokens"]


def test_upgrade_twice_changes_nothing_the_second_time(tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    assert main(["upgrade", str(folder)]) == 0
    once = texts(folder)
    capsys.readouterr()
    assert main(["upgrade", str(folder)]) == 0
    assert "already in language 2: nothing to change" in capsys.readouterr().out
    assert main(["upgrade", str(folder), "--check"]) == 0
    assert texts(folder) == once


def test_a_pack_in_language_2_is_not_read_by_language_1_rules(tmp_path):
    # The same rules declared language 2: no E151 (language 2's meaning applies).
    folder = copy(TRAVEL, tmp_path)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text().replace('version: "1.0.0"\n',
                                             'version: "1.0.0"\nlanguage: 2\n'))
    assert [d for d in errors(folder) if d.code == "E151"] == []


def test_a_board_giving_every_player_a_token_keeps_language_1_meaning(tmp_path):
    folder = copy(TRAVEL, tmp_path)
    board = folder / "board.yaml"
    board.write_text(board.read_text() + "tokens: {kennedy: MA, nixon: CA}\n")
    # every moved player has a token: language 1 and 2 mean the same, so no E151
    assert errors(folder) == []
    game = play_to_the_end(load_pack(folder), 1)
    assert game.result()["winner"] in ("kennedy", "nixon")


# ---- mods: each file is read in its own content's language ----------------------------
def token_mod(tmp_path: Path, language: int | None) -> Path:
    """A mod of the old tic-tac-toe pack (no board tokens) whose rule moves a token."""
    mod = tmp_path / "marker-mod"
    (mod / "rules").mkdir(parents=True)
    declared = f"language: {language}\n" if language else ""
    (mod / "mod.yaml").write_text(
        "# a mod that moves a token\nname: marker\nversion: \"0.1.0\"\n" + declared
        + "base: {pack: tic-tac-toe, versions: [\"1.0.0\"]}\n")
    (mod / "rules" / "marker.yaml").write_text(
        "procedures:\n  mark_start:\n    body: |\n      move x to a1\n")
    return mod


def test_a_language_1_mod_moving_a_token_is_E151_in_its_own_file(tmp_path):
    mod = token_mod(tmp_path, None)
    found = [d for d in errors(TIC_TAC_TOE, [mod]) if d.code == "E151"]
    assert len(found) == 1
    assert found[0].source.path.endswith("marker.yaml")
    assert (found[0].source.line, found[0].source.column) == (4, 7)
    assert "x, o" in found[0].message


def test_a_language_2_mod_on_a_language_1_pack_is_read_in_language_2(tmp_path):
    mod = token_mod(tmp_path, 2)
    assert [d for d in errors(TIC_TAC_TOE, [mod]) if d.code == "E151"] == []


def test_upgrade_of_a_mod_gives_tokens_in_the_mod_and_it_then_checks(tmp_path, capsys):
    mod = token_mod(tmp_path, None)
    assert main(["upgrade", str(mod), "--pack", str(TIC_TAC_TOE)]) == 0
    out = capsys.readouterr().out
    assert "tokens: x and o start on a1" in out
    text = (mod / "mod.yaml").read_text()
    assert text.startswith("# a mod that moves a token\n")
    data = YAML(typ="safe").load(text)
    assert data["language"] == CURRENT
    assert data["board"] == {"tokens": {"x": "a1", "o": "a1"}}
    assert errors(TIC_TAC_TOE, [mod]) == []
    assert (TIC_TAC_TOE / "board.yaml").read_text().count("tokens") == 0  # base untouched


def test_upgrade_of_a_mod_leaves_its_base_pack_s_moves_to_the_base(tmp_path, capsys):
    mod = tmp_path / "plain-mod"
    mod.mkdir()
    (mod / "mod.yaml").write_text('name: plain\nversion: "0.1.0"\n'
                                  'base: {pack: travel, versions: ["1.0.0"]}\n')
    base_before = texts(TRAVEL)
    assert main(["upgrade", str(mod), "--pack", str(TRAVEL)]) == 1
    out = capsys.readouterr().out
    assert "changed" in out and "mod.yaml: language: 1 -> 2" in out
    assert "tokens" not in (mod / "mod.yaml").read_text()  # the mod moves no token
    assert "needs a human:" in out and "10-game.yaml:19:7: error[E151]" in out
    assert texts(TRAVEL) == base_before


# ---- what the engine and the upgrade refuse ----------------------------------------
def test_a_language_newer_than_the_engine_is_E150_at_its_value(tmp_path, capsys):
    folder = copy(TIC_TAC_TOE, tmp_path)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text().replace("players:", f"language: {CURRENT + 1}\nplayers:",
                                             1))
    line = pack.read_text().splitlines().index(f"language: {CURRENT + 1}") + 1
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().out
    assert f"pack.yaml:{line}:11: error[E150]" in err
    assert f"reads languages 1 to {CURRENT}" in err
    assert main(["upgrade", str(folder)]) == 2
    assert "newer than this hustings knows" in capsys.readouterr().err


def test_a_mod_in_a_newer_language_is_E150_in_its_manifest(tmp_path):
    mod = token_mod(tmp_path, CURRENT + 1)
    found = errors(TIC_TAC_TOE, [mod])
    assert [d.code for d in found] == ["E150"]
    assert found[0].source.path.endswith("mod.yaml") and found[0].source.line == 4


@pytest.mark.parametrize("value", ['"2"', "0", "1.5", "true"])
def test_a_language_that_is_no_whole_number_from_1_is_E104(tmp_path, value):
    folder = copy(TIC_TAC_TOE, tmp_path)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text().replace("players:", f"language: {value}\nplayers:", 1))
    with pytest.raises(ContentError) as e:
        load_pack(folder)
    assert [d.code for d in e.value.report.errors] == ["E104"]


def test_upgrade_refuses_a_folder_without_a_manifest(tmp_path, capsys):
    assert main(["upgrade", str(tmp_path)]) == 2
    assert "no pack.yaml or mod.yaml" in capsys.readouterr().err
    assert main(["upgrade", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_upgrade_refuses_content_check_cannot_read_and_changes_nothing(tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    board = folder / "board.yaml"
    board.write_text(board.read_text().replace("locations:", "places:"))
    before = texts(folder)
    assert main(["upgrade", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "fix these first" in err and "E102" in err
    assert texts(folder) == before


def test_upgrade_reads_files_as_check_does_before_anything_else(tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text() + ("# padding\n" * 120_000))  # over 1 MB
    before = texts(folder)
    assert main(["upgrade", str(folder)]) == 2
    assert "E112" in capsys.readouterr().err
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(before["pack.yaml"])
    pack.unlink()
    pack.symlink_to(outside)  # a manifest that is a link out of the folder
    assert main(["upgrade", str(folder)]) == 2
    assert "E110" in capsys.readouterr().err
    assert outside.read_text() == before["pack.yaml"]


def test_upgrade_refuses_a_language_that_is_no_whole_number(tmp_path, capsys):
    folder = copy(TRAVEL, tmp_path)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text().replace("players:", 'language: "2"\nplayers:', 1))
    before = texts(folder)
    assert main(["upgrade", str(folder)]) == 2
    assert "must be a whole number from 1" in capsys.readouterr().err
    assert texts(folder) == before


def test_upgrade_of_a_mod_refuses_a_base_folder_without_a_pack(tmp_path, capsys):
    mod = token_mod(tmp_path, None)
    assert main(["upgrade", str(mod), "--pack", str(tmp_path)]) == 2
    assert "no pack.yaml there" in capsys.readouterr().err


def test_upgrade_of_a_mod_whose_base_is_not_built_in_asks_for_it(tmp_path, capsys):
    mod = token_mod(tmp_path, None)
    manifest = mod / "mod.yaml"
    manifest.write_text(manifest.read_text().replace("pack: tic-tac-toe", "pack: elsewhere"))
    assert main(["upgrade", str(mod)]) == 2
    assert "give its folder with --pack PATH" in capsys.readouterr().err


def test_upgrade_says_what_check_still_finds_for_a_human(tmp_path, capsys):
    # E323 (a condition that never changes) is refused since language 2 and has no
    # mechanical fix: the upgrade bumps the version and hands it to a human.
    folder = copy(TRAVEL, tmp_path)
    rules = folder / "rules" / "10-game.yaml"
    rules.write_text(rules.read_text().replace("set turn to t\n",
                                               "set turn to t\n        if t == 1 or 2:\n"
                                               "          say \"early\"\n"))
    assert main(["upgrade", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "needs a human:" in out and "E323" in out
    assert "`hustings check` reports 1 error" in out


# ---- the documentation ----------------------------------------------------------------
def test_every_change_is_in_the_language_changes_document():
    text = (DOCS / "language-changes.md").read_text()
    for change in CHANGES:
        assert f"## Language {change.version}" in text
        assert change.name in text
    assert f"## Language {CURRENT + 1}" not in text


def test_the_codes_are_documented():
    text = (DOCS / "diagnostics.md").read_text()
    assert "### E150" in text and "### E151" in text
