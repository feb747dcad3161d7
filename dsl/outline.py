"""Readable views of compiled card events: effect graphs, outlines, card interactions.

Everything here reads a Program's instruction tuples and card attributes, so it
describes what the engine will run rather than what the printed text promises.
Nothing here names a game: players, places, zones and effects come from the pack.
"""

from __future__ import annotations

import difflib
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
from ruamel.yaml import YAML

from ..interpreter.expressions import BUILDERS
from ..interpreter.program import Program
from .compiler import PHRASES
from .graph import nested_blocks

# The card attribute naming when a card's event is kept for later (a pack convention).
PERSISTENT = "persistent"
# The builtin the rules use to ask whether a card's event is prevented.
PREVENTED = "prevented"

EXPR_KINDS = frozenset(BUILDERS)
DECISIONS = frozenset({"choose", "menu"})
LOOPS = frozenset({"for", "repeat", "while"})
SILENT = frozenset({"let", "say", "stop", "if", "for", "repeat", "while", "choose", "menu"})
CARD_OPERAND = {"transfer": 1, "event": 1, "flip": 1, "prevent": 1}
ZONE_OPERANDS = {"transfer": (2,), "deal": (2, 3), "shuffle": (1,), "reveal": (1,)}


# ---- finding a card ---------------------------------------------------------------
class CardNotFound(LookupError):
    """No card (or more than one) answers to a number or title."""


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", "", text.lower()).split())


def find_card(program: Program, query: str | int) -> int:
    """A card by number ("2", "#2") or title (any case; a unique part is enough)."""
    text = str(query).strip()
    if text.lstrip("#").isdigit():
        number = int(text.lstrip("#"))
        if number in program.cards:
            return number
        raise CardNotFound(f"there is no card number {number}")
    titles: dict[str, list[int]] = {}
    for number, attrs in sorted(program.cards.items()):
        titles.setdefault(_fold(str(attrs.get("title", number))), []).append(number)
    wanted = _fold(text)
    if wanted in titles:
        return titles[wanted][0]  # identical titles are identical cards: take the first
    partial = [t for t in titles if wanted and wanted in t]
    if len(partial) == 1:
        return titles[partial[0]][0]
    if partial:
        named = ", ".join(f"{titles[t][0]} {program.cards[titles[t][0]]['title']}" for t in partial)
        raise CardNotFound(f"'{text}' matches several cards: {named}")
    raise CardNotFound(f"there is no card titled '{text}'" + _suggest(program, titles, wanted))


def _suggest(program: Program, titles: dict[str, list[int]], wanted: str) -> str:
    close = difflib.get_close_matches(wanted, list(titles), n=3, cutoff=0.5)
    names = [f"'{program.cards[titles[t][0]]['title']}' ({titles[t][0]})" for t in close]
    return f"; did you mean {' or '.join(names)}?" if names else ""


def printed_texts(pack_root: Path, numbers: set[int] | None = None) -> dict[int, str]:
    """Card number -> printed text, read from the pack's card files (text is not compiled).

    With `numbers`, only files that mention one of them are parsed (YAML is slow).
    """
    yaml = YAML(typ="safe")
    manifest = yaml.load((pack_root / "pack.yaml").read_text()) or {}
    wanted = re.compile(r"number:\s*(" + "|".join(map(str, sorted(numbers))) + r")\b") \
        if numbers else None
    out: dict[int, str] = {}
    for entry in manifest.get("cards", ["cards"]):
        target = pack_root / entry
        for path in sorted(target.glob("*.yaml")) if target.is_dir() else [target]:
            text = path.read_text() if path.exists() else ""
            if wanted is None or wanted.search(text):
                out.update(_texts(yaml.load(text)))
    return {n: t for n, t in out.items() if numbers is None or n in numbers}


def _texts(data: Any) -> dict[int, str]:
    items = data.get("cards", [data]) if isinstance(data, dict) else []
    return {c["number"]: str(c.get("text") or "") for c in items
            if isinstance(c, dict) and isinstance(c.get("number"), int)}


# ---- instruction anatomy ------------------------------------------------------------
def is_expr(x: Any) -> bool:
    return isinstance(x, tuple) and bool(x) and isinstance(x[0], str) and x[0] in EXPR_KINDS


def operands(ins: tuple) -> list[tuple]:
    """The expressions an instruction evaluates itself (not those of its nested blocks)."""
    op = ins[0]
    if op == "call":
        return [e for _, e in ins[2]]
    if op == "if":
        return [c for c, _ in ins[1]]
    if op == "menu":
        out = [ins[1]]
        for label, _, items, cond, _ in ins[2]:
            out += [e for e in (label, items, cond) if e is not None]
        return out
    return [x for x in ins[1:] if is_expr(x)]


def subexprs(e: tuple) -> Iterator[tuple]:
    """An expression and every expression inside it, outermost first."""
    yield e
    for x in e[1:]:
        for item in x if isinstance(x, list) else [x]:
            if is_expr(item):
                yield from subexprs(item)


def map_expr(e: tuple, f: Callable[[tuple], tuple]) -> tuple:
    """The same expression with f applied to each direct sub-expression."""
    def one(x: Any) -> Any:
        if is_expr(x):
            return f(x)
        if isinstance(x, list):
            return [f(i) if is_expr(i) else i for i in x]
        return x

    return (e[0], *[one(x) for x in e[1:]])


def map_instruction(ins: tuple, f: Callable[[tuple], tuple]) -> tuple:
    """The same instruction with f applied to each of its own expressions."""
    op = ins[0]
    if op == "call":
        return (op, ins[1], [(n, f(e)) for n, e in ins[2]])
    if op == "if":
        return (op, [(f(c), b) for c, b in ins[1]], ins[2])
    if op == "menu":
        options = [(f(lab), var, f(items) if items else items, f(cond) if cond else cond, b)
                   for lab, var, items, cond, b in ins[2]]
        return (op, f(ins[1]), options)
    return (op, *[f(x) if is_expr(x) else x for x in ins[1:]])


def substitute(e: tuple, env: dict[str, tuple]) -> tuple:
    """Replace parameters by the argument expressions of a call."""
    if e[0] == "var":
        return env.get(e[1], e)
    return map_expr(e, lambda x: substitute(x, env))


_FOLD_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "in": lambda a, b: b is not None and a in b, "not in": lambda a, b: b is None or a not in b,
}


