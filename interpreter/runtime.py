"""What compiled expressions call: the namespace every generated module runs in.

codegen.py writes each expression as Python source; where the language's meaning
takes more than a Python operator (checked arithmetic, comparisons that are False
between a name and a number, a text where a list must be), the source calls one of
these functions by its name in HELPERS. The namespace holds nothing else: no
builtins, so the generated source can reach only what is listed here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .budget import MAX_INT, MAX_ITEMS, MAX_TEXT, charged_text, checked, list_size
from .builtins import BUILTINS
from .errors import RuleError

MISSING = object()  # `it` had no value before a `where` bound it
UNSET = object()  # a shared subexpression not worked out yet (codegen.py)


# ---- operators --------------------------------------------------------------------
def mul(a, b):
    """`*`; repeating a list or text is checked before it is built."""
    if a.__class__ is int and b.__class__ is int:
        return a * b
    seq, times = (a, b) if isinstance(a, list | str) else (b, a)
    if isinstance(seq, list | str) and isinstance(times, int):
        if len(seq) * max(times, 0) > (MAX_ITEMS if isinstance(seq, list) else MAX_TEXT):
            raise RuleError(f"repeating a {'list' if isinstance(seq, list) else 'text'} "
                            f"{times} times makes it too long")
    return a * b


def floordiv(a, b):
    """`//`: dividing by zero gives 0."""
    return a // b if b else 0


def mod(a, b):
    """`%`: the remainder of a division by zero is 0."""
    return a % b if b else 0


def _ordered(fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def compare(a, b) -> bool:
        try:
            return fn(a, b)
        except TypeError:  # comparing a name with a number, or none with anything
            return False

    return compare


ORDERED: dict[str, Callable[[Any, Any], bool]] = {
    "<": _ordered(lambda a, b: a < b),
    "<=": _ordered(lambda a, b: a <= b),
    ">": _ordered(lambda a, b: a > b),
    ">=": _ordered(lambda a, b: a >= b),
}


# ---- reads ------------------------------------------------------------------------
def effect_total(m, name, who):
    total = 0  # as sum() adds: from 0, in order, with `+` (its error names `+`)
    for e in m.s.effects:
        if e[0] == name and e[1] == who:
            total = total + e[2]
    if total.__class__ is int and -MAX_INT <= total <= MAX_INT:
        return total
    return checked(m, total)


def effect_values(m, name, who):
    return [e[2] for e in m.s.effects if e[0] == name and e[1] == who]


def no_property(v, name):
    raise RuleError(f"'{v}' has no property '{name}'")


def leader_of(m, pool, where):
    """Who leads at a place, in the pool of the place's kind when `pool` is empty."""
    name = pool or m.p.default_pool(m.p.locations[where]["kind"])
    return BUILTINS["owner"](m, name, where)


# ---- lists ------------------------------------------------------------------------
def items(m, out: list) -> list:
    """A list literal's value: a list of lists is charged for what it holds."""
    for v in out:
        if v.__class__ is list:
            m.charge(list_size(out))
            break
    return out


def not_a_list(v: str, what: str):
    """A text where a list is gone through: it would be gone through letter by letter."""
    raise RuleError(f"{what} must be a list, not the text {v[:60]!r} "
                    "(a list of one is written [x])")


def as_list(m, v) -> list:
    """A phrase's targets that are not a list already: one place is a list of one."""
    if v is None:
        return []
    if v.__class__ is str:
        return [v]
    raise RuleError(f"expected a place or a list of places, not {m.show(v)}")


def translated(pieces: tuple, values: tuple) -> str:
    """A template's translation (catalog.py): its literal texts, and each part's shown
    value where the translation puts it (parts may come in another order)."""
    return "".join(p if p.__class__ is str else values[p] for p in pieces)


# ---- pack functions ---------------------------------------------------------------
def fn_enter(m, name, n: int) -> tuple:
    """A pack function about to be called: its parameters and body."""
    params, body = m.functions[name]
    m.work += 1  # a function may call itself: each call is work
    if m.work > m.work_limit:
        m.charge(0)
    if len(params) != n:
        raise RuleError(f"{name}() takes {len(params)} arguments, not {n}")
    return params, body


HELPERS: dict[str, Any] = {
    "_KeyError": KeyError, "_TypeError": TypeError, "_MISSING": MISSING, "_UNSET": UNSET,
    "_int": int, "_str": str, "_len": len, "_list": list, "_format": format,
    "_checked": checked, "_items": items, "_text": charged_text,
    "_mul": mul, "_floordiv": floordiv, "_mod": mod,
    "_not_a_list": not_a_list, "_as_list": as_list,
    "_effect_total": effect_total, "_effect_values": effect_values,
    "_no_property": no_property, "_leader": leader_of, "_owner": BUILTINS["owner"],
    "_support": BUILTINS["support"], "_support_of": BUILTINS["support_of"],
    "_fn_enter": fn_enter, "_translated": translated,
}
