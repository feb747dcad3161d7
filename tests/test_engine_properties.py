"""Property tests of the engine running the 1960 pack with seeded random agents.

Each test plays whole games through the public Game API and checks facts that
must hold whatever the players do: conservation of cubes and cards, the
nine-turn structure, determinism, save/load and replay, refusal of illegal
actions, hidden information in observations and the shape of the result.

Rules proved (ids from the 1960 rulebook as cited in content/1960):
  R1.6  every card is always in exactly one place (decks, hands, discard...)
  R1.7  cube counts are not limits: cubes move between supply, bag, rest zone
        and board, but none is created or destroyed
  R3.1  the game lasts nine turns
  R3.2  turn 6 is the Debates and turn 9 Election Day
  R10.7-R10.9  the final tally: electoral votes, then states, decide the winner
"""

from __future__ import annotations

import json
import random

import pytest

from hustings.dsl.loading import load_pack
from hustings.interpreter.errors import IllegalAction
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import first_violation, piece_counters, piece_totals

CUBE_POOLS = ("state", "media", "issue")  # 'endorsement' holds markers, not cubes
LAST_TURN = 9


@pytest.fixture(scope="module")
def program():
    return load_pack()


# ---- helpers ---------------------------------------------------------------


def random_index(agent: random.Random, game: Game) -> int:
    return agent.randrange(len(game.legal_actions()))


def play_out(program, seed: int, safe: bool = False) -> Game:
    """Play one whole game with the seeded random agent."""
    game = Game.new(program, seed=seed, safe=safe)
    agent = random.Random(seed)
    while not game.is_terminal():
        game.apply_action(random_index(agent, game))
    return game


# ---- 1. invariants after every action of many random games -----------------


def test_cube_pools_are_the_piece_pools(program):
    # rule: R1.7 — the invariant below sums exactly the pools whose pieces are cubes
    piece_pools = {name for name, spec in program.pools.items() if spec.pieces == "supply"}
    assert piece_pools == set(CUBE_POOLS)
    assert program.pools["endorsement"].pieces is None
    assert program.initial.get("bag_pieces") == "supply"
    # the law the shared invariants derive: cubes move among supply, rest zone, bag, board
    assert piece_counters(program) == ["rest_cubes", "supply"]


# 100 games of the base game with every event in play, and 40 with each optional rule: the
# 1960 rules below (nine turns, the candidate cards) and a sample for the generic
# invariants. The long runs are the soak's, which checks those invariants after every
# action: `hustings soak --games 1000`, with `--option vice_presidents` or
# `--option restricted_positioning` (docs/soak.md).
INVARIANT_RUNS = [({}, 100), ({"vice_presidents": True}, 40),
                  ({"restricted_positioning": True}, 40)]


@pytest.mark.parametrize(("options", "games"), INVARIANT_RUNS,
                         ids=["base-100", "R11.1-vice-presidents-40",
                              "R11.2-restricted-positioning-40"])
def test_invariants_hold_after_every_action_of_random_games(options, games):
    # rule: R1.7 cubes are conserved (counts, not limits); R1.6 each card in one zone;
    # rule: R3.1 nine turns
    check_invariants(load_pack(options=options), range(games))


def check_invariants(program, seeds) -> None:
    """The generic invariants (interpreter/invariants.py: pieces conserved, each card in
    one zone, counters in bounds, real places, a sound frame stack...) after every
    action, plus what is particular to 1960: nine turns and both candidate cards."""
    players = tuple(program.players)
    holders = piece_counters(program)
    candidate_cards = {
        p: {c for c, info in program.cards.items() if info["kind"] == "candidate"
            and info.get("owner") == p}
        for p in players
    }
    assert all(candidate_cards.values()), "each player should have a candidate card"

    total_actions = 0
    for seed in seeds:
        game = Game.new(program, seed=seed, safe=False)
        state = game.state
        assert first_violation(program, state) is None
        assert all(v > 0 for v in piece_totals(program, state, holders).values())
        for p in players:
            assert candidate_cards[p] <= set(state.zones[f"candidate:{p}"])
        agent = random.Random(seed)
        last_turn = state.vars["turn"]
        step = 0
        while not game.is_terminal():
            action = random_index(agent, game)
            label = game.legal_actions()[action]
            game.apply_action(action)
            step += 1
            state = game.state
            where = f"seed {seed}, action {step} ({label!r})"
            problem = first_violation(program, state)
            assert problem is None, f"{problem} at {where}"
            # turns only advance, never past nine
            turn = state.vars["turn"]
            assert last_turn <= turn <= LAST_TURN, f"turn {turn} after {last_turn} at {where}"
            last_turn = turn
        assert state.vars["turn"] == LAST_TURN, f"seed {seed} ended on turn {last_turn}"
        assert game.result() is not None
        total_actions += step
    # the random games really exercised the engine
    assert total_actions > 100 * len(seeds)