def simplify(e: tuple) -> tuple:
    """Fold what substituted constants settle, so a call's view reads like its caller's."""
    e = map_expr(e, simplify)
    kind = e[0]
    if kind == "cmp" and e[2][0] == e[3][0] == "const" and e[1] in _FOLD_CMP:
        return ("const", _FOLD_CMP[e[1]](e[2][1], e[3][1]))
    if kind == "not" and e[1][0] == "const":
        return ("const", not e[1][1])
    if kind in ("and", "or"):
        return _fold_logic(kind, e[1], e[2])
    if kind == "fmt":
        return _fold_fmt(e[1])
    return e


def _fold_logic(kind: str, a: tuple, b: tuple) -> tuple:
    decisive = kind == "or"  # the value that settles the whole expression
    for x, other in ((a, b), (b, a)):
        if x[0] == "const":
            return ("const", decisive) if bool(x[1]) == decisive else other
    return (kind, a, b)


def _fold_fmt(parts: list) -> tuple:
    out: list[Any] = []
    for p in parts:
        if isinstance(p, tuple) and p[0] == "const" and isinstance(p[1], str):
            p = p[1]
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        else:
            out.append(p)
    if all(isinstance(p, str) for p in out):
        return ("const", "".join(out))
    return ("fmt", out)


# ---- rendering back to effect text -------------------------------------------------------
_LEVEL = {"where": 0, "or": 1, "and": 2, "not": 3, "cmp": 4, "neg": 7}
_OF_FORMS = {"counter", "zone", "effect", "effect_list", "attr", "token", "opponent", "leader",
             "support_of", "support_at"}


def _level(e: tuple) -> int:
    """How tightly an expression binds (the grammar's precedence), for parentheses."""
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

    def _e_zone(self, name: str, who: tuple | None) -> str:
        return name if who is None else self.of(name, who)

    def _e_cards(self, zone: tuple) -> str:
        return f"cards({self.expr(zone)})"

    _e_effect = _e_counter
    _e_effect_list = _e_counter
    _e_attr = _e_counter

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

    def _e_fmt(self, parts: list) -> str:
        text = "".join(p if isinstance(p, str) else "{" + self.expr(p) + "}" for p in parts)
        return '"' + text.replace('"', '\\"') + '"'

    def _e_call(self, name: str, args: list) -> str:
        return f"{name}({', '.join(self.expr(a) for a in args)})"

    _e_fn = _e_call

    def _e_unknown(self, e: tuple) -> str:
        args = [self.expr(x) if is_expr(x) else str(x) for x in e[1:]]
        return f"{e[0]}({', '.join(args)})"

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
        """One instruction as a line of effect text (compound ones as their header)."""
        method = getattr(self, "_s_" + ins[0], None)
        text = method(*ins[1:]) if method else self._s_unknown(ins)
        slot = CARD_OPERAND.get(ins[0])
        named = self.named_cards(ins[slot]) if slot is not None else []
        return f"{text}  # {self.card_names(named)}" if named else text

    def call(self, ins: tuple) -> str:
        """A call as `call name(param=value, ...)` (the graph's form)."""
        args = ", ".join(f"{n}={self.expr(e)}" for n, e in ins[2])
        return f"call {ins[1]}({args})"

    def phrase(self, proc: str, args: list) -> str | None:
        """The card phrase a library call was lowered from, if it is one."""
        a = dict(args)
        if proc not in PHRASES or not set(a) <= set(PHRASES[proc]):
            return None
        e = {k: self.expr(v) for k, v in a.items()}
        if proc == "gain_support" and {"who", "amount", "pool", "where"} <= set(e):
            return f"{e['who']} gains {e['amount']} {e['pool']} support in {e['where']}"
        needed = {"who", "amount", "pool", "targets", "per", "optional"}
        if not needed <= set(e):
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
        return f"in {self.expr(targets)}"

    def unit(self, pool: tuple) -> str:
        """The word for one place of a pool's kind ("per region"), from the kind's name."""
        spec = self.p.pools.get(pool[1]) if pool[0] == "const" else None
        kind = spec.kind if spec else "place"
        return kind[:-1] if kind.endswith("s") else kind

    def option(self, opt: tuple) -> str:
        label, var, items, cond, _ = opt
        text = self.expr(label)
        if items is not None:
            text += f" for {var} in {self.expr(items)}"
        if cond is not None and cond != ("const", True):
            text += f" if {self.expr(cond)}"
        return text

    def loop(self, ins: tuple) -> str:
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

    def _s_let(self, name: str, e: tuple) -> str:
        return f"let {name} = {self.expr(e)}"

    def _s_set(self, name: str, e: tuple) -> str:
        return f"set {name} to {self.expr(e)}"

    def _s_call(self, proc: str, args: list) -> str:
        phrase = self.phrase(proc, args)
        if phrase is not None:
            return phrase
        if not args:
            return f"do {proc}"
        return f"do {proc}({', '.join(f'{n}: {self.expr(e)}' for n, e in args)})"

    def _s_stop(self) -> str:
        return "stop"

    def _s_finish(self) -> str:
        return "finish"

    def _s_say(self, e: tuple) -> str:
        return f"say {self.expr(e)}"

    def _s_record(self, key: str, owner: tuple | None, e: tuple) -> str:
        whose = f" of {self.expr(owner)}" if owner is not None else ""
        return f"record {key}{whose} as {self.expr(e)}"

    def _s_gain(self, who: tuple, n: tuple, counter: str) -> str:
        return f"{self.expr(who)} gains {self.expr(n)} {counter}"

    def _s_lose(self, who: tuple, n: tuple, counter: str) -> str:
        return f"{self.expr(who)} loses {self.expr(n)} {counter}"

    def _s_pay(self, who: tuple, n: tuple, counter: str) -> str:
        return f"{self.expr(who)} pays {self.expr(n)} {counter}"

    def _s_place(self, n: tuple, pool: tuple, who: tuple, loc: tuple) -> str:
        return f"place {self.expr(n)} {self.expr(pool)} support for {self.expr(who)} in " \
               f"{self.expr(loc)}"

    def _s_remove(self, n: tuple, pool: tuple, who: tuple, loc: tuple) -> str:
        return f"remove {self.expr(n)} {self.expr(pool)} support from {self.expr(who)} in " \
               f"{self.expr(loc)}"

    def _s_bag_put(self, n: tuple, who: tuple) -> str:
        return f"put {self.expr(n)} cubes of {self.expr(who)} into bag"

    def _s_bag_empty(self) -> str:
        return "empty bag"

    def _s_move_token(self, who: tuple, loc: tuple) -> str:
        return f"move {self.expr(who)} to {self.expr(loc)}"

    def _s_transfer(self, card: tuple, zone: tuple) -> str:
        return f"transfer {self.expr(card)} to {self.expr(zone)}"

    def _s_deal(self, n: tuple, source: tuple, target: tuple) -> str:
        return f"deal {self.expr(n)} from {self.expr(source)} to {self.expr(target)}"

    def _s_shuffle(self, zone: tuple) -> str:
        return f"shuffle {self.expr(zone)}"

    def _s_track_move(self, item: tuple, delta: tuple, track: str) -> str:
        if delta[0] == "neg":
            return f"move {self.expr(item)} up {self.expr(delta[1])} on {track}"
        return f"move {self.expr(item)} down {self.expr(delta)} on {track}"

    def _s_track_swap(self, a: tuple, b: tuple, track: str) -> str:
        return f"swap {self.expr(a)} and {self.expr(b)} on {track}"

    def _s_track_place(self, item: tuple, pos: tuple, track: str) -> str:
        return f"put {self.expr(item)} at position {self.expr(pos)} on {track}"

    def _s_effect(self, who: tuple, name: str, value: tuple | None, duration: str) -> str:
        amount = f" {self.expr(value)}" if value is not None else ""
        return f"until end of {duration}: {self.expr(who)} has {name}{amount}"

    def _s_expire(self, duration: str) -> str:
        return f"expire {duration} effects"

    def _s_event(self, card: tuple, who: tuple) -> str:
        return f"resolve event of {self.expr(card)} for {self.expr(who)}"

    def _s_flip(self, card: tuple, face: str) -> str:
        return f'flip {self.expr(card)} to "{face}"'

    def _s_reveal(self, zone: tuple, who: tuple) -> str:
        return f"reveal {self.expr(zone)} to {self.expr(who)}"

    def _s_prevent(self, cards: tuple) -> str:
        return f"prevent {self.expr(cards)}"

    def _s_if(self, branches: list, otherwise: int | None) -> str:
        return f"if {self.expr(branches[0][0])}:"

    def _s_for(self, var: str, items: tuple, block: int) -> str:
        return self.loop(("for", var, items, block)) + ":"

    def _s_repeat(self, n: tuple, block: int) -> str:
        return self.loop(("repeat", n, block)) + ":"

    def _s_while(self, cond: tuple, bound: int, block: int) -> str:
        return self.loop(("while", cond, bound, block)) + ":"

    def _s_choose(self, who: tuple, var: str, items: tuple, label: tuple | None) -> str:
        labelled = f" labelled {self.expr(label)}" if label is not None else ""
        return f"{self.expr(who)} chooses {var} from {self.expr(items)}{labelled}"

    def _s_menu(self, who: tuple, options: list) -> str:
        return f"{self.expr(who)} chooses:"

    def _s_unknown(self, ins: tuple) -> str:
        return " ".join([ins[0]] + [self.expr(x) if is_expr(x) else str(x) for x in ins[1:]])


