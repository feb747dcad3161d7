"""The game API: a state machine in the manner of OpenSpiel.

    game = Game.new(program, seed=7)
    while not game.is_terminal():
        game.apply_action(agent(game.legal_actions()))
    game.result()

Every action is a human-readable label; the same labels serve the terminal,
logs, replays and scenario files. Chance (bag draws, shuffles) comes from a
seed kept in the state, so a game is fully determined by its seed and actions.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from . import rng
from .errors import IllegalAction, RuleError
from .machine import Machine, build_ops
from .program import Program
from .state import GameState

_OPS_CACHE: dict[int, list] = {}


def ops_for(program: Program) -> list:
    key = id(program)
    ops = _OPS_CACHE.get(key)
    if ops is None:
        ops = _OPS_CACHE[key] = build_ops(program)
    return ops


def initial_state(program: Program, seed: int) -> GameState:
    init = program.initial
    s = GameState()
    s.rng = rng.next_state(seed & rng.MASK)[1]
    s.vars = copy.deepcopy(program.variables)
    s.counters = copy.deepcopy(init["counters"])
    s.pools = copy.deepcopy(init["pools"])
    s.tokens = dict(init["tokens"])
    s.bag = dict(init["bag"])
    s.zones = copy.deepcopy(init["zones"])
    s.tracks = copy.deepcopy(program.tracks)
    return s


class Game:
    def __init__(self, program: Program, state: GameState, safe: bool = True) -> None:
        self.program = program
        self.state = state
        self.safe = safe
        self.machine = Machine(program, state, ops_for(program))

    @classmethod
    def new(cls, program: Program, seed: int = 0, safe: bool = True) -> Game:
        state = initial_state(program, seed)
        game = cls(program, state, safe)
        game.machine.push(program.procedures[program.entry].block, {}, call=True)
        game.machine.run()
        return game

    @classmethod
    def load(cls, program: Program, text: str, safe: bool = True) -> Game:
        return cls(program, GameState.from_json(text), safe)

    def save(self) -> str:
        return self.state.to_json()

    def start(self) -> None:
        """Run the program from where the state stands (after a scenario set it up)."""
        self.machine.run()

    # ---- OpenSpiel-like queries ----------------------------------------
    def is_terminal(self) -> bool:
        return self.state.pending is None and not self.state.stack

    def current_player(self) -> str | None:
        pending = self.state.pending
        return pending["player"] if pending else None

    def legal_actions(self) -> list[str]:
        pending = self.state.pending
        return list(pending["options"]) if pending else []

    def prompt(self) -> str:
        pending = self.state.pending
        return pending["prompt"] if pending else ""

    def remarks(self) -> dict[str, Any]:
        """What the pending decision notes beside its labels (`noting` in the rules): a
        `status` (or None) and one `notes` entry per option (None where it has none).
        Worked out on request from the paused rules; the state is left as it was."""
        pending = self.state.pending
        none: dict[str, Any] = {"status": None, "notes": [None] * len(self.legal_actions())}
        if pending is None or not self.state.stack:
            return none
        f = self.state.stack[-1]
        op = self.machine.ops[f.block][f.pc - 1]
        if not hasattr(op, "remarks"):
            return none
        status, notes = op.remarks(self.machine, f.env, pending["payloads"])
        return {"status": status, "notes": notes}

    def result(self) -> dict[str, Any] | None:
        return self.state.result if self.is_terminal() else None

    # ---- acting --------------------------------------------------------
    def index_of(self, action: str | int) -> int:
        pending = self.state.pending
        if pending is None:
            raise IllegalAction("the game is over: no action is legal")
        options = pending["options"]
        if isinstance(action, int) and not isinstance(action, bool):
            if 0 <= action < len(options):
                return action
            raise IllegalAction(f"no action number {action}: choose 0 to {len(options) - 1}")
        if action in options:
            return options.index(action)
        hint = ", ".join(repr(o) for o in options[:8])
        more = f" and {len(options) - 8} more" if len(options) > 8 else ""
        raise IllegalAction(
            f"{action!r} is not legal now for {pending['player']}; legal: {hint}{more}"
        )

    def apply_action(self, action: str | int) -> None:
        """Apply a legal action; an illegal one raises and changes nothing."""
        index = self.index_of(action)
        snapshot = self.state.to_json() if self.safe else None
        try:
            self.machine.resolve(index)
            self.machine.run()
        except RuleError:
            if snapshot is not None:
                self._restore(snapshot)
            raise

    def _restore(self, snapshot: str) -> None:
        self.state = GameState.from_json(snapshot)
        self.machine = Machine(self.program, self.state, self.machine.ops)

    def evaluate(self, function: str, *args: Any) -> Any:
        """The value of one of the pack's functions on the current state (reads only).

        Tools ask the pack this way what a position is worth or what a board shows,
        so they need to know nothing of the game themselves.
        """
        functions = self.machine.functions
        if function not in functions:
            raise KeyError(f"the pack defines no function {function!r}")
        params, body = functions[function]
        if len(args) != len(params):
            raise TypeError(f"{function} takes {len(params)} arguments, not {len(args)}")
        return body(self.machine, dict(zip(params, args, strict=True)))

    # ---- observations --------------------------------------------------
    def observation(self, player: str) -> dict[str, Any]:
        """What `player` may see: hidden zones of others and deck order are counts only."""
        data = json.loads(self.state.to_json())  # a copy: editing it never touches the game
        for key in ("rng", "forced_cubes", "forced_cards", "envs", "stack", "history"):
            data.pop(key, None)
        zones = {}
        for key, cards in self.state.zones.items():
            name, _, owner = key.partition(":")
            spec = self.program.zones[name]
            visible = not spec.ordered_secret and (
                not spec.hidden or owner == player
                or player in self.state.revealed.get(key, [])
            )
            zones[key] = list(cards) if visible else len(cards)
        data["zones"] = zones
        pending = self.state.pending
        if pending is not None and pending["player"] != player:
            data["pending"] = {"player": pending["player"], "prompt": pending["prompt"]}
        elif pending is not None:
            data["pending"] = {k: v for k, v in pending.items() if k != "payloads"}
            data["pending"].update(self.remarks())
        return data
