"""The web board in real headless Chromium: a whole game through the page, a click on the
map, undo, two seats (one claimed by its invitation) that each see only their own hand, a
take-back asked and accepted, and the page's HTML unchanged by what its seat may not know.
Screenshots go to a temporary folder (printed); load and action times are printed, not
asserted (see README)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the test extra")
uvicorn = pytest.importorskip("uvicorn", reason="needs the web extra")

from webpages import CHROMIUM, actions, chromium, invitation, new_game, serve, settle  # noqa: E402

from hustings.tools.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")


@pytest.fixture
def server():
    app = create_app()
    with serve(app) as base:
        yield base, app


@pytest.fixture
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("web-screenshots")
    print(f"\nscreenshots in {folder}")
    return folder


def test_whole_game_through_the_page(server, browser, shots):
    base, _ = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    started = time.perf_counter()
    page.goto(base + "/")
    page.wait_for_selector("dialog#setup[open]")
    page.select_option("[data-seat=kennedy]", "human")
    page.select_option("[data-seat=nixon]", "random")
    page.fill("#seed", "11")
    page.click("#start")
    page.wait_for_url("**/?game=*")
    settle(page)
    print(f"\npage load to first decision: {(time.perf_counter() - started) * 1000:.0f} ms "
          f"(navigation to ready: {page.evaluate('window.pageReadyMs'):.0f} ms)")
    page.screenshot(path=shots / "start.png", full_page=True)
    rng = random.Random(5)
    clicks, timings, map_clicks = 0, [], 0
    while page.locator("#result").is_hidden():
        before = actions(page)
        places = page.locator("svg.map path.choosable")
        if places.count() and rng.random() < 0.5:
            places.nth(rng.randrange(places.count())).dispatch_event("click")
            map_clicks += 1
        else:
            buttons = page.locator("#decision button.option")
            buttons.nth(rng.randrange(buttons.count())).click()
        t0 = time.perf_counter()
        page.wait_for_function(f"""() => Number(document.body.dataset.actions) !== {before}
            || document.querySelector('#decision .dim') !== null""", timeout=30_000)
        settle(page)
        timings.append(time.perf_counter() - t0)
        clicks += 1
        if clicks == 60:
            page.screenshot(path=shots / "mid.png", full_page=True)
        assert clicks < 3000, "the game should end"
    page.screenshot(path=shots / "result.png", full_page=True)
    timings.sort()
    print(f"{clicks} clicks ({map_clicks} on the map), action round trip median "
          f"{timings[len(timings) // 2] * 1000:.0f} ms, last in-page POST "
          f"{page.evaluate('window.lastActionMs'):.0f} ms")
    assert "Game over" in page.locator("#result").inner_text()
    assert page.locator("#decision button.option").count() == 0


def test_clicking_a_state_campaigns_there(server, browser, monkeypatch):
    from test_web_secrets import fixed_seed

    fixed_seed(monkeypatch)  # two human seats: the server draws the seed; the same game each run
    base, app = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    new_game(page, base, {"kennedy": "human", "nixon": "human"}, hot_seat=True)
    # Play through the page until the map offers places to campaign in.
    for _ in range(200):
        settle(page)
        if page.locator("svg.map path.choosable").count():
            prompt = page.locator("#decision .prompt").inner_text()
            if "campaign" in page.locator("#decision").inner_text().lower():
                break
        buttons = page.locator("#decision button.option")
        labels = buttons.all_inner_texts()
        pick = next((i for i, t in enumerate(labels) if t.startswith("campaign with")), 0)
        before = actions(page)
        buttons.nth(pick).click()
        page.wait_for_function(f"() => Number(document.body.dataset.actions) !== {before}")
    else:
        pytest.fail("no campaign on the map within 200 decisions")
    # who decides and the rules' question (`asking` in 30-actions.yaml), not its variable
    assert prompt.endswith(": Where do you campaign?"), prompt
    state = page.locator("svg.map path.choosable").first
    place = state.get_attribute("data-place")
    before = actions(page)
    url = page.evaluate("`/api/games/${new URLSearchParams(location.search).get('game')}`")
    support = page.evaluate(f"() => fetch('{url}').then(r => r.json())"
                            f".then(s => s.board.groups[0].places['{place}'])")
    state.dispatch_event("click")
    page.wait_for_function(f"""() => !document.body.classList.contains('busy') && (
        Number(document.body.dataset.actions) !== {before} || [...document.querySelectorAll(
        '#decision .dim')].some((d) => d.textContent.startsWith('only ')))""")
    if actions(page) == before:  # the place has several options: the list shows only them
        offered = page.locator("#decision button.option")
        assert all(support["name"] in t for t in offered.all_inner_texts())  # its name
        offered.first.click()
    page.wait_for_function(f"() => Number(document.body.dataset.actions) > {before}")
    settle(page)
    after = page.evaluate(f"() => fetch('{url}').then(r => r.json())"
                          f".then(s => s.board.groups[0].places['{place}'])")
    narration = page.locator("#narration li").all_inner_texts()
    # A campaign adds support or makes a support check there, which the narration tells.
    assert after != support or any(place in line for line in narration[-4:]), \
        f"clicking {place} ({prompt}) should campaign there"


def test_undo_restores_the_position(server, browser):
    base, app = server
    page = browser.new_page()
    new_game(page, base, {"kennedy": "human", "nixon": "random"}, seed=21)
    settle(page)
    print(f"\nseat page: navigation to drawn board {page.evaluate('window.pageReadyMs'):.0f} ms")
    first = page.locator("#game").inner_text()
    start = actions(page)
    page.locator("#decision button.option").last.click()
    page.wait_for_function(f"() => Number(document.body.dataset.actions) > {start}")
    settle(page)
    assert page.locator("#game").inner_text() != first
    page.click("#undo")
    page.wait_for_function(f"() => Number(document.body.dataset.actions) === {start}")
    settle(page)
    assert page.locator("#game").inner_text() == first


def titles_in(answer) -> set[str]:
    """Every `title` field anywhere in a JSON answer."""
    if isinstance(answer, dict):
        found = {answer["title"]} if isinstance(answer.get("title"), str) else set()
        return found.union(*(titles_in(v) for v in answer.values()))
    if isinstance(answer, list):
        return set().union(*(titles_in(v) for v in answer))
    return set()


def test_two_seat_pages_each_show_only_their_own_hand(server, browser):
    base, app = server
    pages, received = {}, {"kennedy": [], "nixon": []}
    for seat in ("kennedy", "nixon"):  # each in a browser of its own (its own cookies)
        page = browser.new_context().new_page()
        page.on("response", lambda r, seat=seat: received[seat].append(r.text())
                if "/api/games/" in r.url else None)
        if seat == "kennedy":
            game = new_game(page, base, {"kennedy": "human", "nixon": "human"})
        else:
            page.goto(invitation(base, game, seat))
        page.wait_for_selector("[data-hand=hand] .card")
        pages[seat] = page
    assert "invite=" not in pages["nixon"].url  # the spent invitation left the address
    shown = {s: set(p.locator("[data-hand=hand] .card").evaluate_all(
        "cards => cards.map(c => c.dataset.card)")) for s, p in pages.items()}
    assert shown["kennedy"] and shown["nixon"]
    assert not shown["kennedy"] & shown["nixon"]
    nixon_titles = pages["nixon"].locator("[data-hand=hand] .ctitle").all_inner_texts()
    kennedy_page = pages["kennedy"].content()
    assert not any(t in kennedy_page for t in nixon_titles)
    sent_to_kennedy = "".join(received["kennedy"])  # every JSON answer Kennedy's page got
    assert '"hands"' in sent_to_kennedy
    # A card's title may be named in another card's printed text ("prevented by the Recount
    # event"), so the test looks for the title as a card's `title` field, not as any words.
    titles_sent = {title for text in received["kennedy"] for title in titles_in(json.loads(text))}
    assert titles_sent and not titles_sent & {t.split(" ", 1)[1] for t in nixon_titles}
    assert pages["kennedy"].evaluate("document.body.dataset.viewer") == "kennedy"


def test_a_stacking_pool_shows_every_players_pieces(browser, tmp_path):
    """The tiny pack of test_stacking_pools, its towns drawn on a map: each place lists
    every player's pieces, in a list (halls, exclusive) and on the map (towns, stacking)."""
    from test_stacking_pools import write_pack  # the tests folder is on the import path

    pack = write_pack(tmp_path / "hamlets")
    shapes = {t: {"path": f"M{x} 0 h40 v40 h-40 Z", "label": [x + 20, 20]}
              for x, t in ((0, "north"), (50, "south"), (100, "east"))}
    (pack / "towns.json").write_text(json.dumps({"width": 150, "height": 50, "shapes": shapes}))
    manifest = pack / "pack.yaml"
    listed, drawn = "pool: voters, names: name", "pool: voters, map: towns.json"
    manifest.write_text(manifest.read_text().replace(listed, drawn))
    app = create_app(pack)
    with serve(app) as base:
        page = browser.new_page()
        new_game(page, base, {"ann": "human", "bob": "human", "cy": "human"}, hot_seat=True)
        settle(page)
        south = page.locator("svg.map path[data-place=south]")
        assert "South Town — Ann 2, Bob 1" in south.locator("title").text_content()
        counts = page.locator("svg.map text[data-label=south] tspan")
        assert "".join(counts.all_text_contents()) == "2 1"  # ann's 2 and bob's 1 under it
        hall = page.locator(".place[data-place=hall] .support").inner_text()
        assert hall == "B1"


