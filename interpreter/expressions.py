"""Turns expression tuples into Python closures `f(machine, env) -> value`.

Values are plain data: integers, booleans, strings (names of players, places,
track items), integers for cards, lists and None. Closures are built once when
a program is loaded, so evaluation never re-reads the tuples.

`build` is the one entry the instructions use: while a program's compiled module is
active (codegen.py, the default backend) it answers with the compiled function of the
same expression instead, which behaves exactly as the closure built here would.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .budget import MAX_INT, MAX_ITEMS, MAX_TEXT
from .errors import RuleError
from .support import leader

Closure = Callable[[Any, dict], Any]
# A menu option: appends what it offers, (label, payload) pairs, to a list.
Offer = Callable[[Any, dict, list], None]

_ACTIVE = threading.local()  # the compiled unit `build` answers from, if any


@contextlib.contextmanager
def active(unit: Any) -> Iterator[None]:
    """`build` and `build_offer` answer from `unit` (None: closures) inside."""
    before = getattr(_ACTIVE, "unit", None)
    _ACTIVE.unit = unit
    try:
        yield
    finally:
        _ACTIVE.unit = before


def build(expr: tuple) -> Closure:
    unit = getattr(_ACTIVE, "unit", None)
    if unit is not None:
        return unit.function(expr)
    return _closure(expr)


def build_closure(expr: tuple) -> Closure:
    """The closure of an expression whatever unit is active (its parts closures too)."""
    with active(None):
        return _closure(expr)


def _closure(expr: tuple) -> Closure:
    kind = expr[0]
    try:
        builder = BUILDERS[kind]
    except KeyError:
        raise RuleError(f"unknown expression kind {kind!r}") from None
    return builder(*expr[1:])


def _const(value):
    return lambda m, env: value


def _var(name):
    def f(m, env):
        try:
            return env[name]
        except KeyError:
            raise RuleError(f"'{name}' has no value here") from None

    return f


def _global(name):
    return lambda m, env: m.s.vars[name]


def _counter(name, who):
    w = build(who)
    return lambda m, env: m.s.counters[name][w(m, env)]


def zone_key(name: str, owner: str | None) -> str:
    return f"{name}:{owner}" if owner is not None else name


def _zone(name, who):
    if who is None:
        return _const(name)
    w = build(who)
    return lambda m, env: f"{name}:{w(m, env)}"


def _cards(zone):
    z = build(zone)
    return lambda m, env: list(m.s.zones[z(m, env)])


def _effect(name, who):
    w = build(who)

    def f(m, env):
        p = w(m, env)
        return checked(m, sum(e[2] for e in m.s.effects if e[0] == name and e[1] == p))

    return f


def _effect_list(name, who):
    w = build(who)

    def f(m, env):
        p = w(m, env)
        return [e[2] for e in m.s.effects if e[0] == name and e[1] == p]

    return f


def _attr(name, sub):
    s = build(sub)

    def f(m, env):
        v = s(m, env)
        if v is None:
            return None
        if type(v) is int:
            return m.p.cards[v].get(name)
        loc = m.p.locations.get(v)
        if loc is None:
            raise RuleError(f"'{v}' has no property '{name}'")
        return loc.get(name)

    return f


def _token(who):
    w = build(who)
    return lambda m, env: m.s.tokens.get(w(m, env))


def _opponent(who):
    w = build(who)

    def f(m, env):
        p = w(m, env)
        return m.opponents[p] if p is not None else None

    return f


def _leader(pool, loc):
    loc_f = build(loc)

    def f(m, env):
        where = loc_f(m, env)
        name = pool or m.p.default_pool(m.p.locations[where]["kind"])
        held = m.s.pools[name].get(where)
        if not held:
            return None
        return leader(held) if name in m.stacking else held[0]

    return f


def _support_of(pool, who, loc):
    w, loc_f = build(who), build(loc)

    def f(m, env):
        held = m.s.pools[pool].get(loc_f(m, env))
        if not held:
            return 0
        if pool in m.stacking:
            return held.get(w(m, env), 0)
        return held[1] if held[0] == w(m, env) else 0

    return f


def _support_at(pool, loc):
    loc_f = build(loc)

    def f(m, env):
        held = m.s.pools[pool].get(loc_f(m, env))
        if not held:
            return 0
        if pool not in m.stacking:
            return held[1]
        total = sum(held.values())
        if total > MAX_INT:
            raise RuleError(f"{pool} support at a place went past the 64-bit limit")
        return total

    return f


def _track(name):
    return lambda m, env: list(m.s.tracks[name])


def _mul(a, b):
    """`*`; repeating a list or text is checked before it is built."""
    if a.__class__ is int and b.__class__ is int:
        return a * b
    seq, times = (a, b) if isinstance(a, list | str) else (b, a)
    if isinstance(seq, list | str) and isinstance(times, int):
        if len(seq) * max(times, 0) > (MAX_ITEMS if isinstance(seq, list) else MAX_TEXT):
            raise RuleError(f"repeating a {'list' if isinstance(seq, list) else 'text'} "
                            f"{times} times makes it too long")
    return a * b


_ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": _mul,
    "//": lambda a, b: a // b if b else 0,
    "%": lambda a, b: a % b if b else 0,
}


def checked(m, value):
    """A value built by an operation, within the budget: 64-bit integers, bounded
    lists and texts. Lists and texts cost their size in work units."""
    cls = value.__class__
    if cls is int:
        if -MAX_INT <= value <= MAX_INT:
            return value
        raise RuleError("a number went past the 64-bit limit (2**63)")
    if cls is list:
        m.charge(list_size(value))
    elif cls is str:
        if len(value) > MAX_TEXT:
            raise RuleError(f"a text grew longer than {MAX_TEXT:,} characters")
        m.charge(len(value))
    return value


def list_size(items: list) -> int:
    """Items in a list, counting those of the lists inside it (each shared list once
    per place it appears); past MAX_ITEMS, or nested too deep, it is an error."""
    memo: dict[int, int] = {}

    def size(v: list, depth: int) -> int:
        known = memo.get(id(v))
        if known is not None:
            return known
        if depth > 100:
            raise RuleError("lists nest more than 100 deep")
        n = len(v)
        if n > MAX_ITEMS:
            raise RuleError(f"a list grew longer than {MAX_ITEMS:,} items")
        for x in v:
            if x.__class__ is list:
                n += size(x, depth + 1)
                if n > MAX_ITEMS:
                    raise RuleError(f"a list grew larger than {MAX_ITEMS:,} items "
                                    "(counting the lists inside it)")
        memo[id(v)] = n
        return n

    return size(items, 0)


_CMP = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: b is not None and a in b,
    "not in": lambda a, b: b is None or a not in b,
}


def _arith(op, a, b):
    """Integer results in range return at once (the hot path); anything else is checked."""
    fa, fn = build(a), _ARITH[op]
    if b[0] == "const":  # `left - 1`: no closure call for the constant
        value = b[1]

        def with_const(m, env):
            r = fn(fa(m, env), value)
            if r.__class__ is int and -MAX_INT <= r <= MAX_INT:
                return r
            return checked(m, r)

        return with_const
    fb = build(b)

    def general(m, env):
        r = fn(fa(m, env), fb(m, env))
        if r.__class__ is int and -MAX_INT <= r <= MAX_INT:
            return r
        return checked(m, r)

    return general


def _cmp(op, a, b):
    """Comparisons are specialised per operator: they are the rules' hottest code."""
    fa = build(a)
    if b[0] == "const" and op in ("==", "!="):
        value = b[1]
        if op == "==":
            return lambda m, env: fa(m, env) == value
        return lambda m, env: fa(m, env) != value
    fb = build(b)
    if op in ("==", "!="):
        if op == "==":
            return lambda m, env: fa(m, env) == fb(m, env)
        return lambda m, env: fa(m, env) != fb(m, env)
    if op == "in":
        def member(m, env):
            container = fb(m, env)
            return container is not None and fa(m, env) in container

        return member
    if op == "not in":
        def non_member(m, env):
            container = fb(m, env)
            return container is None or fa(m, env) not in container

        return non_member
    fn = _CMP[op]

    def order(m, env):
        try:
            return fn(fa(m, env), fb(m, env))
        except TypeError:  # comparing a name with a number, or none with anything
            return False

    return order


