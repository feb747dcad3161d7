"""Compiled expressions and instructions back to effect-language text.

`Renderer(program).expr(e)` and `.statement(ins)` undo what the compiler did:
place lists read as the place name they came from, precedence decides the
parentheses, and library calls the compiler lowered from a card phrase read as
that phrase again. Names come from the pack; nothing here names a game.
"""

from __future__ import annotations

from typing import Any

from ...dsl.compiler import PHRASES
from ...interpreter.program import Program
from .instructions import CARD_OPERAND, LOOPS, is_expr, subexprs

# How tightly each expression binds (the grammar's precedence), for parentheses.
_LEVEL = {"where": 0, "or": 1, "and": 2, "not": 3, "cmp": 4, "neg": 7}
_OF_FORMS = {"counter", "zone", "effect", "effect_list", "attr", "token", "opponent", "leader",
             "support_of", "support_at"}

# Instructions that read as a fixed sentence: {k} is the k-th operand after the op.
_SENTENCES = {
    "let": "let {0} = {1}",
    "set": "set {0} to {1}",
    "stop": "stop",
    "finish": "finish",
    "eliminate": "eliminate {0}",
    "say": "say {0}",
    "gain": "{0} gains {1} {2}",
    "lose": "{0} loses {1} {2}",
    "pay": "{0} pays {1} {2}",
    "place": "place {0} {1} support for {2} in {3}",
    "remove": "remove {0} {1} support from {2} in {3}",
    "bag_put": "put {0} cubes of {1} into bag",
    "bag_empty": "empty bag",
    "move_token": "move {0} to {1}",
    "transfer": "transfer {0} to {1}",
    "deal": "deal {0} from {1} to {2}",
    "shuffle": "shuffle {0}",
    "track_swap": "swap {0} and {1} on {2}",
    "track_place": "put {0} at position {1} on {2}",
    "expire": "expire {0} effects",
    "event": "resolve event of {0} for {1}",
    "flip": 'flip {0} to "{1}"',
    "reveal": "reveal {0} to {1}",
    "show": "show {0} to {1}",
    "tell": "tell {0} {1}",
    "prevent": "prevent {0}",
}


def _level(e: tuple) -> int:
    if e[0] == "arith":
        return 6 if e[1] in ("*", "//", "%") else 5
    if e[0] in _OF_FORMS:
        return 8
    return _LEVEL.get(e[0], 9)


