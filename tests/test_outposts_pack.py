"""The outposts test pack (tests/packs/outposts): every form of issue 36 "Players" in one
small game for 2 to 5 players. It checks clean at every count, its scenarios pass, and it
plays to a recorded winner at each count, with every invariant held after every action."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hustings.dsl.loading import check_pack, load_pack
from hustings.dsl.scenarios import run_paths
from hustings.interpreter.game import Game, ops_for
from hustings.interpreter.invariants import first_violation
from hustings.tools.commands.soak import soak_game

PACK = Path(__file__).parent / "packs" / "outposts"
SEEDS = (1, 2, 3, 4)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_it_checks_clean_at_every_count(n):
    loaded = check_pack(PACK, players=n)
    assert loaded.program is not None
    assert loaded.report.diagnostics == []


def test_its_scenarios_pass():
    outcomes, report = run_paths([PACK / "scenarios"], PACK)
    assert report.errors == []
    assert len(outcomes) >= 6
    assert [(o.name, o.failures) for o in outcomes if not o.ok] == []


def played(program, seed: int) -> Game:
    """A game of random moves (seeded), every invariant checked after every action."""
    rng = random.Random(seed)
    ops = ops_for(program)
    game = Game.new(program, seed)
    while not game.is_terminal():
        game.apply_action(rng.randrange(game.num_actions()))
        problem = first_violation(program, game.state, ops)
        assert problem is None, f"seed {seed}: {problem}"
    return game


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_it_plays_to_a_recorded_winner_at_each_count(n):
    program = load_pack(PACK, players=n)
    for seed in SEEDS:
        game = played(program, seed)
        assert game.result()["winner"] in program.players, (seed, game.result())
        assert game.result()["winner"] not in game.state.out


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_soak_finds_nothing_at_each_count(n):
    program = load_pack(PACK, players=n)
    for seed in SEEDS:
        outcome = soak_game(program, seed)
        assert outcome.problem is None and outcome.actions > 0, outcome


def test_players_are_put_out_and_the_last_one_in_can_win():
    """Over a few games each way the game ends by all three of its ends."""
    endings = set()
    out_seen = False
    for n in (2, 3, 4, 5):
        program = load_pack(PACK, players=n)
        for seed in range(1, 13):
            game = played(program, seed)
            out_seen = out_seen or bool(game.state.out)
            if "outposts" in game.result():
                endings.add("eight rounds")
            elif any("feud reaches" in line for line in game.state.log):
                endings.add("the feud")
            else:
                assert len(game.program.players) - len(game.state.out) == 1
                endings.add("last one in")
    assert out_seen
    assert endings == {"eight rounds", "the feud", "last one in"}


def test_it_uses_every_form_of_the_issue():
    """A guard: the pack keeps the forms it exists to exercise."""
    text = "\n".join(p.read_text() for p in sorted(PACK.rglob("*.yaml")))
    for form in ("player_count:", "eliminate ", "players_in()", "is_out(", "next_among(",
                 "players_from(", "sort_by(", "seat(", "shared:", "ends_game: true", "map:",
                 "copies:", " for s in ", "until end of turn or used once:", "whenever ",
                 'name: "outposts"', "players: 2", "out: [blue]", "by_count:",
                 "shown_to_team: true"):
        assert form in text, form


def test_four_players_play_in_two_teams_that_win_together_and_share_their_hands():
    program = load_pack(PACK, players=4)
    assert program.teams == {"sun": ["red", "green"], "moon": ["blue", "gold"]}
    assert load_pack(PACK, players=3).teams == {}  # teams only at four
    game = Game.new(program, 1)
    zones = game.observation("red")["zones"]
    assert isinstance(zones["hand:green"], list)  # a running mate's hand, card by card
    assert zones["hand:blue"] == len(game.state.zones["hand:blue"])  # the others': a count
    results = [played(program, seed).result() for seed in SEEDS]
    for result in results:
        team = next(t for t, members in program.teams.items() if result["winner"] in members)
        assert (result["team"], result["winners"]) == (team, program.teams[team])
