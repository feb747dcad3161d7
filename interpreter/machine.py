"""The machine that runs a compiled rules program against a game state.

The program is a set of blocks of instructions. The machine keeps an explicit
stack of frames in the state (never the Python stack), so it can pause at any
decision, be saved to JSON, and resume later exactly where it stopped.
"""

from __future__ import annotations

import time
from typing import Any

from . import narration, rng
from .blocks import marked, segments_for
from .budget import DEFAULT, MAX_TEXT, Budget, too_big
from .errors import RuleError, in_plain_words
from .ops import REACT, REACTION_ID, built
from .program import Program
from .state import Frame, GameState
from .unit import build, building

# Units of work between looks at the clock.
_CHUNK = 1024
# Errors a broken program can raise from Python; each becomes a RuleError at its position.
_CONTENT_FAULTS = (KeyError, TypeError, ValueError, IndexError, AttributeError,
                   ZeroDivisionError, OverflowError, RecursionError, MemoryError)


_NONE: dict[str, str] = {}  # no translation (never written to)


class Labeller:
    """What a paused state keeps to make its labels (GameState.labeller): a new machine
    on it. Were it the machine that paused, state and machine would hold each other, and
    every copy a search tries and drops would wait for the garbage collector instead of
    going at once."""

    __slots__ = ("program", "ops", "budget")

    def __init__(self, program: Program, ops: list[list[Any]], budget: Budget) -> None:
        self.program, self.ops, self.budget = program, ops, budget

    def fork(self, state: GameState) -> Machine:
        return Machine(self.program, state, self.ops, self.budget, labeller=self)


