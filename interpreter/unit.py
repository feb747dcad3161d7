"""The generated module of one program, and what the instructions build from it.

A program's expressions, menu options and blocks are written as Python source
(codegen.py writes an expression, blocks.py a block) into one module per program, a
*unit*: its source lines and a namespace holding only runtime.HELPERS and the objects
the source names (`_g3`). Code is compiled into it as it is needed: an expression's
function is written when the expression is built and compiled at its first call (most
never are: compiled blocks work their instructions' operands out inline); a whole
program compiles a batch of lines at a time (COMPILE_BATCH). A malformed expression is
a RuleError when it is built, before anything runs.

`build`, `build_items` and `build_offer` are what the instructions (ops.py) use: within
`building(program)` they answer from the program's unit.
"""

from __future__ import annotations

import ast
import contextlib
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

from .builtins import TABLES
from .codegen import Inliner, Writer, checked_items, effects_free, forget_answers, pure_functions
from .errors import RuleError
from .program import Program
from .runtime import HELPERS

Compiled = Callable[[Any, dict], Any]
# A menu option: appends what it offers, (label, payload) pairs, to a list.
Offer = Callable[[Any, dict, list], None]

_ACTIVE = threading.local()  # the unit `build` writes into, if any


# ---- what the instructions use ---------------------------------------------------------
def build(expr: tuple) -> Compiled:
    """The compiled function `f(machine, env) -> value` of an expression: from the unit
    of the program being built (see `building`), else from a unit of its own."""
    return _unit().function(expr)


def build_items(expr: tuple, what: str) -> Compiled:
    """A function giving a list to go through (see `checked_items`)."""
    return _unit().items(expr, what)


def build_offer(option: tuple, labelled: bool = True) -> Offer:
    """A menu option (label, var, items, cond, block): for each item of its list (or once,
    with no list) that passes its condition, a (label, payload) pair; not `labelled`, the
    payload alone (its label is made later, from the payload, when it is asked for)."""
    return _unit().offer(option, labelled)


def pure(expr: Any) -> bool:
    """The expression draws no chance and changes nothing (see `effects_free`), in the
    program being built."""
    return effects_free(expr, _unit().pure_functions)


@contextlib.contextmanager
def building(program: Program) -> Iterator[None]:
    """While ops or functions of `program` are built: `build` answers from the program's
    unit (made once)."""
    with active(unit_for(program)):
        yield


@contextlib.contextmanager
def active(unit: Unit) -> Iterator[None]:
    before = getattr(_ACTIVE, "unit", None)
    _ACTIVE.unit = unit
    try:
        yield
    finally:
        _ACTIVE.unit = before


def current_unit() -> Unit:
    """The unit `build` writes into now (see `building`)."""
    return _unit()


def _unit() -> Unit:
    unit = getattr(_ACTIVE, "unit", None)
    if unit is None:  # an expression of no program's: compiled alone
        unit = Unit("expression")
        unit.compile()
    return unit


# ---- the compilation unit of one program --------------------------------------------
# Lines compiled at once, about, when a whole program is (Unit.compile_stubs,
# blocks.Segments.write_all): a compile holds the syntax trees of all it reads, and those
# of all of a program's source at once take tens of megabytes.
COMPILE_BATCH = 2_000


def unit_for(program: Program) -> Unit:
    """The program's compiled module: the functions of the expressions its instructions
    and functions build, each written and compiled when first called (see Unit.stub)."""
    return program.once("unit", _program_unit)


def _program_unit(program: Program) -> Unit:
    unit = Unit(program.name)
    unit.pure_functions = pure_functions(program.functions)
    unit.inliner = Inliner(program.functions, unit.pure_functions)
    unit.tables = {name: make(program) for name, make in TABLES.items()}
    unit.things = (program.cards, program.locations)
    unit.stacking = program.stacking_pools()
    unit.catalog = program.catalog  # the language its texts are shown in (None: the pack's)
    unit.compile()
    return unit


# What an expression's function runs until its first call: it has itself written and
# compiled, takes on the compiled code and runs it (see Unit.stub). Set past any line of a
# unit, it is never taken for a line of the rules (see blocks.marked).
_STUB_SOURCE = "def stub(m, env, *, _k):\n    return _realise(_k)(m, env)\n"
_STUB_CODE = next(c for c in compile(_STUB_SOURCE, "<hustings:stub>", "exec").co_consts
                  if c.__class__ is types.CodeType).replace(co_firstlineno=1 << 30)


def _shifted(code: types.CodeType, lines: int) -> types.CodeType:
    """Compiled code as if its source had started `lines` lines further down (a line
    table counts from its code's first line)."""
    consts = tuple(_shifted(c, lines) if c.__class__ is types.CodeType else c
                   for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines, co_consts=consts)


def _not_compiled_yet(m, env, *rest):  # pragma: no cover - only a bug would call it
    raise RuntimeError("a compiled expression ran before its module was compiled")


