"""The game API: a state machine in the manner of OpenSpiel.

    game = Game.new(program, seed=7)
    while not game.is_terminal():
        game.apply_action(agent(game))  # a label, or an index below num_actions()
    game.result()

Every action has a human-readable label, made when it is asked for (agents that
play by index never need one); the same labels serve the terminal, logs,
replays and scenario files; the history keeps the index taken at each decision.
Chance (bag draws, shuffles) comes from a seed kept in the state, so a game is
fully determined by its seed and actions.
"""

from __future__ import annotations

import json
from typing import Any

from . import rng
from .budget import Budget
from .errors import IllegalAction, RuleError, SaveError
from .invariants import first_violation
from .machine import Machine, build_ops
from .narration import CAUSE
from .program import Program
from .state import GameState, clone, copy_value
from .teams import same_team


def ops_for(program: Program) -> list:
    """The program's ops, built once while the program lives."""
    return program.once("ops", build_ops)


def prepare(program: Program) -> None:
    """Compile all of the program now: its ops, functions and every block's segments
    (a game otherwise compiles each block, each op written inline and each expression's
    function as it first runs). Processes forked after it share the compiled code."""
    from .ops import built
    from .unit import unit_for

    ops = ops_for(program)
    for block, row in enumerate(ops):
        for pc in range(len(row)):
            built(ops, block, pc)
    unit = unit_for(program)
    unit.compile_stubs()  # before the segments: two compiles held in memory one at a time
    Machine(program, initial_state(program, 0), ops).segments.write_all()
    unit.compile_stubs()


def initial_state(program: Program, seed: int) -> GameState:
    init = program.initial
    s = GameState()
    s.rng = rng.next_state(seed & rng.MASK)[1]
    # plain data (lists, tables, scalars): copied as such, not by copy.deepcopy's walk
    s.vars = copy_value(program.variables)
    s.counters = copy_value(init["counters"])
    s.pools = copy_value(init["pools"])
    s.tokens = dict(init["tokens"])
    s.bag = dict(init["bag"])
    s.zones = copy_value(init["zones"])
    s.tracks = copy_value(program.tracks)
    return s


def pack_id(program: Program) -> dict[str, Any]:
    return {"name": program.name, "version": program.version}


def _refuse_constant(name: str) -> Any:
    raise SaveError(f"malformed save: {name} is not a number of a game")


def _refuse_float(text: str) -> Any:
    raise SaveError(f"malformed save: {text} is not an integer (a game holds no fractions)")


def parse_save(text: str) -> dict[str, Any]:
    """The save's JSON as a dict with a matching format version, or SaveError."""
    from ..schemas.save import FORMAT_VERSION, MAX_SAVE_CHARS  # the save model: saves only

    if not isinstance(text, str):
        raise SaveError(f"a save is JSON text, not {type(text).__name__}")
    if len(text) > MAX_SAVE_CHARS:
        raise SaveError(f"the save is {len(text):,} characters; at most {MAX_SAVE_CHARS:,}")
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_refuse_float)
    except json.JSONDecodeError as e:
        raise SaveError(f"the save is not JSON: {e}") from None
    except RecursionError:
        raise SaveError("the save nests too deeply") from None
    if not isinstance(data, dict):
        raise SaveError("the save is not a JSON object")
    version = data.get("format_version")
    if type(version) is not int:
        raise SaveError(f"the save names no format_version (this version reads format "
                        f"{FORMAT_VERSION})")
    if version != FORMAT_VERSION:
        age = "an older" if version < FORMAT_VERSION else "a newer"
        raise SaveError(f"the save is in {age} format ({version}); this version of hustings "
                        f"reads format {FORMAT_VERSION} only")
    return data


def first_error(e: Any) -> str:
    """The first problem of a pydantic ValidationError, as `where: what`."""
    err = e.errors(include_url=False)[0]
    where = ".".join(str(part) for part in err["loc"]) or "the save"
    return f"{where}: {err['msg']}"


