"""A player count: `player_count: {min, max, default}` in pack.yaml and `--players N`.

A game of N players seats the first N of `players:` (those no option names); the count is
compiled in like an option, so saves and session files record it. `check` refuses a range
no game could be played with (E175) and compiles the pack at every count of the range; a
count asked outside it is E176, one line and exit 2 at the command line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.errors import SaveError
from hustings.interpreter.game import Game
from hustings.tools.cli import main

OUTPOSTS = Path(__file__).parent / "packs" / "outposts"
FOUR = MANIFEST.replace("players: [ann, bob]", "players: [ann, bob, cid, dee]")


def counted_pack(tmp_path, count: str, manifest: str = FOUR) -> Path:
    """The mini pack with four players and `count` as its player_count line."""
    return make_pack(tmp_path, manifest=manifest.replace(
        "players: [ann, bob, cid, dee]\n", f"players: [ann, bob, cid, dee]\n{count}\n"))


def errors(loaded) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.source.line, d.source.column, d.message) for d in loaded.report.errors]


# ---- compiling a count ------------------------------------------------------------------
def test_without_player_count_every_player_plays_as_before(tmp_path):
    program = load_pack(make_pack(tmp_path, manifest=FOUR))
    assert program.players == ["ann", "bob", "cid", "dee"]
    assert program.player_count is None
    assert load_pack(make_pack(tmp_path / "b", manifest=FOUR), players=4).players == \
        program.players  # asking for the fixed number is no error


def test_a_count_for_a_pack_without_player_count_is_refused(tmp_path):
    loaded = check_pack(make_pack(tmp_path, manifest=FOUR), players=3)
    assert [(c, m) for c, _, _, m in errors(loaded)] == [
        ("E176", "this pack always seats 4 players, not 3")]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_game_of_n_seats_the_first_n_players_and_only_them(n):
    program = load_pack(OUTPOSTS, players=n)
    seated = ["red", "blue", "green", "gold", "white"][:n]
    assert program.players == seated and program.player_count == n
    game = Game.new(program, 1)
    assert sorted(game.state.counters["troops"]) == sorted(seated)
    assert sorted(k for k in game.state.zones if k.startswith("hand:")) == \
        sorted(f"hand:{p}" for p in seated)
    owners = {p for place in game.state.pools["outposts"].values() for p in place}
    assert owners == set(seated)  # a home of a player not seated starts empty


def test_the_default_count_plays_without_players_asked():
    program = load_pack(OUTPOSTS)
    assert program.players == ["red", "blue", "green"] and program.player_count == 3


def test_default_is_max_when_left_out(tmp_path):
    program = load_pack(counted_pack(tmp_path, "player_count: {min: 2, max: 3}"))
    assert program.players == ["ann", "bob", "cid"] and program.player_count == 3


@pytest.mark.parametrize(("count", "found"), [
    ("player_count: {min: 1, max: 4}", [("E175", 5, 21, "player_count.min is 1; a game "
                                         "needs two players")]),
    ("player_count: {min: 2, max: 5}", [("E175", 5, 29, "player_count.max is 5, but 4 "
                                         "players are listed (and named by no option)")]),
    ("player_count: {min: 4, max: 3}", [("E175", 5, 21, "player_count.min (4) is above max "
                                         "(3)")]),
    ("player_count: {min: 2, max: 3, default: 4}", [
        ("E175", 5, 41, "player_count.default is 4, outside 2 to 3")]),
])
def test_a_range_no_game_could_be_played_with_is_e175_at_its_bound(tmp_path, count, found):
    loaded = check_pack(counted_pack(tmp_path, count))
    assert loaded.program is None
    assert errors(loaded) == found


def test_a_count_outside_the_range_is_e176(tmp_path):
    loaded = check_pack(OUTPOSTS, players=6)
    assert loaded.program is None
    assert [(c, m) for c, _, _, m in errors(loaded)] == [
        ("E176", "this game seats from 2 to 5 players, not 6")]
    assert loaded.report.errors[0].hint == "ask for --players 2 to 5"


def test_the_count_applies_to_the_players_no_option_names(tmp_path):
    manifest = MANIFEST.replace("players: [ann, bob]", "players: [ann, bob, cid, eve]") + (
        "player_count: {min: 2, max: 3}\n"
        "options:\n  guest: {default: false, players: [eve]}\n")
    pack = make_pack(tmp_path, manifest=manifest)
    assert load_pack(pack, players=2).players == ["ann", "bob"]
    assert load_pack(pack, {"guest": True}, players=2).players == ["ann", "bob", "eve"]
    assert load_pack(pack, {"guest": True}).players == ["ann", "bob", "cid", "eve"]
    too_many = check_pack(make_pack(tmp_path / "b", manifest=manifest.replace(
        "max: 3", "max: 4")))
    assert [c for c, *_ in errors(too_many)] == ["E175"]  # eve is not one of the counted


# ---- check --------------------------------------------------------------------------------
def test_check_passes_the_test_pack_at_every_count(capsys):
    assert main(["check", str(OUTPOSTS)]) == 0
    out = capsys.readouterr().out
    assert "(with " not in out and "2 to 5 players (default 3)" in out


def test_check_reports_what_only_another_count_finds(tmp_path, capsys):
    """The shared track's min end is the third seat: fine at 3 and 4 players (the default
    is 4), not at 2, where cid has no seat. Whatever check passes must play."""
    track = ("tracks:\n  tug: {min: -3, max: 3, shared: {max: ann, min: cid}}\n")
    pack = counted_pack(tmp_path, "player_count: {min: 2, max: 4}",
                        FOUR.replace("tracks:\n", track))
    assert check_pack(pack).program is not None  # the default count compiles
    assert main(["check", str(pack)]) == 1
    out = capsys.readouterr().out
    assert "error[E118]" in out and "(with 2 players)" in out
    assert "(with 3 players)" not in out


# ---- the command line -----------------------------------------------------------------------
def test_players_outside_the_range_is_one_line_and_exit_2(capsys):
    assert main(["play", "--pack", str(OUTPOSTS), "--players", "6", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "hustings: error: --players: this game seats from 2 to 5 players, not 6 (ask for "
        "--players 2 to 5)"]


def test_players_for_a_pack_without_a_count_is_exit_2(capsys):
    assert main(["play", "--players", "3", "--quiet", "--seed", "1"]) == 2
    assert "this pack always seats 2 players, not 3" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0", "x"])
def test_players_must_be_a_whole_number_above_zero(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["play", "--pack", str(OUTPOSTS), "--players", bad])
    assert stop.value.code == 2


def test_the_session_file_records_the_count_and_replays_it(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", "--pack", str(OUTPOSTS), "--players", "4", "--seed", "3", "--quiet",
                 "--log", str(log)]) == 0
    result = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(log.read_text())
    assert data["players"] == 4 and set(data["seats"]) == {"red", "blue", "green", "gold"}
    assert main(["play", "--pack", str(OUTPOSTS), "--replay", str(log), "--quiet"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == result
    assert main(["play", "--pack", str(OUTPOSTS), "--replay", str(log), "--players", "4",
                 "--quiet"]) == 2
    assert "fixes the number of players" in capsys.readouterr().err


def test_a_session_file_with_a_count_the_pack_refuses_is_named(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", "--pack", str(OUTPOSTS), "--players", "2", "--seed", "3", "--quiet",
                 "--log", str(log)]) == 0
    data = json.loads(log.read_text())
    data["players"] = 7
    log.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["play", "--pack", str(OUTPOSTS), "--replay", str(log), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "its count of players does not fit the pack" in err and "not 7" in err


def test_a_session_file_of_a_pack_without_a_count_has_no_players_entry(tmp_path):
    log = tmp_path / "game.json"
    assert main(["play", "--seed", "2", "--quiet", "--log", str(log)]) == 0
    assert "players" not in json.loads(log.read_text())  # byte for byte as before


def test_a_save_of_one_count_does_not_load_into_another():
    game = Game.new(load_pack(OUTPOSTS, players=4), 2)
    with pytest.raises(SaveError):
        Game.load(load_pack(OUTPOSTS, players=3), game.save())
    assert Game.load(load_pack(OUTPOSTS, players=4), game.save()).save() == game.save()


def test_soak_plays_the_count_asked(capsys):
    assert main(["soak", "--pack", str(OUTPOSTS), "--players", "5", "--games", "2"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games"] == 2 and summary["violations"] == 0


def test_soak_names_the_count_in_the_line_that_reproduces_a_failure(capsys, monkeypatch):
    from hustings.interpreter import invariants

    monkeypatch.setattr(invariants, "first_violation", lambda *a, **k: "planted problem")
    assert main(["soak", "--pack", str(OUTPOSTS), "--players", "2", "--games", "1"]) == 1
    assert "--players 2" in capsys.readouterr().err


def test_simulate_plays_the_count_asked(tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    assert main(["simulate", "--pack", str(OUTPOSTS), "--players", "4", "--games", "2",
                 "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    assert all(set(r["seats"]) == {"red", "blue", "green", "gold"} for r in records)
    assert main(["simulate", "--pack", str(OUTPOSTS), "--players", "1", "--games", "1",
                 "--out", str(tmp_path / "other.jsonl")]) == 2


# ---- scenarios ----------------------------------------------------------------------------
SCENARIO = """\
scenarios:
  - name: "five seats, from the command line or the scenario"
    %s
    steps:
      - expect:
          counters: {troops: {white: 2}}
