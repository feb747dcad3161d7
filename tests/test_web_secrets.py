"""The web board's secrets, one test per attack of issue 34: the seed in a reply, a save
loaded to look at another seat, the creator's reply, a take-back without consent and
draw-look-undo; and the web part of non-interference (what a seat may not know, changed,
leaves every byte of its JSON the same).

Each seat plays from its own TestClient, as a browser with its own cookies."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("starlette", reason="needs the web extra")
pytest.importorskip("httpx", reason="needs the test extra")

from starlette.responses import JSONResponse  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from hustings.dsl.loading import builtin_pack  # noqa: E402
from hustings.interpreter.game import Game  # noqa: E402
from hustings.interpreter.state import clone  # noqa: E402
from hustings.tools import play  # noqa: E402
from hustings.tools.web.app import create_app, state_of  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from minipack import MANIFEST, make_pack  # noqa: E402

TWO = {"kennedy": "human", "nixon": "human"}


# ---- a tiny pack: a hidden hand, a secret deck, and a turn of two decisions ----------------
PEEK_RULES = """\
procedures:
  game:
    body: |
      shuffle deck
      for p in players:
        deal 1 from deck to hand of p
      for r from 1 to 3:
        for p in players:
          do turn(player: p)
  turn:
    params: [player]
    body: |
      player chooses:
        "draw a card":
          deal 1 from deck to hand of player
        "shuffle the deck":
          shuffle deck
        "wait":
          say "{player} waits"
      player chooses:
        "end the turn":
          say "{player} ends the turn"
        "stretch":
          say "{player} stretches"
"""


def peek_pack(root: Path) -> Path:
    """Ann and Bob each hold a hidden card from a secret deck; each turn a player draws,
    shuffles the deck or waits, then ends the turn: two decisions in a row by one seat."""
    manifest = MANIFEST.replace("deck: {start: campaign}",
                                "deck: {start: campaign, ordered_secret: true}")
    manifest = manifest.replace("hand: {per_player: true}",
                                "hand: {per_player: true, hidden: true}")
    manifest += "view:\n  hands: [hand]\n"
    cards = "\n".join(f"- {{number: {n}, title: Card {n}}}" for n in range(1, 13))
    return make_pack(root, cards, rules={"rules/10-game.yaml": PEEK_RULES}, manifest=manifest)


SECRETS = Path(__file__).parent / "packs" / "secrets"  # issue 34's pack of private forms


def secrets_pack(root: Path) -> Path:
    """A copy of the pack of every private form, with a view showing its hands (skipped
    where the language work that brings it is not merged yet)."""
    import shutil

    if not (SECRETS / "pack.yaml").is_file():
        pytest.skip(f"no {SECRETS} (the pack of show/tell, from the language work)")
    pack = root / "secrets"
    shutil.copytree(SECRETS, pack)
    manifest = pack / "pack.yaml"
    if "\nview:" not in manifest.read_text("utf-8"):
        manifest.write_text(manifest.read_text("utf-8") + "view:\n  hands: [hand]\n", "utf-8")
    return pack


def spyglass_seed(pack: Path) -> int:
    """A seed whose deal gives ann the Spyglass (card 1: look at another player's hand)."""
    from hustings.dsl.loading import load_pack

    program = load_pack(pack)
    return next(s for s in range(10_000)
                if 1 in Game.new(program, seed=s).state.zones["hand:ann"])


# ---- helpers -------------------------------------------------------------------------------
class Seats:
    """A game made through the API: a client per seat (the creator's holds its seat, each
    other human seat's claims its invitation), and every reply any of them received."""

    def __init__(self, app, seats: dict[str, str], **more) -> None:
        self.app, self.replies = app, []
        creator = TestClient(app)
        reply = self.keep(creator.post("/api/games", json={"seats": seats, **more}))
        assert reply.status_code == 201, reply.text
        self.created = reply
        self.id = reply.json()["id"]
        self.clients = {reply.json()["me"]: creator}
        for player, token in reply.json()["invitations"].items():
            self.clients[player] = TestClient(app)
            claimed = self.keep(self.clients[player].post(self.path("claim"),
                                                          json={"invite": token}))
            assert claimed.status_code == 200, claimed.text

    def keep(self, reply):
        self.replies.append(reply)
        return reply

    def path(self, what: str = "") -> str:
        return f"/api/games/{self.id}" + (f"/{what}" if what else "")

    def get(self, seat: str, what: str = ""):
        return self.keep(self.clients[seat].get(self.path(what)))

    def view(self, seat: str) -> dict:
        r = self.get(seat)
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, seat: str, what: str, **body):
        if what in ("act", "undo") and "at" not in body:  # `at` as the seat's page sends it
            body["at"] = self.clients[seat].get(self.path()).json().get("actions")
        return self.keep(self.clients[seat].post(self.path(what), json=body))

    @property
    def session(self) -> play.Session:
        """The server's own session (read by the test; never sent to a seat)."""
        return self.app.state.server.rooms.get(self.id).session