class Renderer:
    """Turns expression and instruction tuples back into effect-language text."""

    def __init__(self, program: Program) -> None:
        self.p = program
        self.names = (set(program.players) | set(program.locations) | set(program.pools)
                      | set(program.zones) | set(program.tracks) | set(program.effects)
                      | set(program.counters) | set(program.kinds))
        self.groups = self._place_groups()

    def _place_groups(self) -> dict[tuple, str]:
        """Lists the compiler expands from a place name (`in some_area`) back to that name."""
        groups: dict[tuple, str] = {}
        for kind, members in self.p.kinds.items():
            containers = {v for m in members for v in self.p.locations[m].values()
                          if isinstance(v, str) and v in self.p.locations and v not in members}
            for name in sorted(containers):
                inside = tuple(m for m in members if name in self.p.locations[m].values())
                groups.setdefault(inside, name)
            groups[tuple(members)] = kind
        return groups

    # ---- expressions ------------------------------------------------------------
    def expr(self, e: tuple | None) -> str:
        if e is None:
            return "none"
        method = getattr(self, "_e_" + e[0], None)
        return method(*e[1:]) if method else self._e_unknown(e)

    def operand(self, x: Any) -> str:
        """An expression as text; a name (or other plain operand) as it is."""
        return self.expr(x) if is_expr(x) else str(x)

    def wrap(self, e: tuple, level: int) -> str:
        text = self.expr(e)
        return f"({text})" if _level(e) < level else text

    def of(self, name: str, e: tuple) -> str:
        return f"{name} of {self.wrap(e, 8)}"

    def value(self, v: Any) -> str:
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return self.value_list(v)
        if isinstance(v, str) and v not in self.names:
            return '"' + v.replace('"', '\\"') + '"'
        return str(v)

    def value_list(self, items: list) -> str:
        if items and all(isinstance(i, str) for i in items) and tuple(items) in self.groups:
            return self.groups[tuple(items)]
        shown = [self.value(i) for i in items]
        if len(shown) > 8:
            shown = shown[:6] + [f"... {len(items)} in all"]
        return "[" + ", ".join(shown) + "]"

    def _e_const(self, v: Any) -> str:
        return self.value(v)

    def _e_var(self, name: str) -> str:
        return name

    _e_global = _e_var
    _e_track = _e_var

    def _e_counter(self, name: str, who: tuple) -> str:
        return self.of(name, who)

    _e_effect = _e_counter
    _e_effect_list = _e_counter
    _e_attr = _e_counter

    def _e_zone(self, name: str, who: tuple | None) -> str:
        return name if who is None else self.of(name, who)

    def _e_cards(self, zone: tuple) -> str:
        return f"cards({self.expr(zone)})"

    def _e_token(self, who: tuple) -> str:
        return self.of("location", who)

    def _e_opponent(self, who: tuple) -> str:
        return self.of("opponent", who)

    def _e_leader(self, pool: str | None, loc: tuple) -> str:
        return self.of("leader", loc)

    def _e_support_of(self, pool: str, who: tuple, loc: tuple) -> str:
        return f"{pool} support of {self.wrap(who, 8)} in {self.wrap(loc, 8)}"

    def _e_support_at(self, pool: str, loc: tuple) -> str:
        return f"{pool} support in {self.wrap(loc, 8)}"

    def _e_arith(self, op: str, a: tuple, b: tuple) -> str:
        level = _level(("arith", op))
        return f"{self.wrap(a, level)} {op} {self.wrap(b, level + 1)}"

    def _e_cmp(self, op: str, a: tuple, b: tuple) -> str:
        return f"{self.wrap(a, 5)} {op} {self.wrap(b, 5)}"

    def _e_and(self, a: tuple, b: tuple) -> str:
        return f"{self.wrap(a, 2)} and {self.wrap(b, 3)}"

    def _e_or(self, a: tuple, b: tuple) -> str:
        return f"{self.wrap(a, 1)} or {self.wrap(b, 2)}"

    def _e_not(self, a: tuple) -> str:
        return f"not {self.wrap(a, 3)}"

    def _e_neg(self, a: tuple) -> str:
        return f"-{self.wrap(a, 7)}"

    def _e_list(self, items: list) -> str:
        return "[" + ", ".join(self.expr(i) for i in items) + "]"

    def _e_where(self, src: tuple, cond: tuple) -> str:
        return f"{self.wrap(src, 1)} where {self.wrap(cond, 1)}"

    def _e_comp(self, name: str, items: tuple, element: tuple, cond: tuple | None) -> str:
        test = f" if {self.expr(cond)}" if cond is not None else ""
        return f"[{self.expr(element)} for {name} in {self.expr(items)}{test}]"

    def _e_fmt(self, parts: list) -> str:
        text = "".join(p if isinstance(p, str) else "{" + self.expr(p) + "}" for p in parts)
        return '"' + text.replace('"', '\\"') + '"'

    def _e_as_list(self, e: tuple) -> str:
        return self.expr(e)  # the compiler's wrapping of a phrase's targets: read as written

    def _e_call(self, name: str, args: list) -> str:
        return f"{name}({', '.join(self.expr(a) for a in args)})"

    _e_fn = _e_call

    def _e_unknown(self, e: tuple) -> str:
        return f"{e[0]}({', '.join(self.operand(x) for x in e[1:])})"

    # ---- cards --------------------------------------------------------------
    def named_cards(self, e: tuple | None) -> list[int]:
        """Card numbers a card expression names outright, or picks by number or title."""
        if e is None:
            return []
        found = self._card_consts(e)
        if e[0] == "list":
            found = [n for item in e[1] for n in self._card_consts(item)]
        for x in subexprs(e):
            if x[0] != "cmp" or x[1] not in ("==", "in"):
                continue
            subject, other = x[2], x[3]
            if subject == ("var", "it") or subject[:2] == ("attr", "number"):
                found += self._card_consts(other)
            elif subject[:2] == ("attr", "title") and other[0] == "const":
                found += [n for n, a in self.p.cards.items() if a.get("title") == other[1]]
        return list(dict.fromkeys(found))

    def _card_consts(self, e: tuple) -> list[int]:
        if e[0] != "const":
            return []
        values = e[1] if isinstance(e[1], list) else [e[1]]
        return [v for v in values if type(v) is int and v in self.p.cards]

    def card_names(self, numbers: list[int]) -> str:
        return ", ".join(f"{n} {self.p.cards[n].get('title', '')}".strip() for n in numbers)

    # ---- instructions --------------------------------------------------------
    def statement(self, ins: tuple) -> str:
        """One instruction as a line of effect text (compound ones as their header),
        with the cards it names outright as a comment."""
        text = self._sentence(ins)
        slot = CARD_OPERAND.get(ins[0])
        named = self.named_cards(ins[slot]) if slot is not None else []
        return f"{text}  # {self.card_names(named)}" if named else text

    def _sentence(self, ins: tuple) -> str:
        op, args = ins[0], ins[1:]
        if op in _SENTENCES:
            return _SENTENCES[op].format(*(self.operand(x) for x in args))
        if op in LOOPS:
            return self.loop(ins) + ":"
        method = getattr(self, "_s_" + op, None)
        return method(*args) if method else " ".join([op] + [self.operand(x) for x in args])

    def _s_call(self, proc: str, args: list) -> str:
        phrase = self.phrase(proc, args)
        if phrase is not None:
            return phrase
        if not args:
            return f"do {proc}"
        return f"do {proc}({', '.join(f'{n}: {self.expr(e)}' for n, e in args)})"

    def _s_record(self, key: str, owner: tuple | None, e: tuple) -> str:
        whose = f" of {self.expr(owner)}" if owner is not None else ""
        return f"record {key}{whose} as {self.expr(e)}"

    def _s_track_move(self, item: tuple, delta: tuple, track: str) -> str:
        if delta[0] == "neg":
            return f"move {self.expr(item)} up {self.expr(delta[1])} on {track}"
        return f"move {self.expr(item)} down {self.expr(delta)} on {track}"

    def _s_effect(self, who: tuple, name: str, value: tuple | None, duration: Any) -> str:
        return f"{self.until(duration)}: {self.expr(who)} has {name}{self.amount(value)}"

    def until(self, duration: Any, uses: tuple | None = None) -> str:
        """An `until` clause: a declared duration, a count of announcements, or uses."""
        if uses is not None:
            used = "used once" if uses == ("const", 1) else f"used {self.expr(uses)} times"
            return f"until {used}" if duration == "game" else f"until end of {duration} or {used}"
        if isinstance(duration, tuple):  # ("count", announcement, n)
            return f"until {duration[1]} {self.expr(duration[2])} times"
        return f"until end of {duration}"

    def _s_announce(self, name: str, args: list) -> str:
        given = ", ".join(f"{n}: {self.expr(e)}" for n, e in args)
        return f"announce {name}({given})" if args else f"announce {name}"

    def _s_whenever(self, name: str, block: int, names: list, duration: Any,
                    uses: tuple | None) -> str:
        guard = self.p.blocks[block][0] if self.p.blocks[block] else None
        cond = guard[1] if guard and guard[0] == "guard" and guard[1] is not None else None
        when = f" if {self.expr(cond)}" if cond is not None else ""
        return f"{self.until(duration, uses)}: whenever {name}({', '.join(names)}){when}:"

    def _s_cancel(self, name: str, who: tuple) -> str:
        return f"cancel {name} of {self.expr(who)}"

    def _s_guard(self, cond: tuple | None, spends: bool) -> str:
        return f"(only if {self.expr(cond)})" if cond is not None else "(reacts)"

    def amount(self, value: tuple | None) -> str:
        """An effect's optional amount, with its leading space."""
        return f" {self.expr(value)}" if value is not None else ""

    def _s_if(self, branches: list, otherwise: int | None) -> str:
        return f"if {self.expr(branches[0][0])}:"

    def _s_choose(self, who: tuple, var: str, items: tuple, label: tuple | None,
                  question: tuple | None = None, always: bool = False) -> str:
        labelled = f" labelled {self.expr(label)}" if label is not None else ""
        return f"{self.chooser(who, always)} {var} from {self.expr(items)}{labelled}" \
            f"{self.asking(question)}"

    def _s_menu(self, who: tuple, options: list, remarks: tuple | None = None,
                question: tuple | None = None, always: bool = False) -> str:
        status = remarks[0] if remarks is not None else None
        noting = f" noting {self.expr(status)}" if status is not None else ""
        return f"{self.chooser(who, always)}{self.asking(question)}{noting}:"

    def chooser(self, who: tuple, always: bool) -> str:
        """`P chooses`, or `P always chooses` for a decision asked even with one option."""
        return f"{self.expr(who)} {'always ' if always else ''}chooses"

    def asking(self, question: tuple | None) -> str:
        """A decision's `asking` clause, with its leading space (none without one)."""
        return f" asking {self.expr(question)}" if question is not None else ""

    def loop(self, ins: tuple) -> str:
        """A loop's header without the colon."""
        op = ins[0]
        if op == "for":
            items = ins[2]
            if items[0] == "call" and items[1] == "range" and len(items[2]) == 2:
                low, high = (self.expr(x) for x in items[2])
                return f"for {ins[1]} from {low} to {high}"
            return f"for {ins[1]} in {self.expr(items)}"
        if op == "repeat":
            return f"repeat {self.expr(ins[1])} times"
        return f"while {self.expr(ins[1])}, at most {ins[2]} times"

    def option(self, opt: tuple) -> str:
        """A menu option: its label, what it ranges over and when it is offered."""
        label, var, items, cond, _ = opt
        text = self.expr(label)
        if items is not None:
            text += f" for {var} in {self.expr(items)}"
        if cond is not None and cond != ("const", True):
            text += f" if {self.expr(cond)}"
        return text

    def call(self, ins: tuple) -> str:
        """A call as `call name(param=value, ...)` (the graph's form)."""
        args = ", ".join(f"{n}={self.expr(e)}" for n, e in ins[2])
        return f"call {ins[1]}({args})"

    # ---- card phrases the compiler lowered to library calls --------------------
    def phrase(self, proc: str, args: list) -> str | None:
        """The card phrase a library call was lowered from, if it is one."""
        a = dict(args)
        if proc not in PHRASES or not set(a) <= set(PHRASES[proc]):
            return None
        e = {k: self.expr(v) for k, v in a.items()}
        if proc == "gain_support" and {"who", "amount", "pool", "where"} <= set(e):
            return f"{e['who']} gains {e['amount']} {e['pool']} support in {e['where']}"
        if not {"who", "amount", "pool", "targets", "per", "optional"} <= set(e):
            return None
        modal = "may" if a["optional"] == ("const", True) else "must"
        verb = "add" if proc == "add_support" else "subtract"
        victim = e.get("victim", e["who"])
        source = f" from {victim}" if verb == "subtract" and victim != e["who"] else ""
        where = self.targets(a["targets"], a["pool"])
        per = "" if a["per"] == a["amount"] else f", at most {e['per']} per {self.unit(a['pool'])}"
        return (f"{e['who']} {modal} {verb} a total of {e['amount']} {e['pool']} support"
                f"{source} {where}{per}")

    def targets(self, targets: tuple, pool: tuple) -> str:
        spec = self.p.pools.get(pool[1]) if pool[0] == "const" else None
        if spec is not None and targets == ("const", self.p.kinds.get(spec.kind)):
            return "anywhere"
        if targets[0] == "list" and len(targets[1]) == 1:
            targets = targets[1][0]  # one place the compiler made a list of one: as written
        return f"in {self.expr(targets)}"

    def unit(self, pool: tuple) -> str:
        """The word for one place of a pool's kind ("per region"), from the kind's name."""
        spec = self.p.pools.get(pool[1]) if pool[0] == "const" else None
        kind = spec.kind if spec else "place"
        return kind[:-1] if kind.endswith("s") else kind