class Unit:
    """The generated module of one program: its source lines and namespace.

    Until its first `compile` it only collects (each `function`/`offer` call writes a
    function and answers a placeholder); from then on an offer is written and compiled
    when it is built, an expression's function written then and compiled at its first
    call (see `stub`).
    """

    def __init__(self, name: str) -> None:
        self.filename = f"<hustings:{name}>"
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {"__builtins__": {}, **HELPERS,
                                          "_unbound": self.unbound, "_later": self._later,
                                          "_realise": self._realise}
        self.waiting: list[Any] = []  # functions `later` writes: how to, or their names
        # expressions' functions not yet called (see `stub`): how to write each, or the
        # function once written
        self.stubbed: list[Any] = []
        self.names: dict[int, str] = {}  # id of an object bound in the namespace -> name
        # id of an expression (of an offer: with whether it is labelled) -> it and its
        # function's name, or the function itself (a stub, see `stub`)
        self.sites: dict[Any, tuple[Any, str | Callable]] = {}
        self.checked: dict[tuple, tuple] = {}  # (id, purpose) -> expression, checked form
        self.bodies: dict[tuple, str] = {}  # (parameters, body lines) -> function name
        self.pure_functions: frozenset[str] = frozenset()  # pack functions with no effects
        self.catalog = None  # the program's message catalog, if it is shown translated
        self.inliner = Inliner({}, frozenset())  # writes small pure functions where called
        self.tables: dict[str, Any] = {}  # builtin -> its table (builtins.TABLES), by program
        # the program's cards and places (their properties never change), if it has some
        self.things: tuple[dict, dict] | None = None
        # property -> the names of its two tables (cards, places) and the places table itself
        self.properties: dict[str, tuple[str, str, dict]] = {}
        self.stacking: frozenset[str] | None = None  # the program's stacking pools, if known
        self.count = 0
        self.compiled = False
        self.source = ""
        self.done = 0  # lines compiled so far
        self.lock = threading.RLock()

    # ---- what is built ----
    def function(self, expr: tuple) -> Callable:
        # a constant reads no variable: its function needs no guard
        guard = not (expr.__class__ in (tuple, list) and len(expr) == 2 and expr[0] == "const")
        return self._site(expr, "e", ("m", "env"), lambda w: w.value(expr), guard, stub=True)

    def offer(self, option: tuple, labelled: bool = True) -> Callable:
        if option.__class__ not in (tuple, list) or len(option) != 5:
            raise RuleError(f"a menu option is (label, var, items, cond, block), "
                            f"not {option!r:.80}")
        return self._site(option, "o", ("m", "env", "offered"),
                          lambda w: w.offer(*option, labelled), key=(id(option), labelled))

    def property_tables(self, name: str) -> tuple[str, str, dict] | None:
        """Generated names of two tables of a property, card -> value and place -> value
        (None where it has none), and the second table itself, made once; None for a unit
        of no program."""
        if self.things is None:
            return None
        hit = self.properties.get(name)
        if hit is None:
            cards, places = self.things
            by_place = {k: v.get(name) for k, v in places.items() if v.__class__ is dict}
            hit = self.properties[name] = (
                self.bind({k: v.get(name) for k, v in cards.items() if v.__class__ is dict}),
                self.bind(by_place), by_place)
        return hit

    def offer_name(self, option: tuple, labelled: bool = True) -> str:
        """The name of the generated function of a menu option (see `offer`), for
        source that calls it."""
        self.offer(option, labelled)
        return self.sites[(id(option), labelled)][1]

    def items(self, expr: tuple, what: str) -> Callable:
        """`function` of the expression checked to give a list (see `checked_items`); the
        same expression and purpose answer the same function."""
        key = (id(expr), what)
        hit = self.checked.get(key)
        if hit is None or hit[0] is not expr:
            hit = self.checked[key] = (expr, checked_items(expr, what))
        return self.function(hit[1])

    def compile(self) -> None:
        """Compile what is written so far; from then on a new expression is compiled
        when it is built (a few lines more in the same namespace), or first called."""
        with self.lock:
            self._compile_pending()
            self.compiled = True

    def pending(self) -> int:
        """Lines written and not compiled yet."""
        return len(self.lines) - self.done

    def compile_stubs(self) -> None:
        """Compile every function still waiting for its first call, COMPILE_BATCH lines
        at a time, about."""
        with self.lock:
            written: list[tuple[int, str]] = []
            for k, slot in enumerate(self.stubbed):
                if slot.__class__ is tuple:
                    written.append((k, self.write(*slot[:4])))
                if written and (self.pending() > COMPILE_BATCH or k == len(self.stubbed) - 1):
                    self._compile_pending()
                    for done, name in written:
                        self._take_code(done, self.namespace[name])
                    written.clear()

    def _compile_pending(self) -> None:
        start, self.done = self.done, len(self.lines)
        if start == self.done:
            return
        chunk = "\n".join(self.lines[start:]) + "\n"
        self.source += chunk
        # moved down past what is compiled already: its line numbers index self.lines
        # (see _read_at)
        code = _shifted(compile(chunk, self.filename, "exec"), start)
        exec(code, self.namespace)  # noqa: S102 - our own source

    def _site(self, obj: Any, prefix: str, params: tuple[str, ...],
              emit: Callable[[Writer], list[str]], guard: bool = True,
              key: Any = None, stub: bool = False) -> Callable:
        """The function of `obj`: a placeholder while collecting, else the compiled one
        (written and compiled now, the first time), or with `stub` one written now and
        compiled at its first call."""
        key = id(obj) if key is None else key
        hit = self.sites.get(key)
        if hit is None or hit[0] is not obj:
            with self.lock:
                if stub and self.compiled:
                    self.sites[key] = (obj, self.stub(prefix, params, emit, guard))
                else:
                    self.sites[key] = (obj, self.define(prefix, params, emit, guard))
                    if self.compiled:
                        self._compile_pending()
            hit = self.sites[key]
        made = hit[1]
        if made.__class__ is not str:
            return made
        return self.namespace[made] if self.compiled else _not_compiled_yet

    def stub(self, prefix: str, params: tuple[str, ...],
             emit: Callable[[Writer], list[str]], guard: bool) -> Callable:
        """A function of (m, env) whose body is written now (a malformed expression is
        refused here) but compiled at its first call; from then on it runs that compiled
        code as its own (no call in between). Most are never called: an instruction's
        operands have functions for running it alone, but compiled blocks work them out
        inline."""
        assert params == ("m", "env")
        k = len(self.stubbed)
        fn = types.FunctionType(_STUB_CODE, self.namespace, f"{prefix}_stub")
        fn.__kwdefaults__ = {"_k": k}
        self.stubbed.append((prefix, params, emit(Writer(self)), guard, fn))
        return fn

    def _realise(self, k: int) -> Callable:
        """The compiled function of stub `k`, written and compiled now if it is not yet."""
        slot = self.stubbed[k]
        if slot.__class__ is tuple:
            with self.lock:
                slot = self.stubbed[k]
                if slot.__class__ is tuple:
                    name = self.write(*slot[:4])
                    self._compile_pending()
                    self._take_code(k, self.namespace[name])
        return self.stubbed[k]

    def _take_code(self, k: int, compiled: Callable) -> None:
        """Stub `k` runs `compiled`'s code from now on (it has the same namespace)."""
        fn = self.stubbed[k][4]
        fn.__code__ = compiled.__code__
        fn.__kwdefaults__ = None
        fn.__name__ = fn.__qualname__ = compiled.__name__
        self.stubbed[k] = compiled

    # ---- writing ----
    def define(self, prefix: str, params: tuple[str, ...],
               emit: Callable[[Writer], list[str]], guard: bool = True,
               fast: bool = False) -> str:
        """Write one function; its body comes from `emit`. Guarded, reading a variable
        with no value is the RuleError `'x' has no value here` (a helper needs no guard of
        its own: the function calling it looks at the innermost frame). A body written
        before is that function again (the same text names the same bound objects)."""
        return self.write(prefix, params, emit(Writer(self, fast=fast)), guard)

    def write(self, prefix: str, params: tuple[str, ...], body: list[str],
              guard: bool = True) -> str:
        """Write one function of the body given (see `define`)."""
        forget_answers()  # what writing the body asked of its expressions, no longer needed
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

    def later(self, prefix: str, params: tuple[str, ...],
              emit: Callable[[Writer], list[str]]) -> str:
        """Source calling a function written (and compiled) only when it is first called:
        code that seldom runs costs nothing to load."""
        self.waiting.append((prefix, params, emit))
        return f"_later({len(self.waiting) - 1})"

    def exact(self, e: Any) -> str:
        """Source working out `e` exactly, a helper per guarded comparison: the fallback
        of code that runs them inline (see Writer.value), compiled when first needed."""
        return f"{self.later('x', ('m', 'env'), lambda w: w.value(e, split=False))}(m, env)"

    def _later(self, k: int) -> Callable:
        """Function `k` of `later`, written and compiled now if it is not yet."""
        slot = self.waiting[k]
        if slot.__class__ is str:
            return self.namespace[slot]
        with self.lock:
            if self.waiting[k] is slot:
                name = self.define(*slot)
                self._compile_pending()
                self.waiting[k] = name
        return self.namespace[self.waiting[k]]

    def bind(self, obj: Any) -> str:
        """A generated name for an object the source refers to (a builtin, an ordering,
        a constant that is not a plain literal)."""
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
        """Raise `'x' has no value here` when `e` came from reading a variable (`env['x']`
        in the generated source); otherwise return (the KeyError stands)."""
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
        if line is None or col is None or end_col is None or not 0 < line <= len(self.lines):
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
