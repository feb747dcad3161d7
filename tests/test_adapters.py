"""The ecosystem adapters pass their framework's own API checks (each skipped with a reason
when its optional extra is not installed)."""

from __future__ import annotations

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
    found = max_actions(type(program)(**{**program.__dict__, "agents": {}}))
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
