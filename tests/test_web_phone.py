"""The web board on any screen, in real headless Chromium: at 390 and 360 px wide (a phone)
the page does not scroll sideways, the whole map is within the width and the decision comes
first, above it; the map's labels never overlap, at a phone's width and a laptop's; the
legend names each player; the log holds the whole narration with its headings, links the
cards it names and keeps its newest line in view; the places the last move changed are
outlined; the Rule button shows a pack-relative `file:line`. Screenshots at 390x844 and
1280x800 of both packs go to $HUSTINGS_SHOTS (default: a temporary folder, printed)."""

from __future__ import annotations

import os
import random
import re
from contextlib import contextmanager
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the test extra")
uvicorn = pytest.importorskip("uvicorn", reason="needs the web extra")

from webpages import CHROMIUM, actions, chromium, new_game, serve, settle  # noqa: E402

from hustings.dsl.loading import builtin_pack  # noqa: E402
from hustings.tools.terminal.choices import options_of  # noqa: E402
from hustings.tools.web.app import create_app  # noqa: E402
from hustings.tools.web.board import board_for  # noqa: E402

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")

PACKS = {"1960": ("kennedy", "nixon"), "campaign-trail": ("democrat", "republican")}
PHONES = [(390, 844), (360, 740)]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("HUSTINGS_SHOTS") or tmp_path_factory.mktemp("web-phone"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {folder}")
    return folder


def played(session, moves: int, seed: int = 3) -> None:
    """`moves` random legal actions applied on the server (the page sees them on reload)."""
    rng = random.Random(seed)
    for _ in range(moves):
        if session.game.is_terminal():
            return
        session.apply(rng.randrange(session.game.num_actions()))


@contextmanager
def open_game(browser, pack: str, size: tuple[int, int], moves: int = 0):
    """A hot-seat game of `pack` (every seat at this screen: no AI moves while the test
    looks) after `moves` random actions, its page drawn at `size`."""
    app = create_app(builtin_pack(pack))
    with serve(app) as base:
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        game = new_game(page, base, dict.fromkeys(PACKS[pack], "human"), hot_seat=True)
        session = app.state.server.rooms.get(game["id"]).session
        if moves:
            played(session, moves)
            page.reload()
        settle(page)
        yield page, session
        page.close()


GEOMETRY = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  return { scroll: document.documentElement.scrollWidth, inner: innerWidth,
           height: innerHeight, map: box('svg.map'), decision: box('#decision') };
}"""

LABELS = """() => [...document.querySelectorAll('svg.map text')].map((t) => {
  const r = t.getBoundingClientRect();
  return { id: t.dataset.label, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
           size: parseFloat(getComputedStyle(t).fontSize) *
             t.ownerSVGElement.getBoundingClientRect().width /
             t.ownerSVGElement.viewBox.baseVal.width };
})"""


def overlapping(labels: list[dict]) -> list[tuple[str, str]]:
    """Pairs of labels whose drawn boxes overlap by more than a pixel each way."""
    found = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if (min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1
                    and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1):
                found.append((a["id"], b["id"]))
    return found


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("pack", PACKS)
def test_a_phone_sees_the_whole_board_and_the_decision_first(browser, shots, pack, size):
    with open_game(browser, pack, size, moves=12) as (page, _):
        g = page.evaluate(GEOMETRY)
        assert g["scroll"] <= g["inner"], f"the page is {g['scroll']} px wide at {g['inner']}"
        assert 0 <= g["map"]["left"] and g["map"]["right"] <= g["inner"], g["map"]
        assert 0 <= g["decision"]["left"] and g["decision"]["right"] <= g["inner"]
        assert g["decision"]["top"] < g["height"], "the decision is on the first screen"
        assert g["decision"]["bottom"] <= g["map"]["top"], "the decision comes above the map"
        labels = page.evaluate(LABELS)
        places = page.locator("svg.map path[data-place]").count()
        assert len(labels) >= 0.9 * places, "nearly every place keeps a label on a phone"
        assert not overlapping(labels)
        assert all(g["map"]["left"] - 1 <= t["left"] and t["right"] <= g["map"]["right"] + 1
                   for t in labels), "every label is drawn inside the map"
        assert min(t["size"] for t in labels) >= 9, "labels are at least 9 px on screen"
        if size == (390, 844):
            page.screenshot(path=shots / f"{pack}-390x844.png", full_page=True)
            page.screenshot(path=shots / f"{pack}-390x844-screen.png")


@pytest.mark.parametrize("pack", PACKS)
def test_a_laptop_sees_readable_labels_and_a_legend(browser, shots, pack):
    with open_game(browser, pack, (1280, 800), moves=40) as (page, session):
        assert page.evaluate(GEOMETRY)["scroll"] <= 1280
        labels = page.evaluate(LABELS)
        assert not overlapping(labels)
        assert min(t["size"] for t in labels) >= 10.5
        # every place of the map is labelled at this width, inside it or beside it
        drawn = {t["id"] for t in labels}
        shapes = set(page.eval_on_selector_all("svg.map path[data-place]",
                                               "ps => ps.map((p) => p.dataset.place)"))
        assert drawn == shapes
        legend = page.locator(".legend").first
        text = legend.inner_text()
        names = page.evaluate("() => fetch('/api/setup').then((r) => r.json())")["names"]
        for player in PACKS[pack]:
            assert f"{names[player]} leads" in text
            assert legend.locator(f"[data-legend={player}]").count() == 1
        for player in board_for(session.game, PACKS[pack][0])["tokens"]:
            assert f"{names[player]}'s token" in text
        page.screenshot(path=shots / f"{pack}-1280x800.png")


def test_the_log_is_the_whole_narration_with_headings_and_the_newest_line_in_view(browser):
    with open_game(browser, "1960", (390, 844), moves=400) as (page, session):
        viewer = page.evaluate("document.body.dataset.viewer")
        lines = session.game.narration(viewer)
        assert len(lines) > 120  # more than the board's own cut of the log
        items = page.locator("#narration li")
        assert items.count() == len(lines)
        headings = [re.fullmatch(r"==\s*(.*?)\s*==", t.strip()) for t in lines]
        shown = page.locator("#narration li.heading").all_inner_texts()
        assert shown == [h[1] for h in headings if h] and "Turn 1" in shown
        scroll = page.eval_on_selector("#narration", """(l) => ({ top: l.scrollTop,
            client: l.clientHeight, height: l.scrollHeight,
            last: l.lastElementChild.getBoundingClientRect().bottom,
            bottom: l.getBoundingClientRect().bottom })""")
        assert scroll["height"] > scroll["client"], "the log scrolls inside itself"
        assert scroll["top"] + scroll["client"] >= scroll["height"] - 1
        assert scroll["last"] <= scroll["bottom"] + 1, "the newest line is in view"


def test_a_card_named_in_the_log_shows_the_card(browser):
    with open_game(browser, "1960", (390, 844), moves=60) as (page, session):
        link = page.locator("#narration .cardref").last
        number = int(link.get_attribute("data-card"))
        title = session.game.program.cards[number]["title"]
        assert link.inner_text() == title
        assert session.game.program.cards[number]["text"] in link.get_attribute("title")
        link.click()
        pop = page.locator("#card-pop")
        pop.wait_for(state="visible")
        assert pop.get_attribute("data-card") == str(number)
        assert title in pop.inner_text()
        box = pop.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.locator("h2").first.click()  # a tap elsewhere closes it
        pop.wait_for(state="hidden")


def changed_places(before: dict, after: dict) -> set[str]:
    """The map's places whose pieces differ between two boards (or a token moved to)."""
    group_before, group_after = before["groups"][0], after["groups"][0]
    found = {p for p, place in group_after["places"].items()
             if place["holders"] != group_before["places"][p]["holders"]}
    found |= {w for player, w in after["tokens"].items()
              if before["tokens"].get(player) != w and w in group_after["places"]}
    return found


