"""A game of cards alone needs no board file: a pack that names none and has no
`board.yaml` plays on an empty board, while a board file the pack names and lacks is E100."""

from __future__ import annotations

import shutil
from pathlib import Path

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.game import Game

GUESS = Path(__file__).parent / "packs" / "guess"


def without_board(tmp_path: Path, keep_entry: bool) -> Path:
    pack = tmp_path / "guess"
    shutil.copytree(GUESS, pack)
    (pack / "board.yaml").unlink()
    manifest = pack / "pack.yaml"
    text = manifest.read_text()
    assert "board: board.yaml\n" in text
    if not keep_entry:
        manifest.write_text(text.replace("board: board.yaml\n", ""))
    return pack


def test_a_pack_that_names_no_board_plays_without_one(tmp_path):
    pack = without_board(tmp_path, keep_entry=False)
    assert check_pack(pack).report.errors == []
    game = Game.new(load_pack(pack), seed=2)
    while not game.is_terminal():
        game.apply_action(0)
    assert game.result()["winner"] in ("ann", "bob")


def test_a_board_file_the_pack_names_must_be_there(tmp_path):
    pack = without_board(tmp_path, keep_entry=True)
    errors = check_pack(pack).report.errors
    assert [(d.code, Path(d.source.path).name) for d in errors] == [("E100", "board.yaml")]
