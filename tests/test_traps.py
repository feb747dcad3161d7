"""Mistakes that once passed `check` and corrupted a game: a single place where a list is
wanted (its name went through letter by letter), and support put on a place of the wrong
kind through a board property (`region of s`). Each is now caught when the pack is
compiled where the kind is known, and in the game otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from hustings.dsl.loading import check_pack
from hustings.dsl.scenarios import run_paths

CARD = ("number: {number}\ntitle: Broken\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
        "state: NY\npersistent: null\ntext: A test card.\nevent: |\n")



def add_card(pack: Path, event: str, number: int = 901) -> Path:
    path = pack / "cards" / f"{number}-broken.yaml"
    path.write_text(CARD.format(number=number) + "".join(f"  {x}\n" for x in event.splitlines()))
    return path


def position(path: Path, needle: str, after: str = "event: |") -> tuple[int, int]:
    text = path.read_text()
    at = text.index(needle, text.index(after))
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def errors(pack: Path) -> list[tuple[str, str, int, int, str, str]]:
    loaded = check_pack(pack)
    return [(d.code, Path(d.source.path).name, d.source.line, d.source.column, d.message,
             d.hint) for d in loaded.report.errors]


def play_card(tmp_path: Path, pack: Path, steps: str) -> list:
    """Run card 901's event for kennedy in a scenario; the outcomes."""
    path = tmp_path / "trap.yaml"
    path.write_text(
        "scenarios:\n  - name: trap\n    setup:\n      vars: {turn: 1}\n"
        "      zones: {\"hand:kennedy\": [901]}\n"
        "    run: {procedure: resolve_card_event, args: {player: kennedy, card: 901}}\n"
        "    steps:\n" + steps)
    outcomes, report = run_paths([path], pack)
    assert not report.errors, [str(d) for d in report.errors]
    return outcomes


# ---- a single place where a list is wanted ---------------------------------------------
def test_a_phrase_in_a_chosen_state_acts_on_that_state(tmp_path, pack):
    add_card(pack, "player chooses s from states\nplayer must add 2 state support in s")
    assert errors(pack) == []
    (outcome,) = play_card(tmp_path, pack, "      - do: IL\n      - expect:\n"
                           "          support: {state: {IL: [kennedy, 2]}}\n"
                           "          terminal: true\n")
    assert outcome.ok, outcome.failures


def test_a_phrase_in_a_place_a_function_gives_acts_on_that_place(tmp_path, pack):
    (pack / "rules" / "95-home.yaml").write_text(
        "functions:\n  home:\n    params: [who]\n    expr: location of who\n")
    add_card(pack, "move player to IL\nplayer must add 1 state support in home(player)")
    assert errors(pack) == []
    (outcome,) = play_card(tmp_path, pack, "      - expect:\n"
                           "          support: {state: {IL: [kennedy, 1]}}\n")
    assert outcome.ok, outcome.failures


def test_for_over_a_single_state_is_a_type_error(pack):
    path = add_card(pack, "player chooses s from states\nfor x in s:\n  say \"{x}\"")
    line, col = position(path, "s:")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, line, col)
    assert "must be a list, not `s` (one of the states)" in err[4]
    assert err[5] == "`s` is one place: `[s]` is a list of it alone"


@pytest.mark.parametrize("text", ["for x in west:\n  say \"{x}\"", "let n = count(west)"])
def test_a_region_where_a_list_goes_is_told_its_states(pack, text):
    path = add_card(pack, text)
    line, col = position(path, "west")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, line, col) and "one of the regions" in err[4]
    assert err[5] == ("the states of `west` are `states where region of it == west`; "
                      "`[west]` is a list of it alone")


def test_count_of_a_zone_is_a_type_error(pack):
    path = add_card(pack, "let n = count(deck)")
    line, col = position(path, "deck")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, line, col) and "cards(ZONE)" in err[5]