def cookie_of(client: TestClient) -> str:
    return next(iter(client.cookies.jar)).value


def fixed_seed(monkeypatch, seed: int = 1_234_567_891) -> int:
    """The server draws this seed (a test that needs the same game every run)."""
    monkeypatch.setattr(play, "fresh_seed", lambda: seed)
    return seed


# ---- the seed ------------------------------------------------------------------------------
@pytest.mark.parametrize(("pack", "seats"), [("tic-tac-toe", ("x", "o")),
                                              ("1960", ("kennedy", "nixon"))])
def test_no_reply_of_a_whole_game_carries_the_seed_or_the_generator(pack, seats):
    app = create_app(builtin_pack(pack))
    setup = TestClient(app).get("/api/setup")
    game = Seats(app, dict.fromkeys(seats, "human"))
    while game.session.seed < 10**6:  # a seed short enough to appear by chance: draw again
        game = Seats(app, dict.fromkeys(seats, "human"))
    seed, generator = game.session.seed, {game.session.game.state.rng}
    rng = random.Random(3)
    while not game.session.game.is_terminal():
        seat = next(s for s in seats if game.view(s)["decision"])
        other = next(s for s in seats if s != seat)
        if len(game.session.actions) % 5 == 0:
            game.get(seat, "save")  # refused, and says so without the seed
        if len(game.session.actions) % 5 == 0 and game.session.deciders[-1:] == [other] \
                and seat in game.session.deciders:
            game.post(seat, "undo")  # the other decided since: a request...
            game.post(other, "answer", accept=False)  # ...declined
        options = game.view(seat)["decision"]["options"]
        game.post(seat, "act", index=rng.randrange(len(options)))
        generator.add(game.session.game.state.rng)
        if game.session.game.is_terminal():
            break  # the reply to the last move is the first one after the end
        if len(game.session.actions) % 5 == 0:
            game.post(seat, "act", index=999)  # an error reply too
    before_end = [setup, *game.replies[:-1]]
    assert game.replies[-1].json()["over"]
    assert len(before_end) > 30
    for reply in before_end:
        if reply.request.url.path.endswith("/save"):
            assert reply.status_code == 409  # no session file before the end
        text = reply.text + json.dumps(dict(reply.headers))
        assert str(seed) not in text, reply.request.url
        assert not any(str(g) in text for g in generator), reply.request.url
    # at the end the seed is the players' too: the page shows it, the session file holds it
    assert game.view(seats[0])["seed"] == seed
    saved = game.get(seats[1], "save")
    assert saved.status_code == 200 and saved.json()["seed"] == seed


def test_a_chosen_seed_only_with_one_human_seat_and_never_echoed():
    app = create_app()
    client = TestClient(app)
    games = len(app.state.server.rooms.rooms)
    for seats, extra in ((TWO, {}), (TWO, {"hot_seat": True})):
        r = client.post("/api/games", json={"seats": seats, "seed": 987_654_321, **extra})
        assert r.status_code == 400 and "seed" in r.json()["error"]
        assert "987654321" not in r.text
    assert len(app.state.server.rooms.rooms) == games  # nothing was made
    practice = Seats(app, {"kennedy": "human", "nixon": "random"}, seed=987_654_321)
    assert practice.session.seed == 987_654_321  # accepted: practice against an agent
    state = practice.post("kennedy", "advance")
    for reply in (practice.created, state, practice.get("kennedy")):
        assert "987654321" not in reply.text