"""


@pytest.mark.parametrize(("own", "flag", "passes"), [
    ("players: 5", [], True),
    ("seed: 0", ["--players", "5"], True),
    ("players: 5", ["--players", "3"], True),  # the scenario's own count wins
    ("seed: 0", [], False),  # the default count (3) has no white seat
])
def test_a_scenario_plays_its_own_count_or_the_command_lines(tmp_path, own, flag, passes,
                                                              capsys):
    pack = tmp_path / "outposts"
    shutil.copytree(OUTPOSTS, pack, ignore=shutil.ignore_patterns("scenarios"))
    (pack / "five.yaml").write_text(SCENARIO % own)
    assert main(["scenario", str(pack / "five.yaml"), *flag]) == (0 if passes else 1)
    assert ("1 passed" if passes else "0 passed") in capsys.readouterr().out


# ---- the web board ------------------------------------------------------------------------
def test_the_web_board_creates_a_game_of_the_count_asked():
    pytest.importorskip("starlette", reason="needs the web extra")
    pytest.importorskip("httpx", reason="needs the test extra")
    from starlette.testclient import TestClient

    from hustings.tools.web.app import create_app

    with TestClient(create_app(OUTPOSTS, limit=8)) as client:
        setup = client.get("/api/setup").json()
        assert setup["player_count"] == {"min": 2, "max": 5, "default": 3}
        assert setup["players"] == ["red", "blue", "green", "gold", "white"]  # every seat
        r = client.post("/api/games", json={"seats": {"red": "human", "white": "greedy"}})
        assert r.status_code == 201, r.text  # the default count: white's seat is left out
        session = client.app.state.server.rooms.get(r.json()["id"]).session
        assert session.seats == {"red": "human", "blue": "random", "green": "random"}
        r = client.post("/api/games", json={"players": 4, "seats": {"red": "human"}})
        assert r.status_code == 201, r.text
        session = client.app.state.server.rooms.get(r.json()["id"]).session
        assert session.program.players == ["red", "blue", "green", "gold"]
        log = session.to_log().model_dump()
        assert log["players"] == 4
        loaded = client.post("/api/load", json={"log": json.dumps(log)})
        assert loaded.status_code in (200, 201), loaded.text
        for bad in (6, 1, "4", True):
            r = client.post("/api/games", json={"players": bad})
            assert r.status_code == 400 and "players" in r.json()["error"]
    with TestClient(create_app(limit=2)) as client:  # 1960 seats a fixed list
        assert client.get("/api/setup").json()["player_count"] is None
        r = client.post("/api/games", json={"players": 2})
        assert r.status_code == 400 and "fixed list" in r.json()["error"]