def test_a_phrase_in_a_region_held_in_a_local_name_says_how_to_write_it(pack):
    path = add_card(pack, "player chooses r from regions\nplayer may add 2 state support in r")
    line, col = position(path, "r\n", after="support in")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, line, col)
    assert "one of the regions" in err[4]
    assert err[5] == "write `states where region of it == r`"


def test_a_name_bound_twice_has_no_assumed_kind(pack):
    """`xs` is first a place, then a list: nothing is assumed, the game checks it."""
    add_card(pack, "let xs = NY\nlet xs = [NY, MA]\nfor x in xs:\n  say \"{x}\"")
    assert errors(pack) == []


@pytest.mark.parametrize("body,what", [
    ("for x in xs:\n        say \"{x}\"", "what `for` runs over must be"),
    ("let n = count(xs)", "what count() reads must be"),
    ("let ys = xs where it != NY", "what `where` filters must be"),
    ("player chooses x from xs", "what is chosen from must be"),
    ("transfer xs to discard", "what is transferred must be a card or"),
    ("prevent xs", "what is prevented must be a card or"),
])
def test_a_text_given_where_a_list_is_wanted_stops_the_game_at_its_line(tmp_path, pack,
                                                                         body, what):
    rules = pack / "rules" / "95-over.yaml"
    rules.write_text("procedures:\n  over:\n    params: [player, xs]\n    body: |\n"
                     f"      {body}\n")
    add_card(pack, "do over(player: player, xs: IL)")
    assert errors(pack) == []
    (outcome,) = play_card(tmp_path, pack, "      - expect:\n          terminal: true\n")
    (failure,) = outcome.failures
    assert f"{rules}:5:7: {what} a list" in failure and "not the text 'IL'" in failure


@pytest.mark.parametrize("body,message", [
    # a number that is no card, none, a table: each once went into the zone as a new card
    ("transfer [7, xs * 20] to discard", "only cards are transferred, and 10000 is no card"),
    ("transfer first([]) to discard", "only cards are transferred, and None is no card"),
    ("transfer xs to discard", "only cards are transferred, and 500 is no card"),
    # an item that is not on the track once joined it
    ("put xs at position 1 on issue_track", "500 is not on the track issue_track"),
    ("put \"taxes\" at position 1 on issue_track", "'taxes' is not on the track"),
    ("move \"taxes\" up 1 on issue_track", "'taxes' is not on the track issue_track"),
    # tokens, effects, faces, revealed zones and prevented cards took any value alike
    ("move player to xs", "a token stands on a place, and 500 is no place of the board"),
    ("move xs to NY", "500 has no token to move"),
    ("flip xs to \"exhausted\"", "only a card is flipped, and 500 is no card of the pack"),
    ("prevent [7, xs]", "only cards are prevented, and 500 is no card of the pack"),
    ("reveal hand of player to xs", "a zone is revealed to a player, and 500 is not a player"),
    ("until end of turn:\n        xs has cp_bonus 1",
     "a lasting effect is a player's, and 500 is not a player"),
    ("place 1 endorsement support for xs in west",
     "endorsement support is a player's, and 500 is not a player"),
    ("place 1 state support for player in xs",
     "state support goes on a place of kind states, and 500 is none"),
    ("remove 1 state support from player in xs",
     "state support goes on a place of kind states, and 500 is none"),
    ("xs gains 1 momentum", "momentum is counted for players, and 500 is not one"),
    ("xs pays 1 momentum", "momentum is counted for players, and 500 is not one"),
    ("put 2 cubes of xs into bag", "the bag holds players' pieces, and 500 is not a player"),
    # a question for no player left the game paused where no save could be loaded
    ("xs chooses k from [1, 2]", "only a player decides, and 500 is not one"),
])
def test_a_value_that_is_no_card_or_not_on_the_track_stops_the_game(tmp_path, pack, body,
                                                                      message):
    rules = pack / "rules" / "95-over.yaml"
    rules.write_text("procedures:\n  over:\n    params: [player, xs]\n    body: |\n"
                     f"      {body}\n")
    add_card(pack, "do over(player: player, xs: 500)")
    (outcome,) = play_card(tmp_path, pack, "      - expect:\n          terminal: true\n")
    (failure,) = outcome.failures
    assert f"{rules}:5:7: {message}" in failure