def test_the_new_game_dialog_shows_only_boxes_with_something_in_them(server, browser):
    """1960 has optional rules and the served app no mods; tic-tac-toe has no optional
    rules either: an empty box is left out, not drawn as an empty frame."""
    from hustings.dsl.loading import builtin_pack

    def boxes(base: str) -> dict[str, bool]:
        page = browser.new_page()
        page.goto(base + "/")
        page.wait_for_selector("dialog#setup[open]")
        shown = {box: page.is_visible(f"fieldset#{box}") for box in ("options", "mods")}
        page.close()
        return shown

    assert boxes(server[0]) == {"options": True, "mods": False}
    with serve(create_app(builtin_pack("tic-tac-toe"))) as base:
        assert boxes(base) == {"options": False, "mods": False}


def test_an_ai_move_the_rules_cannot_make_is_shown_and_not_asked_again(browser, tmp_path):
    """A card whose event breaks the rules, weighed by a greedy AI: the page shows the
    error with the content's position, once; it does not keep asking the server."""
    from test_cli_errors import bomb_pack  # the tests folder is on the import path

    app = create_app(bomb_pack(tmp_path))
    with serve(app) as base:
        page = browser.new_page()
        asked = []
        page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/advance") else 0)
        new_game(page, base, {"ann": "greedy", "bob": "human"}, seed=1)
        page.wait_for_function("document.getElementById('error').textContent !== ''",
                               timeout=30_000)
        error = page.locator("#error").inner_text()
        assert "rule error while the greedy agent weighed ann's options" in error
        assert "cards.yaml:7:" in error
        page.wait_for_timeout(1000)
        assert len(asked) == 1, asked