NORMAL_PHASES = {"initiative", "activity", "momentum", "strategy"}


def test_turn_six_is_the_debates_and_turn_nine_election_day(program):
    # rule: R3.2 — the phases met at every decision of ten games, turn by turn
    for seed in range(1, 11):
        game = Game.new(program, seed=seed, safe=False)
        agent = random.Random(seed)
        phases: dict[int, set[str]] = {}
        while not game.is_terminal():
            phases.setdefault(game.state.vars["turn"], set()).add(game.state.vars["phase"])
            game.apply_action(random_index(agent, game))
        assert phases.pop(6) == {"debates"}, f"seed {seed}"
        # Election Day may ask nothing; the game ends in it
        assert phases.pop(9, {"election"}) == {"election"}, f"seed {seed}"
        assert (game.state.vars["turn"], game.state.vars["phase"]) == (9, "election")
        assert set(phases) == {1, 2, 3, 4, 5, 7, 8}, f"seed {seed}"
        # every normal turn deals a hand and plays it (a strategy or momentum phase may
        # pass without a question)
        assert all({"initiative", "activity"} <= met <= NORMAL_PHASES
                   for met in phases.values()), f"seed {seed}: {phases}"
        headings = [line for line in game.state.log if line.startswith("== Turn")]
        assert headings[5] == "== Turn 6: the Debates ==" and len(headings) == LAST_TURN
        assert headings[8] == "== Turn 9: Election Day =="


# ---- 2. determinism ---------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_same_seed_and_agent_give_identical_games(program, seed):
    a = play_out(program, seed)
    b = play_out(program, seed)
    assert a.save() == b.save()
    assert a.state.log == b.state.log
    assert a.state.history == b.state.history
    assert a.result() == b.result()


def test_safe_mode_does_not_change_the_game(program):
    assert play_out(program, 3, safe=True).save() == play_out(program, 3, safe=False).save()


def test_different_seeds_give_different_histories(program):
    games = [play_out(program, seed) for seed in range(6)]
    histories = [tuple(g.state.history) for g in games]
    assert len(set(histories)) == len(histories)
    saves = [g.save() for g in games]
    assert len(set(saves)) == len(saves)


def test_the_game_seed_drives_chance(program):
    # Same agent choices (by index), different game seeds: shuffles and draws differ.
    def run(game_seed: int) -> Game:
        game = Game.new(program, seed=game_seed, safe=False)
        agent = random.Random(99)
        while not game.is_terminal():
            game.apply_action(random_index(agent, game))
        return game

    a, b = run(1), run(2)
    assert a.state.zones != b.state.zones or a.state.log != b.state.log
    assert Game.new(program, seed=1).save() != Game.new(program, seed=2).save()


# ---- 3. save/load round trip at every step ----------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_save_load_round_trip_at_every_step(program, seed):
    reference = play_out(program, seed)
    game = Game.new(program, seed=seed, safe=False)
    agent = random.Random(seed)
    step = 0
    while not game.is_terminal():
        text = game.save()
        loaded = Game.load(program, text)
        assert loaded.save() == text, f"round trip differs before action {step}"
        assert loaded.legal_actions() == game.legal_actions()
        assert loaded.current_player() == game.current_player()
        action = random_index(agent, game)
        game.apply_action(action)
        loaded.apply_action(action)
        assert loaded.save() == game.save(), f"copies diverge after action {step}"
        # alternate which object carries the game on
        if step % 2:
            game = loaded
        step += 1
    assert game.is_terminal()
    final = game.save()
    assert Game.load(program, final).save() == final
    assert final == reference.save()
    assert game.result() == reference.result()


