"""Turns expression tuples into Python closures `f(machine, env) -> value`.

Values are plain data: integers, booleans, strings (names of players, places,
track items), integers for cards, lists and None. Closures are built once when
a program is loaded, so evaluation never re-reads the tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import RuleError

Closure = Callable[[Any, dict], Any]


def build(expr: tuple) -> Closure:
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
        return sum(e[2] for e in m.s.effects if e[0] == name and e[1] == p)

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
        return held[0] if held else None

    return f


def _support_of(pool, who, loc):
    w, loc_f = build(who), build(loc)

    def f(m, env):
        held = m.s.pools[pool].get(loc_f(m, env))
        return held[1] if held and held[0] == w(m, env) else 0

    return f


def _support_at(pool, loc):
    loc_f = build(loc)

    def f(m, env):
        held = m.s.pools[pool].get(loc_f(m, env))
        return held[1] if held else 0

    return f


def _track(name):
    return lambda m, env: list(m.s.tracks[name])


_ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b if b else 0,
    "%": lambda a, b: a % b if b else 0,
}
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
    fa, fn = build(a), _ARITH[op]
    if b[0] == "const":  # `left - 1`: no closure call for the constant
        value = b[1]
        return lambda m, env: fn(fa(m, env), value)
    fb = build(b)
    return lambda m, env: fn(fa(m, env), fb(m, env))


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
    return lambda m, env: -fa(m, env)


def _list(items):
    fs = [build(i) for i in items]
    return lambda m, env: [f(m, env) for f in fs]


def _where(src, cond):
    fs, fc = build(src), build(cond)

    def f(m, env):
        saved = env.get("it", _MISSING)
        out = []
        for item in fs(m, env):
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
            if p.__class__ is str:
                out.append(p)
            else:
                v = p(m, env)
                out.append(v if v.__class__ is str else show_text(m, v))
        return "".join(out)

    return f


def _show_text(m, value) -> str:
    return m.show(value)


def _call(name, args):
    from .builtins import BUILTINS

    fn = BUILTINS[name]
    fs = [build(a) for a in args]
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
        return body(m, dict(zip(params, [a(m, env) for a in fs], strict=True)))

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
    "fmt": _fmt,
    "call": _call,
    "fn": _fn,
}
