"""Games kept in SQLite: a restart (a new app on the same file, and a real `hustings serve`
killed with SIGKILL) finds every game where it was; a damaged or foreign row is an error
reply, not a crash; old games expire by the policy; no secret is stored in clear."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="needs the web extra")
pytest.importorskip("httpx", reason="needs the test extra")

import httpx  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from hustings.dsl.loading import builtin_pack  # noqa: E402
from hustings.tools.web.app import create_app  # noqa: E402
from hustings.tools.web.store import DAY, Record, SQLiteStore, StoreError  # noqa: E402

TTT = builtin_pack("tic-tac-toe")


def app_on(path: Path, pack: Path = TTT, **more):
    return create_app(pack, store=SQLiteStore(path), **more)


def moved(client: TestClient, app) -> TestClient:
    """The same browser (its cookies) talking to another server."""
    return TestClient(app, cookies=client.cookies)


class Table:
    """A two-person game: the creator's browser and the invited player's, each a client
    with its own cookies."""

    def __init__(self, app) -> None:
        self.creator = TestClient(app)
        setup = self.creator.get("/api/setup").json()
        self.players = setup["players"]
        made = self.creator.post("/api/games", json={
            "seats": dict.fromkeys(self.players, "human")})
        assert made.status_code == 201, made.text
        self.id = made.json()["id"]
        self.invitations = made.json()["invitations"]

    def path(self, what: str = "") -> str:
        return f"/api/games/{self.id}" + (f"/{what}" if what else "")

    def claim(self, app) -> TestClient:
        guest = TestClient(app)
        (player, token), = self.invitations.items()
        r = guest.post(self.path("claim"), json={"invite": token})
        assert r.status_code == 200, r.text
        return guest


def test_a_game_is_where_it_was_for_a_new_server_on_the_same_file(tmp_path):
    path = tmp_path / "games.sqlite3"
    first = app_on(path)
    table = Table(first)
    seen = table.creator.get(table.path()).json()
    assert seen["invitations"] == table.invitations
    r = table.creator.post(table.path("act"), json={"index": 4, "at": 0})
    assert r.status_code == 200, r.text
    before = table.creator.get(table.path()).json()

    again = app_on(path)  # the restart: nothing in memory, the same file
    table.creator = moved(table.creator, again)
    after = table.creator.get(table.path()).json()
    assert after == before  # the same board for the same cookie, invitation links too
    assert after["actions"] == 1
    guest = table.claim(again)  # the invitation sent before the restart still opens
    r = guest.post(table.path("act"), json={"index": 0, "at": 1})
    assert r.status_code == 200, r.text
    assert r.json()["actions"] == 2
    # and a third server sees the claim and the move
    third = app_on(path)
    table.creator, guest = moved(table.creator, third), moved(guest, third)
    assert guest.get(table.path()).json()["actions"] == 2
    assert table.creator.get(table.path()).json()["joined"] == dict.fromkeys(table.players,
                                                                               True)


def test_a_take_back_waiting_for_an_answer_survives_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    app = app_on(path)
    table = Table(app)
    guest = table.claim(app)
    assert table.creator.post(table.path("act"), json={"index": 4, "at": 0}).status_code == 200
    assert guest.post(table.path("act"), json={"index": 0, "at": 1}).status_code == 200
    asked = table.creator.post(table.path("undo"), json={"at": 2})  # takes the guest's too
    assert asked.status_code == 200, asked.text
    assert asked.json()["takeback"]["waiting"]
    again = app_on(path)
    guest = moved(guest, again)
    r = guest.post(table.path("answer"), json={"accept": True})
    assert r.status_code == 200, r.text
    assert r.json()["actions"] == 0 and r.json()["answer"]["accepted"]


def test_a_record_round_trips_through_the_store(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    record = Record("abc", '{"x": 1}\n', "en", "table", {"table": "a" * 64},
                    {"p": "b" * 64}, {"player": "p"}, None, True, 10.0, 20.0)
    store.put(record)
    assert store.get("abc") == record
    assert store.get("nothing") is None
    assert store.ids() == ["abc"]
    record.over = False
    store.put(record)  # a change replaces the row
    assert store.get("abc").over is False and store.ids() == ["abc"]


def damage(path: Path, sql: str, *args) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(sql, args)
    db.close()


@pytest.mark.parametrize("sql, said", [
    ("UPDATE games SET log = '{not json'", "session file"),
    ("UPDATE games SET format = 99", "layout 99"),
    ("UPDATE games SET secrets = '[1, 2'", "not JSON"),
    ("UPDATE games SET secrets = '{\"x\": 5}'", "wrong shape"),
    ("UPDATE games SET creator = 'nobody'", "seats are not the game's"),
    ("UPDATE games SET language = 'xx'", "not served"),
    ("UPDATE games SET asked = '{\"player\": 1}'", "take-back"),
])
def test_a_damaged_row_is_an_error_reply_and_the_server_goes_on(tmp_path, sql, said):
    path = tmp_path / "games.sqlite3"
    app = app_on(path)
    table, other = Table(app), Table(app)
    damage(path, sql + " WHERE id = ?", table.id)
    again = app_on(path)
    table.creator, other.creator = moved(table.creator, again), moved(other.creator, again)
    r = table.creator.get(table.path())
    assert r.status_code == 500
    assert "cannot be restored" in r.json()["error"] and said in r.json()["error"]
    assert table.creator.post(table.path("act"), json={"index": 0, "at": 0}).status_code == 500
    assert other.creator.get(other.path()).status_code == 200  # the others are untouched


def test_a_foreign_game_is_refused_with_a_message(tmp_path):
    """A row of another pack's game (a store shared by mistake) is not replayed on this one."""
    path = tmp_path / "games.sqlite3"
    table = Table(app_on(path))  # tic-tac-toe
    on_1960 = create_app(store=SQLiteStore(path))
    table.creator = moved(table.creator, on_1960)
    r = table.creator.get(table.path())
    assert r.status_code == 500
    assert "is a game of" in r.json()["error"]


