"""Turn order in the language for any number of seats: seat(), players_from(),
next_player(), next_among() and sort_by()."""

from __future__ import annotations

import re

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game


def said(tmp_path, body: str, players: str = "[ann, bob, cid, dee]") -> list[str]:
    """What a game whose whole rules are `body` says, with `players` seated."""
    rules = "procedures:\n  game:\n    body: |\n" + "".join(
        f"      {line}\n" for line in body.strip().splitlines())
    manifest = MANIFEST.replace("players: [ann, bob]", f"players: {players}")
    folder = make_pack(tmp_path, rules={"rules/10-game.yaml": rules}, manifest=manifest)
    game = Game.new(load_pack(folder), 1)
    return [line for line in game.state.log if not line.startswith(" ")]


def test_seats_count_from_the_first_player_of_the_pack(tmp_path):
    assert said(tmp_path, 'say "{seat(ann)} {seat(cid)} {seat(dee)}"') == ["1 3 4"]


def test_players_from_goes_round_the_table_from_any_seat(tmp_path):
    assert said(tmp_path, 'for p in players_from(cid):\n  say "{p}"') == [
        "cid", "dee", "ann", "bob"]


def test_the_next_player_after_the_last_seat_is_the_first(tmp_path):
    assert said(tmp_path, 'say "{next_player(bob)} {next_player(dee)}"') == ["cid ann"]


def test_next_among_skips_the_players_who_are_out(tmp_path):
    assert said(tmp_path, 'let still_in = [ann, dee]\n'
                          'say "{next_among(ann, still_in)} {next_among(dee, still_in)}"\n'
                          'say "{next_among(bob, still_in)} {next_among(ann, [ann])}"\n'
                          'say "{next_among(ann, [])}"') == ["dee ann", "dee ann", "nobody"]


def test_sort_by_orders_by_the_keys_and_keeps_ties_in_their_order(tmp_path):
    assert said(tmp_path, 'say "{sort_by(players, [3, 1, 3, 2])}"\n'
                          'let keys = ["b", "a"]\n'
                          'say "{sort_by([ann, bob], keys)}"') == ["bob, dee, ann, cid", "bob, ann"]


@pytest.mark.parametrize("call, message", [
    ("sort_by(players, [1, 2])", "sort_by() has 4 items but 2 keys"),
    ("sort_by(players, [1, word, 2, 3])", "sort_by() keys are all numbers or all texts"),
    ("next_among(ann, 3)", "next_among() needs a list of players, not '3'"),
    ("seat(word)", "'a' is not a player seated in this game"),
])
def test_a_wrong_value_is_a_rule_error_at_its_line(tmp_path, call, message):
    with pytest.raises(RuleError, match=re.escape(message)) as failed:
        said(tmp_path, f'let word = "a"\nsay "{{{call}}}"')
    assert "10-game.yaml" in str(failed.value.where)


def test_a_player_an_option_leaves_out_has_no_seat(tmp_path):
    manifest = MANIFEST.replace("players: [ann, bob]", "players: [ann, bob, cid]") + (
        "options:\n  third: {default: false, doc: a third seat, players: [cid]}\n")
    rules = ('procedures:\n  game:\n    body: |\n'
             '      say "{next_player(bob)} {players_from(bob)}"\n')
    folder = make_pack(tmp_path, rules={"rules/10-game.yaml": rules}, manifest=manifest)
    assert Game.new(load_pack(folder), 1).state.log[0] == "ann bob, ann"
    assert not check_pack(folder).report.errors


def test_sort_by_a_value_of_each_player_with_a_comprehension(tmp_path):
    assert said(tmp_path, 'say "{sort_by(players, [0 - seat(p) for p in players])}"') == [
        "dee, cid, bob, ann"]
