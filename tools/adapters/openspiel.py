"""Any pack as an OpenSpiel game, so OpenSpiel's algorithms run on it.

    program = load_pack()
    name = register(program)            # "hustings_1960"
    game = pyspiel.load_game(name)
    state = game.new_initial_state()   # a chance node: it draws the game's seed

The game is sequential with imperfect information. All of a hustings game's chance comes
from its seed, so the first node is an explicit chance node choosing one of `seeds` seeds
(a game parameter, default 1000) uniformly; after it the game is deterministic given the
players' actions. Action i is the decision's i-th option; the action space is the pack's
`max_actions` (see encoding.max_actions). Returns: +1 the winner, -1/(n-1) the others.
Observations (string and tensor) and action labels are built from what the player sees
(Game.observation) and nothing else; the seed the chance node draws stays in the state.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ...interpreter.game import Game
from ...interpreter.program import Program
from .encoding import Layout, max_actions, observation_text, options_seen, returns

DEFAULT_SEEDS = 1000
MAX_GAME_LENGTH = 20_000  # decisions; the interpreter bounds every loop, this bounds the game


def register(program: Program, short_name: str | None = None) -> str:
    """Register `program` as a pyspiel game; returns the name for pyspiel.load_game."""
    name = short_name or f"hustings_{program.name}".replace(" ", "_")
    players = len(program.players)
    actions = max_actions(program)
    layout = Layout.of(program)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"hustings: {program.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"seeds": DEFAULT_SEEDS},
    )

    class HustingsGame(pyspiel.Game):
        def __init__(self, params=None):
            params = params or {}
            self.seeds = int(params.get("seeds", DEFAULT_SEEDS))
            info = pyspiel.GameInfo(
                num_distinct_actions=actions, max_chance_outcomes=self.seeds,
                num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                max_game_length=MAX_GAME_LENGTH)
            super().__init__(game_type, info, params)
            self.program, self.layout = program, layout

        def new_initial_state(self):
            return HustingsState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return Observer(self.program, self.layout)

    pyspiel.register_game(game_type, HustingsGame)
    return name


class Box:
    """Holds the hustings game of a state. pyspiel clones a Python state by deep-copying its
    attributes; this copies the game state only and shares the compiled program."""

    def __init__(self, program: Program, game: Game | None) -> None:
        self.program, self.game = program, game

    def __deepcopy__(self, memo) -> Box:
        game = self.game
        if game is not None:
            game = game.fork()
        return Box(self.program, game)


class HustingsState(pyspiel.State):
    def __init__(self, game) -> None:
        super().__init__(game)
        self.box = Box(game.program, None)  # no game until the seed is drawn
        self.seeds: int = game.seeds
        self.actions: int = game.num_distinct_actions()

    @property
    def program(self) -> Program:
        return self.box.program

    @property
    def game(self) -> Game | None:
        return self.box.game

    def current_player(self) -> int:
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.program.players.index(self.game.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        assert self.game is not None
        return list(range(min(self.actions, self.game.num_actions())))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(seed, 1.0 / self.seeds) for seed in range(self.seeds)]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self.box.game = Game.new(self.program, seed=int(action), safe=False)
        else:
            self.game.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        assert self.game is not None
        options = []
        if 0 <= player < len(self.program.players):  # the labels its player is shown
            options = options_seen(self.game.observation(self.program.players[player]))
        return options[action] if 0 <= action < len(options) else f"action {action}"

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_terminal()

    def returns(self) -> list[float]:
        if self.game is None:
            return [0.0] * len(self.program.players)
        return returns(self.game)

    def __str__(self) -> str:
        if self.game is None:
            return "before the seed is drawn"
        return "\n".join(self.game.state.log[-5:])


class Observer:
    """OpenSpiel's PyObserver: the player's fixed-size view and its JSON text."""

    def __init__(self, program: Program, layout: Layout) -> None:
        self.program, self.layout = program, layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: HustingsState, player: int) -> None:
        if state.game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.layout.encode(state.game, self.program.players[player])

    def string_from(self, state: HustingsState, player: int) -> str:
        if state.game is None:
            return "before the seed is drawn"
        return observation_text(state.game, self.program.players[player])
