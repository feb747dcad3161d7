"""The web board's JSON API: what a seat is sent, and that bad requests change nothing.

Each seat plays from its own TestClient (its own cookie jar, as a browser): the creator's
holds the seat it was given, each other seat's claims its invitation."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="needs the web extra")
pytest.importorskip("httpx", reason="needs the test extra")

from starlette.testclient import TestClient  # noqa: E402

from hustings.dsl.loading import builtin_pack  # noqa: E402
from hustings.schemas.log import FORMAT  # noqa: E402
from hustings.tools.agents import AGENTS  # noqa: E402
from hustings.tools.play import ai_seed  # noqa: E402
from hustings.tools.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(limit=4)) as c:
        yield c


def start(client, seats=None, seed=None, **more) -> dict:
    """A game made through `client`'s app: the reply, and under "as" a client per human
    seat holding that seat (the creator's for its seat, a fresh one per invitation)."""
    body = {"seats": seats or {"kennedy": "human", "nixon": "human"}, **more}
    if seed is not None:
        body["seed"] = seed
    creator = TestClient(client.app)
    r = creator.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    game = r.json()
    game["as"] = {game["me"]: creator}
    for player, token in game["invitations"].items():
        game["as"][player] = TestClient(client.app)
        claimed = game["as"][player].post(f"/api/games/{game['id']}/claim",
                                          json={"invite": token})
        assert claimed.status_code == 200, claimed.text
    return game


def view(client, game, seat) -> dict:
    r = game["as"][seat].get(f"/api/games/{game['id']}")
    assert r.status_code == 200, r.text
    return r.json()


def act(client, game, seat, index, **more):
    return post(game, seat, "act", index=index, **more)


def post(game, seat, what, **body):
    if what in ("act", "undo") and "at" not in body:  # `at` as the seat's page sends it
        body["at"] = game["as"][seat].get(f"/api/games/{game['id']}").json().get("actions")
    return game["as"][seat].post(f"/api/games/{game['id']}/{what}", json=body)


def session_of(client, game):
    """The server's session of a game (what a test may read and a seat never receives)."""
    return client.app.state.server.rooms.get(game["id"]).session


def test_setup_lists_every_agent_and_the_packs_options_and_map(client):
    data = client.get("/api/setup").json()
    assert set(AGENTS) | {"human"} == set(data["agents"])
    assert {"vice_presidents", "restricted_positioning"} <= set(data["options"])
    shapes = data["maps"]["map.json"]["shapes"]
    assert {"CA", "NY", "TX", "AK", "HI"} <= set(shapes)
    assert all(s["path"].startswith("M") for s in shapes.values())


def page_texts(value, key: str = ""):
    """Every text of a page's JSON (keys too), leaving out the printed `text` of a card
    shown (a dict with a title and a text)."""
    if isinstance(value, dict):
        card = "title" in value and "text" in value
        for k, v in value.items():
            yield k
            if not (card and k == "text"):
                yield from page_texts(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from page_texts(v, key)
    elif isinstance(value, str):
        yield value


def test_a_seats_page_never_receives_the_other_hand(client):
    game = start(client)
    kennedy_raw = game["as"]["kennedy"].get(f"/api/games/{game['id']}").text
    nixon = view(client, game, "nixon")
    nixon_cards = nixon["board"]["hands"][0]["cards"]
    assert nixon_cards
    kennedy = json.loads(kennedy_raw)
    # every text Kennedy's page holds, but the printed texts of the cards it shows: those may
    # name another card ("prevented by the Greater Houston Ministerial Association event")
    # or contain another's whole text ("The Nixon player gains 1 momentum marker.")
    seen = list(page_texts(kennedy))
    for card in nixon_cards:
        assert not [s for s in seen if card["title"] in s], card["title"]
        assert not [s for s in seen if card["text"] in s], card["title"]
    assert kennedy["board"]["hands"][0]["counts"]["nixon"] == len(nixon_cards)
    assert set(kennedy["board"]) >= {"status", "rows", "groups", "hands", "narration"}
    assert "zones" not in kennedy_raw  # no raw zones: the deck's order stays on the server


def test_only_the_seat_to_decide_gets_the_options(client):
    game = start(client)
    states = {s: view(client, game, s) for s in ("kennedy", "nixon")}
    deciding = [s for s, v in states.items() if v["decision"]]
    assert len(deciding) == 1
    other = ({"kennedy", "nixon"} - set(deciding)).pop()
    assert states[other]["waiting"]["player"] == deciding[0]
    r = act(client, game, other, 0)
    assert r.status_code == 409
    assert view(client, game, other)["actions"] == 0


def test_an_illegal_action_is_409_and_changes_nothing(client):
    game = start(client)
    seat = next(s for s in ("kennedy", "nixon") if view(client, game, s)["decision"])
    before = view(client, game, seat)
    for index in (99, -1):
        r = act(client, game, seat, index)
        assert r.status_code == 409 and "error" in r.json()
    assert act(client, game, seat, 0, at=5).status_code == 409  # a stale page
    assert view(client, game, seat) == before
    assert act(client, game, seat, 0, at=0).status_code == 200


@pytest.mark.parametrize(("path", "body"), [
    ("/api/games", "not json"),
    ("/api/games", "[1, 2]"),
    ("/api/games", '{"seed": "x"}'),
    ("/api/games", '{"seed": -1}'),
    ("/api/games", '{"seats": {"mayor": "human"}}'),
    ("/api/games", '{"seats": {"kennedy": "oracle"}}'),
    ("/api/games", '{"options": {"no_such_rule": true}}'),
    ("/api/games", '{"options": {"vice_presidents": "yes"}}'),
    ("/api/games", '{"hot_seat": "yes"}'),
    ("/api/games", '{"me": "nixon", "seats": {"kennedy": "human", "nixon": "random"}}'),
    ("/api/games", '{"me": "kennedy", "hot_seat": true}'),
    ("/api/load", '{"log": 3}'),
    ("/api/load", '{"log": "{\\"format\\": \\"other\\"}"}'),
])
def test_malformed_requests_get_a_json_4xx(client, path, body):
    r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500
    assert r.json()["error"]


def test_unknown_games_strangers_and_bad_indexes(client):
    game = start(client, hot_seat=True)
    assert client.get("/api/games/nope").status_code == 404
    stranger = TestClient(client.app)
    r = stranger.get(f"/api/games/{game['id']}")
    assert r.status_code == 403 and r.json()["error"]
    stranger.cookies.set(f"hustings-{game['id']}", "guessed", path=f"/api/games/{game['id']}")
    assert stranger.get(f"/api/games/{game['id']}").status_code == 403
    bad = post(game, "table", "act", index="first")
    assert bad.status_code == 400
    assert post(game, "table", "undo").status_code == 409


def test_games_are_isolated_and_bounded(client):
    first, second = start(client, hot_seat=True), start(client, hot_seat=True)
    table = "table"
    index = 1
    assert act(client, first, table, index).status_code == 200
    assert view(client, first, table)["actions"] == 1
    assert view(client, second, table)["actions"] == 0
    for _ in range(4):  # the app keeps 4 games in memory: the oldest leave it...
        start(client, hot_seat=True)
    assert first["id"] not in client.app.state.server.rooms.rooms
    # ...but not the store: someone else's new games never take a game away
    assert view(client, first, table)["actions"] == 1
    assert act(client, first, table, 0).status_code == 200
    assert view(client, second, table)["actions"] == 0


def test_static_files_cannot_be_read_outside_the_apps_folder(client):
    assert client.get("/static/board.js").status_code == 200
    for path in ("/static/..%2fapp.py", "/static/..%2f..%2fplay.py", "/static/%2e%2e/app.py",
                 "/static/../app.py", "/static/..%5capp.py"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "create_app" not in r.text


def play_against(client, agent: str, seed: int, actions: int = 30) -> list[int]:
    """A game of an AI Kennedy against a human Nixon who always takes the first option,
    for about `actions` actions; the actions, as saved."""
    game = start(client, seats={"kennedy": agent, "nixon": "human"}, seed=seed)
    for _ in range(actions):
        state = view(client, game, "nixon")
        if state["ai_turn"]:
            r = post(game, "nixon", "advance")
        else:
            r = act(client, game, "nixon", 0)
        assert r.status_code == 200, r.text
    saved = session_of(client, game).to_log()  # no save is handed out before the end
    assert saved.format == FORMAT and saved.seed == seed
    return list(saved.actions)


def replayed(seed: int, actions: list[int], agent) -> int:
    """Replay `actions` from `seed`, checking each of Kennedy's is `agent`'s choice (a
    function of the seed and the decision number); how many Kennedy took."""
    from hustings.dsl.loading import load_pack
    from hustings.interpreter.game import Game

    replay, mine = Game.new(load_pack(None, {}, []), seed=seed), 0
    for n, index in enumerate(actions):
        if replay.current_player() == "kennedy":
            assert index == agent(ai_seed(seed, n))(replay)
            mine += 1
        else:
            assert index == 0
        replay.apply_action(index)
    return mine


def test_ai_moves_are_those_of_hustings_play(client):
    actions = play_against(client, "random", seed=4)
    assert replayed(4, actions, AGENTS["random"]) > 5


def test_an_ai_seat_with_settings_plays_as_its_settings_say(client):
    # once the web board played any agent given with settings ("greedy:breadth=2") as random
    from hustings.tools.agents import make_agent

    actions = play_against(client, "greedy:breadth=2", seed=4)
    assert replayed(4, actions, lambda seed: make_agent("greedy:breadth=2", seed)) > 5
    with pytest.raises(AssertionError):  # not the random agent's moves
        replayed(4, actions, AGENTS["random"])


def test_a_session_file_with_an_option_the_pack_lacks_is_refused(client):
    game = start(client, seats={"kennedy": "human", "nixon": "random"}, seed=5)
    data = session_of(client, game).to_log().model_dump()
    data["options"] = {"bogus": True}  # once a 500: the pack refused to compile with it
    r = client.post("/api/load", json={"log": json.dumps(data)})
    assert r.status_code == 400
    assert "played with an option the pack does not declare" in r.json()["error"]
    assert "'bogus'" in r.json()["error"]


def test_undo_and_load_round_trip_with_one_person(client):
    # one human seat against an agent: the take-back asks nobody (there is nobody to ask),
    # and a session file of the unfinished game (as `hustings play` saves one) loads back
    game = start(client, seats={"kennedy": "human", "nixon": "greedy"}, seed=12)
    seat = "kennedy"
    state = view(client, game, seat)
    while state["ai_turn"]:
        state = post(game, seat, "advance").json()
    before = state
    after = act(client, game, seat, len(state["decision"]["options"]) - 1).json()
    assert after["actions"] > before["actions"]
    undone = post(game, seat, "undo")
    assert undone.status_code == 200
    assert undone.json()["board"] == before["board"]
    assert undone.json()["decision"] == before["decision"]
    act(client, game, seat, 0)
    text = json.dumps(session_of(client, game).to_log().model_dump())
    loader = TestClient(client.app)
    loaded = loader.post("/api/load", json={"log": text})
    assert loaded.status_code == 201
    copy = loaded.json()
    assert copy["seats"] == {"kennedy": "human", "nixon": "greedy"} and copy["me"] == "kennedy"
    copy["as"] = {"kennedy": loader}  # the seat's cookie came with the reply
    mine = view(client, copy, "kennedy")
    original = view(client, game, seat)
    assert mine["board"] == original["board"] and mine["actions"] == original["actions"]


def test_the_decision_names_its_rule_and_remarks(client):
    game = start(client)
    seat = next(s for s in ("kennedy", "nixon") if view(client, game, s)["decision"])
    decision = view(client, game, seat)["decision"]
    path, line, col = decision["rule"].rsplit(":", 2)
    assert path.endswith(".yaml") and int(line) > 0 and int(col) > 0
    assert len(decision["options"]) == sum(len(s["options"]) for s in decision["sections"])


def test_options_that_are_only_places_are_grouped_under_no_title():
    """Tic-tac-toe's options are squares and nothing else: its one section of them has
    no title (with the place left out of the label, it would read '…')."""
    with TestClient(create_app(builtin_pack("tic-tac-toe"))) as c:
        game = start(c, {"x": "human", "o": "human"})
        decision = view(c, game, "x")["decision"]
    assert [o["label"] for o in decision["options"]][:3] == ["a1", "b1", "c1"]
    assert decision["sections"] == [{"title": "", "options": list(range(9)), "by_place": True}]


def test_mapdata_decodes_quantized_delta_arcs_into_paths():
    from hustings.tools.mapdata import convert

    topology = {"transform": {"scale": [2, 2], "translate": [10, 0]},
                "arcs": [[[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1]]],
                "objects": {"states": {"geometries": [
                    {"type": "Polygon", "id": "06", "arcs": [[0]]},
                    {"type": "Polygon", "id": "36", "arcs": [[~0]]},
                    {"type": "Polygon", "id": "99", "arcs": [[0]]}]}}}
    shapes = convert(topology)["shapes"]
    assert set(shapes) == {"CA", "NY"}  # FIPS 06 and 36; 99 is no state
    assert shapes["CA"]["path"] == "M10,0L12,0L12,2L10,2L10,0Z"
    assert shapes["NY"]["path"] == "M10,0L10,2L12,2L12,0L10,0Z"  # the arc reversed
    assert shapes["CA"]["label"] == [11, 1]


def test_a_map_outside_the_pack_folder_is_refused(tmp_path):
    import shutil

    from hustings.dsl.loading import builtin_pack, check_pack

    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text("utf-8").replace("map: map.json",
                                                            "map: ../../secret.json"), "utf-8")
    errors = check_pack(pack).report.errors
    assert [e.code for e in errors] == ["E116"]
    assert "map file" in str(errors[0])


def test_serve_prints_its_local_url_and_answers_there():
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "hustings.tools.cli", "serve", "--port", "0",
                             "--store", ":memory:"],  # no file left in the folder
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("hustings serve: open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "api/setup", timeout=10) as r:
            assert json.loads(r.read())["players"] == ["kennedy", "nixon"]
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()


def test_a_game_applies_the_servers_mods_it_picks_and_no_other():
    from hustings.dsl.loading import builtin_pack

    mod = builtin_pack().parent / "mods" / "whistle-stops"
    with TestClient(create_app(mods=[mod])) as c:
        names = c.get("/api/setup").json()["mods"]
        assert len(names) == 1 and names[0]
        seats = {"kennedy": "human", "nixon": "random"}
        with_mod = start(c, seats, seed=2)
        without = start(c, seats, seed=2, mods=[])
        for bad in ([1], [0, 0], ["../../x"], "whistle-stops"):
            r = c.post("/api/games", json={"seats": seats, "mods": bad})
            assert r.status_code == 400 and r.json()["error"]
        saved = [session_of(c, g).to_log().model_dump() for g in (with_mod, without)]
        assert len(saved[0]["mods"]) == 1 and saved[1]["mods"] == []
        for log in saved:  # each loads back with the mods it was played with
            assert c.post("/api/load", json={"log": json.dumps(log)}).status_code == 201
    with TestClient(create_app()) as plain:  # a server without the mod cannot load its game
        r = plain.post("/api/load", json={"log": json.dumps(saved[0])})
        assert r.status_code == 400 and "mod" in r.json()["error"]


def test_a_pack_whose_option_seats_a_player_offers_that_seat():
    # Campaign Trail: the Libertarian plays only with `third_party`; the setup page lists the
    # seat with its option, a game without the option drops a seat given for it, and the
    # board of a three-party game shows every party and the Electoral College map.
    from hustings.dsl.loading import builtin_pack

    with TestClient(create_app(builtin_pack("campaign-trail"), limit=4)) as c:
        setup = c.get("/api/setup").json()
        assert setup["players"] == ["democrat", "republican", "libertarian"]
        assert setup["seated_by"] == {"libertarian": ["third_party"]}
        seats = {"democrat": "human", "republican": "random", "libertarian": "random"}
        two = start(c, seats, seed=3)
        board = view(c, two, "democrat")["board"]
        assert [p["id"] for p in board["players"]] == ["democrat", "republican"]
        three = start(c, seats, seed=3, options={"third_party": True})
        board = view(c, three, "democrat")["board"]
        assert [p["id"] for p in board["players"]] == ["democrat", "republican", "libertarian"]
        college = board["groups"][0]
        assert college["map"] == "map.json" and len(college["places"]) == 51
        bad = c.post("/api/games", json={"seed": 3, "seats": {"whig": "random"}})
        assert bad.status_code == 400


BROKEN = [  # (pack of test_cli_errors, seats, what is asked, how the error starts, where)
    ("bomb_pack", {"ann": "greedy", "bob": "human"}, "advance",
     "rule error while the greedy agent weighed ann's options", "cards.yaml:7:"),
    ("looping_setup_pack", {"ann": "human", "bob": "human"}, "new game",
     "the rules failed while setting up the game: ", "10-game.yaml:4:"),
    ("unlabelled_pack", {"ann": "human", "bob": "human"}, "view",
     "rule error while making the options to show: ", "10-game.yaml:16:"),
]


@pytest.mark.parametrize("maker, seats, ask, said, where", BROKEN)
def test_the_rules_failing_is_a_409_naming_the_content(tmp_path, maker, seats, ask, said,
                                                        where):
    # once a 500 for each
    import test_cli_errors  # the tests folder is on the import path

    with TestClient(create_app(pack=getattr(test_cli_errors, maker)(tmp_path))) as c:
        r = c.post("/api/games", json={"seats": seats, "hot_seat": True})
        if ask == "advance":
            r = c.post(f"/api/games/{r.json()['id']}/advance", json={})
        elif ask == "view":
            r = c.get(f"/api/games/{r.json()['id']}")
        assert r.status_code == 409
        assert r.json()["error"].startswith(said) and where in r.json()["error"]


@pytest.mark.parametrize("spec", ["ismcts:iterations=1000000", "ismcts:seconds=3600",
                                  "ismcts:depth=100", "greedy:breadth=5000"])
def test_an_agent_asked_for_more_than_a_move_allows_is_refused(client, spec):
    # a move has AI_MOVE_SECONDS; a search past it would be replaced, but go on working
    r = client.post("/api/games", json={"seed": 4, "seats": {"kennedy": "human", "nixon": spec}})
    assert r.status_code == 400
    assert "on the web board" in r.json()["error"] and spec in r.json()["error"]
    game = start(client, seats={"kennedy": "human", "nixon": "ismcts:iterations=40"})
    data = session_of(client, game).to_log().model_dump()
    data["seats"]["nixon"] = spec  # nor from a session file
    r = client.post("/api/load", json={"log": json.dumps(data)})
    assert r.status_code == 400 and "on the web board" in r.json()["error"]