# ---- 4. replay ----------------------------------------------------------------


@pytest.mark.parametrize("seed", [4, 5, 6, 8, 9])
def test_replaying_the_history_reproduces_the_final_state(program, seed):
    original = play_out(program, seed)
    history = list(original.state.history)
    assert history and all(type(index) is int for index in history)
    replay = Game.new(program, seed=seed)
    by_label = Game.new(program, seed=seed)
    for index in history:
        replay.apply_action(index)
        by_label.apply_action(by_label.legal_actions()[index])  # the same action, named
    assert replay.is_terminal()
    assert replay.state.history == by_label.state.history == history
    assert replay.save() == by_label.save() == original.save()


# ---- 5. illegal actions -------------------------------------------------------


@pytest.mark.parametrize("safe", [True, False])
def test_illegal_actions_raise_and_change_nothing(program, safe):
    game = Game.new(program, seed=11, safe=safe)
    agent = random.Random(11)
    for _ in range(40):  # also try mid-game, with hands dealt
        game.apply_action(random_index(agent, game))
    assert not game.is_terminal()
    before = game.save()
    n = len(game.legal_actions())
    for bad in ("not a real action", 9999, n, -1, True):
        with pytest.raises(IllegalAction):
            game.apply_action(bad)
        assert game.save() == before, f"illegal action {bad!r} changed the state"
    # the game carries on normally afterwards
    game.apply_action(0)
    assert game.save() != before


def test_num_actions_counts_the_labels_at_every_decision(program):
    agent, game = random.Random(5), Game.new(program, 5, safe=False)
    for _ in range(120):
        assert game.num_actions() == len(game.legal_actions()) > 0
        game.apply_action(random_index(agent, game))


def test_a_fork_plays_on_alone_and_as_the_game_would(program):
    game = Game.new(program, 8, safe=False)
    agent = random.Random(8)
    for _ in range(60):
        game.apply_action(random_index(agent, game))
    before = game.save()
    fork = game.fork()
    assert fork.save() == before
    moves = []
    while not fork.is_terminal():
        moves.append(random_index(agent, fork))
        fork.apply_action(moves[-1])
    assert game.save() == before  # the game is untouched by what its fork did
    for move in moves:
        game.apply_action(move)
    assert game.save() == fork.save()
    assert game.state.log == fork.state.log


def test_no_action_is_legal_once_the_game_is_over(program):
    game = play_out(program, 21)
    assert game.is_terminal()
    assert game.legal_actions() == []
    assert game.num_actions() == 0
    assert game.current_player() is None
    final = game.save()
    for bad in (0, "kennedy plays first", 9999):
        with pytest.raises(IllegalAction):
            game.apply_action(bad)
    assert game.save() == final


# ---- 6. observations hide what a player may not see ----------------------------


def test_observation_hides_the_opponent_hand_and_the_deck(program):
    game = Game.new(program, seed=13, safe=False)
    agent = random.Random(13)
    # play until nixon must act while holding cards
    while not (game.current_player() == "nixon" and game.state.zones["hand:nixon"]):
        game.apply_action(random_index(agent, game))
        assert not game.is_terminal()
    before = game.save()
    obs = game.observation("kennedy")
    zones = obs["zones"]
    assert isinstance(zones["hand:nixon"], int)
    assert zones["hand:nixon"] == len(game.state.zones["hand:nixon"]) > 0
    assert isinstance(zones["hand:kennedy"], list)
    assert zones["hand:kennedy"] == game.state.zones["hand:kennedy"]
    assert isinstance(zones["deck"], int) and zones["deck"] == len(game.state.zones["deck"])
    assert isinstance(zones["strategy:nixon"], int)
    for key in ("rng", "stack", "envs", "history", "forced_cubes", "forced_cards"):
        assert key not in obs
    assert obs["pending"]["player"] == "nixon"
    assert "options" not in obs["pending"]
    assert "payloads" not in obs["pending"]
    # nixon, the player to act, sees his own options but no payloads
    mine = game.observation("nixon")
    assert mine["pending"]["options"] == game.legal_actions()
    assert "payloads" not in mine["pending"]
    assert isinstance(mine["zones"]["hand:nixon"], list)
    assert isinstance(mine["zones"]["hand:kennedy"], int)
    assert isinstance(mine["zones"]["deck"], int)
    # observations are JSON-serialisable and do not change the game
    json.dumps(obs)
    assert game.save() == before


