"""Elimination: `eliminate P`, the builtins `players_in()` and `is_out(P)`, the state that
records who is out (saved, loaded, checked by the invariants), the narration, the rule
error of a question to a player who is out, and every player seeing who is out."""

from __future__ import annotations

import json
import re

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.errors import RuleError, SaveError
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import violations
from hustings.interpreter.state import clone

FOUR = MANIFEST.replace("players: [ann, bob]", "players: [ann, bob, cid, dee]")


def pack_of(tmp_path, body: str, manifest: str = FOUR):
    rules = "procedures:\n  game:\n    body: |\n" + "".join(
        f"      {line}\n" for line in body.strip().splitlines())
    return make_pack(tmp_path, rules={"rules/10-game.yaml": rules}, manifest=manifest)


def game_of(tmp_path, body: str) -> Game:
    return Game.new(load_pack(pack_of(tmp_path, body)), 1)


def said(game: Game) -> list[str]:
    return [line for line in game.state.log if not line.startswith(" ")]


# ---- the statement and the builtins -------------------------------------------------------
def test_eliminate_puts_a_player_out_and_says_so_once(tmp_path):
    game = game_of(tmp_path, """\
say "{players_in()}"
eliminate cid
eliminate cid
eliminate ann
say "{players_in()} {is_out(cid)} {is_out(bob)}"
""")
    assert said(game) == ["ann, bob, cid, dee", "bob, dee yes no"]
    assert [line for line in game.state.log if line.endswith("is out")] == [
        "  cid is out", "  ann is out"]
    assert game.state.out == ["ann", "cid"]  # in seat order, each once


def test_turn_order_among_the_players_still_in(tmp_path):
    game = game_of(tmp_path, """\
eliminate bob
say "{next_among(ann, players_in())} {next_among(dee, players_in())}"
say "{[p for p in players_from(cid) if not is_out(p)]}"
""")
    assert said(game) == ["cid ann", "cid, dee, ann"]


def test_a_player_out_keeps_the_seat(tmp_path):
    game = game_of(tmp_path, 'eliminate bob\nsay "{seat(cid)} {next_player(ann)} {count(players)}"')
    assert said(game) == ["3 bob 4"]


@pytest.mark.parametrize(("body", "message"), [
    ('eliminate first([])', "only a player is put out of the game"),
    ('say "{is_out(\\"zed\\")}"', "'zed' is not a player seated in this game"),
])
def test_only_a_seated_player_is_out(tmp_path, body, message):
    program = load_pack(pack_of(tmp_path, body))
    with pytest.raises(RuleError, match=re.escape(message)):
        Game.new(program, 1)


def test_check_refuses_what_is_plainly_no_player(tmp_path):
    loaded = check_pack(pack_of(tmp_path, "eliminate 3"))
    assert loaded.program is None
    assert [(d.code, d.source.line, d.source.column, d.message)
            for d in loaded.report.errors] == [
        ("E320", 4, 17, "type mismatch: who is out must be a player, not the number 3")]


def test_a_question_to_a_player_who_is_out_is_a_rule_error_at_it(tmp_path):
    with pytest.raises(RuleError) as caught:
        game_of(tmp_path, "eliminate bob\nbob chooses x from [1, 2]")
    assert "rules/10-game.yaml:5:7" in str(caught.value)
    assert "bob is out of the game (eliminated) and decides nothing" in str(caught.value)


def test_a_question_to_a_player_still_in_is_asked(tmp_path):
    game = game_of(tmp_path, "eliminate bob\ncid chooses x from [1, 2]")
    assert game.current_player() == "cid"


# ---- the state ---------------------------------------------------------------------------
def test_who_is_out_is_saved_loaded_and_cloned(tmp_path):
    game = game_of(tmp_path, "eliminate dee\neliminate bob\nann chooses x from [1, 2]")
    text = game.save()
    assert json.loads(text)["out"] == ["bob", "dee"]
    again = Game.load(game.program, text)
    assert again.state.out == ["bob", "dee"] and again.save() == text
    copy = clone(game.state)
    copy.out.append("cid")
    assert game.state.out == ["bob", "dee"]


def test_a_game_nobody_left_saves_as_it_always_did(tmp_path):
    game = game_of(tmp_path, "ann chooses x from [1, 2]")
    assert "out" not in json.loads(game.save())
    assert Game.load(game.program, game.save()).state.out == []


@pytest.mark.parametrize(("out", "problem"), [
    (["zed"], "out: 'zed' is not a player seated in this game"),
    (["cid", "bob"], "is not in seat order, or names a player twice"),
    (["bob", "bob"], "is not in seat order, or names a player twice"),
    (["ann"], "pending: ann is out of the game and decides nothing"),
])
def test_the_invariants_check_who_is_out(tmp_path, out, problem):
    game = game_of(tmp_path, "ann chooses x from [1, 2]")
    state = clone(game.state)
    state.out = out
    assert any(problem in v for v in violations(game.program, state))
    data = json.loads(game.save())
    data["out"] = out
    with pytest.raises(SaveError, match=re.escape(problem)):
        Game.load(game.program, json.dumps(data))


def test_a_save_with_out_of_the_wrong_shape_is_refused(tmp_path):
    game = game_of(tmp_path, "ann chooses x from [1, 2]")
    data = json.loads(game.save())
    data["out"] = "bob"
    with pytest.raises(SaveError, match="malformed save"):
        Game.load(game.program, json.dumps(data))


def test_every_player_sees_who_is_out(tmp_path):
    game = game_of(tmp_path, "eliminate cid\nann chooses x from [1, 2]")
    for player in game.program.players:
        observed = game.observation(player)
        assert observed["out"] == ["cid"]
        assert "  cid is out" in observed["log"]


def test_the_narration_uses_the_players_name(tmp_path):
    """(Its Japanese wording is checked with every engine line by test_translation.py.)"""
    manifest = FOUR + "view:\n  players: {cid: {name: Cid the Bold}}\n"
    game = Game.new(load_pack(pack_of(tmp_path, "eliminate cid", manifest)), 1)
    assert "  Cid the Bold is out" in game.state.log


def test_explain_reads_the_statement_back(tmp_path):
    from hustings.tools.reading.render import Renderer

    program = load_pack(pack_of(tmp_path, "eliminate cid"))
    statement = next(ins for block in program.blocks for ins in block if ins[0] == "eliminate")
    assert Renderer(program).statement(statement) == "eliminate cid"


def test_the_web_board_marks_who_is_out_for_every_seat(tmp_path):
    pytest.importorskip("starlette", reason="needs the web extra")
    from hustings.tools.web.board import board_for

    game = game_of(tmp_path, "eliminate cid\nann chooses x from [1, 2]")
    for viewer in game.program.players:
        marked = {p["id"]: p.get("out", False) for p in board_for(game, viewer)["players"]}
        assert marked == {"ann": False, "bob": False, "cid": True, "dee": False}


def test_the_terminal_board_marks_who_is_out(tmp_path):
    from hustings.tools.terminal.board import render_board

    game = game_of(tmp_path, "eliminate cid\nann chooses x from [1, 2]")
    for viewer in game.program.players:
        lines = render_board(game, viewer).splitlines()
        assert [p for p in ("ann", "bob", "cid", "dee")
                if any(line.lstrip().startswith(f"{p} (out)") for line in lines)] == ["cid"]