class Game:
    def __init__(self, program: Program, state: GameState, safe: bool = True,
                 checked: bool = False, budget: Budget | None = None) -> None:
        self.program = program
        self.state = state
        self.safe = safe
        self.budget = budget  # limits of one action (interpreter/budget.py; None: defaults)
        # checked: every action must leave a state that passes the invariants (a game
        # loaded from an untrusted save, whose variables no schema can type)
        self.checked = checked
        self.machine = Machine(program, state, ops_for(program), budget)

    @classmethod
    def new(cls, program: Program, seed: int = 0, safe: bool = True,
            budget: Budget | None = None, narrate: bool = True) -> Game:
        """A new game. `narrate=False`: a game nobody reads (a simulation, a benchmark):
        the same game, decision for decision, without the engine's narration in its log
        (the rules' own `say` lines stay)."""
        state = initial_state(program, seed)
        game = cls(program, state, safe, budget=budget)
        game.machine.narrating = narrate
        game.machine.push(program.procedures[program.entry].block, {}, call=True)
        game.machine.run()
        return game

    @classmethod
    def load(cls, program: Program, text: str, safe: bool = True,
             budget: Budget | None = None) -> Game:
        """A game from `save()`'s text, or SaveError naming the first thing wrong.

        Checked in order: the JSON itself, the format version, the pack, the shape
        (schemas/save.py), then the meaning against this pack (interpreter/invariants.py),
        including that the pending decision is the one the rules offer at that point.
        Nothing is kept of a refused save.
        """
        from pydantic import ValidationError  # saves only: play need not import it

        from ..schemas.save import SaveFile

        data = parse_save(text)
        try:
            SaveFile.model_validate(data)
        except ValidationError as e:
            raise SaveError(f"malformed save: {first_error(e)}") from None
        if data["pack"]["name"] != program.name:
            raise SaveError(f"this save is a game of pack {data['pack']['name']!r}, "
                            f"not of {program.name!r}")
        try:
            state = GameState.from_dict(data)
        except IndexError:
            raise SaveError("malformed save: a frame names an environment that does not exist") \
                from None
        problem = first_violation(program, state, ops_for(program))
        if problem:
            raise SaveError(f"impossible save: {problem}")
        return cls(program, state, safe, checked=safe, budget=budget)

    def save(self) -> str:
        from ..schemas.save import FORMAT_VERSION

        data = self.state.to_dict()
        data["format_version"] = FORMAT_VERSION
        data["pack"] = pack_id(self.program)
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

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
        """The labels of the legal actions (made now if not yet: see num_actions)."""
        return list(self.state.labels())

    def action_keys(self) -> list[str]:
        """The legal actions' key labels: each label with ids where it shows display names
        ("ann plays first" for "Ann plays first"), the names scenarios and older
        sessions give. A decision whose labels were made as it was offered (they could draw
        chance) has its shown labels only."""
        op = self._paused_op()
        if not getattr(op, "lazy", False):
            return self.legal_actions()
        return self.machine.labeller.fork(self.state).labels(keys=True)

    def num_actions(self) -> int:
        """How many actions are legal: agents that play by index need no labels."""
        pending = self.state.pending
        return len(pending["payloads"]) if pending else 0

    def prompt(self) -> str:
        pending = self.state.pending
        return pending["prompt"] if pending else ""

    def question(self) -> str | None:
        """The pending decision's question (`asking` in the rules), or None when the rules
        ask none: its prompt is then only the chosen name, or `choice` for a menu."""
        op = self._paused_op()
        asks = op is not None and getattr(op, "question", None) is not None
        return self.state.pending["prompt"] if asks else None

    def remarks(self) -> dict[str, Any]:
        """What the pending decision notes beside its labels (`noting` in the rules): a
        `status` (or None) and one `notes` entry per option (None where it has none).
        Worked out on request from the paused rules; the state is left as it was."""
        op = self._paused_op()
        if not hasattr(op, "remarks"):  # None too: nothing is pending
            return {"status": None, "notes": [None] * self.num_actions()}
        status, notes = op.remarks(self.machine, self.state.stack[-1].env,
                                   self.state.pending["payloads"])
        texts = self.machine.texts  # a remark without parts, in the game's language
        if texts:
            status = texts.get(status, status) if status else status
            notes = [texts.get(n, n) if n else n for n in notes]
        return {"status": status, "notes": notes}

    def _paused_op(self) -> Any:
        """The decision the rules are paused at (the instruction before the top frame's
        pc), or None when nothing is pending."""
        if self.state.pending is None or not self.state.stack:
            return None
        f = self.state.stack[-1]
        return self.machine.ops[f.block][f.pc - 1]

    def result(self) -> dict[str, Any] | None:
        return self.state.result if self.is_terminal() else None

    # ---- acting --------------------------------------------------------
    def index_of(self, action: str | int) -> int:
        pending = self.state.pending
        if pending is None:
            raise IllegalAction("the game is over: no action is legal")
        if action.__class__ is int or (isinstance(action, int) and not isinstance(action, bool)):
            n = len(pending["payloads"])
            if 0 <= action < n:
                return action
            raise IllegalAction(f"no action number {action}: choose 0 to {n - 1}")
        options = self.state.labels()
        if action in options:
            return options.index(action)
        keys = self.action_keys() if isinstance(action, str) else []
        if action in keys:
            return keys.index(action)
        hint = ", ".join(repr(o) for o in options[:8])
        more = f" and {len(options) - 8} more" if len(options) > 8 else ""
        raise IllegalAction(
            f"{action!r} is not legal now for {pending['player']}; legal: {hint}{more}"
        )

    def apply_action(self, action: str | int) -> None:
        """Apply a legal action; an illegal one raises and changes nothing.

        In safe mode any exception raised while the action runs (a RuleError, or a
        bug such as ZeroDivisionError, or KeyboardInterrupt) puts the state back
        exactly as it was and then propagates unchanged, so callers tell a content
        error from a crash by its class. A checked game (loaded from a save) also
        refuses, with a RuleError, an action that would leave an impossible state.
        """
        index = self.index_of(action)
        snapshot = clone(self.state) if self.safe else None
        try:
            self.machine.resolve(index)
            self.machine.run()
            if self.checked:
                problem = first_violation(self.program, self.state)
                if problem:
                    raise RuleError(f"the action would leave an impossible state: {problem}")
        except BaseException:
            if snapshot is not None:
                self._restore(snapshot)
            raise

    def fork(self, safe: bool = False, narrate: bool | None = None) -> Game:
        """An independent copy of the game to try actions on (search agents): nothing is
        shared with this one but the program. `narrate=False`: a look-ahead nobody reads
        (None: as this game)."""
        game = Game.__new__(Game)
        game.program, game.budget, game.safe, game.checked = self.program, self.budget, safe, False
        game.state = clone(self.state)
        game.machine = self.machine.fork(game.state)
        if narrate is not None:
            game.machine.narrating = narrate
        return game

    def _restore(self, snapshot: GameState) -> None:
        self.state = snapshot
        self.machine = Machine(self.program, self.state, self.machine.ops, self.budget,
                               narrating=self.machine.narrating)

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

    # ---- observations ----------------------------------------------------
    def narration(self, player: str | None) -> list[str]:
        """The log lines `player` may read, in order: the public log with the lines told to
        that player (`tell`) in their places. None, a spectator, reads the public log only."""
        log = self.state.log
        told = [t for t in self.state.told if t[1] == player] if player is not None else ()
        if not told:
            return list(log)
        lines: list[str] = []
        done = 0
        for at, _, text in told:  # told in order: their positions never go back
            lines += log[done:at]
            lines.append(text)
            done = at
        lines += log[done:]
        return lines

    def observation(self, player: str) -> dict[str, Any]:
        """What `player` may see; everything a seat receives is built from it.

        Hidden zones of others and deck order are counts only; `log` is the player's own
        narration; `shown` is what the rules showed the player once ({card id as text: the
        zone key it was in then}). Never in it: the seed and generator state, the paused
        program's frames and variables (they may hold what another player chose or drew),
        forced draws, another player's pending options, lines told to others, what others
        were shown. Public by the rules: variables, counters, pools, tokens, the bag,
        tracks, faces, lasting effects, prevented cards, reveals and the result, so a pack
        keeps a secret out of those (docs/dsl.md, "What each player knows")."""
        data = json.loads(self.state.to_json())  # a copy: editing it never touches the game
        for key in ("rng", "forced_cubes", "forced_cards", "forced_rolls", "forced_picks",
                    "envs", "stack", "history", "serial", "told"):
            data.pop(key, None)
        data["log"] = self.narration(player)
        data["shown"] = data["shown"].get(player, {})
        # a lasting reaction's variables may hold what its player saw: show what it is only
        data["reactions"] = [{"announcement": r[1], "card": r[3].get(CAUSE), "lasts": r[4],
                              "uses": r[5]} for r in self.state.reactions]
        zones = {}
        for key, cards in self.state.zones.items():
            visible = sees(self.program, self.state, player, key)
            zones[key] = list(cards) if visible else len(cards)
        data["zones"] = zones
        pending = self.state.pending
        if pending is not None and pending["player"] != player:
            data["pending"] = {"player": pending["player"], "prompt": pending["prompt"]}
        elif pending is not None:
            data["pending"] = {k: v for k, v in pending.items() if k != "payloads"}
            data["pending"].update(self.remarks())
        return data


def sees(program: Program, state: GameState, player: str, key: str) -> bool:
    """Whether `player` sees the cards of zone `key`: not a deck's order, nor another
    player's hidden zone unless it was revealed to them or it is `shown_to_team` and its
    owner is their teammate."""
    name, _, owner = key.partition(":")
    spec = program.zones[name]
    return not spec.ordered_secret and (
        not spec.hidden or owner == player or player in state.revealed.get(key, ())
        or (spec.shown_to_team and same_team(program, owner, player)))