@pytest.mark.parametrize("pack", PACKS)
def test_the_places_the_last_move_changed_are_outlined(browser, pack):
    with open_game(browser, pack, (1280, 800), moves=8) as (page, session):
        viewer = page.evaluate("document.body.dataset.viewer")
        assert page.locator("svg.map path.changed").count() == 0  # nothing seen move yet
        rng = random.Random(8)
        for _ in range(200):  # one action at a time, until one changes the map
            before = board_for(session.game, viewer)
            count = actions(page)
            session.apply(rng.randrange(session.game.num_actions()))
            page.wait_for_function(f"Number(document.body.dataset.actions) > {count}",
                                   timeout=10_000)  # the page's own poll brought it
            expected = changed_places(before, board_for(session.game, viewer))
            if expected:
                break
        else:
            pytest.fail("no move changed the map in 200 actions")
        marked = set(page.eval_on_selector_all("svg.map path.changed",
                                               "ps => ps.map((p) => p.dataset.place)"))
        assert marked == expected


@pytest.mark.parametrize("pack", PACKS)
def test_the_rule_button_shows_a_pack_relative_position(browser, pack):
    with open_game(browser, pack, (390, 844)) as (page, _):
        page.click("#rule-toggle")
        text = page.locator("#rule").inner_text().strip()
        assert re.fullmatch(r"rules/[\w.-]+\.yaml:\d+", text), text
        assert "site-packages" not in text and not text.startswith("/")


