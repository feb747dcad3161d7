"""The anatomy of compiled instructions: which parts are expressions, and rewriting them.

A compiled block is a list of instruction tuples, `(op, operand, ...)`; an
expression is a tuple whose head is one of the interpreter's expression kinds.
The views of card events (render, walk, outline, interactions) read them with
these helpers, and `substitute` + `simplify` show a called procedure with its
caller's arguments put in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...interpreter.codegen import ARITY

EXPR_KINDS = frozenset(ARITY)
DECISIONS = frozenset({"choose", "menu"})
LOOPS = frozenset({"for", "repeat", "while"})
# Instructions that change nothing on the table themselves.
SILENT = frozenset({"let", "say", "tell", "stop", "if", "for", "repeat", "while", "choose", "menu",
                    "announce", "guard", "react"})
# The operand that holds a card, and those that name a destination zone.
CARD_OPERAND = {"transfer": 1, "event": 1, "flip": 1, "prevent": 1}
ZONE_OPERANDS = {"transfer": (2,), "deal": (2, 3), "shuffle": (1,), "reveal": (1,)}


def is_expr(x: Any) -> bool:
    return isinstance(x, tuple) and bool(x) and isinstance(x[0], str) and x[0] in EXPR_KINDS


def operands(ins: tuple) -> list[tuple]:
    """The expressions an instruction evaluates itself (not those of its nested blocks)."""
    op = ins[0]
    if op in ("call", "announce"):
        return [e for _, e in ins[2]]
    if op == "if":
        return [c for c, _ in ins[1]]
    if op == "menu":
        out = [ins[1]]
        for label, _, items, cond, _ in ins[2]:
            out += [e for e in (label, items, cond) if e is not None]
        if len(ins) > 4:  # the question asked
            out.append(ins[4])
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
    if op in ("call", "announce"):
        return (op, ins[1], [(n, f(e)) for n, e in ins[2]])
    if op == "if":
        return (op, [(f(c), b) for c, b in ins[1]], ins[2])
    if op == "menu":
        options = [(f(lab), var, f(items) if items else items, f(cond) if cond else cond, b)
                   for lab, var, items, cond, b in ins[2]]
        if len(ins) == 3:
            return (op, f(ins[1]), options)
        remarks = ins[3]  # the decision's remarks (a status and a note per option), or None
        if remarks is not None:
            status, notes = remarks
            remarks = (f(status) if status else status, [f(n) if n else n for n in notes])
        return (op, f(ins[1]), options, remarks, *(f(q) for q in ins[4:]))
    return (op, *[f(x) if is_expr(x) else x for x in ins[1:]])


def substitute(e: tuple, env: dict[str, tuple]) -> tuple:
    """Replace parameters by the argument expressions of a call."""
    if e[0] == "var":
        return env.get(e[1], e)
    if e[0] == "comp" and e[1] in env:  # its own name stands for its items inside it
        inner = {k: v for k, v in env.items() if k != e[1]}
        return (e[0], e[1], substitute(e[2], env),
                *(substitute(x, inner) if x is not None else x for x in e[3:]))
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