# ---- save -> load ---------------------------------------------------------------------------
def test_a_seat_gets_no_session_file_before_the_end_and_none_loads_to_show_another_hand():
    app = create_app()
    game = Seats(app, TWO)
    for seat in TWO:
        r = game.get(seat, "save")
        assert r.status_code == 409 and "over" in r.json()["error"]
    # the attack of the issue: Nixon's session file (had it been handed out) loaded with
    # both seats human, to open Kennedy's page; a file of an unfinished game (as
    # `hustings play` saves one) loads only with at most one person seated
    log = game.session.to_log().model_dump()
    outsider = TestClient(app)
    kept = len(app.state.server.rooms.rooms)
    for seats in (None, TWO, {"kennedy": "human"}):
        r = outsider.post("/api/load", json={"log": log, **({"seats": seats} if seats else {})})
        assert r.status_code == 400 and "at most one human seat" in r.json()["error"]
        assert str(game.session.seed) not in r.text
    assert len(app.state.server.rooms.rooms) == kept
    one = outsider.post("/api/load", json={"log": log, "seats": {"nixon": "random"}})
    assert one.status_code == 201 and one.json()["me"] == "kennedy"
    assert one.json()["invitations"] == {} and str(game.session.seed) not in one.text


def test_a_finished_games_session_file_replays_with_every_seat():
    app = create_app(builtin_pack("tic-tac-toe"))
    game = Seats(app, {"x": "human", "o": "human"})
    while not game.session.game.is_terminal():
        seat = next(s for s in ("x", "o") if game.view(s)["decision"])
        game.post(seat, "act", index=0)
    log = game.get("x", "save").json()
    loader = TestClient(app)
    r = loader.post("/api/load", json={"log": log})
    assert r.status_code == 201 and r.json()["invitations"].keys() == {"o"}
    replay = loader.get(f"/api/games/{r.json()['id']}").json()
    assert replay["over"] and replay["board"] == game.view("x")["board"]


# ---- credentials -----------------------------------------------------------------------------
def test_the_creators_reply_holds_no_other_seats_credential():
    app = create_app()
    game = Seats(app, TWO)
    creator_reply = game.created.text + json.dumps(dict(game.created.headers))
    kennedy, nixon = cookie_of(game.clients["kennedy"]), cookie_of(game.clients["nixon"])
    assert kennedy != nixon and len(nixon) >= 32
    assert nixon not in creator_reply  # the invitation is not the seat's secret
    assert game.created.json()["invitations"]["nixon"] != nixon
    cookie = game.created.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert f"path=/api/games/{game.id}".lower() in cookie
    room = app.state.server.rooms.get(game.id)
    assert "table" not in room.secrets  # hot seat only when asked for
    assert game.view("kennedy")["viewer"] == "kennedy"
    assert game.view("nixon")["viewer"] == "nixon"
    assert game.view("kennedy")["joined"] == {"kennedy": True, "nixon": True}
    assert game.view("kennedy")["invitations"] == {}  # claimed: no longer offered


def test_an_invitation_is_claimed_once_and_never_by_a_browser_holding_a_seat():
    app = create_app()
    creator = TestClient(app)
    reply = creator.post("/api/games", json={"seats": TWO}).json()
    path, token = f"/api/games/{reply['id']}/claim", reply["invitations"]["nixon"]
    # the creator opening the link in their own browser would lose their seat: refused,
    # and the invitation stays open for the person it was sent to
    r = creator.post(path, json={"invite": token})
    assert r.status_code == 409 and "holds a seat" in r.json()["error"]
    assert creator.get(f"/api/games/{reply['id']}").json()["viewer"] == "kennedy"
    first, second = TestClient(app), TestClient(app)
    assert first.post(path, json={"invite": token}).status_code == 200
    again = second.post(path, json={"invite": token})
    assert again.status_code == 403 and "claimed once" in again.json()["error"]
    assert second.get(f"/api/games/{reply['id']}").status_code == 403
    assert TestClient(app).post(path, json={"invite": "guessed"}).status_code == 403
    assert first.get(f"/api/games/{reply['id']}").json()["viewer"] == "nixon"