def test_invitations_through_the_page_each_claimed_once(server, browser, shots):
    """The creator starts a game of two people in the dialog, copies Nixon's invitation;
    Nixon's browser opens it and plays Nixon; a third browser opening it gets nothing."""
    base, _ = server
    creator = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    creator.goto(base + "/")
    creator.wait_for_selector("dialog#setup[open]")
    creator.select_option("[data-seat=kennedy]", "human")
    creator.select_option("[data-seat=nixon]", "human")
    creator.click("#start")
    link = creator.locator("[data-link=nixon]")
    link.wait_for()
    url = link.input_value()
    assert "invite=" in url and url.startswith(base)
    assert creator.locator("#start").is_hidden()  # made: a second click would make another
    creator.screenshot(path=shots / "invitations.png")
    creator.click("#my-board")
    creator.wait_for_selector("[data-hand=hand] .card")
    assert creator.evaluate("document.body.dataset.viewer") == "kennedy"
    assert creator.locator("[data-invite=nixon]").input_value() == url  # still open
    nixon = browser.new_context().new_page()
    nixon.goto(url)
    nixon.wait_for_selector("[data-hand=hand] .card")
    assert nixon.evaluate("document.body.dataset.viewer") == "nixon"
    assert "way back" not in nixon.url and "invite=" not in nixon.url
    creator.screenshot(path=shots / "creator-board.png", full_page=True)
    nixon.reload()  # the cookie brings the player back to the seat
    nixon.wait_for_selector("[data-hand=hand] .card")
    assert nixon.evaluate("document.body.dataset.viewer") == "nixon"
    creator.wait_for_function("document.querySelector('[data-invite=nixon]') === null",
                              timeout=10_000)  # the creator's page sees Nixon has joined
    late = browser.new_context().new_page()
    late.goto(url)
    late.wait_for_function("document.getElementById('error').textContent !== ''")
    assert "claimed once" in late.locator("#error").inner_text()
    assert late.locator("[data-hand=hand] .card").count() == 0