# ---- walking blocks ---------------------------------------------------------------
@dataclass(frozen=True)
class Branch:
    block: int
    kind: str  # "branch", "option", "loop" or "runs"
    label: str  # for a graph edge
    context: str  # for a line of an outline: under what this block runs


@dataclass(frozen=True)
class Step:
    block: int
    index: int
    ins: tuple
    context: tuple[str, ...] = ()
    trail: tuple[tuple[int, int], ...] = ()  # the enclosing instructions, (block, index)


def branches(ins: tuple, r: Renderer) -> list[Branch]:
    """The blocks an instruction may run, each with the condition or loop that leads there.

    Conditions a call's arguments settle are pruned: false ones never run, and a
    true one makes the branches after it unreachable.
    """
    op = ins[0]
    if op == "if":
        return _if_branches(ins, r)
    if op == "menu":
        return [Branch(opt[-1], "option", r.option(opt), f"option {r.option(opt)}")
                for opt in ins[2] if opt[3] != ("const", False)]
    if op in LOOPS:
        return [Branch(ins[-1], "loop", "each" if op != "repeat" else "times", r.loop(ins))]
    return [Branch(b, "runs", "", ins[0]) for b in nested_blocks(ins)]


def _if_branches(ins: tuple, r: Renderer) -> list[Branch]:
    conds = [r.expr(c) for c, _ in ins[1]]
    single = len(conds) == 1
    out = []
    for k, (cond, block) in enumerate(ins[1]):
        if cond == ("const", True):
            return out + [Branch(block, "branch", "always", "")]
        if cond != ("const", False):
            out.append(Branch(block, "branch", "yes" if single else conds[k], f"if {conds[k]}"))
    if ins[2] is not None:
        context = f"if not ({conds[0]})" if single else "if none of the above"
        out.append(Branch(ins[2], "branch", "no" if single else "else", context))
    return out


def walk(program: Program, root: int, r: Renderer, map_ins: Callable[[tuple], tuple] | None = None,
         context: tuple[str, ...] = (), trail: tuple = ()) -> Iterator[Step]:
    """Every instruction of a block and its nested blocks, in text order."""
    for i, ins in enumerate(program.blocks[root]):
        ins = map_ins(ins) if map_ins else ins
        yield Step(root, i, ins, context, trail)
        for br in branches(ins, r):
            yield from walk(program, br.block, r, map_ins, context + (br.context,),
                            trail + ((root, i),))


def call_view(program: Program, ins: tuple) -> Callable[[tuple], tuple] | None:
    """How a callee's instructions read with the caller's arguments in place of parameters."""
    spec = program.procedures.get(ins[1])
    if spec is None:
        return None
    env = {k: ("const", v) for k, v in spec.defaults.items()}
    env.update(dict(ins[2]))
    return lambda x: map_instruction(x, lambda e: simplify(substitute(e, env)))


# ---- the effect graph -----------------------------------------------------------------
@dataclass(frozen=True)
class Follow:
    """Where control goes after a block ends (node None: no edge is added)."""

    node: str | None
    kind: str = "next"
    label: str = ""


_NODE_KIND = {"choose": "decision", "menu": "decision", "if": "branch", "for": "loop",
              "repeat": "loop", "while": "loop", "call": "call", "stop": "stop"}


