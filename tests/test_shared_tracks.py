"""A shared track: one marker for the whole table, pulled toward each side's end by its
gains, stopping at the ends, and (with `ends_game`) finishing the game at either end."""

from __future__ import annotations

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import violations

TRACK = "  tug: {min: -3, max: 3, start: 0, shared: {max: ann, min: bob, ends_game: %s}}\n"

RULES = """\
procedures:
  game:
    body: |
      for r from 1 to 10:
        for p in players:
          p chooses:
            "pull":
              p gains 1 tug
              say "{p} pulled: {tug of ann} {tug of bob}"
            "slip":
              p loses 2 tug
            "pay":
              p pays 1 tug
      say "nobody reached an end"
"""


def pack(tmp_path, ends_game: bool = True, players: str = "[ann, bob]", track: str = TRACK):
    manifest = MANIFEST.replace("players: [ann, bob]", f"players: {players}").replace(
        "tracks:\n", "tracks:\n" + (track % str(ends_game).lower()))
    return make_pack(tmp_path, rules={"rules/10-game.yaml": RULES}, manifest=manifest)


def play(program, *actions: str) -> Game:
    game = Game.new(program, 1)
    for action in actions:
        game.apply_action(action)
        assert not list(violations(program, game.state))
    return game


def test_each_side_pulls_the_one_marker_toward_its_own_end(tmp_path):
    program = load_pack(pack(tmp_path))
    game = play(program, "pull", "pull", "pull")  # ann +1, bob -1, ann +1
    assert game.state.counters["tug"] == {"ann": 1, "bob": 1}
    assert "ann pulled: 1 1" in game.state.log and "bob pulled: 0 0" in game.state.log
    game = play(program, "slip")  # ann loses 2: toward bob's end
    assert game.state.counters["tug"] == {"ann": -2, "bob": -2}


def test_the_marker_stops_at_an_end_that_does_not_end_the_game(tmp_path):
    program = load_pack(pack(tmp_path, ends_game=False))
    game = play(program, *["pull", "slip"] * 3)  # bob slips toward ann: +3 a round, capped
    assert game.state.counters["tug"] == {"ann": 3, "bob": 3}
    assert not game.is_terminal()


def test_reaching_an_end_that_ends_the_game_finishes_it_at_once(tmp_path):
    program = load_pack(pack(tmp_path))
    game = play(program, "pull", "pay", "pull")  # +1, bob pays 1 (away from his end), +1
    assert game.is_terminal() and game.state.result == {"winner": "ann"}
    assert "  tug reaches 3: ann wins" in game.state.log
    assert "ann pulled: 1 1" in game.state.log
    assert "ann pulled: 3 3" not in game.state.log  # the rest of the option never ran
    assert "nobody reached an end" not in game.state.log


def test_the_other_end_gives_the_other_side_the_game(tmp_path):
    program = load_pack(pack(tmp_path))
    game = play(program, "slip", "pull")  # ann -2, bob pulls -1: -3, bob's end
    assert game.is_terminal() and game.state.result == {"winner": "bob"}


def test_a_payment_moves_the_whole_way_or_is_a_rule_error(tmp_path):
    program = load_pack(pack(tmp_path, ends_game=False))
    game = play(program, "pay")  # ann pays 1: one space toward bob's end
    assert game.state.counters["tug"] == {"ann": -1, "bob": -1}
    game = play(program, "slip", "slip", "pay", "pull")  # -2, +2 (bob slips), -1, -1
    assert game.state.counters["tug"]["ann"] == -2
    with pytest.raises(RuleError, match="ann cannot pay 1 tug") as failed:
        play(program, "slip", "pull", "pay")  # at -3: no room to pay toward bob's end
    assert "10-game.yaml" in str(failed.value.where)


def test_a_player_with_no_end_cannot_pull(tmp_path):
    program = load_pack(pack(tmp_path, players="[ann, bob, cid]"))
    with pytest.raises(RuleError, match="tug is pulled by ann and bob only, not 'cid'"):
        play(program, "pull", "pull", "pull")


def test_a_saved_game_keeps_the_marker(tmp_path):
    program = load_pack(pack(tmp_path))
    game = play(program, "pull", "pay")  # +1, +1
    again = Game.load(program, game.save())
    assert again.state.counters == game.state.counters
    again.apply_action("pull")
    assert again.is_terminal() and again.state.result == {"winner": "ann"}


def test_the_invariants_see_a_marker_split_in_two(tmp_path):
    program = load_pack(pack(tmp_path))
    game = play(program, "pull")
    game.state.counters["tug"]["bob"] = 0
    assert any("one shared marker" in v for v in violations(program, game.state))


@pytest.mark.parametrize("ends, message", [
    ("{max: ann, min: bo}", "the min end of shared track 'tug' is 'bo', not a player"),
    ("{max: ann, min: ann}", "both ends of shared track 'tug' are 'ann'"),
])
def test_a_shared_track_needs_two_players_of_the_pack_E118(tmp_path, ends, message):
    track = "  tug: {min: -3, max: 3, shared: " + ends + "}\n#%s\n"
    folder = pack(tmp_path, track=track)
    errors = [d for d in check_pack(folder).report.errors if d.code == "E118"]
    assert [e.message for e in errors] == [message]
    row = next(i for i, line in enumerate((folder / "pack.yaml").read_text().splitlines(), 1)
               if line.startswith("  tug:"))
    assert errors[0].source.path.endswith("pack.yaml") and errors[0].source.line == row