def test_a_take_back_is_asked_and_accepted_on_the_other_page(browser, shots, tmp_path,
                                                              monkeypatch):
    from test_web_secrets import fixed_seed, peek_pack

    fixed_seed(monkeypatch)
    app = create_app(peek_pack(tmp_path))
    with serve(app) as base:
        ann = browser.new_context(viewport={"width": 1200, "height": 700}).new_page()
        game = new_game(ann, base, {"ann": "human", "bob": "human"})
        bob = browser.new_context(viewport={"width": 1200, "height": 700}).new_page()
        bob.goto(invitation(base, game, "bob"))
        settle(ann)
        ann.locator("#decision button.option", has_text="draw a card").click()
        ann.wait_for_function("Number(document.body.dataset.actions) === 1")
        ann.click("#undo")  # she has seen the card she drew: Bob is asked
        ann.wait_for_selector("#takeback:not([hidden]) #withdraw")
        banner = ann.locator("#takeback").inner_text()
        assert banner.startswith("You ask to take back") and "Waiting for bob" in banner
        bob.wait_for_selector("#takeback #accept", timeout=10_000)
        assert "cards hidden then" in bob.locator("#takeback").inner_text()
        bob.screenshot(path=shots / "takeback.png")
        bob.click("#accept")
        for page in (ann, bob):
            page.wait_for_function("Number(document.body.dataset.actions) === 0",
                                   timeout=10_000)
        ann.wait_for_function("document.getElementById('takeback').textContent"
                              ".includes('accepted')", timeout=10_000)


HTML = "() => document.documentElement.outerHTML"
DRAWN = """() => document.body.dataset.actions !== undefined
  && !document.body.classList.contains('busy')"""


@pytest.mark.parametrize(("pack", "seats"), [("1960", ("kennedy", "nixon")),
                                            ("campaign-trail", ("democrat", "republican")),
                                            ("tic-tac-toe", ("x", "o"))])