def test_a_rule_position_is_shown_relative_to_its_pack_or_mod(tmp_path):
    """Each path of Server.rule_shown: inside the pack, inside a mod, outside both, and a
    position that is not a file's."""
    from hustings.tools.web.app import Server

    mod = Path(__file__).parent.parent / "content" / "mods" / "scandals"
    server = Server(None, [mod], {})
    pack = builtin_pack()
    assert server.rule_shown(f"{pack.resolve()}/rules/10-game.yaml:33:7") == \
        "rules/10-game.yaml:33:7"
    assert server.rule_shown(f"{mod.resolve()}/cards.yaml:4:1") == "scandals: cards.yaml:4:1"
    assert server.rule_shown(f"{tmp_path}/elsewhere/x.yaml:5") == "x.yaml:5"
    assert server.rule_shown("(reactions)") == "(reactions)"
    assert server.rule_shown(f"{tmp_path}/no-line") == "no-line"
    assert server.rule_shown(None) is None


def test_the_cards_a_log_names_are_found_as_whole_titles():
    """cards_named: a title is found as a whole word (Campaign Trail's "Action card 1" is
    not found in "Action card 10"), not inside a longer word, and a line naming no card
    finds nothing."""
    from hustings.interpreter.game import Game
    from hustings.tools.web.app import Server, cards_named

    server = Server(builtin_pack("campaign-trail"), [], {})
    game = Game.new(server.program({}), seed=1)
    by_title = {c["title"]: n for n, c in game.program.cards.items()}
    assert {"Action card 1", "Action card 10"} <= set(by_title)
    found = cards_named(server, game, ["x plays #10 (Action card 10, OH)", "nothing"])
    assert set(found) == {str(by_title["Action card 10"])}
    assert found[str(by_title["Action card 10"])]["title"] == "Action card 10"
    assert set(cards_named(server, game, ["(Action card 1)"])) == {str(by_title["Action card 1"])}
    assert cards_named(server, game, ["Action card 1x", "no card here"]) == {}


def test_a_place_off_the_map_is_named_on_its_option_button(browser):
    # random play until a decision offers places the map does not draw (1960's media
    # regions): each button names its place as the board does ("West"), never by its id
    # ("west"), while a place on the map keeps the map's own label
    with open_game(browser, "1960", (390, 844)) as (page, session):
        names = session.game.program.names
        on_map = set(page.eval_on_selector_all("svg.map path[data-place]",
                                               "ps => ps.map((p) => p.dataset.place)"))
        rng = random.Random(5)
        for _ in range(400):
            places = {o.place for o in options_of(session.game)} - {None}
            if len(places - on_map) >= 2:
                break
            session.apply(rng.randrange(session.game.num_actions()))
        else:
            pytest.fail("no decision offered places off the map in 400 moves")
        page.reload()
        settle(page)
        shown = page.locator("#decision button.option").all_inner_texts()
        assert {names[p] for p in places - on_map} <= set(shown), shown
        ids = [t for t in shown if t in names and names[t] != t and t not in on_map]
        assert not ids, f"buttons show ids: {ids}"


LATIN = re.compile(r"[A-Za-z]+")


def test_a_game_in_japanese_shows_the_pages_own_words_in_japanese(browser):
    # the board's content came in the game's language, while the page's buttons, headings,
    # legend and status line stayed English ("New game", "Narration", "hot seat: ...")
    app = create_app(builtin_pack("1960"))
    with serve(app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        game = new_game(page, base, {"kennedy": "human", "nixon": "human"}, hot_seat=True,
                        lang="ja")
        session = app.state.server.rooms.get(game["id"]).session
        played(session, 30)
        page.reload()
        settle(page)
        program = session.game.program
        codes = {k for k in program.locations if len(k) == 2 and k.isupper()}
        allowed = {"CP"} | codes  # the map's postal codes, as the Japanese manual keeps them
        shown = page.inner_text("header") + "\n" + page.inner_text("#game")
        english = sorted({w for w in LATIN.findall(shown)
                          if w not in allowed and not (len(w) == 1 and w.isupper())})
        assert not english, f"untranslated on the page: {english}"
        assert "経過" in shown and "ルール" in shown  # Narration, Rule
        page.close()
