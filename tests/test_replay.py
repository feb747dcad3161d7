"""Logs are untrusted input: their shape, every action and their mods are checked on replay."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from hustings.dsl.fingerprint import folder_hash
from hustings.dsl.loading import BUILTIN_PACKS, load_pack
from hustings.interpreter.game import Game
from hustings.tools.cli import main

MOD = BUILTIN_PACKS / "mods" / "whistle-stops"


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "game.json"
    assert main(["play", "--seed", "6", "--quiet", "--log", str(path)]) == 0
    return path


def replay(capsys, path: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["play", "--replay", str(path), "--quiet", *extra])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err.strip()


def variant(log: Path, tmp_path: Path, edit) -> Path:
    data = json.loads(log.read_text())
    edit(data)
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(data))
    return path


def test_the_log_replays_to_the_same_result(log, capsys, tmp_path):
    code, out, _ = replay(capsys, log)
    assert code == 0
    again = tmp_path / "again.json"
    assert main(["play", "--replay", str(log), "--quiet", "--log", str(again)]) == 0
    assert again.read_bytes() == log.read_bytes()


def test_labels_replay_like_indices(log, capsys, tmp_path):
    data = json.loads(log.read_text())
    game = Game.new(load_pack(), seed=data["seed"])
    labels = []
    for index in data["actions"]:
        labels.append(game.legal_actions()[index])
        game.apply_action(index)
    code, out, _ = replay(capsys, variant(log, tmp_path, lambda d: d.update(actions=labels)))
    assert code == 0 and out == replay(capsys, log)[1]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["actions"].__setitem__(2, True), "action 3 is true: an action is a whole number"),
    (lambda d: d["actions"].__setitem__(2, -1), "action 3 is -1 but only"),
    (lambda d: d["actions"].__setitem__(2, 1.0), "action 3 is 1.0: an action is a whole number"),
    (lambda d: d["actions"].__setitem__(0, "not a label"),
     "action 1 'not a label' is not legal for"),
    (lambda d: d["actions"].extend([0, 0, 0]), "the game ends after action"),
    (lambda d: d.update(format_version=2), "format_version 2 is newer than this hustings reads"),
    (lambda d: d.update(format_version="1"), "format_version \"1\" is not one this hustings"),
    (lambda d: d.pop("format"), "not a hustings log"),
    (lambda d: d.update(extra=1), "extra: extra inputs are not permitted"),
    (lambda d: d.update(seed=-4), "seed: input should be greater than or equal to 0"),
    (lambda d: d.update(seed="6"), "seed: input should be a valid integer"),
    (lambda d: d.update(mods=["/etc"]), "mods.0: input should be a valid dictionary"),
    (lambda d: d.update(pack={"name": "1960", "version": "9.9.9"}), "not 1960 1.0.0"),
    (lambda d: d.update(seats={"ford": "human"}), "seat ford=human is not a seat of this pack"),
    (lambda d: d.update(seats={"nixon": "oracle"}), "seat nixon=oracle is not a seat"),
])
def test_a_bad_log_is_refused_with_one_line(log, capsys, tmp_path, edit, message):
    code, out, err = replay(capsys, variant(log, tmp_path, edit))
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_a_log_that_ends_early_is_refused_by_replay_but_resumes(log, capsys, tmp_path):
    short = variant(log, tmp_path, lambda d: d.update(actions=d["actions"][:30]))
    code, _, err = replay(capsys, short)
    assert code == 1 and "the log ends after 30 actions, before the game does" in err
    code = main(["play", "--resume", str(short), "--quiet"])
    assert code == 0 and json.loads(capsys.readouterr().out) == json.loads(replay(capsys, log)[1])


def test_the_log_fixes_seed_and_options(log, capsys):
    assert replay(capsys, log, "--seed", "2")[0] == 2
    code, _, err = replay(capsys, log, "--option", "vice_presidents")
    assert code == 2 and "fixes the options" in err


# ---- mods: recorded by name and content hash, given again on the command line ----------
@pytest.fixture
def modded(tmp_path, capsys) -> tuple[Path, Path]:
    mod = tmp_path / "whistle-stops"
    shutil.copytree(MOD, mod)
    path = tmp_path / "modded.json"
    assert main(["play", "--seed", "4", "--quiet", "--mod", str(mod), "--log", str(path)]) == 0
    capsys.readouterr()
    return mod, path


def test_a_mod_is_recorded_by_name_and_hash(modded):
    mod, path = modded
    assert json.loads(path.read_text())["mods"] == [
        {"name": "whistle-stops", "hash": folder_hash(mod)}]


def test_a_modded_log_needs_the_same_mod(modded, capsys):
    mod, path = modded
    code, _, err = replay(capsys, path)
    assert code == 2 and "whistle-stops" in err and "--mod" in err
    assert replay(capsys, path, "--mod", str(mod))[0] == 0


def test_a_changed_mod_is_not_the_same_mod(modded, capsys):
    mod, path = modded
    with (mod / "mod.yaml").open("a") as f:
        f.write("# an edit\n")
    code, _, err = replay(capsys, path, "--mod", str(mod))
    assert code == 2 and "was played with whistle-stops" in err


def test_the_log_never_names_a_folder_to_load(modded):
    _, path = modded
    assert str(path.parent) not in path.read_text()


# ---- the fingerprint ---------------------------------------------------------------
def test_fingerprint_follows_content_names_and_ignores_links(tmp_path):
    folder = tmp_path / "m"
    shutil.copytree(MOD, folder)
    first = folder_hash(folder)
    assert folder_hash(folder) == first and len(first) == 64
    card = next((folder / "cards").glob("*.yaml"))
    card.rename(card.with_name("renamed.yaml"))
    renamed = folder_hash(folder)
    assert renamed != first
    if hasattr(os, "symlink"):
        (folder / "link").symlink_to(tmp_path)
        assert folder_hash(folder) == renamed  # links are no mod content