@pytest.mark.parametrize("body,value,message", [
    ("player gains xs momentum", "none", "cannot compare none with a number (>)"),
    ("place xs state support for player in NY", "[1]", "cannot compare a list with a number"),
    ("let y = xs + 1", "[1]", "cannot add a number to a list"),
    ("let y = xs + 1", "\"ten\"", "cannot add a number to a text"),
    ("let y = xs - 1", "none", "cannot work out none - a number"),
    ("deal xs from deck to discard", "\"two\"", "a text is not a whole number"),
    ("let y = 1 in xs", "true", "`in` looks through a list or a text, not true or false"),
    ("shuffle xs", "[1]", "a list cannot be looked up: a name, a number or a card is wanted"),
    ("shuffle xs", "500", "nothing is called 500 here"),
    ("deal 1 from deck to hand of xs", "500", "nothing is called 'hand:500' here"),
])
def test_a_value_of_the_wrong_kind_is_named_in_the_languages_words(tmp_path, pack, body,
                                                                    value, message):
    rules = pack / "rules" / "95-over.yaml"
    rules.write_text("procedures:\n  over:\n    params: [player, xs]\n    body: |\n"
                     f"      {body}\n")
    add_card(pack, f"do over(player: player, xs: {value})")
    (outcome,) = play_card(tmp_path, pack, "      - expect:\n          terminal: true\n")
    (failure,) = outcome.failures
    assert f"{rules}:5:7: {message}" in failure and "Error" not in failure


def test_a_question_after_the_result_is_recorded_stops_the_game(tmp_path, pack):
    # a forgotten `finish` after `record`: the game went on with its result written, paused
    # where no save could be loaded, and could end with another result
    add_card(pack, "record winner as player\nplayer chooses k from [1, 2]")
    (outcome,) = play_card(tmp_path, pack, "      - expect:\n          terminal: true\n")
    (failure,) = outcome.failures
    line, col = position(pack / "cards" / "901-broken.yaml", "player chooses")
    assert f"901-broken.yaml:{line}:{col}: a question after the result was recorded" in failure


def test_the_library_gets_a_list_of_one_from_a_phrase(pack):
    add_card(pack, "player chooses s from states\nplayer must add 2 state support in s")
    program = check_pack(pack).program
    call = next(ins for ins in program.blocks[program.events[901]] if ins[0] == "call")
    assert dict(call[2])["targets"] == ("list", [("var", "s")])


# ---- a board property names a place of one kind -----------------------------------------
def test_support_placed_in_a_region_of_a_state_is_a_type_error(pack):
    path = add_card(pack, "player chooses s from states\n"
                    "place 1 state support for player in region of s")
    line, col = position(path, "region of s")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, line, col)
    assert "must be one of the states, not `region of s` (one of the regions)" in err[4]
    assert "region of" in err[5] and "states" in err[5]


def test_a_card_property_naming_states_is_a_state(pack):
    """`state of card` names a state on every card that has one: it is one of the states."""
    path = add_card(pack, "player gains 1 issue support in state of card")
    (err,) = [e for e in errors(pack) if e[0] == "E320"]
    assert err[1:4] == (path.name, *position(path, "state of card"))
    assert "one of the issues" in err[4]


def test_a_property_of_mixed_values_has_no_kind(pack):
    """`area` is `south` on some states and `alaska` (no place) on others: not typed."""
    add_card(pack, "place 1 state support for player in area of NY")
    assert [e for e in errors(pack) if e[0] == "E320"] == []
