"""The ecosystem adapters pass their framework's own API checks (each skipped with a reason
when its optional extra is not installed)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from hustings.dsl.loading import load_pack
from hustings.interpreter.game import Game
from hustings.tools.adapters.encoding import Layout, max_actions


@pytest.fixture(scope="module")
def program():
    return load_pack()


def test_the_observation_vector_has_one_length_and_hides_the_opponents_hand(program):
    layout = Layout.of(program)
    game = Game.new(program, seed=3, safe=False)
    rng = random.Random(3)
    for _ in range(50):
        game.apply_action(rng.randrange(len(game.legal_actions())))
    me, other = program.players
    vector = layout.encode(game, me)
    assert len(vector) == layout.size
    # swapping the cards the player cannot see leaves their view unchanged
    from hustings.interpreter.determinize import determinize

    shuffled = determinize(game, me, random.Random(1))
    assert shuffled.state.zones != game.state.zones
    assert layout.encode(shuffled, me) == vector
    assert layout.encode(shuffled, other) != layout.encode(game, other)


def test_the_action_space_is_declared_or_found(program):
    assert max_actions(program) == program.agents["max_actions"]
    found = max_actions(dataclasses.replace(program, agents={}))  # fields only
    assert 2 <= found


# api_test recommends a flat array observation and agents named like "player_0". The
# observation is a dict of the vector and its action mask, PettingZoo's own form for
# masked actions (as its classic games), and the agents are the pack's players by name.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.filterwarnings("ignore:We recommend agents to be named:UserWarning")
def test_pettingzoo_api(program):
    pytest.importorskip("pettingzoo", reason="needs `pip install 'hustings[pettingzoo]'`")
    from pettingzoo.test import api_test, seed_test

    from hustings.tools.adapters.pettingzoo import HustingsEnv

    api_test(HustingsEnv(program), num_cycles=400)
    seed_test(lambda: HustingsEnv(program), num_cycles=50)


def test_pettingzoo_plays_a_game_to_its_end_with_masks(program):
    pytest.importorskip("pettingzoo", reason="needs `pip install 'hustings[pettingzoo]'`")
    import numpy as np

    from hustings.tools.adapters.pettingzoo import HustingsEnv

    env = HustingsEnv(program)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    final = {}
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == len(info["labels"])
        env.step(int(rng.choice(legal)))
    assert not env.agents  # everyone left at the end
    assert env.game.is_terminal()
    assert sorted(final.values()) == [-1.0, 1.0]  # the winner +1, the loser -1


def test_openspiel_random_simulation(program):
    pytest.importorskip("pyspiel", reason="needs `pip install 'hustings[openspiel]'`")
    import pyspiel

    from hustings.tools.adapters.openspiel import register

    game = pyspiel.load_game(register(program, "hustings_test_pack"), {"seeds": 50})
    assert game.num_distinct_actions() == program.agents["max_actions"]
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    # a game played through the API ends with zero-sum returns
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            state.apply_action(rng.choice(outcomes)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == pytest.approx(0.0)
    assert sorted(state.returns()) == [-1.0, 1.0]


# ---- one door: what an adapter gives a seat comes from that seat's observation -------------
def seat_outputs(program, game: Game, player: str) -> list:
    """Everything the adapters hand `player`: the vector and the JSON text, and where the
    frameworks are installed, PettingZoo's observation, mask and labels and OpenSpiel's
    tensor, string and action labels."""
    from hustings.tools.adapters.encoding import observation_text

    outputs: list = [Layout.of(program).encode(game, player), observation_text(game, player)]
    try:
        from hustings.tools.adapters.pettingzoo import HustingsEnv
    except ImportError:
        return outputs
    env = HustingsEnv(program)
    env.reset(seed=0)
    env.game = game
    env._turn()
    seen = env.observe(player)
    outputs += [seen["observation"].tolist(), seen["action_mask"].tolist(),
                env.infos[player].get("labels")]
    try:
        import pyspiel
    except ImportError:
        return outputs
    from hustings.tools.adapters.openspiel import register

    name = f"hustings_one_door_{program.name}".replace("-", "_")
    if name not in pyspiel.registered_names():
        register(program, name)
    spiel = pyspiel.load_game(name)
    state = spiel.new_initial_state()
    state.box.game = game
    seat = program.players.index(player)
    actions = range(game.num_actions()) if game.current_player() == player else range(0)
    outputs += [state.observation_tensor(seat), state.observation_string(seat),
                [state.action_to_string(seat, a) for a in actions]]
    return outputs


@pytest.mark.parametrize("pack", ["1960", "guess"])
def test_what_the_adapters_give_a_seat_ignores_what_it_cannot_know(program, pack):
    from pathlib import Path

    from twins import midgame_states, twin

    if pack == "guess":  # ann's guess and bob's answer, the game's two decisions
        program = load_pack(Path(__file__).parent / "packs" / "guess")
        states = [Game.new(program, seed=s, safe=False) for s in range(6)]
        for n, game in enumerate(states[3:]):
            game.apply_action(n)
    else:
        states = midgame_states(program, 6)
    assert len(states) >= 4
    for n, game in enumerate(states):
        for player in program.players:
            other = twin(game, player, n)
            assert seat_outputs(program, other, player) == seat_outputs(program, game, player)
    # and the check can fail: the other seat's view of its own hand does change
    game = states[0]
    me, rival = game.current_player(), next(p for p in program.players
                                            if p != game.current_player())
    other = twin(game, me, 1)
    assert other.state.zones[f"hand:{rival}"] != game.state.zones[f"hand:{rival}"]
    assert seat_outputs(program, other, rival) != seat_outputs(program, game, rival)


def test_the_vector_holds_what_the_player_was_shown(program):
    layout = Layout.of(program)
    game = Game.new(program, seed=3, safe=False)
    me, rival = program.players
    obs = game.observation(me)
    card = game.state.zones[f"hand:{rival}"][0]
    plain = layout.encode_observation(obs)
    told = layout.encode_observation({**obs, "shown": {str(card): f"hand:{rival}",
                                                      "not a card": "deck"}})
    assert len(told) == len(plain) == layout.size
    changed = [i for i, (a, b) in enumerate(zip(plain, told, strict=True)) if a != b]
    assert len(changed) == 1 and told[changed[0]] == 1.0
    zones, cards = len(layout.zones), len(layout.cards)
    start = len(program.players) * (len(layout.counters) + len(layout.places)) + zones
    expected = (start + zones * cards + layout.zones.index(f"hand:{rival}") * cards
                + layout.cards.index(card))
    assert changed == [expected]


def test_pettingzoo_masks_and_labels_come_from_the_seat_observation(program):
    pytest.importorskip("pettingzoo", reason="needs `pip install 'hustings[pettingzoo]'`")
    from hustings.tools.adapters.pettingzoo import HustingsEnv

    env = HustingsEnv(program)
    env.reset(seed=4)
    turn = env.agent_selection
    waiting = next(p for p in program.players if p != turn)
    options = env.game.observation(turn)["pending"]["options"]
    assert env.infos[turn]["labels"] == options[:env.actions]
    assert env.observe(turn)["action_mask"].sum() == min(env.actions, len(options))
    assert env.observe(waiting)["action_mask"].sum() == 0
    assert "labels" not in env.infos[waiting]
