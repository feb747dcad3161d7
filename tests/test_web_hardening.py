"""What a request must be before the web board works for it (tools/web/guard.py): Host and
Origin on the allow-list, JSON bodies only, a body's size checked from Content-Length and
while it streams, `at` on every action and take-back; and `hustings serve`'s warning on an
address other machines reach."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

pytest.importorskip("starlette", reason="needs the web extra")
pytest.importorskip("httpx", reason="needs the test extra")

from starlette.testclient import TestClient  # noqa: E402

from hustings.dsl.loading import builtin_pack  # noqa: E402
from hustings.tools.commands.serve import loopback  # noqa: E402
from hustings.tools.web.app import create_app  # noqa: E402
from hustings.tools.web.guard import MAX_BODY, Guard  # noqa: E402

TTT = builtin_pack("tic-tac-toe")
BASE = "http://127.0.0.1:8960"
EXTRA = "https://games.example.org"


@pytest.fixture(scope="module")
def app():
    return create_app(TTT, guard=Guard.for_address("127.0.0.1", 8960, [EXTRA]))


def stored(app) -> list[str]:
    return app.state.server.store.ids()


def new_game(app, **headers):
    return TestClient(app, base_url=BASE).post("/api/games", json=seats(app), headers=headers)


def seats(app) -> dict:
    players = TestClient(app, base_url=BASE).get("/api/setup").json()["players"]
    return {"seats": {players[0]: "human", players[1]: "random"}}


# ---- Host -------------------------------------------------------------------------------
@pytest.mark.parametrize("host, status", [
    ("127.0.0.1:8960", 200), ("localhost:8960", 200), ("LOCALHOST:8960", 200),
    ("[::1]:8960", 200), ("games.example.org", 200),
    ("evil.example:8960", 403), ("127.0.0.1:9999", 403), ("localhost", 403),
])
def test_the_host_must_be_one_the_server_answers_to(app, host, status):
    r = TestClient(app, base_url=BASE).get("/api/setup", headers={"host": host})
    assert r.status_code == status, r.text
    if status == 403:
        assert "does not answer to the name" in r.json()["error"]


def run(app, method: str, headers: list[tuple[bytes, bytes]], chunks=(b"",)):
    """One request straight into the ASGI app: its status and body, and how many body
    messages the app pulled from the client (to see what was read)."""
    pulled, sent = [0], []

    async def receive():
        if pulled[0] < len(chunks):
            pulled[0] += 1
            return {"type": "http.request", "body": chunks[pulled[0] - 1],
                    "more_body": pulled[0] < len(chunks)}
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/api/games", "raw_path": b"/api/games",
             "root_path": "", "scheme": "http", "query_string": b"", "headers": headers,
             "http_version": "1.1", "client": ("127.0.0.1", 5), "server": ("127.0.0.1", 8960)}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body, pulled[0]


def test_a_request_without_a_host_is_refused(app):
    status, body, pulled = run(app, "GET", [])
    assert status == 400 and b"no Host header" in body


def test_a_repeated_host_is_refused(app):
    status, body, _ = run(app, "GET", [(b"host", b"127.0.0.1:8960"), (b"host", b"evil:1")])
    assert status == 400 and b"repeats its host" in body


# ---- Origin -----------------------------------------------------------------------------
@pytest.mark.parametrize("origin, status", [
    (None, 201), ("http://127.0.0.1:8960", 201), ("http://localhost:8960", 201), (EXTRA, 201),
    ("http://evil.example", 403), ("null", 403), ("http://127.0.0.1:8961", 403),
    ("https://games.example.org.evil.example", 403),
])
def test_a_foreign_origin_creates_nothing(app, origin, status):
    before = stored(app)
    r = new_game(app, **({"origin": origin} if origin else {}))
    assert r.status_code == status, r.text
    if status == 403:
        assert "may not change anything" in r.json()["error"]
        assert stored(app) == before
    else:
        assert stored(app) == [*before, r.json()["id"]]


def test_a_cross_site_fetch_creates_nothing(app):
    before = stored(app)
    r = new_game(app, **{"sec-fetch-site": "cross-site"})
    assert r.status_code == 403 and stored(app) == before
    assert new_game(app, **{"sec-fetch-site": "same-origin"}).status_code == 201


def test_a_foreign_origin_may_not_act_on_a_game_either(app):
    client = TestClient(app, base_url=BASE)
    game = client.post("/api/games", json=seats(app)).json()["id"]
    path = f"/api/games/{game}"
    r = client.post(f"{path}/act", json={"index": 0, "at": 0},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    assert client.get(path).json()["actions"] == 0
    assert client.get(path, headers={"origin": "http://evil.example"}).status_code == 200


def test_without_an_allow_list_the_origin_must_be_the_hosts():
    app = create_app(TTT)  # no guard given: an app embedded or tested
    client = TestClient(app, base_url="http://board.test")
    body = seats(app)
    assert client.post("/api/games", json=body).status_code == 201
    assert client.post("/api/games", json=body,
                       headers={"origin": "http://board.test"}).status_code == 201
    r = client.post("/api/games", json=body, headers={"origin": "http://evil.example"})
    assert r.status_code == 403


# ---- bodies -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind, status", [
    ("application/json", 201), ("application/json; charset=utf-8", 201),
    ("text/plain", 415), ("application/x-www-form-urlencoded", 415),
    ("multipart/form-data; boundary=x", 415), (None, 415),
])
def test_a_post_body_must_be_declared_json(app, kind, status):
    before = stored(app)
    headers = {"content-type": kind} if kind else {}
    client = TestClient(app, base_url=BASE)
    r = client.post("/api/games", content=json.dumps(seats(app)).encode(), headers=headers)
    assert r.status_code == status, r.text
    if status == 415:
        assert "Content-Type: application/json" in r.json()["error"]
        assert stored(app) == before


HEADERS = [(b"host", b"127.0.0.1:8960"), (b"content-type", b"application/json")]


def test_a_declared_huge_body_is_refused_before_a_byte_is_read(app):
    before = stored(app)
    status, body, pulled = run(app, "POST", [*HEADERS, (b"content-length", b"400000000")],
                               chunks=[b"x" * 65536] * 10)
    assert status == 413 and b"larger than" in body
    assert pulled == 0  # nothing was read
    assert stored(app) == before


def test_a_content_length_that_is_no_number_is_refused(app):
    status, body, pulled = run(app, "POST", [*HEADERS, (b"content-length", b"-1")])
    assert status == 400 and b"not a number" in body and pulled == 0


def test_a_chunked_body_is_refused_once_past_the_limit(app):
    """No Content-Length: the body is counted as it comes; reading stops at the limit."""
    before = stored(app)
    chunk = b" " * 65536
    many = MAX_BODY // len(chunk) + 50
    status, body, pulled = run(app, "POST", HEADERS, chunks=[chunk] * many)
    assert status == 413 and b"larger than" in body
    assert pulled == MAX_BODY // len(chunk) + 1  # the chunk that passed it, none after
    assert stored(app) == before


def test_a_chunked_body_under_the_limit_goes_through(app):
    text = json.dumps(seats(app)).encode()
    status, body, pulled = run(app, "POST", HEADERS, chunks=[text[:5], text[5:]])
    assert status == 201, body
    assert pulled == 2


def test_a_streamed_upload_over_the_limit_gets_413(app):
    def upload():
        for _ in range(MAX_BODY // 65536 + 10):
            yield b" " * 65536

    client = TestClient(app, base_url=BASE)
    r = client.post("/api/games", content=upload(),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_replies_carry_the_security_headers(app):
    r = TestClient(app, base_url=BASE).get("/api/setup")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"
    refused = TestClient(app, base_url=BASE).get("/", headers={"host": "evil:1"})
    assert refused.headers["x-frame-options"] == "DENY"


# ---- `at` -------------------------------------------------------------------------------
@pytest.mark.parametrize("what", ["act", "undo"])
def test_at_is_required_on_every_action_and_take_back(app, what):
    client = TestClient(app, base_url=BASE)
    game = client.post("/api/games", json=seats(app)).json()["id"]
    path = f"/api/games/{game}"
    assert client.post(f"{path}/act", json={"index": 0, "at": 0}).status_code == 200
    before = client.get(path).json()
    body = {"index": 0} if what == "act" else {}
    r = client.post(f"{path}/{what}", json=body)
    assert r.status_code == 400 and "give `at`" in r.json()["error"]
    assert client.get(path).json() == before  # nothing changed
    r = client.post(f"{path}/{what}", json={**body, "at": before["actions"] - 1})  # stale
    assert r.status_code == 409 and client.get(path).json() == before
    r = client.post(f"{path}/{what}", json={**body, "at": "two"})
    assert r.status_code == 400 and client.get(path).json() == before
    r = client.post(f"{path}/{what}", json={**body, "at": before["actions"]})
    assert r.status_code == 200, r.text
    assert r.json()["actions"] != before["actions"]


def test_two_blind_actions_are_not_both_applied(app):
    client = TestClient(app, base_url=BASE)
    game = client.post("/api/games", json=seats(app)).json()["id"]
    path = f"/api/games/{game}"
    assert client.post(f"{path}/act", json={"index": 0, "at": 0}).status_code == 200
    again = client.post(f"{path}/act", json={"index": 0, "at": 0})  # the same page, twice
    assert again.status_code == 409
    assert client.get(path).json()["actions"] == 2  # the first action and the AI's reply


# ---- the address ------------------------------------------------------------------------
@pytest.mark.parametrize("host, is_loopback", [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("example.org", False),
])
def test_loopback_addresses_are_told_apart(host, is_loopback):
    assert loopback(host) is is_loopback


def serve_args(*more: str) -> list[str]:
    return [sys.executable, "-m", "hustings.tools.cli", "serve", "--pack", str(TTT),
            "--store", ":memory:", *more]


def test_a_bind_beyond_this_machine_is_warned_of():
    proc = subprocess.Popen(serve_args("--host", "0.0.0.0", "--port", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        warning = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait()
    assert "WARNING: listening on 0.0.0.0" in warning
    assert "--allow-origin" in warning


@pytest.mark.parametrize("bad", ["games.example.org", "ftp://x", "http://x/path",
                                 "http://user@x"])
def test_allow_origin_takes_only_an_origin(bad):
    proc = subprocess.run(serve_args("--allow-origin", bad), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "is not an origin" in proc.stderr and "Traceback" not in proc.stderr