class _GraphBuilder:
    def __init__(self, program: Program, g: nx.DiGraph, depth: int) -> None:
        self.p = program
        self.g = g
        self.r = Renderer(program)
        self.depth = depth
        self.expanded: set[str] = set()

    def block(self, b: int, follow: Follow, level: int, exit_node: str | None) -> str | None:
        """Add a block's instructions; return the node control enters it by."""
        ids = [self.node(b, i, ins, level) for i, ins in enumerate(self.p.blocks[b])]
        for i, ins in enumerate(self.p.blocks[b]):
            nxt = Follow(ids[i + 1]) if i + 1 < len(ids) else follow
            self.connect(ids[i], ins, nxt, level, exit_node)
        return ids[0] if ids else follow.node

    def node(self, b: int, i: int, ins: tuple, level: int) -> str:
        nid = f"b{b}_{i}"
        kind = _NODE_KIND.get(ins[0], "action")
        self.g.add_node(nid, label=self.label(ins), kind=kind, op=ins[0], level=level,
                        where=self._where(b, i))
        return nid

    def _where(self, b: int, i: int) -> str:
        positions = self.p.positions[b] if b < len(self.p.positions) else []
        return positions[i] if i < len(positions) else ""

    def label(self, ins: tuple) -> str:
        op = ins[0]
        if op == "call":
            return self.r.call(ins)
        if op == "if":
            conds = [self.r.expr(c) for c, _ in ins[1]]
            return f"if {conds[0]}" if len(conds) == 1 else "which branch?"
        if op == "menu":
            return f"{self.r.expr(ins[1])} chooses ({len(ins[2])} options)"
        if op in LOOPS:
            return self.r.loop(ins)
        return self.r.statement(ins)

    def edge(self, a: str, follow: Follow) -> None:
        if follow.node is not None:
            self.g.add_edge(a, follow.node, kind=follow.kind, label=follow.label)

    def connect(self, nid: str, ins: tuple, nxt: Follow, level: int, exit_node: str | None) -> None:
        op = ins[0]
        if op == "stop":
            self.edge(nid, Follow(exit_node, "next", "stop"))
            return
        if op in LOOPS:
            body = branches(ins, self.r)[0]
            first = self.block(body.block, Follow(nid, "back", "again"), level, exit_node)
            self.edge(nid, Follow(first, "loop", body.label))
            self.edge(nid, Follow(nxt.node, nxt.kind, "done"))
            return
        taken = branches(ins, self.r)
        for br in taken:
            first = self.block(br.block, nxt, level, exit_node)
            self.edge(nid, Follow(first, br.kind, br.label))
        if op == "if" and ins[2] is None:
            self.edge(nid, Follow(nxt.node, "branch", "no" if len(taken) == 1 else "none"))
        elif not taken:
            self.edge(nid, nxt)
        if op == "call":
            self.procedure(nid, ins[1], level)

    def procedure(self, caller: str, name: str, level: int) -> None:
        pid = "proc_" + name
        spec = self.p.procedures.get(name)
        params = ", ".join(spec.params) if spec else "?"
        self.g.add_node(pid, label=f"procedure {name}({params})", kind="procedure", op="procedure",
                        level=level + 1, where=spec.source if spec else "")
        self.g.add_edge(caller, pid, kind="calls", label="")
        if spec is not None and level < self.depth and name not in self.expanded:
            self.expanded.add(name)
            first = self.block(spec.block, Follow(None), level + 1, None)
            self.edge(pid, Follow(first, "next", "body"))


def effect_graph(program: Program, number: int, depth: int = 0) -> nx.DiGraph:
    """A card's event as a control-flow graph of its instructions.

    Called procedures appear as nodes; with depth N their bodies are shown too,
    N levels deep. Node attributes: label, kind (start, end, action, decision,
    branch, loop, call, stop, procedure), op, level, where. Edge attributes:
    kind (next, branch, option, loop, back, calls) and label.
    """
    attrs = program.cards[number]
    title = f"{number} {attrs.get('title', '')}".strip()
    g = nx.DiGraph(title=title, card=number)
    g.add_node("start", label=f"event of {title}", kind="start", op="start", level=0, where="")
    g.add_node("end", label="end", kind="end", op="end", level=0, where="")
    block = program.events.get(number)
    if block is None:
        g.add_edge("start", "end", kind="next", label="no event written")
        return g
    first = _GraphBuilder(program, g, depth).block(block, Follow("end"), 0, "end")
    g.add_edge("start", first or "end", kind="next", label="")
    return g


def _wrap_label(text: str, width: int = 44) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


_DOT_NODE = {
    "start": 'shape=oval, style=filled, fillcolor="#d1fae5"',
    "end": 'shape=oval, style=filled, fillcolor="#e5e7eb"',
    "decision": 'shape=hexagon, style=filled, fillcolor="#fde68a", penwidth=2',
    "branch": 'shape=diamond, style=filled, fillcolor="#dbeafe"',
    "loop": 'shape=box, style="rounded,filled", fillcolor="#ede9fe"',
    "call": 'shape=box, style="filled", fillcolor="#f3f4f6"',
    "procedure": 'shape=component, style=filled, fillcolor="#e5e7eb"',
    "stop": "shape=octagon",
    "action": "shape=box",
}
_DOT_EDGE = {"loop": "style=bold", "back": "style=dashed, constraint=false",
             "calls": "style=dashed, arrowhead=empty",
             "option": 'color="#b45309"'}


