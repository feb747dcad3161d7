"""What the language shows to one player only: `show CARDS to P` and `tell P "..."`.

Proven on tests/packs/secrets through the Python API: a card that looks at another
player's hand shows it to that player once and to nobody else, a secret comparison shows
two hands each way, told lines stay out of the public log, and all of it is kept in the
state, saved and loaded, and checked when a save is read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from hustings.dsl.loading import check_pack, load_pack
from hustings.dsl.scenarios import Runner, run_paths
from hustings.interpreter.budget import Budget
from hustings.interpreter.errors import RuleError, SaveError
from hustings.interpreter.game import Game
from hustings.interpreter.ops import Show, Tell
from hustings.schemas.scenario import Scenario

SECRETS = Path(__file__).parent / "packs" / "secrets"
PROGRAM = load_pack(SECRETS)
SPYGLASS, PARLEY, PEEK, CONFESSION = 1, 2, 3, 4


def game_where(player: str, card: int) -> Game:
    """The first seeded game in which `player` is dealt `card`."""
    for seed in range(200):
        game = Game.new(PROGRAM, seed=seed)
        if card in game.state.zones[f"hand:{player}"]:
            return game
    raise AssertionError(f"no seed below 200 deals {card} to {player}")


def play_to(game: Game, player: str) -> None:
    """Pass until it is `player`'s turn."""
    while game.current_player() != player:
        game.apply_action("pass")


def test_a_look_at_another_hand_is_shown_once_and_to_nobody_else():
    game = game_where("bob", SPYGLASS)
    play_to(game, "bob")
    cats_hand = list(game.state.zones["hand:cat"])
    game.apply_action("play Spyglass")
    assert game.prompt() == "Whose hand do you look at?"
    game.apply_action("cat")
    shown = {str(c): "hand:cat" for c in cats_hand}
    assert game.observation("bob")["shown"] == shown
    assert game.observation("ann")["shown"] == {} and game.observation("cat")["shown"] == {}
    for viewer in ("ann", "bob"):  # shown, not opened: the zone stays a count
        assert game.observation(viewer)["zones"]["hand:cat"] == len(cats_hand)
    assert game.state.revealed == {}
    # cat draws later: bob does not see the new card
    play_to(game, "cat")
    game.apply_action("draw a card")
    drawn = [c for c in game.state.zones["hand:cat"] if c not in cats_hand]
    assert len(drawn) == 1
    assert game.observation("bob")["shown"] == shown
    assert str(drawn[0]) not in game.observation("bob")["shown"]
    assert game.observation("bob")["zones"]["hand:cat"] == len(cats_hand) + 1


def test_what_was_told_is_read_by_its_player_alone_and_never_in_the_public_log():
    game = game_where("bob", SPYGLASS)
    play_to(game, "bob")
    titles = ", ".join(PROGRAM.cards[c]["title"] for c in game.state.zones["hand:ann"])
    game.apply_action("play Spyglass")
    game.apply_action("ann")
    told = f"you look at ann's hand: {titles}"
    said = "bob looks at ann's hand"
    assert told in game.narration("bob")
    for reader in ("ann", "cat", None):
        assert told not in game.narration(reader)
        assert said in game.narration(reader)
    assert told not in game.state.log and said in game.state.log
    assert game.narration(None) == game.state.log
    # in its place: after the line it followed, before the public line said after it
    bobs = game.narration("bob")
    assert bobs.index("bob plays Spyglass") < bobs.index(told) < bobs.index(said)
    assert game.observation("bob")["log"] == bobs
    assert game.observation("ann")["log"] == game.state.log


def test_a_secret_comparison_shows_each_hand_to_the_other_player_only():
    game = game_where("ann", PARLEY)
    anns = [c for c in game.state.zones["hand:ann"] if c != PARLEY]
    bobs = list(game.state.zones["hand:bob"])
    game.apply_action("play Parley")
    assert game.observation("ann")["shown"] == {str(c): "hand:bob" for c in bobs}
    assert game.observation("bob")["shown"] == {str(c): "hand:ann" for c in anns}
    assert game.observation("cat")["shown"] == {}
    cat_reads = "\n".join(game.narration("cat"))
    assert "points of cards" not in cat_reads
    assert "ann and bob compare hands in secret" in cat_reads


def test_a_single_card_is_shown_with_the_zone_it_is_in():
    game = game_where("ann", PEEK)
    top = game.state.zones["deck"][-1]
    game.apply_action("play Peek")
    assert game.observation("ann")["shown"] == {str(top): "deck"}
    assert f"the top card of the deck is {PROGRAM.cards[top]['title']}" in game.narration("ann")
    game.apply_action("draw a card")  # bob takes it: ann's record stays what she was shown
    assert top in game.state.zones["hand:bob"]
    assert game.observation("ann")["shown"] == {str(top): "deck"}


def test_shown_and_told_survive_save_and_load():
    game = game_where("ann", CONFESSION)
    game.apply_action("play Confession")
    game.apply_action("play Spyglass" if SPYGLASS in game.state.zones["hand:bob"] else "pass")
    text = game.save()
    data = json.loads(text)
    assert data["told"] and data["told"][0][1] == "ann"
    loaded = Game.load(PROGRAM, text)
    assert loaded.save() == text
    for who in ("ann", "bob", "cat", None):
        assert loaded.narration(who) == game.narration(who)
    for who in ("ann", "bob", "cat"):
        assert loaded.observation(who) == game.observation(who)