@pytest.mark.parametrize("cookie", [None, "", "not-the-secret"])
def test_a_missing_or_wrong_cookie_is_refused_and_changes_nothing(cookie):
    app = create_app()
    game = Seats(app, TWO)
    seat = next(s for s in TWO if game.view(s)["decision"])
    game.post(seat, "act", index=0)
    before = (list(game.session.actions), game.session.game.save())
    stranger = TestClient(app)
    if cookie is not None:
        stranger.cookies.set(f"hustings-{game.id}", cookie, path=game.path())
    other_game_cookie = cookie_of(game.clients["nixon"])
    asks = [("get", "", None), ("post", "act", {"index": 0}), ("post", "advance", {}),
            ("post", "undo", {}), ("post", "answer", {"accept": True}), ("get", "save", None)]
    for method, what, body in asks:
        url = game.path(what)
        r = stranger.get(url) if method == "get" else stranger.post(url, json=body)
        assert r.status_code == 403, (what, r.text)
        assert "holds no seat" in r.json()["error"]
    # a seat's own secret works only in its own game
    elsewhere = Seats(app, TWO)
    stranger.cookies.set(f"hustings-{elsewhere.id}", other_game_cookie, path=elsewhere.path())
    assert stranger.get(elsewhere.path()).status_code == 403
    assert (list(game.session.actions), game.session.game.save()) == before


def test_a_hot_seat_game_is_one_browser_with_every_human_seat():
    app = create_app()
    game = Seats(app, TWO, hot_seat=True)
    assert game.created.json()["me"] == "table" and game.created.json()["invitations"] == {}
    state = game.view("table")
    assert state["table"] and state["decision"]["player"] == state["viewer"]


# ---- take-backs ------------------------------------------------------------------------------
def peek_game(tmp_path, monkeypatch) -> Seats:
    fixed_seed(monkeypatch)
    return Seats(create_app(peek_pack(tmp_path)), {"ann": "human", "bob": "human"})


def choose(game: Seats, seat: str, label: str) -> dict:
    state = game.view(seat)
    index = next(o["index"] for o in state["decision"]["options"] if o["label"] == label)
    r = game.post(seat, "act", index=index, at=state["actions"])
    assert r.status_code == 200, r.text
    return r.json()


def test_a_decision_with_nothing_learned_since_is_taken_back_alone(tmp_path, monkeypatch):
    game = peek_game(tmp_path, monkeypatch)
    before = game.view("ann")
    choose(game, "ann", "wait")
    undone = game.post("ann", "undo")
    assert undone.status_code == 200 and undone.json()["takeback"] is None
    assert undone.json()["actions"] == 0 and undone.json()["board"] == before["board"]


@pytest.mark.parametrize(("first", "why"), [("draw a card", "cards hidden then"),
                                            ("shuffle the deck", "chance was drawn")])
def test_draw_look_undo_needs_the_other_players_consent(tmp_path, monkeypatch, first, why):
    game = peek_game(tmp_path, monkeypatch)
    choose(game, "ann", first)  # ann now holds (or the deck is) what she did not know
    asked = game.post("ann", "undo").json()
    assert asked["actions"] == 1  # nothing taken back yet
    assert asked["takeback"]["player"] == "ann" and why in asked["takeback"]["why"]
    assert asked["takeback"]["waiting"] == ["bob"] and not asked["takeback"]["may_answer"]
    bob = game.view("bob")["takeback"]
    assert bob["may_answer"] and not bob["mine"]
    refused = game.post("ann", "answer", accept=True)  # ann cannot answer for bob
    assert refused.status_code == 403 and game.session.actions == [0 if first[0] == "d" else 1]
    declined = game.post("bob", "answer", accept=False).json()
    assert declined["takeback"] is None and declined["actions"] == 1
    assert declined["answer"] == {"player": "ann", "by": "bob", "accepted": False, "at": 1}
    game.post("ann", "undo")
    accepted = game.post("bob", "answer", accept=True).json()
    assert accepted["actions"] == 0 and accepted["answer"]["accepted"]