def test_observations_never_leak_hidden_zones_during_a_game(program):
    game = Game.new(program, seed=17, safe=False)
    agent = random.Random(17)
    hidden = {name for name, spec in program.zones.items() if spec.hidden}
    secret = {name for name, spec in program.zones.items() if spec.ordered_secret}
    assert {"hand", "strategy"} <= hidden and "deck" in secret
    while not game.is_terminal():
        for viewer in program.players:
            obs = game.observation(viewer)
            for key, shown in obs["zones"].items():
                name, _, owner = key.partition(":")
                revealed = viewer in game.state.revealed.get(key, [])
                if name in secret or (name in hidden and owner != viewer and not revealed):
                    assert isinstance(shown, int), f"{viewer} sees {key}"
                    assert shown == len(game.state.zones[key])
                else:
                    assert shown == game.state.zones[key]
            pending = obs["pending"]
            if game.current_player() != viewer:
                assert "options" not in pending
        game.apply_action(random_index(agent, game))


# ---- 7. the result -------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5, 6, 7])
def test_result_has_a_winner_and_plausible_totals(program, seed):
    # rule: R10.7-R10.9 — electoral votes, then states won, decide
    game = play_out(program, seed)
    assert game.is_terminal()
    result = game.result()
    assert isinstance(result, dict)
    players = program.players
    assert "winner" in result and "electoral_votes" in result
    votes = result["electoral_votes"]
    states_won = result["states_won"]
    assert set(votes) == set(players) and set(states_won) == set(players)
    assert all(v >= 0 for v in votes.values()) and all(n >= 0 for n in states_won.values())
    total_ev = sum(loc["ev"] for loc in program.locations.values() if "ev" in loc)
    assert total_ev == 537
    assert sum(votes.values()) <= total_ev
    assert sum(states_won.values()) <= len(program.kinds["states"]) == 50
    winner = result["winner"]
    assert winner is None or winner in players
    kennedy, nixon = players
    standing = {p: (votes[p], states_won[p], result["state_support"][p]) for p in players}
    if standing[kennedy] != standing[nixon]:
        assert winner == max(players, key=standing.__getitem__)
    else:
        assert winner is None
    # the votes are those of the states each player holds on the board
    if not game.state.vars["withhold_states"]:
        held = game.state.pools["state"]
        for p in players:
            mine = [loc for loc, (owner, _) in held.items() if owner == p]
            assert votes[p] == sum(program.locations[loc]["ev"] for loc in mine)
            assert states_won[p] == len(mine)


def test_editing_an_observation_does_not_change_the_game(program):
    game = Game.new(program, seed=1, safe=False)
    before = game.save()
    obs = game.observation("kennedy")
    obs["vars"]["turn"] = 99
    obs["counters"]["momentum"]["kennedy"] += 50
    obs["pools"]["state"].clear()
    assert game.save() == before


def test_evaluate_reads_a_pack_function_without_changing_the_game(program):
    game = Game.new(program, seed=4)
    for _ in range(40):
        game.apply_action(0)
    before = game.save()
    player = program.players[0]
    awarded = game.evaluate("awarded", player)
    assert isinstance(awarded, list)
    assert all(where in program.locations for where in awarded)
    assert game.save() == before
    with pytest.raises(KeyError):
        game.evaluate("no_such_function")
    with pytest.raises(TypeError):
        game.evaluate("awarded")


def test_a_card_moved_behind_the_machines_back_is_still_found_in_its_zone():
    # zone_of answers from where a card was last seen, and looks again when it moved
    game = Game.new(load_pack(), seed=3, safe=False)
    m, zones = game.machine, game.state.zones
    card = zones["deck"][-1]
    assert m.zone_of(card) == "deck"
    zones["deck"].remove(card)
    zones["discard"].append(card)  # as a deal or a scenario moves cards: no transfer
    assert m.zone_of(card) == "discard"
    m.transfer(card, "removed", "discard")
    assert m.zone_of(card) == "removed" and card not in zones["discard"]
    zones["removed"].remove(card)
    assert m.zone_of(card) is None
    assert m.fork(game.state).seen_in is not m.seen_in