class Machine:
    def __init__(self, program: Program, state: GameState, ops: list[list[Any]],
                 budget: Budget | None = None, log_total: int | None = None,
                 labeller: Labeller | None = None, narrating: bool = True) -> None:
        self.p = program
        self.s = state
        self.ops = ops
        self.budget = budget or DEFAULT
        # What the current action has spent (reset by `run`), and the log's size so far.
        self.work = 0
        self.work_limit = self.budget.work
        self.tick_at = self.work_limit  # when compiled code next looks at the budget
        self.deadline = 0.0
        self.log_lines = 0
        self.log_chars = 0
        if log_total is None:  # told lines count towards the log's limit too
            log_total = sum(map(len, state.log)) + sum(len(t[2]) for t in state.told)
        self.log_total = log_total
        known = program.once("known", lambda p: Known(p, ops))
        self.players, self.opponents, self.pieces = known.players, known.opponents, known.pieces
        self.lows, self.highs = known.lows, known.highs
        self.shared = program.shared_tracks
        self.stacking, self.ranks = known.stacking, known.ranks
        self.functions, self.segments = known.functions, known.segments
        self.seen_in: dict[int, str] = {}  # card -> the zone it was last seen in (zone_of)
        # What texts show for an id (the pack's display names; none while key labels are
        # made), the run of support narrated last, and a secret choice not yet revealed.
        self.names: dict[str, str] = program.names
        # What a text without parts shows (a label, a question, a `say`): in a game shown
        # in another language, the catalog's words (interpreter/translation.py), else itself.
        self.texts: dict[str, str] = program.names if program.catalog is not None else _NONE
        self.support_run: tuple | None = None
        self.secret: list | None = None
        self.labeller = labeller or Labeller(program, ops, self.budget)
        # False for a game nobody reads (a search's look-ahead, a simulation): the rules
        # run the same, only the engine's narration of decisions and changes is not made
        self.narrating = narrating

    def fork(self, state: GameState) -> Machine:
        """The same machine on another state (a copy of this one's, with the same log).
        Made by __init__ like any other, so every machine has its attributes in one order
        (Python runs code reading them fastest so)."""
        m = Machine(self.p, state, self.ops, self.budget, self.log_total, self.labeller,
                    self.narrating)
        m.seen_in = dict(self.seen_in)  # a guess only: a wrong one is found out
        return m

    # ---- running -------------------------------------------------------
    def run(self) -> None:
        """Execute until a decision is pending or the program ends: the top frame's
        segments (blocks.py) one after another, each running until an instruction
        pushes, pops or asks a decision."""
        s = self.s
        stack = s.stack
        segments = self.segments
        table = segments.table
        self.work = self.log_lines = self.log_chars = 0
        budget = self.budget
        self.work_limit = limit = budget.work
        self.tick_at = _CHUNK if _CHUNK < limit else limit
        self.deadline = 0.0  # the clock starts at the first look (most actions never look)
        while s.pending is None and stack:
            f = stack[-1]
            try:
                pc = f.pc
                row = table[f.block]
                if pc < len(row):
                    segment = row[pc]
                    if segment is None:
                        segment = segments.at(f.block, pc)
                    segment(self, f)
                elif f.items is None and f.cond is None and not f.bound:
                    stack.pop()  # a block that is no loop's pass is done (as _end_block)
                else:
                    self._end_block(f)
            except (RuleError, *_CONTENT_FAULTS) as e:
                if isinstance(e, RuleError) and e.where:
                    raise
                raise self.fault(e, f) from None
        if self.secret is not None:
            narration.reveal(self, self.secret)
            self.secret = None
        s.steps += 1

    def fault(self, e: Exception, f: Frame) -> RuleError:
        """An error raised by the instruction `f` is at, as a RuleError at its position (a
        Python error from broken content said in the language's words, see in_plain_words)."""
        text = str(e) if isinstance(e, RuleError) else in_plain_words(e)
        at = marked(self.segments.unit, e)
        positions = self.p.positions
        if at is not None and 0 <= at[0] < len(positions) and 0 <= at[1] < len(positions[at[0]]):
            return RuleError(text, positions[at[0]][at[1]])
        return RuleError(text, self.position(f))

    def position(self, f: Frame) -> str:
        positions = self.p.positions
        if 0 <= f.block < len(positions) and 0 < f.pc <= len(positions[f.block]):
            return positions[f.block][f.pc - 1]
        return ""

    # ---- the budget ----------------------------------------------------
    def tick(self) -> None:
        """Every _CHUNK units of work: stop a runaway past its work or its time."""
        self.charge(0)
        now = time.perf_counter()
        if not self.deadline:
            self.deadline = now + self.budget.seconds
        elif now > self.deadline:
            raise RuleError(f"the rules ran longer than {self.budget.seconds:g} s "
                            "without asking for a decision")
        self.tick_at = min(self.work + _CHUNK, self.work_limit)

    def charge(self, units: int) -> None:
        """Spend work units; past the action's budget the rules are stopped."""
        self.work += units
        if self.work > self.work_limit:
            raise RuleError(f"the rules did more than {self.budget.work:,} units of work "
                            "without asking for a decision")

    def say(self, text: str) -> None:
        """Add a line to the log, within the log's budget."""
        self._spend_log(text)
        self.s.log.append(text)

    def resay(self, text: str) -> None:
        """Put `text` in place of the log's last line (a run of changes told as one line),
        within the log's budget: what it adds to the old line is charged."""
        old = self.s.log[-1]
        self._spend_log(text[len(old):] if text.startswith(old) else text, lines=0)
        self.s.log[-1] = text

    def tell(self, player: str, text: str, at: int | None = None) -> None:
        """Tell one player a line, within the log's budget. It is kept beside the public
        log, at the place it was told (or the log line `at` it stands for), and never in
        it: every seat reads the log."""
        self._spend_log(text)
        self.s.told.append([len(self.s.log) if at is None else at, player, text])

    def _spend_log(self, text: str, lines: int = 1) -> None:
        n = len(text)
        b = self.budget
        self.log_lines += lines
        self.log_chars += n
        self.log_total += n
        if self.log_lines > b.log_lines:
            raise RuleError(f"one action wrote more than {b.log_lines:,} log lines")
        if self.log_chars > b.log_chars or self.log_total > b.log_total_chars:
            raise RuleError(f"the log grew past its limit ({b.log_chars:,} characters an "
                            f"action, {b.log_total_chars:,} in all)")

    def _end_block(self, f: Frame) -> None:
        if f.items is not None:
            f.index += 1
            if f.index < len(f.items):
                f.env[f.var] = f.items[f.index]
                f.pc = 0
                return
        elif f.cond is not None:
            block, pc = f.cond
            if built(self.ops, block, pc).cond(self, f.env):
                f.index += 1
                if f.index >= f.bound:
                    raise RuleError("a while loop ran past its bound", self.p.positions[block][pc])
                f.pc = 0
                return
        elif f.bound:
            f.index += 1
            if f.index < f.bound:
                f.pc = 0
                return
        self.s.stack.pop()

    def push(self, block: int, env: dict, call: bool = False) -> Frame:
        stack = self.s.stack
        if len(stack) >= self.budget.depth:
            raise RuleError("the rules nested too deeply")
        f = Frame(block, env, call)
        stack.append(f)
        return f

    def stop(self) -> None:
        """Leave the current procedure."""
        stack = self.s.stack
        while stack:
            f = stack.pop()
            if f.call:
                return

    # ---- announcements -------------------------------------------------
    def announce(self, name: str, values: dict, f: Frame) -> None:
        """Run the reactions to an announcement: the rules' own in the order they were
        loaded (pack, then mods), then lasting ones in the order they started. Counted
        durations are counted down after the reactions are gathered, so an effect
        lasting for N announcements still reacts to the Nth."""
        s = self.s
        todo = [[block, dict(values)] for block in self.p.reactions.get(name, ())]
        if s.reactions:
            params = self.p.announcements[name]
            for rid, said, block, env, _, _, names in s.reactions:
                if said == name:
                    mine = dict(env)
                    mine.update(zip(names, [values[k] for k in params], strict=True))
                    mine[REACTION_ID] = rid
                    todo.append([block, mine])
        self.count_down(name)
        if todo:
            self.charge(len(todo))
            loop = self.push(self.p.dispatch_block, f.env)
            loop.var, loop.items = REACT, todo
            f.env[REACT] = todo[0]

    def count_down(self, name: str) -> None:
        """One more announcement of `name`: effects and reactions lasting a number of them
        lose one, and end at zero."""
        s = self.s
        for table in (s.effects, s.reactions):
            if not table:
                continue
            at = 3 if table is s.effects else 4
            for e in table:
                if e[at].__class__ is list and e[at][0] == name:
                    break
            else:
                continue
            kept = []
            for e in table:
                d = e[at]
                if d.__class__ is list and d[0] == name:
                    d[1] -= 1
                    if d[1] <= 0:
                        continue
                kept.append(e)
            table[:] = kept

    # ---- decisions -----------------------------------------------------
    def decide(self, player: str, prompt: str, payloads: list[list],
               labels: list[str] | None = None) -> None:
        """Pause for `player` to pick one of the options (what each does: `payloads`).
        Their labels, unless given, are made when asked for (`labels`), from the paused
        instruction: agents playing by index never need them."""
        s = self.s
        if player not in self.players or s.result is not None or player in s.out:
            self.cannot_ask(player)
        names = self.texts  # a text without parts, shown in the game's language
        prompt = names.get(prompt, prompt)
        if labels is not None:
            labels = numbered([names.get(label, label) for label in labels])
        s.pending = {"player": player, "prompt": prompt, "options": labels,
                     "payloads": payloads}
        s.labeller = self.labeller

    def cannot_ask(self, player: Any) -> None:
        """Why the rules may not pause here: only a player decides, and nobody once the
        result is written (the game is over but for its last words)."""
        if self.s.result is not None:
            raise RuleError("a question after the result was recorded: record the result "
                            "last, then `finish` (or stop) the game")
        if player in self.s.out:
            raise RuleError(f"{player} is out of the game (eliminated) and decides nothing: "
                            "ask only the players in (players_in(), is_out(P))")
        raise RuleError(f"only a player decides, and {player!r:.80} is not one")

    def labels(self, keys: bool = False) -> list[str]:
        """The labels of the pending decision, made by its paused instruction (its
        variables left exactly as they were); an error is positioned at it. `keys`: the
        labels with ids in place of display names (what scenarios and older saves name)."""
        s = self.s
        f = s.stack[-1]
        if keys:
            self.names = self.texts = {}
        try:
            labels = self.ops[f.block][f.pc - 1].labels(self, f.env, s.pending["payloads"])
        except (RuleError, *_CONTENT_FAULTS) as e:
            if isinstance(e, RuleError) and e.where:
                raise
            raise self.fault(e, f) from None
        names = self.texts
        return numbered([names.get(label, label) for label in labels])

    def resolve(self, index: int) -> None:
        """Carry out option `index` of the pending decision (already validated)."""
        s = self.s
        pending = s.pending
        assert pending is not None
        if self.narrating:
            self.narrate(pending, index)
        s.pending = None
        s.history.append(index)
        self.apply_payload(pending["payloads"][index])

    def narrate(self, pending: dict, index: int) -> None:
        """Tell the option taken, in the log, before what it does."""
        payload = pending["payloads"][index]
        f = self.s.stack[-1]
        labels = pending["options"]
        if labels is not None:
            label = labels[index]
        else:  # the one label, made as labels() would make it
            label = self.ops[f.block][f.pc - 1].labels(self, f.env, [payload])[0]
            label = self.texts.get(label, label)
        value = payload[2] if payload[0] == "bind" else payload[3]
        self.secret = narration.decision(self, pending["player"], label, f.env, value)

    def apply_payload(self, payload: list) -> None:
        f = self.s.stack[-1]
        if payload[0] == "bind":
            f.env[payload[1]] = payload[2]
        else:  # ["branch", block, var, value]
            _, block, var, value = payload
            env = f.env
            if var is not None:
                env[var] = value
            self.push(block, env)

    # ---- chance --------------------------------------------------------
    def roll(self, sides: int) -> int:
        """A die of `sides` faces (1 to sides); a scenario may force the outcomes."""
        if sides.__class__ is not int or not 1 <= sides <= MAX_SIDES:
            raise RuleError(f"a die has 1 to {MAX_SIDES:,} sides, not {sides!r}")
        forced = self.s.forced_rolls
        if forced:
            value = forced.pop(0)
            if not 1 <= value <= sides:
                raise RuleError(f"forced roll of {value}, but the die has {sides} sides")
            return value
        return self.random_below(sides) + 1

    def pick(self, items: list):
        """One item of a list at random (none from an empty list); a scenario may force it."""
        if not items:
            return None
        forced = self.s.forced_picks
        if forced:
            value = forced.pop(0)
            if value not in items:
                raise RuleError(f"forced pick of {value!r}, which is not among the items")
            return value
        return items[self.random_below(len(items))]

    def random_below(self, n: int) -> int:
        self.s.rng, value = rng.below(self.s.rng, n)
        return value

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.random_below(i + 1)
            items[i], items[j] = items[j], items[i]

    def draw_cube(self) -> str | None:
        s = self.s
        bag = s.bag
        if s.forced_cubes:
            colour = s.forced_cubes.pop(0)
            if bag.get(colour, 0) <= 0:
                raise RuleError(f"forced draw of a {colour} cube, but the bag holds none")
        else:
            total = sum(bag.values())
            if total == 0:
                return None
            r = self.random_below(total)
            for colour in self.p.players:
                r -= bag.get(colour, 0)
                if r < 0:
                    break
        bag[colour] -= 1
        if self.pieces:
            s.counters[self.pieces][colour] += 1
        return colour

    # ---- support -------------------------------------------------------
    # A place's entry in a pool ([owner, n], or {player: n} in a stacking pool) is
    # replaced, never changed in place: copies of the state share the entries (clone).
    def place(self, pool: str, who: str, where: str, n: int) -> None:
        """Gain n support. Exclusive pools: opposing pieces are removed first, one for one;
        stacking pools: the pieces join whatever is there."""
        if n <= 0:
            return
        if pool in self.stacking:
            self._stack(pool, who, where, n)
            return
        held = self.s.pools[pool]
        pieces = self.p.pools[pool].pieces
        counters = self.s.counters
        here = held.get(where)
        opposed = here[1] if here is not None and here[0] != who else 0  # removed first
        if pieces and n > opposed:  # before anything changes: the pieces must be there
            self._enough(pieces, who, n - opposed)
        if opposed:
            k = min(n, opposed)
            n -= k
            if pieces:
                counters[pieces][here[0]] += k
            if opposed == k:
                del held[where]
                here = None
            else:
                held[where] = here = [here[0], opposed - k]
        if n > 0:
            if pieces:
                counters[pieces][who] -= n
            total = n if here is None else here[1] + n
            if too_big(total):
                raise RuleError(f"{self.p.pools[pool].name} at {where} would pass the 64-bit limit")
            held[where] = [who, total]
            if pieces and too_big(counters[pieces][who]):
                raise RuleError(f"{pieces} of {who} would pass the 64-bit limit")

    def _stack(self, pool: str, who: str, where: str, n: int) -> None:
        held = self.s.pools[pool]
        here = held.get(where)
        total = (here.get(who, 0) if here else 0) + n
        if too_big(total):
            raise RuleError(f"{self.p.pools[pool].name} at {where} would pass the 64-bit limit")
        pieces = self.p.pools[pool].pieces
        if pieces:
            counters = self.s.counters[pieces]
            if too_big(counters[who] - n):
                raise RuleError(f"{pieces} of {who} would pass the 64-bit limit")
            self._enough(pieces, who, n)
            counters[who] -= n
        mine = {} if here is None else dict(here)
        mine[who] = total
        held[where] = mine

    def _enough(self, pieces: str, who: str, n: int) -> None:
        """Placing n of `who`'s pieces may not take their counter below its least value
        (an unsigned counter: 0), or the state would hold pieces that are not there."""
        low = self.lows.get(pieces)
        have = self.s.counters[pieces][who]
        if low is not None and have - n < min(low, have):
            raise RuleError(f"{who} has {have} {pieces}: too few to place {n} "
                            f"({pieces} never goes below {low})")

    def remove(self, pool: str, who: str, where: str, n: int) -> int:
        """Lose up to n support; never more than is there. Returns how many went."""
        if pool in self.stacking:
            return self._unstack(pool, who, where, n)
        held = self.s.pools[pool]
        here = held.get(where)
        if here is None or here[0] != who or n <= 0:
            return 0
        k = min(n, here[1])
        pieces = self.p.pools[pool].pieces
        if pieces:
            self.s.counters[pieces][who] += k
        if here[1] == k:
            del held[where]
        else:
            held[where] = [who, here[1] - k]
        return k

    def _unstack(self, pool: str, who: str, where: str, n: int) -> int:
        held = self.s.pools[pool]
        here = held.get(where)
        have = here.get(who, 0) if here else 0
        if have <= 0 or n <= 0:
            return 0
        k = min(n, have)
        mine = dict(here)
        if k == have:
            del mine[who]
        else:
            mine[who] = have - k
        if mine:
            held[where] = mine
        else:
            del held[where]
        pieces = self.p.pools[pool].pieces
        if pieces:
            self.s.counters[pieces][who] += k
        return k

    # ---- cards ---------------------------------------------------------
    def zone_of(self, card: int) -> str | None:
        """The zone holding a card. A card is in one zone at most (every way the rules,
        a scenario or a save put one somewhere keeps it so), so the zone it was last
        seen in, when it is still there, is the answer: the first look, and only a
        wrong guess walks every zone."""
        zones = self.s.zones
        seen = self.seen_in.get(card) if card.__class__ is int else None
        if seen is not None and card in zones.get(seen, ()):
            return seen
        for name, cards in zones.items():
            if card in cards:
                if card.__class__ is int:
                    self.seen_in[card] = name
                return name
        return None

    def transfer(self, card: int, zone: str, source: str | None) -> None:
        """Move a card from `source` (its zone, see zone_of; None: none) to the end of
        `zone`."""
        if source is not None:
            self.s.zones[source].remove(card)
        self.s.zones[zone].append(card)
        if card.__class__ is int:
            self.seen_in[card] = zone

    def deal(self, n: int, source: str, target: str) -> int:
        zones = self.s.zones
        dealt = 0
        for _ in range(n):
            if self.s.forced_cards:
                card = self.s.forced_cards.pop(0)
                where = self.zone_of(card)
                if where is None:
                    raise RuleError(f"forced card {card} is in no zone")
                zones[where].remove(card)
                zones[target].append(card)
                dealt += 1
                continue
            if not zones[source]:
                self.refill(source)
                if not zones[source]:
                    break
            card = zones[source].pop()
            zones[target].append(card)
            if card.__class__ is int:
                self.seen_in[card] = target
            dealt += 1
        return dealt

    def refill(self, zone: str) -> None:
        spec = self.p.zones.get(zone.split(":")[0])
        if spec is None or spec.refill_from is None:
            return
        zones = self.s.zones
        zones[zone].extend(zones[spec.refill_from])
        zones[spec.refill_from].clear()
        self.shuffle(zones[zone])
        if self.narrating:
            self.say(narration.shuffled(self, spec.refill_from, zone))

    # ---- presentation --------------------------------------------------
    def show(self, value: Any) -> str:
        if value is None:
            return self.texts.get("nobody", "nobody")
        if isinstance(value, bool):
            word = "yes" if value else "no"
            return self.texts.get(word, word)
        if isinstance(value, int):
            return str(value)
        if value.__class__ is str:
            return self.names.get(value, value)
        if isinstance(value, list):
            if not value:
                return self.texts.get("none", "none")
            parts, size = [], 0
            for v in value:
                text = self.show(v)
                size += len(text) + 2
                if size > MAX_TEXT:
                    raise RuleError(f"a list shown as text is longer than {MAX_TEXT:,} "
                                    "characters")
                parts.append(text)
            self.charge(size)
            return ", ".join(parts)
        return str(value)

    def card_name(self, card: int) -> str:
        info = self.p.cards.get(card)
        return f"{info['title']} ({card})" if info else str(card)