def test_the_pages_html_is_unchanged_by_what_its_seat_may_not_know(browser, pack, seats):
    from test_web_secrets import fresh, perturb_hidden

    from hustings.dsl.loading import builtin_pack

    app = create_app(builtin_pack(pack))
    rng = random.Random(34)
    with serve(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        game = new_game(page, base, dict.fromkeys(seats, "human"), hot_seat=True)
        session = app.state.server.rooms.get(game["id"]).session
        for _ in range(3):
            for _ in range(rng.randrange(1, 4 if pack == "tic-tac-toe" else 30)):
                if not session.game.is_terminal():
                    session.apply(rng.randrange(session.game.num_actions()))
            real = session.game.state
            seat = session.game.current_player() or seats[0]  # whom the table shows
            pages = []
            for n in range(3):
                state = fresh(real)
                session.game._restore(state)
                if n:
                    perturb_hidden(session.game, seat, rng)
                page.reload()
                page.wait_for_function(DRAWN)
                pages.append(page.evaluate(HTML))
            session.game._restore(real)
            assert pages[0] == pages[1] == pages[2], (pack, len(session.actions))
            assert page.evaluate("document.body.dataset.viewer") == seat


def test_a_look_at_another_hand_shows_on_that_players_page_only(browser, shots, tmp_path,
                                                                 monkeypatch):
    """The Spyglass of the pack of private forms: Ann looks at Bob's hand; her page shows
    his cards under "Shown to you" and her narration says what she saw; Bob's and Cat's
    pages show neither."""
    from test_web_secrets import fixed_seed, secrets_pack, spyglass_seed

    pack = secrets_pack(tmp_path)
    fixed_seed(monkeypatch, spyglass_seed(pack))
    app = create_app(pack)
    with serve(app) as base:
        pages = {"ann": browser.new_context(viewport={"width": 1200, "height": 800}).new_page()}
        game = new_game(pages["ann"], base, dict.fromkeys(("ann", "bob", "cat"), "human"))
        for seat in ("bob", "cat"):
            pages[seat] = browser.new_context().new_page()
            pages[seat].goto(invitation(base, game, seat))
            pages[seat].wait_for_selector("[data-hand=hand] .card")
        ann = pages["ann"]
        settle(ann)
        ann.locator("#decision button.option", has_text="play Spyglass").click()
        ann.wait_for_function("Number(document.body.dataset.actions) === 1")
        settle(ann)
        ann.locator("#decision button.option", has_text="bob").click()
        ann.wait_for_selector("[data-shown] .card")
        ann.screenshot(path=shots / "shown.png", full_page=True)
        seen = set(ann.locator("[data-shown] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"))
        bob = pages["bob"]
        bob.wait_for_function("Number(document.body.dataset.actions) === 2", timeout=10_000)
        held = set(bob.locator("[data-hand=hand] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"))
        assert seen == held
        assert any(t.startswith("you look at bob's hand")
                   for t in ann.locator("#narration li").all_inner_texts())
        for seat in ("bob", "cat"):
            page = pages[seat]
            page.wait_for_function("Number(document.body.dataset.actions) === 2",
                                   timeout=10_000)
            assert page.locator("[data-shown]").count() == 0
            lines = page.locator("#narration li").all_inner_texts()
            assert "ann looks at bob's hand" in lines
            assert not any(t.startswith("you look") for t in lines)


def test_the_dialog_seats_the_others_with_the_command_lines_default_agent(server, browser):
    """The new-game dialog seats the players as `hustings play` does: the first player
    human, every other seat the `random` agent (the command line's default)."""
    from hustings.tools import play

    base, _ = server
    page = browser.new_page()
    page.goto(f"{base}/")
    page.wait_for_selector("dialog#setup[open]")
    chosen = {seat: page.input_value(f"[data-seat={seat}]") for seat in ("kennedy", "nixon")}
    offered = page.eval_on_selector_all("[data-seat=nixon] option",
                                        "options => options.map(o => o.value)")
    page.close()
    assert chosen == {"kennedy": play.HUMAN, "nixon": "random"}
    assert "ismcts" in offered  # still offered, just not chosen for you