def test_old_games_expire_by_the_policy_and_only_them(tmp_path):
    path = tmp_path / "games.sqlite3"
    app = app_on(path)
    rooms = app.state.server.rooms
    ongoing, finished, fresh = Table(app), Table(app), Table(app)
    guest = finished.claim(app)
    for at in range(7):  # the first free cell each: X takes 0 2 4 6, a diagonal
        seat = finished.creator if at % 2 == 0 else guest
        r = seat.post(finished.path("act"), json={"index": 0, "at": at})
        assert r.status_code == 200, r.text
    assert finished.creator.get(finished.path()).json()["over"]
    now = time.time()
    aged = {ongoing.id: 31, finished.id: 31, fresh.id: 29}
    for game_id, days in aged.items():
        damage(path, "UPDATE games SET updated = ? WHERE id = ?", now - days * DAY, game_id)
    assert rooms.expire(now, force=True) == [ongoing.id]
    assert ongoing.creator.get(ongoing.path()).status_code == 404
    assert fresh.creator.get(fresh.path()).status_code == 200
    damage(path, "UPDATE games SET updated = ? WHERE id = ?", now - 91 * DAY, finished.id)
    damage(path, "UPDATE games SET updated = ? WHERE id = ?", now - 29 * DAY, fresh.id)
    assert rooms.expire(now, force=True) == [finished.id]
    assert finished.creator.get(finished.path()).status_code == 404
    assert rooms.expire(now) == []  # a sweep at most once an hour unless forced
    assert SQLiteStore(path).ids() == [fresh.id]


def test_the_keep_days_are_the_servers_to_choose(tmp_path):
    path = tmp_path / "games.sqlite3"
    app = app_on(path, keep_days=2, keep_finished_days=5)
    table = Table(app)
    damage(path, "UPDATE games SET updated = ? WHERE id = ?", time.time() - 3 * DAY, table.id)
    assert app.state.server.rooms.expire(force=True) == [table.id]


def test_no_secret_is_stored_in_clear(tmp_path):
    path = tmp_path / "games.sqlite3"
    app = app_on(path)
    table = Table(app)
    creator_secret = table.creator.cookies.get(f"hustings-{table.id}")
    (token,) = table.invitations.values()
    guest = table.claim(app)
    guest_secret = guest.cookies.get(f"hustings-{table.id}")
    app.state.server.store.close()  # everything on disk (the WAL folded in)
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert creator_secret and guest_secret and token
    for secret in (creator_secret, guest_secret, token):
        assert secret.encode() not in stored
    for secret in (creator_secret, guest_secret):  # what is kept instead
        assert hashlib.sha256(secret.encode()).hexdigest().encode() in stored


def test_the_store_is_in_wal_mode_private_and_refuses_a_folder(tmp_path):
    path = tmp_path / "games.sqlite3"
    SQLiteStore(path)
    assert path.stat().st_mode & 0o077 == 0  # it holds seeds: the server's user only
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    with pytest.raises(StoreError, match="cannot open the games' store"):
        SQLiteStore(tmp_path)


# ---- a real server, killed --------------------------------------------------------------
def start_server(store: Path, port: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "hustings.tools.cli", "serve", "--pack", str(TTT),
               "--port", str(port), "--store", str(store)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = proc.stdout.readline()  # "open http://127.0.0.1:PORT/" once it listens
    if not re.search(rf":{port}/", line):
        proc.kill()
        raise AssertionError(f"the server did not start: {line!r} {proc.stderr.read()}")
    return proc


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_killed_mid_game_serves_it_again_where_it_was(tmp_path):
    store, port = tmp_path / "games.sqlite3", free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(store, port)
    try:
        creator, guest = httpx.Client(base_url=base), httpx.Client(base_url=base)
        players = creator.get("/api/setup").json()["players"]
        made = creator.post("/api/games", json={"seats": dict.fromkeys(players, "human")})
        assert made.status_code == 201, made.text
        game, (token,) = made.json()["id"], made.json()["invitations"].values()
        path = f"/api/games/{game}"
        assert guest.post(f"{path}/claim", json={"invite": token}).status_code == 200
        assert creator.post(f"{path}/act", json={"index": 4, "at": 0}).status_code == 200
        before = {"creator": creator.get(path).json(), "guest": guest.get(path).json()}
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stderr = proc.stderr.read()
    assert "WARNING" not in stderr  # a loopback bind warns of nothing
    proc = start_server(store, port)
    try:
        assert creator.get(path).json() == before["creator"]  # the same board, same cookie
        assert guest.get(path).json() == before["guest"]
        r = guest.post(f"{path}/act", json={"index": 0, "at": 1})  # the next action
        assert r.status_code == 200, r.text
        assert r.json()["actions"] == 2
        assert json.loads(creator.get(path).text)["actions"] == 2
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