def _dot_text(text: str) -> str:
    lines = _wrap_label(text)
    return "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in lines)


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz DOT: every node declared before the edges that use it."""
    title = _dot_text(str(g.graph.get("title", "")))
    out = [f'digraph "event_{g.graph.get("card", "")}" {{',
           f'  graph [label="{title}", labelloc=t, rankdir=TB, fontname="Helvetica"];',
           '  node [fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for nid, data in g.nodes(data=True):
        style = _DOT_NODE.get(data.get("kind", "action"), "shape=box")
        out.append(f'  "{nid}" [label="{_dot_text(data.get("label", nid))}", {style}];')
    for a, b, data in g.edges(data=True):
        parts = [f'label="{_dot_text(data["label"])}"'] if data.get("label") else []
        if data.get("kind") in _DOT_EDGE:
            parts.append(_DOT_EDGE[data["kind"]])
        attrs = f" [{', '.join(parts)}]" if parts else ""
        out.append(f'  "{a}" -> "{b}"{attrs};')
    out.append("}")
    return "\n".join(out) + "\n"


_MERMAID_SHAPE = {"start": ('(["', '"])'), "end": ('(["', '"])'), "decision": ('{{"', '"}}'),
                  "branch": ('{"', '"}'), "loop": ('[/"', '"/]'), "procedure": ('[["', '"]]'),
                  "stop": ('(("', '"))'), "call": ('["', '"]'), "action": ('["', '"]')}
_MERMAID_CLASS = {"decision": "fill:#fde68a,stroke:#b45309,stroke-width:2px",
                  "branch": "fill:#dbeafe,stroke:#1d4ed8", "loop": "fill:#ede9fe,stroke:#6d28d9",
                  "procedure": "fill:#e5e7eb,stroke:#374151", "start": "fill:#d1fae5"}


def _mermaid_text(text: str) -> str:
    def escape(s: str) -> str:
        for a, b in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
            s = s.replace(a, b)
        return s

    return "<br/>".join(escape(s) for s in _wrap_label(text))


def to_mermaid(g: nx.DiGraph) -> str:
    """A Mermaid flowchart; node ids are renamed n0, n1... (Mermaid reserves `end`)."""
    ids = {nid: f"n{k}" for k, nid in enumerate(g.nodes)}
    out = ["flowchart TD"]
    title = g.graph.get("title")
    if title:
        out.append(f"  %% {title}")
    for nid, data in g.nodes(data=True):
        left, right = _MERMAID_SHAPE.get(data.get("kind", "action"), ('["', '"]'))
        out.append(f"  {ids[nid]}{left}{_mermaid_text(data.get('label', nid))}{right}")
    for a, b, data in g.edges(data=True):
        arrow = {"calls": "-.->", "back": "-.->", "loop": "==>"}.get(data.get("kind", ""), "-->")
        label = f'|"{_mermaid_text(data["label"])}"|' if data.get("label") else ""
        out.append(f"  {ids[a]} {arrow}{label} {ids[b]}")
    for kind, style in _MERMAID_CLASS.items():
        members = [ids[n] for n, d in g.nodes(data=True) if d.get("kind") == kind]
        if members:
            out.append(f"  classDef k_{kind} {style}")  # prefixed: Mermaid reserves some words
            out.append(f"  class {','.join(members)} k_{kind}")
    return "\n".join(out) + "\n"


# ---- rules analysis --------------------------------------------------------------------
def procedure_steps(program: Program, r: Renderer) -> Iterator[tuple[str, Step]]:
    for name, spec in program.procedures.items():
        for step in walk(program, spec.block, r):
            yield name, step


def _function_closure(program: Program, direct: Callable[[tuple], set[str]]) -> dict[str, set[str]]:
    """What each pack function reaches, including through the functions it calls."""
    reach = {name: direct(expr) for name, (_, expr) in program.functions.items()}
    calls = {name: {e[1] for e in subexprs(expr) if e[0] == "fn"}
             for name, (_, expr) in program.functions.items()}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            more = set().union(*(reach.get(c, set()) for c in callees)) - reach[name]
            if more:
                reach[name] |= more
                changed = True
    return reach


def readers(program: Program, r: Renderer, kinds: set[str], key: Callable[[tuple], str | None]
            ) -> dict[str, list[str]]:
    """Which procedures read something: key(expr) names it for expressions of `kinds`."""
    def direct(e: tuple) -> set[str]:
        return {k for x in subexprs(e) if x[0] in kinds and (k := key(x)) is not None}

    via_fn = _function_closure(program, direct)
    found: dict[str, dict[str, set[str]]] = {}  # name -> procedure -> functions read through
    for proc, step in procedure_steps(program, r):
        for e in operands(step.ins):
            for name in direct(e):
                found.setdefault(name, {}).setdefault(proc, set())
            for x in subexprs(e):
                for name in via_fn.get(x[1], set()) if x[0] == "fn" else ():
                    found.setdefault(name, {}).setdefault(proc, set()).add(x[1])
    return {name: [_via(proc, fns) for proc, fns in sorted(procs.items())]
            for name, procs in found.items()}


def _via(proc: str, functions: set[str]) -> str:
    return f"{proc} (via {', '.join(sorted(functions))})" if functions else proc


def effect_readers(program: Program, r: Renderer) -> dict[str, list[str]]:
    """Lasting effect -> procedures that read it (directly or through pack functions)."""
    return readers(program, r, {"effect", "effect_list"}, lambda e: e[1])


def builtin_users(program: Program, r: Renderer, builtin: str) -> list[str]:
    return readers(program, r, {"call"}, lambda e: e[1] if e[1] == builtin else None).get(
        builtin, [])


def card_params(program: Program, r: Renderer) -> dict[str, set[str]]:
    """Parameters of each procedure that carry a card (used where a card is expected)."""
    typed: dict[str, set[str]] = {name: set() for name in program.procedures}
    changed = True
    while changed:
        changed = False
        for proc, step in procedure_steps(program, r):
            params = program.procedures[proc].params
            for e in card_operands(step.ins, typed):
                if e[0] == "var" and e[1] in params and e[1] not in typed[proc]:
                    typed[proc].add(e[1])
                    changed = True
    return typed


def card_operands(ins: tuple, typed: dict[str, set[str]]) -> list[tuple]:
    slot = CARD_OPERAND.get(ins[0])
    if slot is not None:
        return [ins[slot]]
    if ins[0] == "call":
        return [e for n, e in ins[2] if n in typed.get(ins[1], set())]
    return []


def event_runners(program: Program, r: Renderer) -> set[str]:
    """Procedures that resolve a card's event, themselves or through what they call."""
    runs = {proc for proc, step in procedure_steps(program, r) if step.ins[0] == "event"}
    calls = {(proc, step.ins[1]) for proc, step in procedure_steps(program, r)
             if step.ins[0] == "call"}
    changed = True
    while changed:
        more = {caller for caller, callee in calls if callee in runs} - runs
        runs |= more
        changed = bool(more)
    return runs


@dataclass
class Handling:
    """How the rules treat one value of the persistent attribute."""

    value: str
    decided_in: str
    zones: list[str]
    at_once: bool  # the event is resolved before the card is put away
    resolved_by: list[str]

    def describe(self, attr: str) -> str:
        where = " and ".join(self.zones) or "no zone"
        if self.at_once:
            return (f"{attr} {self.value}: the event takes effect when it is resolved; the card "
                    f"then stays in {where} (rule {self.decided_in})")
        later = ", ".join(self.resolved_by) or "no rule found"
        return (f"{attr} {self.value}: when put into play the card is set aside in {where} (rule "
                f"{self.decided_in}); its event is resolved later, by {later}")