def _ifelse(cond, a, b):
    fc, fa, fb = build(cond), build(a), build(b)
    return lambda m, env: fa(m, env) if fc(m, env) else fb(m, env)


def _and(a, b):
    fa, fb = build(a), build(b)
    return lambda m, env: True if fa(m, env) and fb(m, env) else False


def _or(a, b):
    fa, fb = build(a), build(b)
    return lambda m, env: True if fa(m, env) or fb(m, env) else False


def _not(a):
    fa = build(a)
    return lambda m, env: not fa(m, env)


def _neg(a):
    fa = build(a)
    return lambda m, env: checked(m, -fa(m, env))


def _list(items):
    fs = [build(i) for i in items]

    def f(m, env):
        out = [g(m, env) for g in fs]
        for v in out:
            if v.__class__ is list:  # a list of lists: count what it holds
                m.charge(list_size(out))
                break
        return out

    return f


# Expressions that always give a list (or none), so their items need no check in the game.
_LISTS = frozenset({"list", "where", "cards", "track", "effect_list", "as_list"})
_LIST_CALLS = frozenset({"range", "held", "empty", "unique"})


def build_items(expr: tuple, what: str) -> Closure:
    """A function giving a list to go through (see `checked_items`)."""
    return build(checked_items(expr, what))


def checked_items(expr: tuple, what: str) -> tuple:
    """The expression, checked to give a list where that is not known before the game: a
    text there would be gone through letter by letter, so it is a RuleError instead."""
    kind = expr[0]
    if (kind in _LISTS or (kind == "call" and expr[1] in _LIST_CALLS)
            or (kind == "const" and expr[1].__class__ is not str)):
        return expr
    return ("items", expr, what)


