"""`hustings new pack`: a pack that checks, passes its scenarios and plays to a winner the
moment it is written; a folder that is not new or empty is refused and left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.language import CURRENT
from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.game import Game
from hustings.tools.agents import random_agent
from hustings.tools.cli import main

SHAPES = {"default": [], "three": ["--players", "ann,bob,cy"],
          "four": ["--players", "north_1,east,south_2,west9"]}
SEATS = {"default": ["red", "blue"], "three": ["ann", "bob", "cy"],
         "four": ["north_1", "east", "south_2", "west9"]}


def new_pack(path: Path, *extra: str) -> int:
    return main(["new", "pack", str(path), *extra])


def manifest(pack: Path) -> dict:
    return YAML(typ="safe").load((pack / "pack.yaml").read_text(encoding="utf-8"))


def tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module", params=list(SHAPES))
def shaped(request, tmp_path_factory) -> tuple[str, Path]:
    pack = tmp_path_factory.mktemp(request.param) / "my-game"
    assert new_pack(pack, *SHAPES[request.param]) == 0
    return request.param, pack


def test_the_pack_has_its_files_in_the_current_language(shaped):
    shape, pack = shaped
    files = set(tree(pack))
    assert {"pack.yaml", "rules/10-game.yaml", "scenarios/game.yaml"} <= files
    assert 2 <= len([f for f in files if f.startswith("cards/")]) <= 4
    assert "board.yaml" not in files  # a game of cards alone needs no board
    data = manifest(pack)
    assert data["language"] == CURRENT
    assert data["name"] == "my-game"  # the folder's name by default
    assert data["players"] == SEATS[shape]
    assert list(data["view"]["players"]) == SEATS[shape]


def test_the_pack_checks_clean(shaped):
    _, pack = shaped
    loaded = check_pack(pack)
    assert loaded.program is not None
    assert not loaded.report.errors and not loaded.report.warnings


def test_its_scenarios_pass(shaped, capsys):
    _, pack = shaped
    assert main(["scenario", str(pack / "scenarios")]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize("seed", range(1, 6))
def test_random_players_play_it_to_a_winner(shaped, seed):
    shape, pack = shaped
    program = load_pack(pack)
    game, agent, moves = Game.new(program, seed=seed), random_agent(seed), 0
    while not game.is_terminal():
        game.apply_action(agent(game))
        moves += 1
        assert moves < 200
    winner = game.result()["winner"]
    assert winner in SEATS[shape]
    points = {p: game.state.counters["points"][p] for p in SEATS[shape]}
    assert points[winner] >= 5


def test_play_runs_it_from_the_command_line(shaped, capsys):
    shape, pack = shaped
    assert main(["play", "--pack", str(pack), "--seed", "3", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["winner"] in SEATS[shape]


def test_name_sets_the_packs_name_and_title(tmp_path):
    assert new_pack(tmp_path / "folder", "--name", "harvest-moon") == 0
    data = manifest(tmp_path / "folder")
    assert data["name"] == "harvest-moon" and data["title"] == "Harvest moon"


def test_an_empty_folder_is_taken(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert new_pack(tmp_path / "empty") == 0
    out = capsys.readouterr().out
    assert "hustings check" in out and "hustings scenario" in out and "hustings play" in out
    assert (tmp_path / "empty" / "pack.yaml").is_file()


def test_a_folder_with_anything_in_it_is_refused_and_left_alone(tmp_path, capsys):
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    assert new_pack(folder) == 2
    assert "not empty" in capsys.readouterr().err
    assert tree(folder) == {"notes.txt": "mine"}


def test_a_second_pack_over_the_first_is_refused(tmp_path, capsys):
    assert new_pack(tmp_path / "p") == 0
    before = tree(tmp_path / "p")
    (tmp_path / "p" / "cards" / "001-step.yaml").write_text("number: 1\ntitle: Mine\n")
    before["cards/001-step.yaml"] = "number: 1\ntitle: Mine\n"
    assert new_pack(tmp_path / "p", "--players", "ann,bob") == 2
    assert "not empty" in capsys.readouterr().err
    assert tree(tmp_path / "p") == before


def test_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    assert new_pack(tmp_path / "f") == 2
    assert "is a file" in capsys.readouterr().err
    assert new_pack(tmp_path / "f" / "inside") == 2
    assert "is a file" in capsys.readouterr().err
    assert (tmp_path / "f").read_text() == "x"


@pytest.mark.parametrize(("players", "why"), [
    ("ann", "1 given"),
    ("a,b,c,d,e,f,g,h,i", "9 given"),
    ("ann,,bob", "a name is empty"),
    ("ann,Bob", "not a name the rules can use"),
    ("ann,2nd", "not a name the rules can use"),
    ("ann,bob-b", "not a name the rules can use"),
    ("ann,if", "a word the rules already use"),
    ("ann,points", "a word the rules already use"),
    ("ann,players", "a word the rules already use"),
    ("ann,bob,ann", "ann given twice"),
])
def test_players_that_cannot_be_seats_are_refused(tmp_path, capsys, players, why):
    assert new_pack(tmp_path / "p", "--players", players) == 2
    assert why in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_a_name_that_cannot_be_a_packs_is_refused(tmp_path, capsys):
    assert new_pack(tmp_path / "p", "--name", "my game") == 2
    assert "pack name" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_eight_seats_play_too(tmp_path):
    seats = [f"p{i}" for i in range(1, 9)]
    assert new_pack(tmp_path / "p", "--players", ",".join(seats)) == 0
    game, agent = Game.new(load_pack(tmp_path / "p"), seed=1), random_agent(1)
    while not game.is_terminal():
        game.apply_action(agent(game))
    assert game.result()["winner"] in seats


def test_the_pack_is_already_laid_out_as_fmt_would(shaped, capsys):
    _, pack = shaped
    assert main(["fmt", "--check", str(pack)]) == 0
    assert "0 would be reformatted" in capsys.readouterr().out


def test_a_folder_whose_name_cannot_be_a_packs_asks_for_name(tmp_path, capsys):
    assert new_pack(tmp_path / "my game") == 2
    assert "give one with --name" in capsys.readouterr().err
    assert not (tmp_path / "my game").exists()
    assert new_pack(tmp_path / "my game", "--name", "my-game") == 0
    assert manifest(tmp_path / "my game")["name"] == "my-game"