def test_a_save_made_before_private_information_loads_with_none_of_it():
    game = Game.new(PROGRAM, seed=3)
    data = json.loads(game.save())
    del data["shown"], data["told"]
    loaded = Game.load(PROGRAM, json.dumps(data))
    assert loaded.state.shown == {} and loaded.state.told == []


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("shown", {"dan": {"5": "deck"}}, "shown: 'dan' is not a player"),
    ("shown", {"ann": {"99": "deck"}}, "shown.ann: '99' is not a card of the pack"),
    ("shown", {"ann": {"5": "attic"}}, "shown.ann.5: 'attic' is not a zone"),
    ("told", [[0, "dan", "hi"]], "told[0]: 'dan' is not a player"),
    ("told", [[999, "ann", "hi"]], "told[0] stands at line 999 of the log"),
    ("told", [[1, "ann", "hi"], [0, "bob", "ho"]], "told[1] stands at line 0 of the log"),
])
def test_a_save_with_impossible_private_information_is_refused(key, value, problem):
    game = Game.new(PROGRAM, seed=3)
    data = json.loads(game.save())
    data[key] = value
    with pytest.raises(SaveError, match="impossible save: " + problem.replace("[", r"\[")):
        Game.load(PROGRAM, json.dumps(data))


@pytest.mark.parametrize(("key", "value"), [
    ("shown", {"ann": {"5": 7}}),  # a zone is a text
    ("told", [[0, "ann"]]),  # [position, player, text]
    ("told", [[-1, "ann", "hi"]]),
])
def test_a_save_with_private_information_of_the_wrong_shape_is_refused(key, value):
    data = json.loads(Game.new(PROGRAM, seed=3).save())
    data[key] = value
    with pytest.raises(SaveError, match=f"malformed save: {key}"):
        Game.load(PROGRAM, json.dumps(data))


def test_show_refuses_what_is_no_card_nor_zone_and_a_viewer_who_is_no_player():
    game = Game.new(PROGRAM, seed=3)
    frame = SimpleNamespace(env={})
    cases = [
        (("const", "attic"), ("const", "ann"), "only cards or a zone of cards are shown"),
        (("const", 99), ("const", "ann"), "only cards are shown, and 99 is no card"),
        (("const", "hand:bob"), ("const", "dan"), "cards are shown to a player, and 'dan'"),
    ]
    before = game.save()
    for cards, who, message in cases:
        with pytest.raises(RuleError, match=message):
            Show(cards, who).run(game.machine, frame)
    assert game.save() == before  # refused before anything is kept
    with pytest.raises(RuleError, match="a line is told to a player, and 'dan'"):
        Tell(("const", "dan"), ("const", "hi")).run(game.machine, frame)


def test_told_lines_count_towards_the_log_budget():
    game = Game.new(PROGRAM, seed=3)  # the set-up narrates more than two lines
    game.machine.budget = Budget(log_lines=2)
    game.machine.log_lines = 0
    tell = Tell(("const", "ann"), ("const", "hi"))
    tell.run(game.machine, SimpleNamespace(env={}))
    tell.run(game.machine, SimpleNamespace(env={}))
    with pytest.raises(RuleError, match="more than 2 log lines"):
        tell.run(game.machine, SimpleNamespace(env={}))


def _secrets_copy(tmp_path: Path, event: str) -> Path:
    pack = tmp_path / "secrets"
    shutil.copytree(SECRETS, pack, ignore=shutil.ignore_patterns("scenarios"))
    cards = pack / "cards.yaml"
    text = cards.read_text().replace(
        '      tell player "only you read this line"\n', event)
    cards.write_text(text)
    return pack


@pytest.mark.parametrize(("event", "code", "column", "message"), [
    ("      show 99 to player\n", "E321", 12, "there is no card 99"),
    ('      show "x" to player\n', "E320", 12, "what is shown must be a card number"),
    ("      show hand of player to 3\n", "E320", 30,
     "who is shown the cards must be a player, not the number 3"),
    ('      tell 3 "hi"\n', "E201", 12, "unexpected '3'"),
])
def test_show_and_tell_are_checked_when_the_pack_compiles(tmp_path, event, code, column,
                                                          message):
    loaded = check_pack(_secrets_copy(tmp_path, event))
    problems = [d for d in loaded.report.errors]
    assert len(problems) == 1, [str(d) for d in problems]
    found = problems[0]
    assert (found.code, found.source.line, found.source.column) == (code, 39, column)
    assert message in found.message


def test_the_private_scenarios_of_the_test_pack_pass():
    outcomes, report = run_paths([SECRETS / "scenarios"])
    assert not report.errors
    assert len(outcomes) == 4 and all(o.ok for o in outcomes), \
        [o.failures for o in outcomes if not o.ok]


@pytest.mark.parametrize(("expect", "failure"), [
    ({"sees": {"player": "cat", "cards": [6]}}, "cat does not see card 6"),
    ({"sees": {"player": "ann", "cards": [6], "zone": "hand:cat"}},
     "ann does not see card 6 in hand:cat (seen in hand:bob)"),
    ({"not_sees": [{"player": "ann", "cards": [7]}]}, "ann sees card 7 (in hand:bob)"),
    ({"not_sees": [{"player": "bob", "cards": [6]}]}, "bob sees card 6 (in hand:bob)"),
    ({"told": {"player": "cat", "text": "Six, Seven"}}, "cat was not told 'Six, Seven'"),
    ({"not_told": {"player": "ann", "text": "Six, Seven"}}, "ann was told 'Six, Seven'"),
])
def test_a_wrong_expectation_of_what_a_player_sees_fails(expect, failure):
    scenario = Scenario.model_validate({
        "name": "spyglass", "steps": [
            {"cards": [1, 5, 6, 7, 8, 9]}, {"do": ["play Spyglass", "bob"]},
            {"expect": expect}]})
    outcome = Runner(SECRETS).run(scenario, "test")
    assert not outcome.ok
    assert failure in " ".join(outcome.failures)