def persistent_handling(program: Program, r: Renderer, attr: str = PERSISTENT
                        ) -> dict[str, Handling]:
    """Find the rule that tests the attribute, where each value sends the card, and who
    later resolves events of cards kept there."""
    out: dict[str, Handling] = {}
    for proc, spec in program.procedures.items():
        holders = {s.ins[1] for s in walk(program, spec.block, r)
                   if s.ins[0] == "let" and s.ins[2][:2] == ("attr", attr)}
        for step in walk(program, spec.block, r):
            if step.ins[0] != "if":
                continue
            for cond, block in step.ins[1]:
                value = _tested_value(cond, attr, holders)
                if value is not None and value not in out:
                    out[value] = _handling(program, r, proc, step, block, value)
    return out


def _tested_value(cond: tuple, attr: str, holders: set[str]) -> str | None:
    if cond[0] != "cmp" or cond[1] != "==" or cond[3][0] != "const":
        return None
    subject = cond[2]
    if subject[:2] == ("attr", attr) or (subject[0] == "var" and subject[1] in holders):
        return str(cond[3][1])
    return None


def _handling(program: Program, r: Renderer, proc: str, step: Step, block: int,
              value: str) -> Handling:
    zones = list(dict.fromkeys(r.expr(s.ins[2]) for s in walk(program, block, r)
                               if s.ins[0] == "transfer"))
    path = step.trail + ((step.block, step.index),)
    at_once = any(ins[0] == "event" for b, i in path for ins in program.blocks[b][:i])
    names = {_zone_name(s.ins[2]) for s in walk(program, block, r) if s.ins[0] == "transfer"}
    later = [] if at_once else _resolvers(program, r, names - {None}, exclude=proc)
    return Handling(value, proc, zones, at_once, later)


def _zone_name(e: tuple) -> str | None:
    if e[0] == "zone" or (e[0] == "const" and isinstance(e[1], str)):
        return e[1]
    return None


def _resolvers(program: Program, r: Renderer, zones: set[str], exclude: str) -> list[str]:
    """Procedures that resolve events and look into one of the zones."""
    out = []
    for proc, spec in program.procedures.items():
        steps = list(walk(program, spec.block, r))
        mentions = {_zone_name(x) for s in steps for e in operands(s.ins) for x in subexprs(e)
                    if x[0] in ("zone", "const")}
        if proc != exclude and zones & mentions and any(s.ins[0] == "event" for s in steps):
            out.append(proc)
    return out


# ---- the outline of one card ------------------------------------------------------------
READ_KINDS = {"counter": "counters", "support_of": "pools", "support_at": "pools",
              "leader": "pools", "zone": "zones", "cards": "zones", "track": "tracks",
              "effect": "effects", "effect_list": "effects", "attr": "properties",
              "token": "tokens", "global": "variables", "call": "functions", "fn": "functions"}


@dataclass
class Outline:
    number: int
    title: str
    attributes: dict[str, Any]
    text: str
    source: str
    has_event: bool
    steps: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    reads: dict[str, list[str]] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)
    timing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ctx(context: tuple[str, ...]) -> str:
    shown = [c for c in context if c]
    return f"  [{' > '.join(shown)}]" if shown else ""


def _add(items: list[str], line: str) -> None:
    if line not in items:
        items.append(line)