class Known:
    """What a machine needs to know of its program, worked out once per program (a
    game's machine is made at every new game, restore and fork): the one cache of it."""

    def __init__(self, program: Program, ops: list[list[Any]]) -> None:
        players = program.players
        self.players = frozenset(players)  # who may hold support, counters, effects
        self.opponents = dict(zip(players, players[1:] + players[:1], strict=True))
        self.pieces = program.initial.get("bag_pieces")
        self.lows, self.highs = counter_limits(program)
        # Readers of support branch on the stacking pools once per call.
        self.stacking = program.stacking_pools()
        self.ranks = board_ranks(program)
        self.functions = functions_for(program)
        self.segments = segments_for(program, ops)


MAX_SIDES = 10_000


def numbered(labels: list[str]) -> list[str]:
    """Labels told apart: the second `x` is `x (2)`, the third `x (3)` (most menus repeat
    none: they are given back as they are)."""
    if len(set(labels)) == len(labels):
        return labels
    out: list[str] = []
    seen: dict[str, int] = {}
    for label in labels:
        n = seen.get(label, 0) + 1
        seen[label] = n
        out.append(label if n == 1 else f"{label} ({n})")
    return out


def counter_limits(program: Program) -> tuple[dict, dict]:
    """Each counter's least and greatest value, where it has one."""
    lows = {c: lo for c, (lo, _) in program.bounds.items() if lo is not None}
    highs = {c: hi for c, (_, hi) in program.bounds.items() if hi is not None}
    return lows, highs


def board_ranks(program: Program) -> dict[str, dict[str, int]]:
    """Each pool's places, place -> its index in board order (`held` sorts by it; support
    goes only on these)."""
    return {name: {loc: i for i, loc in enumerate(program.kinds[spec.kind])}
            for name, spec in program.pools.items()}


def functions_for(program: Program) -> dict:
    """The pack's functions, name -> (parameters, body), compiled."""
    with building(program):
        return {name: (params, build(body))
                for name, (params, body) in program.functions.items()}


def build_ops(program: Program) -> list[list[Any]]:
    """The program's instructions as ops, their expressions compiled."""
    from .ops import make_op

    with building(program):
        return [[make_op(ins, deferred=True) for ins in block] for block in program.blocks]

