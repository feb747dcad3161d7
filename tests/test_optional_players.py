"""Players an option seats: `options: {NAME: {players: [...]}}` in pack.yaml.

The mini pack gets a third player, cy, who plays only with the option `trio` on. With it
off the game has two seats and no trace of cy (counters, zones, tokens, bag, support); with
it on, three. Naming an unknown player is E108, and options that could leave fewer than two
players whatever they are set to are E122.
"""

from __future__ import annotations

import random

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import first_violation

TRIO = MANIFEST.replace("players: [ann, bob]", "players: [ann, bob, cy]") + """\
options:
  trio: {default: false, doc: "a third player", players: [cy]}
view:
  players: {ann: {name: Ann}, bob: {name: Bob}, cy: {name: Cy}}
"""

BOARD = """\
locations:
  spaces:
    - {id: A, support: {owner: cy, count: 1}}
    - {id: B}
tokens: {ann: A, bob: B, cy: A}
"""


def trio_pack(tmp_path, manifest: str = TRIO):
    pack = make_pack(tmp_path, cards="""\
        - {number: 1, title: One}
        - {number: 2, title: Two}
        - {number: 3, title: Three}
        - {number: 4, title: Four}
        - {number: 5, title: Five}
        - {number: 6, title: Six}
        """, manifest=manifest.replace("zones:", "pools:\n  marks: {kind: spaces}\nzones:"))
    (pack / "board.yaml").write_text(BOARD)
    return pack


def codes(loaded) -> list[str]:
    return [d.code for d in loaded.report.errors]


def test_the_option_off_leaves_the_player_out_of_every_table(tmp_path):
    program = load_pack(trio_pack(tmp_path))
    assert program.players == ["ann", "bob"]
    game = Game.new(program, seed=1)
    state = game.state
    assert set(state.counters["score"]) == {"ann", "bob"}
    assert set(state.tokens) == {"ann", "bob"}
    assert "hand:cy" not in state.zones and set(state.bag) == {"ann", "bob"}
    assert state.pools["marks"] == {}  # cy's starting mark is not on the board


def test_the_option_on_seats_the_player(tmp_path):
    program = load_pack(trio_pack(tmp_path), options={"trio": True})
    assert program.players == ["ann", "bob", "cy"]
    game = Game.new(program, seed=1)
    assert game.state.tokens["cy"] == "A"
    assert game.state.pools["marks"] == {"A": ["cy", 1]}
    assert game.state.counters["gold"]["cy"] == 3


@pytest.mark.parametrize("trio", [False, True])
def test_games_play_to_the_end_with_either_setting(tmp_path, trio):
    program = load_pack(trio_pack(tmp_path), options={"trio": trio})
    game = Game.new(program, seed=3)
    rng = random.Random(3)
    deciders = set()
    while not game.is_terminal():
        deciders.add(game.current_player())
        game.apply_action(rng.randrange(len(game.legal_actions())))
        assert first_violation(program, game.state) is None
    assert deciders == set(program.players)


def test_an_option_naming_no_player_is_e108(tmp_path):
    loaded = check_pack(trio_pack(tmp_path, TRIO.replace("players: [cy]", "players: [cyy]")))
    assert "E108" in codes(loaded)
    found = next(d for d in loaded.report.errors if d.code == "E108")
    assert "'cyy'" in found.message and "cy" in (found.hint or "")


def test_options_that_could_leave_one_player_are_e122(tmp_path):
    loaded = check_pack(trio_pack(tmp_path, TRIO.replace("players: [cy]", "players: [bob, cy]")))
    assert codes(loaded) == ["E122"]


def test_scenario_names_follow_the_seated_players(tmp_path):
    from hustings.dsl.scenarios import run_paths

    pack = trio_pack(tmp_path)
    (tmp_path / "s.yaml").write_text("""\
scenarios:
  - name: cy scores when seated
    options: {trio: true}
    setup: {counters: {score: {cy: 2}}}
    steps:
      - expect: {counters: {score: {cy: 2}}}
  - name: cy is no player without the option
    setup: {counters: {score: {cy: 2}}}
    steps:
      - expect: {counters: {score: {cy: 2}}}
""")
    outcomes, report = run_paths([tmp_path / "s.yaml"], pack)
    assert not report.errors
    assert [o.ok for o in outcomes] == [True, False]
