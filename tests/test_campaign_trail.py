"""The Campaign Trail pack: a second game on the same engine, with no Python of its own.

It checks clean, plays seeded random games to a winner for two and for three parties with
every invariant of the state checked after every action (the soak command's game, with a
save/load round trip every 25 actions), and the tools read what they need from the pack:
the final map, the seats, the agents' value. `hustings soak --pack content/campaign-trail
--games 500 [--option third_party]` runs the long version.
"""

from __future__ import annotations

import json

import pytest

from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter.game import Game
from hustings.tools.agents import greedy_agent, random_agent
from hustings.tools.cli import main
from hustings.tools.commands.soak import soak_game
from hustings.tools.terminal.look import player_name

PACK = builtin_pack("campaign-trail")
PARTIES = {False: ["democrat", "republican"], True: ["democrat", "republican", "libertarian"]}


@pytest.fixture(scope="module", params=[False, True], ids=["two-parties", "three-parties"])
def program(request):
    return load_pack(PACK, options={"third_party": request.param})


def test_the_pack_checks_clean_with_every_option():
    for options in ({}, {"third_party": True}, {"dirty_politics": True},
                    {"third_party": True, "dirty_politics": True}):
        loaded = check_pack(PACK, options)
        assert not loaded.report.errors and not loaded.report.warnings, options


def test_the_party_count_follows_the_option(program):
    third = program.options["third_party"]
    assert program.players == PARTIES[third]
    actions = [n for n, c in program.cards.items() if c["kind"] == "action"]
    assert len(actions) == (105 if third else 90)  # 15 cards need three parties (Setup 8)


def test_the_board_has_51_places_and_538_electoral_votes(program):
    states = program.kinds["states"]
    assert len(states) == 51 and "DC" in states
    assert sum(program.locations[s]["ev"] for s in states) == 538
    assert program.locations["CA"]["ev"] == 55 and program.locations["WY"]["ev"] == 3


@pytest.mark.parametrize("seed", range(1, 11))
def test_random_games_end_with_a_winner_and_every_invariant_held(program, seed):
    outcome = soak_game(program, seed)
    assert outcome.problem is None, f"seed {seed}, action {outcome.action}: {outcome.problem}"
    assert outcome.actions > 100


def test_a_finished_game_names_a_winner_with_the_most_electoral_votes(program):
    game = Game.new(program, seed=7)
    agent = random_agent(7)
    while not game.is_terminal():
        game.apply_action(agent(game))
    result = game.result()
    votes = result["electoral_votes"]
    assert set(votes) == set(program.players) and sum(votes.values()) == 538
    assert result["winner"] in program.players
    assert votes[result["winner"]] == max(votes.values())


def test_play_quiet_prints_a_winner_for_two_and_three_parties(capsys):
    for extra, parties in (([], 2), (["--option", "third_party"], 3)):
        assert main(["play", "--pack", str(PACK), "--seed", "3", "--quiet", *extra]) == 0
        result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert len(result["electoral_votes"]) == parties
        assert result["winner"] in result["electoral_votes"]


def test_the_final_map_lists_the_states_each_party_won(capsys):
    assert main(["play", "--pack", str(PACK), "--seed", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    result = json.loads(lines[-1])
    start = lines.index("== Final map ==")
    shown = dict(line.split(":", 1) for line in lines[start + 1:start + 3])
    program = load_pack(PACK)
    party_of = {player_name(program, p): p for p in program.players}  # named as shown
    assert len(shown) == 2 and set(shown) <= set(party_of)
    for party, states in shown.items():
        assert len(states.split()) == result["states_won"][party_of[party]]


def test_every_party_seat_takes_an_agent(capsys):
    args = ["play", "--pack", str(PACK), "--seed", "2", "--quiet", "--option", "third_party",
            "--democrat", "greedy", "--seat", "libertarian=greedy"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out.strip())["winner"]


def test_a_seat_of_the_party_left_out_is_refused(capsys):
    assert main(["play", "--pack", str(PACK), "--seed", "2", "--quiet",
                 "--seat", "libertarian=random"]) == 2
    assert "democrat, republican" in capsys.readouterr().err


def test_the_value_function_ranks_a_lead_above_a_deficit(program):
    game = Game.new(program, seed=4)
    agent = greedy_agent(4)
    for _ in range(60):
        game.apply_action(agent(game))
    values = {p: game.evaluate("position_value", p) for p in program.players}
    leader = max(program.players, key=lambda p: game.evaluate("strength", p))
    assert values[leader] == max(values.values()) and values[leader] > 0


def test_its_scenario_files_run_on_it_without_naming_the_pack(capsys):
    from hustings.dsl.scenarios import run_paths

    outcomes, report = run_paths([PACK / "scenarios" / "rulebook"])
    assert not report.errors and outcomes and all(o.ok for o in outcomes)
    assert main(["scenario", str(PACK / "scenarios" / "rulebook" / "examples.yaml")]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_simulate_credits_card_uses_by_number_and_title(program):
    from hustings.tools.simulation.records import UseTable

    labels = UseTable.of(program).labels
    assert labels["#11 advertise"] == (11, "advertise")
    assert labels["#23 politick: Super PAC"] == (23, "politick")
    assert labels["debate with #55"] == (55, "debate")


def test_each_issue_lists_exactly_the_states_showing_it(program):
    # The map's icons are written both ways: a state's `issue`, an issue's `shown_in`.
    for issue in program.kinds["issues"]:
        showing = [s for s in program.kinds["states"] if program.locations[s]["issue"] == issue]
        assert program.locations[issue]["shown_in"] == showing, issue


NOTED = ("Which card do you play, and which of its actions do you take?",
         "How do you pay for the politick action?", "Pay ", "Intimidation: ")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_question_that_costs_money_or_voters_notes_what_the_player_has(seed):
    # the turn's card question, the Populist's politick payment, the Scandal and the
    # Intimidation note the deciding party's money and registered voters
    game = Game.new(load_pack(builtin_pack("campaign-trail"), {"dirty_politics": True}),
                    seed=seed, safe=False)
    agent, seen = random_agent(seed), set()
    while not game.is_terminal():
        prompt = game.prompt()
        if prompt.startswith(NOTED):
            who, counters = game.current_player(), game.state.counters
            assert game.remarks()["status"] == (
                f"${counters['money'][who]}M, {counters['registered'][who]} registered voters")
            seen.add(prompt)
        game.apply_action(agent(game))
    assert NOTED[0] in seen