class _OutlineBuilder:
    def __init__(self, program: Program, r: Renderer) -> None:
        self.p = program
        self.r = r
        self.o: Outline
        self.effect_readers = effect_readers(program, r)
        self.variable_readers = readers(program, r, {"global"}, lambda e: e[1])
        self.signed = set(program.initial.get("signed", []))
        self.lasting: list[str] = []

    def build(self, number: int, text: str) -> Outline:
        attrs = dict(self.p.cards[number])
        title = str(attrs.pop("title", ""))
        attrs.pop("number", None)
        block = self.p.events.get(number)
        self.o = Outline(number, title, attrs, text, self._source(block), block is not None)
        if block is not None:
            self.o.steps = listing(self.p, block, self.r)
            for step in walk(self.p, block, self.r):
                self.step(step)
        self.o.timing = self.timing(attrs)
        return self.o

    def _source(self, block: int | None) -> str:
        if block is None or not self.p.positions[block]:
            return ""
        path, line, _ = self.p.positions[block][0].rsplit(":", 2)
        return f"{Path(path).name}, line {line}"

    def step(self, step: Step, via: str = "") -> None:
        ins, ctx = step.ins, _ctx(step.context)
        prefix = f"via {via}: " if via else ""
        if ins[0] in DECISIONS:
            _add(self.o.decisions, prefix + self.decision(ins) + ctx)
        if not via:
            self.reads(ins)
        self.limits(step, prefix)
        change = self.change(ins)
        if change is not None:
            _add(self.o.changes, prefix + change + ctx)
        if ins[0] == "call" and not via:
            self.follow_call(step)

    def follow_call(self, step: Step) -> None:
        """One level into a called procedure, with the arguments put in."""
        view = call_view(self.p, step.ins)
        if view is None:
            return
        is_phrase = self.r.phrase(step.ins[1], step.ins[2]) is not None
        for inner in walk(self.p, self.p.procedures[step.ins[1]].block, self.r, view):
            inner = Step(inner.block, inner.index, inner.ins, step.context + inner.context)
            if is_phrase and inner.ins[0] not in DECISIONS:
                continue  # the phrase already says what changes and within what limits
            self.step(inner, via=step.ins[1])

    def decision(self, ins: tuple) -> str:
        who = self.r.expr(ins[1])
        if ins[0] == "choose":
            label = f", labelled {self.r.expr(ins[4])}" if ins[4] is not None else ""
            return f"{who} chooses {ins[2]} from {self.r.expr(ins[3])}{label}"
        offered = [opt for opt in ins[2] if opt[3] != ("const", False)]
        return f"{who} chooses one of: {'; '.join(self.r.option(opt) for opt in offered)}"

    # ---- reads --------------------------------------------------------------
    def reads(self, ins: tuple) -> None:
        skip = {id(ins[k]) for k in ZONE_OPERANDS.get(ins[0], ())}  # destinations, not reads
        for e in operands(ins):
            if id(e) in skip:
                continue
            for x in subexprs(e):
                self.read(x)

    def read(self, x: tuple) -> None:
        kind = x[0]
        if kind == "cmp":
            self.read_card(x)
        category = READ_KINDS.get(kind)
        if category is None:
            return
        text = self.r.expr(x)
        if kind == "cards":
            text = self.r.expr(x[1])
        elif kind in ("call", "fn"):
            pools = [a for a in x[2] if a[0] == "const" and isinstance(a[1], str)
                     and a[1] in self.p.pools]
            if pools:
                _add(self.o.reads.setdefault("pools", []), text)
            text = f"{x[1]}()" + (" (pack function)" if kind == "fn" else "")
        _add(self.o.reads.setdefault(category, []), text)

    def read_card(self, x: tuple) -> None:
        """A test naming a card outright against a zone (`7 in cards(pile)`)."""
        for side, other in ((x[2], x[3]), (x[3], x[2])):
            looks_in_zone = any(y[0] == "cards" for y in subexprs(other))
            named = self.r.named_cards(side) if side[0] == "const" and looks_in_zone else []
            if named:
                _add(self.o.reads.setdefault("cards", []), self.r.card_names(named))

    # ---- changes --------------------------------------------------------------
    def change(self, ins: tuple) -> str | None:
        op = ins[0]
        if op in SILENT:
            return None
        text = self.r.statement(ins)
        if op == "effect":
            amount = f" {self.r.expr(ins[3])}" if ins[3] is not None else ""
            _add(self.lasting, f"lasting effect: {self.r.expr(ins[1])} has {ins[2]}{amount} "
                 f"until the end of the {ins[4]}")
            who = self.effect_readers.get(ins[2], [])
            text += f"  (lasting effect; read by {', '.join(who) or 'no rule'})"
        elif op == "set":
            who = self.variable_readers.get(ins[1], [])
            text += f"  (read by {', '.join(who) or 'no rule'})"
        return text

    # ---- limits ---------------------------------------------------------------
    def limits(self, step: Step, prefix: str) -> None:
        ins = step.ins
        op = ins[0]
        if op == "call":
            for line in self.phrase_limits(ins):
                _add(self.o.limits, prefix + line)
        elif op in LOOPS:
            _add(self.o.limits, prefix + "loop: " + self.r.loop(ins) + _ctx(step.context))
        elif op == "if":
            for cond, _ in ins[1]:
                if cond[0] == "const":
                    continue  # settled by the call's arguments
                _add(self.o.limits, prefix + f"only if {self.r.expr(cond)}" + _ctx(step.context))
        elif op == "menu":
            for opt in ins[2]:
                if opt[3] is not None and opt[3] != ("const", True):
                    _add(self.o.limits, prefix + f"option {self.r.expr(opt[0])} only if "
                         f"{self.r.expr(opt[3])}")
        elif op in ("lose", "remove", "pay"):
            line = self.loss_limit(ins)
            if line:
                _add(self.o.limits, prefix + line)

    def phrase_limits(self, ins: tuple) -> list[str]:
        a = dict(ins[2])
        if self.r.phrase(ins[1], ins[2]) is None or "per" not in a:
            return []
        e = {k: self.r.expr(v) for k, v in a.items()}
        unit = self.r.unit(a["pool"])
        where = self.r.targets(a["targets"], a["pool"])
        out = [f"total: {e['amount']} {e['pool']} support, {where}"]
        if a["per"] != a["amount"]:
            out.append(f"at most {e['per']} per {unit}")
        if a["optional"] == ("const", True):
            out.append(f"optional: {e['who']} may stop before the total")
        else:
            out.append(f"mandatory: {e['who']} must reach the total where the board allows")
        return out

    def loss_limit(self, ins: tuple) -> str | None:
        if ins[0] == "pay":
            return f"{self.r.expr(ins[1])} must have {self.r.expr(ins[2])} {ins[3]} to pay"
        if ins[0] == "lose" and ins[3] not in self.signed:
            return f"{ins[3]} never drops below 0 (a loss takes only what there is)"
        if ins[0] == "remove":
            return f"{self.r.expr(ins[2])} support: a loss removes only what is there"
        return None

    # ---- timing -----------------------------------------------------------------
    def timing(self, attrs: dict[str, Any]) -> list[str]:
        value = attrs.get(PERSISTENT)
        out = []
        if value:
            handled = persistent_handling(self.p, self.r).get(str(value))
            out.append(handled.describe(PERSISTENT) if handled else
                       f"{PERSISTENT} {value}: no rule of the pack tests this value")
        elif PERSISTENT in attrs:
            out.append(f"not {PERSISTENT}: the event takes effect as soon as it is resolved")
        return out + self.lasting


def listing(program: Program, root: int, r: Renderer, indent: int = 0) -> list[str]:
    """The compiled block as effect text, one instruction a line, nested by indentation."""
    pad = "  " * indent
    out: list[str] = []
    for ins in program.blocks[root]:
        out.append(pad + r.statement(ins))
        if ins[0] == "if":
            for k, (cond, block) in enumerate(ins[1]):
                if k:
                    out.append(pad + f"elif {r.expr(cond)}:")
                out += listing(program, block, r, indent + 1)
            if ins[2] is not None:
                out.append(pad + "else:")
                out += listing(program, ins[2], r, indent + 1)
        elif ins[0] == "menu":
            for opt in ins[2]:
                out.append(pad + "  " + r.option(opt) + ":")
                out += listing(program, opt[-1], r, indent + 2)
        else:
            for block in nested_blocks(ins):
                out += listing(program, block, r, indent + 1)
    return out


def outline(program: Program, number: int, texts: dict[int, str] | None = None) -> Outline:
    """What a card's event asks, reads, changes and is limited by, from its compiled form."""
    return _OutlineBuilder(program, Renderer(program)).build(number, (texts or {}).get(number, ""))


def format_outline(o: Outline, width: int = 88) -> str:
    attrs = " | ".join(f"{k} {'-' if v is None else v}" for k, v in o.attributes.items())
    out = [f"{o.number} {o.title}", f"  {attrs}", "", "Printed text:"]
    out += textwrap.wrap(o.text or "(none)", width, initial_indent="  ", subsequent_indent="  ")
    if not o.has_event:
        out += ["", "Event: none written (this card has no event to explain)"]
        return "\n".join(out + _section("Takes effect", o.timing)) + "\n"
    out += ["", f"Event ({o.source}):" if o.source else "Event:"]
    out += ["  " + line for line in o.steps]
    out += _section("Decisions", o.decisions, "none: the event asks no player anything")
    out += _reads_section(o.reads)
    out += _section("Changes", o.changes, "nothing")
    out += _section("Limits", o.limits, "none")
    out += _section("Takes effect", o.timing)
    return "\n".join(out) + "\n"


def _section(title: str, items: list[str], empty: str = "") -> list[str]:
    if not items and not empty:
        return []
    return ["", f"{title}:"] + ([f"  - {i}" for i in items] if items else [f"  {empty}"])


