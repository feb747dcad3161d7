"""Any pack as a PettingZoo AEC environment, with observations and action masks.

    env = HustingsEnv(load_pack())
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else pick(obs["action_mask"])
        env.step(action)

Agents are the pack's players. Each observation is a dict: `observation`, the fixed-size
vector of encoding.Layout, and `action_mask`, 1 for each legal action; both, and the labels
in `infos`, are built from that agent's `Game.observation` alone. Action i is the
decision's i-th option (its label is `infos[agent]["labels"][i]`). Rewards come at the end:
+1 to the winner, -1/(n-1) to the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ...interpreter.game import Game
from ...interpreter.program import Program
from .encoding import Layout, max_actions, options_seen, returns


class HustingsEnv(AECEnv):
    metadata = {"name": "hustings_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, program: Program, render_mode: str | None = None) -> None:
        super().__init__()
        self.program = program
        self.layout = Layout.of(program)
        self.actions = max_actions(program)
        self.render_mode = render_mode
        self.possible_agents = list(program.players)
        vector = spaces.Box(low=-1e6, high=1e6, shape=(self.layout.size,), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(self.actions,), dtype=np.int8)
        self._observation_spaces = {
            a: spaces.Dict({"observation": vector, "action_mask": mask})
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(self.actions) for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.game = Game.new(self.program, seed=seed, safe=True)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._turn()

    def _turn(self) -> None:
        game = self.game
        assert game is not None
        if game.is_terminal():
            for agent, value in zip(self.possible_agents, returns(game), strict=True):
                self.rewards[agent] = value
                self.terminations[agent] = True
            self.infos = {a: {"result": game.result()} for a in self.agents}
            self.agent_selection = self.agents[0]
            return
        player = game.current_player()
        self.agent_selection = player
        self.infos = {a: {} for a in self.agents}
        # the labels as the deciding player's observation shows them, and no one else's
        self.infos[player] = {"labels": options_seen(game.observation(player))[:self.actions]}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None
        obs = self.game.observation(agent)  # the one source of what the agent is given
        vector = np.asarray(self.layout.encode_observation(obs), dtype=np.float32)
        mask = np.zeros(self.actions, dtype=np.int8)
        mask[:min(self.actions, len(options_seen(obs)))] = 1  # only the decider sees options
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        legal = min(self.actions, self.game.num_actions())
        if action is None or not 0 <= int(action) < legal:
            raise ValueError(f"action {action} is not legal: the mask allows 0 to {legal - 1}")
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.game.apply_action(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._turn()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        # the public log, read through an observation like every other output
        return "\n".join(self.game.observation(self.agent_selection)["log"][-10:])

    def close(self) -> None:
        self.game = None
