"""Expressions compiled to Python source: one function per expression, no closure per node.

The closure backend (expressions.py) turns every node of an expression into a Python
closure, so evaluating `travel_cost(player, here, s) < left` costs a call per node. Here
each expression a program's instructions build becomes one generated function
`def e_N(m, env):` whose body is a single Python expression: variables become
`env['x']`, operators become Python operators with the closure backend's exact
semantics, builtins are called through references bound in the module's namespace.
A menu option (its list, filter and label) becomes one loop `def o_N(m, env, offered):`.
A `where` filter and an ordering comparison (which must turn a TypeError anywhere in its
operands into False) become small helper functions called once per evaluation.

Content never reaches the source as code. Every name, number and text from content is
written with `repr()` (a literal) or, for anything that is not a plain int, bool, str
or None, bound in the namespace under a generated name (`_g3`). Identifiers in the
source are all made here (`e_12`, `_t3`, `_g0`, `m`, `env`). The module is compiled once
per program and executed into a fresh namespace holding only the helpers below.

Whatever is not compiled here falls back to the closure of expressions.py, called from
the generated code, so every expression kind works under both backends.

The backend is chosen by the environment variable HUSTINGS_BACKEND (`compiled`, the
default, or `closures`), or in-process with `use_backend(name)`.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import os
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from . import expressions as X
from .budget import MAX_INT
from .builtins import BUILTINS, LIST_ARGUMENTS
from .errors import RuleError
from .program import Program

BACKENDS = ("compiled", "closures")
_backend = [os.environ.get("HUSTINGS_BACKEND", "compiled")]


def backend() -> str:
    name = _backend[0]
    if name not in BACKENDS:
        raise ValueError(f"HUSTINGS_BACKEND is {name!r}: use one of {', '.join(BACKENDS)}")
    return name


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Programs loaded (ops built) inside run on this backend (tests and verification)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}: use one of {', '.join(BACKENDS)}")
    before = _backend[0]
    _backend[0] = name
    try:
        yield
    finally:
        _backend[0] = before


@contextlib.contextmanager
def building(program: Program) -> Iterator[None]:
    """While ops or functions of `program` are built: `build` answers with compiled
    functions when the compiled backend is chosen (the program's unit made once)."""
    if backend() != "compiled":
        yield
        return
    with X.active(unit_for(program)):
        yield


def per_program(cache: dict, program: Program, make: Callable[[Program], Any],
                key: Any = None) -> Any:
    """`make(program)`, made once per program (and `key`) while the program lives: an
    entry goes with its program, so a new program reusing its id never finds it."""
    slot = (id(program), key)
    hit = cache.get(slot)
    if hit is not None and hit[0]() is program:
        return hit[1]
    made = make(program)

    def forget(ref: weakref.ref) -> None:
        if cache.get(slot, (None,))[0] is ref:
            del cache[slot]

    cache[slot] = (weakref.ref(program, forget), made)
    return made


# ---- the compilation unit of one program --------------------------------------------
_UNITS: dict[tuple, tuple[weakref.ref, Unit]] = {}


def unit_for(program: Program) -> Unit:
    """The program's compiled module: every expression its instructions and functions
    build, generated in one pass over them, compiled and executed once."""
    return per_program(_UNITS, program, _compile_program)


def _compile_program(program: Program) -> Unit:
    from .ops import make_op

    unit = Unit(program.name)
    with X.active(unit):  # the ops made here are thrown away: only the sources are kept
        for block in program.blocks:
            for ins in block:
                make_op(ins)
        for _params, body in program.functions.values():
            X.build(body)
    unit.compile()
    return unit


def _single_read(expr: Any) -> bool:
    """A constant or one variable."""
    return (expr.__class__ in (tuple, list) and len(expr) == 2
            and (expr[0] == "const" or (expr[0] == "var" and expr[1].__class__ is str)))


def _not_compiled_yet(m, env, *rest):  # pragma: no cover - only a bug would call it
    raise RuntimeError("a compiled expression ran before its module was compiled")


class Unit:
    """The generated module of one program: its source lines and namespace.

    First it collects (each `function`/`offer` call writes a function and answers a
    placeholder); after `compile`, the same calls answer the compiled functions.
    """

    def __init__(self, name: str) -> None:
        self.filename = f"<hustings:{name}>"
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {"__builtins__": {}, **HELPERS,
                                          "_unbound": self.unbound}
        self.names: dict[int, str] = {}  # id of an object bound in the namespace -> name
        self.sites: dict[int, tuple[Any, str]] = {}  # id of an expression -> it, function
        self.bodies: dict[tuple, str] = {}  # (parameters, body lines) -> function name
        self.count = 0
        self.compiled = False
        self.source = ""

    # ---- the two passes ----
    def function(self, expr: tuple) -> Callable:
        if _single_read(expr):  # its closure is one call already: nothing to compile
            return X.build_closure(expr)
        if self.compiled:
            return self._lookup(expr, X.build_closure)
        self._site(expr, "e", ("m", "env"), lambda w: ["return " + w.expr(expr)])
        return _not_compiled_yet

    def offer(self, option: tuple) -> Callable:
        if self.compiled:
            return self._lookup(option, X.offer_closure)
        self._site(option, "o", ("m", "env", "offered"), lambda w: w.offer(*option))
        return _not_compiled_yet

    def compile(self) -> None:
        self.source = "\n".join(self.lines) + "\n"
        exec(compile(self.source, self.filename, "exec"), self.namespace)  # noqa: S102 - our own source
        self.compiled = True

    def _lookup(self, obj: Any, fallback: Callable) -> Callable:
        hit = self.sites.get(id(obj))
        if hit is not None and hit[0] is obj:
            return self.namespace[hit[1]]
        return fallback(obj)  # an expression the first pass never saw

    def _site(self, obj: Any, prefix: str, params: tuple[str, ...],
              emit: Callable[[_Writer], list[str]]) -> None:
        if id(obj) in self.sites:
            return
        name = self.define(prefix, params, emit)
        self.sites[id(obj)] = (obj, name)

    # ---- writing ----
    def define(self, prefix: str, params: tuple[str, ...],
               emit: Callable[[_Writer], list[str]], guard: bool = True) -> str:
        """Write one function; its body comes from `emit`. Guarded, a variable with no
        value reads as the closure backend reports it (a helper needs no guard of its
        own: the function calling it looks at the innermost frame). A body written
        before is that function again (the same text names the same bound objects)."""
        body = emit(_Writer(self))
        key = (params, guard, tuple(body))
        name = self.bodies.get(key)
        if name is not None:
            return name
        self.count += 1
        name = self.bodies[key] = f"{prefix}_{self.count}"
        self.lines.append(f"def {name}({', '.join(params)}):")
        if not guard:
            self.lines.extend("    " + line for line in body)
            return name
        self.lines.append("    try:")
        self.lines.extend("        " + line for line in body)
        self.lines.append("    except _KeyError as _e:")
        self.lines.append("        _unbound(_e, env)")
        self.lines.append("        raise")
        return name

    def bind(self, obj: Any) -> str:
        """A generated name for an object the source refers to (a builtin, a closure, a
        constant that is not a plain literal)."""
        name = self.names.get(id(obj))
        if name is None:
            name = self.names[id(obj)] = f"_g{len(self.names)}"
            self.namespace[name] = obj
        return name

    def literal(self, value: Any) -> str:
        """A value from content as source: a literal for plain scalars, else a name."""
        cls = value.__class__
        if cls is str or cls is bool or value is None:
            return repr(value)
        if cls is int:
            return f"({value!r})"
        return self.bind(value)

    # ---- errors ----
    def unbound(self, e: KeyError, env: dict) -> None:
        """Raise the closure backend's error when `e` came from reading a variable
        (`env['x']` in the generated source); otherwise return (the KeyError stands)."""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is None or tb.tb_frame.f_globals is not self.namespace:
            return
        name = self._read_at(tb.tb_frame.f_code, tb.tb_lasti)
        if name is _UNKNOWN:  # no column positions (python -X no_debug_ranges): by the key
            key = e.args[0] if e.args else None
            known = key.__class__ is str and key not in env and f"env[{key!r}]" in self.source
            name = key if known else None
        if name is not None:
            raise RuleError(f"'{name}' has no value here") from None

    def _read_at(self, code, lasti: int) -> str | None | object:
        """The variable an `env[...]` read at instruction `lasti` names; None when the
        instruction is something else; _UNKNOWN when Python kept no positions."""
        positions = list(code.co_positions())
        if not 0 <= lasti // 2 < len(positions):
            return _UNKNOWN
        line, end, col, end_col = positions[lasti // 2]
        if line is None or col is None or end_col is None:
            return _UNKNOWN
        if line != end:
            return None
        text = self.lines[line - 1].encode()[col:end_col].decode()
        if not (text.startswith("env[") and text.endswith("]")):
            return None
        try:
            name = ast.literal_eval(text[4:-1])
        except (ValueError, SyntaxError):
            return None
        return name if name.__class__ is str else None


_UNKNOWN = object()


# ---- one function's source ----------------------------------------------------------
class _Writer:
    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.temps = 0

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def expr(self, e: Any) -> str:
        """Python source of an expression's value, parenthesised."""
        if e.__class__ not in (tuple, list) or not e or e[0].__class__ is not str:
            return self.fallback(e)
        kind = e[0]
        gen = GENERATORS.get(kind)
        if gen is None or len(e) - 1 != ARITY.get(kind):
            return self.fallback(e)
        return gen(self, *e[1:])

    def cond(self, e: Any) -> str:
        """Source that is true exactly when the expression's value is: `and`/`or` then
        need not make True/False of their operands."""
        if e.__class__ in (tuple, list) and len(e) == 3 and e[0] in ("and", "or"):
            return f"({self.cond(e[1])} {e[0]} {self.cond(e[2])})"
        return self.expr(e)

    def fallback(self, e: Any) -> str:
        """The closure backend's function, called from here (builds, or raises, now)."""
        return f"{self.unit.bind(X.build_closure(e))}(m, env)"

    def lit(self, value: Any) -> str:
        return self.unit.literal(value)

    def helper(self, prefix: str, emit: Callable[[_Writer], list[str]]) -> str:
        """A call of a new function whose body needs statements."""
        return f"{self.unit.define(prefix, ('m', 'env'), emit, guard=False)}(m, env)"

    def offer(self, label, var, items, cond, block) -> list[str]:
        """A menu option: its options appended to `offered` as Menu.run expects."""
        text = self.expr(label)
        each = self.expr(X.checked_items(items, X.OPTION_ITEMS)) if items else None
        test = self.cond(cond) if cond else None
        if each is None:
            line = f"offered.append(({text}, ['branch', {self.lit(block)}, None, None]))"
            return [f"if {test}:", "    " + line] if test else [line]
        v = self.lit(var)
        line = f"offered.append(({text}, ['branch', {self.lit(block)}, {v}, _x]))"
        body = [f"if {test}:", "    " + line] if test else [line]
        return [f"for _x in {each}:", f"    env[{v}] = _x", *("    " + b for b in body)]


# ---- the generators: one per expression kind, each the closure's exact semantics ------
_BOUND = f"{-MAX_INT} <= {{t}} <= {MAX_INT}"


def _const(w: _Writer, value) -> str:
    return w.lit(value)


def _var(w: _Writer, name) -> str:
    if name.__class__ is not str:
        return w.fallback(("var", name))
    return f"env[{name!r}]"


def _global(w: _Writer, name) -> str:
    return f"m.s.vars[{w.lit(name)}]"


def _counter(w: _Writer, name, who) -> str:
    return f"m.s.counters[{w.lit(name)}][{w.expr(who)}]"


def _zone(w: _Writer, name, who) -> str:
    if who is None:
        return w.lit(name)
    if name.__class__ is not str:
        return w.fallback(("zone", name, who))
    return f"({name + ':'!r} + _format({w.expr(who)}))"


def _cards(w: _Writer, zone) -> str:
    return f"_list(m.s.zones[{w.expr(zone)}])"


def _effect(w: _Writer, name, who) -> str:
    return f"_effect_total(m, {w.lit(name)}, {w.expr(who)})"


def _effect_list(w: _Writer, name, who) -> str:
    return f"_effect_values(m, {w.lit(name)}, {w.expr(who)})"


def _attr(w: _Writer, name, sub) -> str:
    t, loc, n = w.temp(), w.temp(), w.lit(name)
    place = (f"({loc}.get({n}) if ({loc} := m.p.locations.get({t})) is not None "
             f"else _no_property({t}, {n}))")
    return (f"(None if ({t} := {w.expr(sub)}) is None else "
            f"m.p.cards[{t}].get({n}) if {t}.__class__ is _int else {place})")


def _token(w: _Writer, who) -> str:
    return f"m.s.tokens.get({w.expr(who)})"


def _opponent(w: _Writer, who) -> str:
    t = w.temp()
    return f"(m.opponents[{t}] if ({t} := {w.expr(who)}) is not None else None)"


def _leader(w: _Writer, pool, loc) -> str:
    if not pool:  # the pool of the place's kind
        return f"_leader(m, {w.lit(pool)}, {w.expr(loc)})"
    return f"_owner(m, {w.lit(pool)}, {w.expr(loc)})"


def _support_of(w: _Writer, pool, who, loc) -> str:
    # who is read only where someone holds the place, as the closure does
    t = w.temp()
    exclusive = (f"({t}[1] if ({t} := m.s.pools[{w.lit(pool)}].get({w.expr(loc)})) "
                 f"and {t}[0] == {w.expr(who)} else 0)")
    stacking = f"_support_of(m, {w.lit(pool)}, {w.expr(who)}, {w.expr(loc)})"
    return f"({stacking} if {w.lit(pool)} in m.stacking else {exclusive})"


def _support_at(w: _Writer, pool, loc) -> str:
    return f"_support(m, {w.lit(pool)}, {w.expr(loc)})"


def _track(w: _Writer, name) -> str:
    return f"_list(m.s.tracks[{w.lit(name)}])"


def _arith(w: _Writer, op, a, b) -> str:
    if op in ("+", "-"):
        t = w.temp()
        return (f"({t} if ({t} := {w.expr(a)} {op} {w.expr(b)}).__class__ is _int "
                f"and {_BOUND.format(t=t)} else _checked(m, {t}))")
    fn = X._ARITH.get(op) if op.__class__ is str else None
    if fn is None:
        return w.fallback(("arith", op, a, b))
    return f"_checked(m, {w.unit.bind(fn)}({w.expr(a)}, {w.expr(b)}))"


_ORDER = ("<", "<=", ">", ">=")


def _cmp(w: _Writer, op, a, b) -> str:
    if op in ("==", "!="):
        return f"({w.expr(a)} {op} {w.expr(b)})"
    if op == "in":  # the container first; none holds nothing
        t = w.temp()
        return f"(({t} := {w.expr(b)}) is not None and {w.expr(a)} in {t})"
    if op == "not in":
        t = w.temp()
        return f"(({t} := {w.expr(b)}) is None or {w.expr(a)} not in {t})"
    if op not in _ORDER:
        return w.fallback(("cmp", op, a, b))
    if _cannot_fail(a) and _cannot_fail(b):
        ta, tb = w.temp(), w.temp()
        return (f"({ta} {op} {tb} if ({ta} := {w.expr(a)}).__class__ is "
                f"({tb} := {w.expr(b)}).__class__ is _int else "
                f"{w.unit.bind(_ORDERED[op])}({ta}, {tb}))")
    # A TypeError anywhere in the operands makes the comparison False, as the closure's
    # try around them does: that needs statements, so a helper function.
    return w.helper("c", lambda h: [
        "try:", f"    return {h.expr(a)} {op} {h.expr(b)}",
        "except _TypeError:", "    return False"])


def _cannot_fail(e: Any) -> bool:
    """Reading it can raise no TypeError (a constant, a variable, a global)."""
    if e.__class__ not in (tuple, list) or not e:
        return False
    if e[0] == "const":
        return True
    return e[0] in ("var", "global") and len(e) == 2 and e[1].__class__ is str


def _ordered(op: str) -> Callable[[Any, Any], bool]:
    fn = X._CMP[op]

    def compare(a, b) -> bool:
        try:
            return fn(a, b)
        except TypeError:  # comparing a name with a number, or none with anything
            return False

    return compare


_ORDERED = {op: _ordered(op) for op in _ORDER}


def _ifelse(w: _Writer, cond, a, b) -> str:
    return f"({w.expr(a)} if {w.cond(cond)} else {w.expr(b)})"


def _and(w: _Writer, a, b) -> str:
    return f"(True if {w.cond(a)} and {w.cond(b)} else False)"


def _or(w: _Writer, a, b) -> str:
    return f"(True if {w.cond(a)} or {w.cond(b)} else False)"


def _not(w: _Writer, a) -> str:
    return f"(not {w.cond(a)})"


def _neg(w: _Writer, a) -> str:
    return f"_checked(m, -{w.expr(a)})"


def _list(w: _Writer, items) -> str:
    return f"_items(m, [{', '.join(w.expr(i) for i in items)}])"


def _where(w: _Writer, src, cond) -> str:
    def body(h: _Writer) -> list[str]:
        items, test = h.expr(X.checked_items(src, X.WHERE_SOURCE)), h.cond(cond)
        return [
            "_saved = env.get('it', _MISSING)",
            "_out = []",
            f"_src = {items}",
            "if _src:",
            "    m.work += _len(_src)",
            "    if m.work > m.work_limit:",
            "        m.charge(0)",
            "for _x in _src:",
            "    env['it'] = _x",
            f"    if {test}:",
            "        _out.append(_x)",
            "if _saved is _MISSING:",
            "    env.pop('it', None)",
            "else:",
            "    env['it'] = _saved",
            "return _out",
        ]

    return w.helper("w", body)


def _fmt(w: _Writer, parts) -> str:
    pieces = []
    for p in parts:
        if isinstance(p, str):
            pieces.append(repr(str(p)))
            continue
        t = w.temp()
        pieces.append(f"({t} if ({t} := {w.expr(p)}).__class__ is _str else m.show({t}))")
    return f"_text(m, ''.join(({''.join(p + ', ' for p in pieces)})))"


def _call(w: _Writer, name, args) -> str:
    try:
        fn = BUILTINS[name]
    except (KeyError, TypeError):
        return w.fallback(("call", name, args))
    listed = LIST_ARGUMENTS.get(name)
    args = [X.checked_items(a, f"what {name}() reads") if k == listed else a
            for k, a in enumerate(args)]
    return f"{w.unit.bind(fn)}({', '.join(['m', *(w.expr(a) for a in args)])})"


def _fn(w: _Writer, name, args) -> str:
    # found, charged and checked before its arguments are worked out; then its body runs
    # in a fresh scope holding only its parameters
    t = w.temp()
    scope = ", ".join(f"{t}[0][{i}]: {w.expr(a)}" for i, a in enumerate(args))
    return f"({t} := _fn_enter(m, {w.lit(name)}, {len(args)}))[1](m, {{{scope}}})"


GENERATORS: dict[str, Callable[..., str]] = {
    "const": _const, "var": _var, "global": _global, "counter": _counter, "zone": _zone,
    "cards": _cards, "effect": _effect, "effect_list": _effect_list, "attr": _attr,
    "token": _token, "opponent": _opponent, "leader": _leader, "support_of": _support_of,
    "support_at": _support_at, "track": _track, "arith": _arith, "cmp": _cmp,
    "ifelse": _ifelse, "and": _and, "or": _or, "not": _not, "neg": _neg, "list": _list,
    "where": _where, "fmt": _fmt, "call": _call, "fn": _fn,
}
# Operands each kind takes: a tuple of another length is the closure's to build (or refuse).
ARITY = {kind: len(inspect.signature(b).parameters) for kind, b in X.BUILDERS.items()}


# ---- what the generated source calls ------------------------------------------------
def _effect_total(m, name, who):
    total = 0  # as sum() adds: from 0, in order, with `+` (its error names `+`)
    for e in m.s.effects:
        if e[0] == name and e[1] == who:
            total = total + e[2]
    if total.__class__ is int and -MAX_INT <= total <= MAX_INT:
        return total
    return X.checked(m, total)


def _effect_values(m, name, who):
    return [e[2] for e in m.s.effects if e[0] == name and e[1] == who]


def _no_property(v, name):
    raise RuleError(f"'{v}' has no property '{name}'")


def _leader_of(m, pool, where):
    name = pool or m.p.default_pool(m.p.locations[where]["kind"])
    return BUILTINS["owner"](m, name, where)


def _items(m, out: list) -> list:
    for v in out:
        if v.__class__ is list:  # a list of lists: count what it holds
            m.charge(X.list_size(out))
            break
    return out


def _fn_enter(m, name, n: int) -> tuple:
    """A pack function about to be called: its parameters and body."""
    params, body = m.functions[name]
    m.work += 1  # a function may call itself: each call is work
    if m.work > m.work_limit:
        m.charge(0)
    if len(params) != n:
        raise RuleError(f"{name}() takes {len(params)} arguments, not {n}")
    return params, body


HELPERS: dict[str, Any] = {
    "_KeyError": KeyError, "_TypeError": TypeError, "_MISSING": X._MISSING,
    "_int": int, "_str": str, "_len": len, "_list": list, "_format": format,
    "_checked": X.checked, "_items": _items, "_text": X.charged_text,
    "_effect_total": _effect_total, "_effect_values": _effect_values,
    "_no_property": _no_property, "_leader": _leader_of, "_owner": BUILTINS["owner"],
    "_support": BUILTINS["support"], "_support_of": BUILTINS["support_of"],
    "_fn_enter": _fn_enter,
}