def test_a_take_back_after_the_other_human_decided_is_a_request(tmp_path, monkeypatch):
    game = peek_game(tmp_path, monkeypatch)
    choose(game, "ann", "wait")
    choose(game, "ann", "end the turn")
    choose(game, "bob", "wait")  # bob has decided since ann's last decision
    asked = game.post("ann", "undo").json()
    assert asked["actions"] == 3 and "bob has decided since" in asked["takeback"]["why"]
    assert asked["takeback"]["undone"] == 2  # ann's decision and bob's after it
    # the game moving on voids the request: bob plays instead of answering
    choose(game, "bob", "stretch")
    assert game.view("ann")["takeback"] is None
    assert game.post("bob", "answer", accept=True).status_code == 409
    assert len(game.session.actions) == 4
    # bob's own decision, with nothing learned by him since, he takes back alone
    undone = game.post("bob", "undo").json()
    assert undone["actions"] == 3 and undone["takeback"] is None


def test_the_hot_seat_answers_a_take_back_at_its_one_screen(tmp_path, monkeypatch):
    fixed_seed(monkeypatch)
    game = Seats(create_app(peek_pack(tmp_path)), {"ann": "human", "bob": "human"},
                 hot_seat=True)
    choose(game, "table", "draw a card")
    asked = game.post("table", "undo").json()
    assert asked["takeback"]["may_answer"] and asked["actions"] == 1
    assert game.post("table", "answer", accept=True).json()["actions"] == 0


def test_one_person_against_agents_takes_back_without_asking(tmp_path, monkeypatch):
    fixed_seed(monkeypatch)
    game = Seats(create_app(peek_pack(tmp_path)), {"ann": "human", "bob": "random"})
    choose(game, "ann", "draw a card")
    undone = game.post("ann", "undo").json()  # nobody to ask: a practice game
    assert undone["actions"] == 0 and undone["takeback"] is None


# ---- a card that looks at another hand ----------------------------------------------------
def test_a_look_at_another_hand_is_shown_to_its_player_once_and_nobody_else(tmp_path,
                                                                             monkeypatch):
    pack = secrets_pack(tmp_path)
    fixed_seed(monkeypatch, spyglass_seed(pack))
    game = Seats(create_app(pack), dict.fromkeys(("ann", "bob", "cat"), "human"))
    choose(game, "ann", "play Spyglass")
    choose(game, "ann", "bob")
    bob_hand = {c["number"] for c in game.view("bob")["board"]["hands"][0]["cards"]}
    ann = game.view("ann")["board"]
    assert {s["card"]["number"] for s in ann["shown"]} == bob_hand
    assert {s["from"] for s in ann["shown"]} == {"hand of bob"}
    assert any(line.startswith("you look at bob's hand") for line in ann["narration"])
    for other in ("bob", "cat"):
        board = game.view(other)["board"]
        assert board["shown"] == [] and "ann looks at bob's hand" in board["narration"]
        assert not any(line.startswith("you look") for line in board["narration"])
    titles = [s["card"]["title"] for s in ann["shown"]]
    assert not any(f'"{t}"' in game.get("cat").text for t in titles)
    # shown once: a card bob draws later is not followed
    choose(game, "bob", "draw a card")
    assert len(game.view("bob")["board"]["hands"][0]["cards"]) == len(bob_hand) + 1
    later = {s["card"]["number"] for s in game.view("ann")["board"]["shown"]}
    assert later == bob_hand


