"""The game state: every fact of a game in progress, including where the
rules program is paused. It is plain data so it saves to JSON and loads back.
"""

from __future__ import annotations

import json
from operator import itemgetter
from typing import Any


class Frame:
    """One active block of the rules program.

    `env` is shared by all frames of one procedure call; loop frames also
    carry the remaining iteration state.
    """

    __slots__ = ("block", "pc", "env", "call", "var", "items", "index", "cond", "bound")

    def __init__(self, block: int, env: dict, call: bool = False) -> None:
        self.block = block
        self.pc = 0
        self.env = env
        self.call = call
        self.var: str | None = None
        self.items: list | None = None
        self.index = 0
        self.cond: Any = None  # index of the instruction owning a while loop
        self.bound = 0


class GameState:
    """Everything that changes during a game. Tables keyed by names from the pack."""

    def __init__(self) -> None:
        self.rng = 0
        self.vars: dict[str, Any] = {}
        self.counters: dict[str, dict[str, int]] = {}
        self.pools: dict[str, dict[str, Any]] = {}  # [owner, n] or {player: n} by kind
        self.tokens: dict[str, str] = {}
        self.bag: dict[str, int] = {}
        self.zones: dict[str, list[int]] = {}
        self.tracks: dict[str, list[str]] = {}
        self.effects: list[list] = []
        self.prevented: list[int] = []
        self.faces: dict[str, str] = {}
        self.revealed: dict[str, list[str]] = {}
        # What each player has been shown once (`show CARDS to P`): player -> {card id as
        # text: the zone key it was in when shown}. Kept as it was shown: a card that moves
        # later is not followed (its new place may be secret), until the rules show it again.
        self.shown: dict[str, dict[str, str | None]] = {}
        # Lines told to one player (`tell P "..."`): [position in the public log when told,
        # player, text]. They never enter `log`, which every seat reads.
        self.told: list[list] = []
        self.stack: list[Frame] = []
        # The decision the rules wait for: player, prompt, payloads (what each option does)
        # and options (their labels; None until asked for, see `labels`).
        self.pending: dict[str, Any] | None = None
        # What makes the pending decision's labels: the machine that paused, detached from
        # its state (any machine of the program will do; it is forked onto this state to
        # read its own stack).
        self.labeller: Any = None
        self.log: list[str] = []
        self.history: list[int] = []  # the index of the option taken at each decision
        self.result: dict[str, Any] | None = None
        self.forced_cubes: list[str] = []
        self.forced_cards: list[int] = []
        self.forced_rolls: list[int] = []
        self.forced_picks: list = []
        # Lasting reactions: [id, announcement, block, env, duration, uses left or None,
        # names the announcement's values take]; `serial` numbers them.
        self.reactions: list[list] = []
        self.serial = 0
        self.steps = 0
        # The players put out of the game (`eliminate P`), in seat order. Saved only once
        # someone is out, so a game without elimination saves as it always did.
        self.out: list[str] = []

    def labels(self) -> list[str]:
        """The pending decision's labels (none when nothing is pending), made on the
        first request and kept."""
        pending = self.pending
        if pending is None:
            return []
        labels = pending["options"]
        if labels is None:
            labels = pending["options"] = self.labeller.fork(self).labels()
        return labels

    # ---- serialisation -------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        if self.pending is not None:
            self.labels()  # a save holds the labels
        envs: list[dict] = []
        env_ids: dict[int, int] = {}
        frames = []
        for f in self.stack:
            key = id(f.env)
            if key not in env_ids:
                env_ids[key] = len(envs)
                envs.append(f.env)
            frames.append(
                [f.block, f.pc, env_ids[key], f.call, f.var, f.items, f.index, f.cond, f.bound]
            )
        return {
            "rng": self.rng,
            "vars": self.vars,
            "counters": self.counters,
            "pools": self.pools,
            "tokens": self.tokens,
            "bag": self.bag,
            "zones": self.zones,
            "tracks": self.tracks,
            "effects": self.effects,
            "prevented": self.prevented,
            "faces": self.faces,
            "revealed": self.revealed,
            "shown": self.shown,
            "told": self.told,
            "envs": envs,
            "stack": frames,
            "pending": self.pending,
            "log": self.log,
            "history": self.history,
            "result": self.result,
            "forced_cubes": self.forced_cubes,
            "forced_cards": self.forced_cards,
            "forced_rolls": self.forced_rolls,
            "forced_picks": self.forced_picks,
            "reactions": self.reactions,
            "serial": self.serial,
            "steps": self.steps,
            **({"out": self.out} if self.out else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        s = cls()
        for key in (
            "rng", "vars", "counters", "pools", "tokens", "bag", "zones", "tracks",
            "effects", "prevented", "faces", "revealed", "pending", "log", "history",
            "result", "forced_cubes", "forced_cards", "steps",
        ):
            setattr(s, key, data[key])
        for key, empty in _SINCE_REACTIONS.items():
            setattr(s, key, data.get(key, empty()))
        envs = data["envs"]
        s.zones = {k: list(v) for k, v in s.zones.items()}
        for block, pc, env, call, var, items, index, cond, bound in data["stack"]:
            f = Frame(block, envs[env], call)
            f.pc, f.var, f.items, f.index, f.cond, f.bound = pc, var, items, index, cond, bound
            s.stack.append(f)
        return s

    @classmethod
    def from_json(cls, text: str) -> GameState:
        return cls.from_dict(json.loads(text))

    def copy(self) -> GameState:
        return GameState.from_json(self.to_json())


# Saves made before reactions (or before private information) lack these.
_SINCE_REACTIONS = {"forced_rolls": list, "forced_picks": list, "reactions": list, "serial": int,
                    "shown": dict, "told": list, "out": list}


_NESTED = frozenset({list, dict})
_FLAT = _NESTED.isdisjoint  # given the types of a value's items: none is a list or a table
_VALUE = itemgetter(-1)


def copy_value(value: Any) -> Any:
    """An independent copy of a rules value (lists and tables copied, scalars shared).

    Most lists and tables hold only scalars: those are told apart by a scan that runs in
    C (`_FLAT`) and copied whole; the others item by item."""
    cls = value.__class__
    if cls is list:
        if _FLAT(map(type, value)):
            return value.copy()
        return [copy_value(v) if v.__class__ in _NESTED else v for v in value]
    if cls is dict:
        if _FLAT(map(type, value.values())):
            return value.copy()
        return {k: copy_value(v) if v.__class__ in _NESTED else v for k, v in value.items()}
    return value


def copy_pending(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    """The pending decision copied for another state. Payloads whose values are all
    scalars are shared: nothing changes a payload once it is offered."""
    if pending.__class__ is not dict:
        return copy_value(pending)
    mine = dict(pending)
    options = mine.get("options")
    if options.__class__ is list:
        mine["options"] = list(options)
    payloads = mine.get("payloads")
    try:  # a payload is a list ending with its value: ["bind", var, value], ["branch", ...]
        shared = payloads.__class__ is list and _FLAT(map(type, map(_VALUE, payloads)))
    except (TypeError, IndexError, KeyError):  # a save's broken pending: copy it all
        shared = False
    if not shared:
        mine["payloads"] = copy_value(payloads)
    return mine


def clone(state: GameState) -> GameState:
    """A fully independent copy without a JSON round trip (about 15 times faster).

    Nothing of the copy that may change is shared with `state` (the pending decision's
    payloads may be, see copy_pending), so changing either one in place never shows in the
    other: apply_action keeps one as its rollback point, search agents try actions on
    them.
    """
    s = GameState.__new__(GameState)
    s.rng = state.rng
    s.vars = copy_value(state.vars)
    s.counters = {k: dict(v) for k, v in state.counters.items()}
    s.pools = {k: dict(v) for k, v in state.pools.items()}  # entries are replaced, not changed
    s.tokens = dict(state.tokens)
    s.bag = dict(state.bag)
    s.zones = {k: list(v) for k, v in state.zones.items()}
    s.tracks = {k: list(v) for k, v in state.tracks.items()}
    s.effects = [copy_value(e) for e in state.effects]
    s.prevented = list(state.prevented)
    s.faces = dict(state.faces)
    s.revealed = {k: list(v) for k, v in state.revealed.items()}
    s.shown = {k: dict(v) for k, v in state.shown.items()}
    s.told = list(state.told)  # its entries are replaced, never changed
    envs: dict[int, dict] = {}
    s.stack = []
    new_frame = Frame.__new__
    for f in state.stack:
        env = envs.get(id(f.env))
        if env is None:
            env = envs[id(f.env)] = copy_value(f.env)
        g = new_frame(Frame)
        g.block, g.pc, g.env, g.call, g.var = f.block, f.pc, env, f.call, f.var
        g.items = None if f.items is None else copy_value(f.items)
        g.index, g.bound = f.index, f.bound
        g.cond = None if f.cond is None else list(f.cond)  # [block, pc]
        s.stack.append(g)
    s.pending = copy_pending(state.pending)
    s.labeller = state.labeller
    s.log = list(state.log)
    s.history = list(state.history)
    s.result = copy_value(state.result)
    s.forced_cubes = list(state.forced_cubes)
    s.forced_cards = list(state.forced_cards)
    s.forced_rolls = list(state.forced_rolls)
    s.forced_picks = copy_value(state.forced_picks)
    s.reactions = copy_value(state.reactions)
    s.serial = state.serial
    s.steps = state.steps
    s.out = list(state.out)
    return s