def _reads_section(reads: dict[str, list[str]]) -> list[str]:
    if not reads:
        return ["", "Reads:", "  nothing"]
    order = ["counters", "pools", "zones", "cards", "tracks", "effects", "properties", "tokens",
             "variables", "functions"]
    keys = [k for k in order if k in reads] + [k for k in reads if k not in order]
    return ["", "Reads:"] + [f"  {k + ':':<12}{', '.join(reads[k])}" for k in keys]


# ---- interactions between cards -------------------------------------------------------------
@dataclass
class Interaction:
    card: int
    title: str
    relation: str  # prevents, moves card, moves cards, deals cards, resolves event, ...
    target: str
    detail: str
    cards: list[int] = field(default_factory=list)  # cards named outright
    readers: list[str] = field(default_factory=list)  # rules that read a lasting effect


class _InteractionFinder:
    def __init__(self, program: Program) -> None:
        self.p = program
        self.r = Renderer(program)
        self.effect_readers = effect_readers(program, self.r)
        self.checkers = builtin_users(program, self.r, PREVENTED)
        self.typed = card_params(program, self.r)
        self.runners = event_runners(program, self.r)
        self.handling = persistent_handling(program, self.r)

    def card(self, number: int) -> list[Interaction]:
        title = str(self.p.cards[number].get("title", ""))
        rows: list[Interaction] = []
        block = self.p.events.get(number)
        bindings: dict[str, str] = {}
        for step in walk(self.p, block, self.r) if block is not None else []:
            self.bind(step.ins, bindings)
            for relation, target, detail, named, who in self.relations(step, bindings):
                rows.append(Interaction(number, title, relation, target,
                                        detail + _ctx(step.context), named, who))
        rows += self.persistent(number, title, rows)
        return _dedupe(rows)

    def bind(self, ins: tuple, bindings: dict[str, str]) -> None:
        """Remember where local names come from, to say which card a name stands for."""
        if ins[0] == "let":
            bindings[ins[1]] = f"{ins[1]} = {self.r.expr(ins[2])}"
        elif ins[0] in ("choose", "for"):
            var, items = (ins[2], ins[3]) if ins[0] == "choose" else (ins[1], ins[2])
            bindings[var] = f"{var} from {self.r.expr(items)}"
        elif ins[0] == "menu":
            for _, var, items, _, _ in ins[2]:
                if var is not None:
                    bindings[var] = f"{var} from {self.r.expr(items)}"

    def describe(self, e: tuple, bindings: dict[str, str]) -> str:
        if e[0] == "var" and e[1] in bindings:
            return bindings[e[1]]
        return self.r.expr(e)

    def relations(self, step: Step, bindings: dict[str, str]) -> Iterator[tuple]:
        ins, op = step.ins, step.ins[0]
        text = self.r.statement(ins)
        if op == "prevent":
            named = self.r.named_cards(ins[1])
            target = self.r.card_names(named) or self.describe(ins[1], bindings)
            checked = f"; checked by {', '.join(self.checkers)}" if self.checkers else ""
            yield "prevents", target, f"{text}{checked}", named, []
        elif op == "transfer":
            yield self.moved(ins[1], text, bindings)
        elif op == "deal":
            yield "deals cards", f"{self.r.expr(ins[1])} from {self.r.expr(ins[2])}", text, [], []
        elif op in ("event", "flip"):
            relation = "resolves event" if op == "event" else "flips card"
            named = self.r.named_cards(ins[1])
            target = self.r.card_names(named) or self.describe(ins[1], bindings)
            yield relation, target, text, named, []
        elif op == "reveal":
            yield "reveals cards", self.r.expr(ins[1]), text, [], []
        elif op == "effect":
            who = self.effect_readers.get(ins[2], [])
            detail = f"{text}; read by {', '.join(who) or 'no rule'}"
            yield "sets effect", ins[2], detail, [], who
        elif op == "call":
            yield from self.call(ins, text, bindings)

    def moved(self, e: tuple, text: str, bindings: dict[str, str]) -> tuple:
        named = self.r.named_cards(e)
        if named:
            return "moves card", self.r.card_names(named), text, named, []
        return "moves cards", self.describe(e, bindings), text, [], []

    def call(self, ins: tuple, text: str, bindings: dict[str, str]) -> Iterator[tuple]:
        for name, e in ins[2]:
            if name not in self.typed.get(ins[1], set()):
                continue
            if ins[1] in self.runners:
                named = self.r.named_cards(e)
                target = self.r.card_names(named) or self.describe(e, bindings)
                yield "resolves event", target, f"{text} (rule {ins[1]})", named, []
            else:
                relation, target, _, named, _ = self.moved(e, text, bindings)
                yield relation, target, f"{text} (rule {ins[1]})", named, []

    def persistent(self, number: int, title: str, rows: list[Interaction]) -> list[Interaction]:
        value = self.p.cards[number].get(PERSISTENT)
        if not value:
            return []
        handled = self.handling.get(str(value))
        detail = handled.describe(PERSISTENT) if handled else "no rule tests this value"
        effects = [row.target for row in rows if row.relation == "sets effect"]
        if effects:
            detail += f"; sets {', '.join(dict.fromkeys(effects))}"
        elif number not in self.p.events:
            detail += "; no event written yet"
        return [Interaction(number, title, "persistent", str(value), detail)]


def _dedupe(rows: list[Interaction]) -> list[Interaction]:
    seen: set[tuple] = set()
    out = []
    for row in rows:
        key = (row.relation, row.target, row.detail)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def interactions(program: Program) -> list[Interaction]:
    """Cards whose events act on other cards, and the lasting effects and stored events
    that reach into the rules."""
    finder = _InteractionFinder(program)
    rows: list[Interaction] = []
    for number in sorted(program.cards):
        rows += finder.card(number)
    return rows


def format_interactions(rows: list[Interaction]) -> str:
    """An aligned table: card, title, relation, target, then the detail."""
    if not rows:
        return "no card acts on another card\n"
    head = ("card", "title", "relation", "target")
    cells = [(str(r.card), _clip(r.title, 28), r.relation, _clip(r.target, 36)) for r in rows]
    widths = [max(len(c[k]) for c in cells + [head]) for k in range(4)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  detail"]
    out.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    for cell, row in zip(cells, rows, strict=True):
        out.append("  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)) + "  "
                   + row.detail)
    cards = len({r.card for r in rows})
    out.append(f"\n{len(rows)} interactions from {cards} cards")
    return "\n".join(out) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