# ---- non-interference --------------------------------------------------------------------------
def perturb_hidden(game: Game, seat: str, rng: random.Random) -> None:
    """Change what `seat` may not know, in place: the cards of every zone it sees only as
    a count (other hands, face-down cards, a deck's order) dealt afresh among those zones
    (each keeps its size), and the generator's state."""
    obs = game.observation(seat)
    unseen = [key for key, cards in obs["zones"].items() if not isinstance(cards, list)]
    pool = [c for key in unseen for c in game.state.zones[key]]
    rng.shuffle(pool)
    for key in unseen:
        size = len(game.state.zones[key])
        game.state.zones[key], pool = pool[:size], pool[size:]
    game.state.rng = rng.getrandbits(64)


def fresh(state):
    """A copy of the state whose pending labels are made again from it, not kept."""
    copy = clone(state)
    if copy.pending is not None:
        copy.pending = {**copy.pending, "options": None}
    return copy


PACKS = [("1960", {"kennedy": "human", "nixon": "human"}, 40),
         ("campaign-trail", {"democrat": "human", "republican": "human"}, 40),
         ("tic-tac-toe", {"x": "human", "o": "human"}, 3)]


@pytest.mark.parametrize(("pack", "seats", "steps"), PACKS, ids=[p for p, _, _ in PACKS])
def test_what_a_seat_may_not_know_changes_no_byte_of_its_json(pack, seats, steps):
    check_no_byte_changes(create_app(builtin_pack(pack)), seats, steps)


def test_what_a_seat_may_not_know_changes_no_byte_of_its_json_with_private_forms(tmp_path):
    """The pack of every private form: what a seat was shown or told stays; what it may
    not see changes (the hands, the deck)."""
    app = create_app(secrets_pack(tmp_path))
    check_no_byte_changes(app, dict.fromkeys(("ann", "bob", "cat"), "human"), 12)


def check_no_byte_changes(app, seats: dict[str, str], steps: int, states: int = 200) -> None:
    """`states` mid-game states, each seen by every seat: the real hidden facts, then two
    others (the page's HTML is drawn from this JSON alone; test_web_browser checks that on
    sample states in Chromium).

    One game is made through the API; each time it ends (or has given 8 states) its
    session starts again on a new seed, in the same room: creating a game is proven by
    its own tests. Each state's JSON is the show endpoint's own, made without the HTTP
    stack (`page`); every 25th state is also fetched over HTTP, in all three versions,
    and must be those very bytes. The moves are applied without keeping what a human
    decider knew (the marks a take-back reads, which no page shows)."""
    rng = random.Random(34)
    checked = changed = seen = fetched = 0
    game = Seats(app, seats)
    session = game.session
    while seen < states:
        session.seed = rng.randrange(10**9)
        session.start()
        for _ in range(min(8, states - seen)):  # states at random depths of this game
            for _ in range(rng.randrange(1, steps + 1)):
                if session.game.is_terminal():
                    break
                session.apply(rng.randrange(session.game.num_actions()), mark=False)
            if session.game.is_terminal():
                break
            real = session.game.state
            for seat in seats:
                sent = []
                for n in range(3):  # the real hidden state, then two others
                    state = fresh(real)
                    game_copy = session.game
                    game_copy._restore(state)
                    if n:
                        before = json.dumps(state.zones, sort_keys=True), state.rng
                        perturb_hidden(game_copy, seat, rng)
                        changed += before != (json.dumps(state.zones, sort_keys=True),
                                              state.rng)
                    sent.append(page(game, seat))
                    if seen % 25 == 0:
                        assert game.get(seat).content == sent[-1], (seat, n)
                        fetched += 1
                assert sent[0] == sent[1] == sent[2], (seat, len(session.actions))
                checked += 1
            seen += 1
            session.game._restore(real)
    # each of the two other states really changed something; HTTP saw each seat's too
    assert checked == states * len(seats) and changed == 2 * checked
    assert seen == states and fetched == 3 * len(seats) * -(-states // 25)


def page(game: Seats, seat: str) -> bytes:
    """The bytes of `seat`'s GET of the game: the show endpoint's reply, made directly."""
    room = game.app.state.server.rooms.get(game.id)
    request = SimpleNamespace(app=game.app, path_params={"game": game.id})  # what it reads
    return JSONResponse(state_of(request, room, seat)).body