def _items(expr, what):
    f = build(expr)

    def items(m, env):
        v = f(m, env)
        if v.__class__ is str:
            raise RuleError(f"{what} must be a list, not the text {v[:60]!r} "
                            "(a list of one is written [x])")
        return v

    return items


def _as_list(e):
    """A phrase's targets: one place is a list of one place."""
    f = build(e)

    def g(m, env):
        v = f(m, env)
        if v.__class__ is list:
            return v
        if v is None:
            return []
        if v.__class__ is str:
            return [v]
        raise RuleError(f"expected a place or a list of places, not {m.show(v)}")

    return g


WHERE_SOURCE = "what `where` filters"
OPTION_ITEMS = "what the option runs over"


def _where(src, cond):
    fs, fc = build_items(src, WHERE_SOURCE), build(cond)

    def f(m, env):
        saved = env.get("it", _MISSING)
        out = []
        items = fs(m, env)
        if items:
            m.work += len(items)
            if m.work > m.work_limit:
                m.charge(0)
        for item in items:
            env["it"] = item
            if fc(m, env):
                out.append(item)
        if saved is _MISSING:
            env.pop("it", None)
        else:
            env["it"] = saved
        return out

    return f


_MISSING = object()


def _fmt(parts):
    fs = [p if isinstance(p, str) else build(p) for p in parts]
    show_text = _show_text

    def f(m, env):
        out = []
        for p in fs:
            if p.__class__ is not str:
                p = p(m, env)
                if p.__class__ is not str:
                    p = show_text(m, p)
            out.append(p)
        return charged_text(m, "".join(out))

    return f


def charged_text(m, text: str) -> str:
    """A text built from parts: bounded, and its length charged as work."""
    n = len(text)  # each part is bounded, and content fixes how many there are
    if n > MAX_TEXT:
        raise RuleError(f"a text grew longer than {MAX_TEXT:,} characters")
    m.work += n
    if m.work > m.work_limit:
        m.charge(0)
    return text


def _show_text(m, value) -> str:
    return m.show(value)


def _call(name, args):
    from .builtins import BUILTINS, LIST_ARGUMENTS

    fn = BUILTINS[name]
    listed = LIST_ARGUMENTS.get(name)
    fs = [build_items(a, f"what {name}() reads") if k == listed else build(a)
          for k, a in enumerate(args)]
    if len(fs) == 0:
        return lambda m, env: fn(m)
    if len(fs) == 1:
        (f1,) = fs
        return lambda m, env: fn(m, f1(m, env))
    if len(fs) == 2:
        f1, f2 = fs
        return lambda m, env: fn(m, f1(m, env), f2(m, env))
    return lambda m, env: fn(m, *[a(m, env) for a in fs])


def _fn(name, args):
    """A pack-defined function: its body runs in a fresh scope holding only its parameters."""
    fs = [build(a) for a in args]

    def f(m, env):
        params, body = m.functions[name]
        m.work += 1  # a function may call itself: each call is work
        if m.work > m.work_limit:
            m.charge(0)
        if len(params) != len(fs):
            raise RuleError(f"{name}() takes {len(params)} arguments, not {len(fs)}")
        scope = {}
        for param, arg in zip(params, fs):  # noqa: B905 - lengths checked above
            scope[param] = arg(m, env)
        return body(m, scope)

    return f


BUILDERS: dict[str, Callable[..., Closure]] = {
    "const": _const,
    "var": _var,
    "global": _global,
    "counter": _counter,
    "zone": _zone,
    "cards": _cards,
    "effect": _effect,
    "effect_list": _effect_list,
    "attr": _attr,
    "token": _token,
    "opponent": _opponent,
    "leader": _leader,
    "support_of": _support_of,
    "support_at": _support_at,
    "track": _track,
    "arith": _arith,
    "cmp": _cmp,
    "ifelse": _ifelse,
    "and": _and,
    "or": _or,
    "not": _not,
    "neg": _neg,
    "list": _list,
    "where": _where,
    "items": _items,
    "fmt": _fmt,
    "call": _call,
    "fn": _fn,
    "as_list": _as_list,
}


def build_offer(option: tuple) -> Offer:
    """A menu option (label, var, items, cond, block): for each item of its list (or once,
    with no list) that passes its condition, a (label, payload) pair."""
    unit = getattr(_ACTIVE, "unit", None)
    if unit is not None:
        return unit.offer(option)
    return offer_closure(option)


def offer_closure(option: tuple) -> Offer:
    label, var, items, cond, block = option
    with active(None):
        label_f = _closure(label)
        items_f = _closure(checked_items(items, OPTION_ITEMS)) if items else None
        cond_f = _closure(cond) if cond else None
    if items_f is None:
        def once(m, env, offered):
            if cond_f is None or cond_f(m, env):
                offered.append((label_f(m, env), ["branch", block, None, None]))

        return once

    def each(m, env, offered):
        for item in items_f(m, env):
            env[var] = item
            if cond_f is None or cond_f(m, env):
                offered.append((label_f(m, env), ["branch", block, var, item]))

    return each
