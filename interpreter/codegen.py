"""Expressions written as Python source: the one way rules' expressions run.

Each expression a program's instructions build becomes one generated function
`def e_N(m, env):` whose body is a single Python expression: variables become
`env['x']`, operators become Python operators (or a call of a helper of runtime.py
where the language means more than the operator), builtins are called through
references bound in the module's namespace. A menu option (its list, filter and label)
becomes one loop `def o_N(m, env, offered):`. A `where` filter and an ordering
comparison (which must turn a TypeError anywhere in its operands into False) become
small helper functions called once per evaluation. `Writer` writes one function's
body; the generators below, one per expression kind, write each expression; unit.py
keeps the functions of a program in one module and compiles them.

Content never reaches the source as code. Every name, number and text from content is
written with `repr()` (a literal) or, for anything that is not a plain int, bool, str
or None, bound in the namespace under a generated name (`_g3`). Identifiers in the
source are all made here (`e_12`, `_t3`, `_g0`, `m`, `env`), or in blocks.py.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .budget import MAX_INT, MAX_SETUP_NODES, MAX_WRITTEN_IN
from .builtins import BUILTINS, EFFECTS, LIST_ARGUMENTS
from .errors import RuleError
from .runtime import ORDERED

if TYPE_CHECKING:
    from .unit import Unit

# Expressions that always give a list (or none), so their items need no check in the game.
_LISTS = frozenset({"list", "where", "cards", "track", "effect_list", "as_list", "comp"})
_LIST_CALLS = frozenset({"range", "held", "empty", "unique"})
WHERE_SOURCE = "what `where` filters"
OPTION_ITEMS = "what the option runs over"
COMP_SOURCE = "what a list comprehension runs over"


def checked_items(expr: tuple, what: str) -> tuple:
    """The expression, checked to give a list where that is not known before the game: a
    text there would be gone through letter by letter, so it is a RuleError instead."""
    kind = expr[0]
    if (kind in _LISTS or (kind == "call" and expr[1] in _LIST_CALLS)
            or (kind == "const" and expr[1].__class__ is not str)):
        return expr
    return ("items", expr, what)


# ---- one function's source ----------------------------------------------------------
class Writer:
    """Writes the body of one generated function.

    Shared subexpressions: before writing, `plan` looks for pure subexpressions the
    function would work out more than once (written twice, or inside its loop without
    reading the variable the loop rebinds) and gives each a temporary. Because `and`,
    `or` and `if` may skip any occurrence, each is worked out at its first use: the
    temporary starts unset (at the function's start, or at each pass of the loop for one
    that reads the loop's variable) and every occurrence reads it or sets it. A function
    with anything impure in it shares nothing: a draw could change what a later
    occurrence reads."""

    def __init__(self, unit: Unit, tag: str = "", fast: bool = False) -> None:
        self.unit = unit
        self.tag = tag  # tells its shared temporaries from those of another in one function
        # Comparisons written inline, a TypeError in them not caught (see `value`).
        self.fast = fast
        self.locals: dict[str, str] = {}  # variables read from a Python local (a loop's)
        self.domains: dict[str, list] = {}  # a loop's variable -> the constant list it runs over
        self.temps = 0
        self.shared: dict[tuple, str] = {}  # key (see `_key`) -> temporary
        self.unset: list[str] = []  # temporaries unset at the function's start
        self.unset_each: list[str] = []  # ... and at each pass of its loop
        self.var: str | None = None  # the variable the function's loop rebinds
        self.inside = False  # writing the loop's body
        self.facts: dict[int, tuple] = {}  # id of an expression -> it, its text, its reads

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    # ---- shared subexpressions ----
    def plan(self, outside: list, inside: list = (), var: str | None = None) -> None:
        """Choose what to share among the expressions worked out once (`outside`) and
        those worked out at each pass of a loop that rebinds `var` (`inside`)."""
        roots = [e for e in (*outside, *inside) if e is not None]
        fns = self.unit.pure_functions
        if not roots or not all(effects_free(e, fns) for e in roots):
            return
        self.var = var
        counts: dict[tuple, int] = {}
        for e in outside:
            self._count(e, False, counts)
        for e in inside:
            self._count(e, True, counts)
        for key, n in counts.items():
            if n >= 2:
                name = self.shared[key] = f"_c{self.tag}{len(self.shared) + 1}"
                (self.unset_each if key[0] else self.unset).append(name)

    def _count(self, e: Any, inside: bool, counts: dict) -> None:
        """Count the occurrences of `e` and of its parts written in this function; a
        repeated one's parts are counted once (they are worked out with it), and so are
        the parts of one computed once for the whole loop."""
        if e is None or _operands(e) is None or e[0] in _PLAIN:
            return
        key = self._key(e, inside)
        once = inside and not key[0]  # inside the loop, not reading its variable
        seen = counts.get(key, 0)
        counts[key] = seen + (2 if once else 1)
        if seen:
            return
        for part in _written_here(e, self.fast):
            self._count(part, inside and not once, counts)

    def _key(self, e: Any, inside: bool) -> tuple:
        """What tells equal subexpressions apart: their text, and for one reading the
        loop's variable inside the loop, that it is worked out at each pass."""
        fact = self.facts.get(id(e))
        if fact is None or fact[0] is not e:
            fact = self.facts[id(e)] = (e, repr(e), variables_read(e))
        each = inside and self.var is not None and self.var in fact[2]
        return (each, fact[1])

    def shared_form(self, e: Any, code: Callable[[], str]) -> str:
        """`e`'s source: through its temporary when it is shared."""
        if self.shared and e[0] not in _PLAIN:
            name = self.shared.get(self._key(e, self.inside))
            if name is not None:
                return f"({name} if {name} is not _UNSET else ({name} := {code()}))"
        return code()

    def start(self, body: list[str]) -> list[str]:
        """The body, after its temporaries are unset."""
        return [f"{' = '.join(self.unset)} = _UNSET", *body] if self.unset else body

    def each_pass(self) -> list[str]:
        """Lines that unset, at each pass of the loop, the temporaries of that pass."""
        return [f"{' = '.join(self.unset_each)} = _UNSET"] if self.unset_each else []

    # ---- writing ----
    def value(self, e: Any, split: bool = True) -> list[str]:
        """The body of a function returning an expression's value.

        A comparison whose operands could raise a TypeError is False when they do, which
        takes a helper function per comparison. A pure expression holding one is written
        twice: first with every comparison inline, and, should a TypeError come up
        anywhere, again as the language means it (`exact`), run from the start. A pure
        expression worked out twice gives the same value, and with no TypeError the two
        agree."""
        e = self.unit.inliner(e)
        if not split or self.fast or not fast_pays(e, self.unit.pure_functions):
            self.plan([e])
            return self.start(["return " + self.expr(e)])
        fast = Writer(self.unit, fast=True)
        fast.plan([e])
        return fast.start(["try:", f"    return {fast.expr(e)}",
                           "except _TypeError:", f"    return {self.unit.exact(e)}"])

    def expr(self, e: Any) -> str:
        """Python source of an expression's value, parenthesised; a malformed expression
        is a RuleError now, before anything runs."""
        if e.__class__ not in (tuple, list) or not e:
            raise RuleError(f"not an expression: {e!r:.80}")
        kind = e[0]
        gen = GENERATORS.get(kind) if kind.__class__ is str else None
        if gen is None:
            raise RuleError(f"unknown expression kind {kind!r:.80}")
        n = ARITY[kind]
        if len(e) - 1 != n:
            raise RuleError(f"an expression of kind {kind!r} takes {n} "
                            f"operand{'s' if n != 1 else ''}, not {len(e) - 1}")
        return self.shared_form(e, lambda: gen(self, *e[1:]))

    def cond(self, e: Any) -> str:
        """Source that is true exactly when the expression's value is: `and`/`or` then
        need not make True/False of their operands."""
        if e.__class__ in (tuple, list) and len(e) == 3 and e[0] in ("and", "or"):
            return f"({self.cond(e[1])} {e[0]} {self.cond(e[2])})"
        return self.expr(e)

    def lit(self, value: Any) -> str:
        return self.unit.literal(value)

    def helper(self, prefix: str, emit: Callable[[Writer], list[str]],
               args: tuple[str, ...] = ()) -> str:
        """A call of a new function whose body needs statements (`args`: the source of
        values it is given besides the machine and the variables, as `_a1`, `_a2`...)."""
        params = ("m", "env", *(f"_a{i}" for i in range(1, len(args) + 1)))
        name = self.unit.define(prefix, params, emit, guard=False, fast=self.fast)
        return f"{name}({', '.join(('m', 'env', *args))})"

    def offer(self, label, var, items, cond, block, labelled: bool = True,
              split: bool = True) -> list[str]:
        """A menu option: its options appended to `offered` as Menu.run expects (a
        (label, payload) pair, or not `labelled` the payload alone). Not `split`: the
        option exactly as the language means it, read from `env` as it goes (the
        fallback of the other forms)."""
        inliner = self.unit.inliner  # the condition is asked once per item (labels seldom)
        label, items, cond = inliner(label), inliner(items), inliner(cond, items is not None)
        if not split:
            return self._offer(label, var, items, cond, block, labelled)
        exact = self.unit.later("x", ("m", "env", "offered"),
                                lambda w: w.offer(label, var, items, cond, block, labelled,
                                                  split=False))
        parts = [e for e in (label if labelled else None, items, cond) if e is not None]
        if not self.fast and any(fast_pays(e, self.unit.pure_functions) for e in parts) \
                and all(effects_free(e, self.unit.pure_functions) for e in parts):
            # as `value`: inline comparisons first, and on a TypeError all again exactly
            fast = Writer(self.unit, fast=True)
            body = fast._offer(label, var, items, cond, block, labelled, exact)
            return ["_n = _len(offered)", "try:", *("    " + line for line in body),
                    "except _TypeError:", "    del offered[_n:]",
                    f"    {exact}(m, env, offered)"]
        return self._offer(label, var, items, cond, block, labelled, exact)

    def _offer(self, label, var, items, cond, block, labelled: bool,
               exact: str | None = None) -> list[str]:
        checked = checked_items(items, OPTION_ITEMS) if items else None
        shown = label if labelled else None
        if checked is None:
            self.plan([cond, shown])
        else:
            self.plan([checked], [cond, shown], var)
        # the variables the loop reads (but its own) are read once, before it
        prefetch = self.hoist([cond, shown], var, f"return {exact}(m, env, offered)") \
            if checked is not None and exact is not None else []
        each = self.expr(checked) if checked is not None else None
        self.inside = each is not None
        if self.inside and var.__class__ is str:
            self.locals[var] = "_x"  # what the loop just put in env[var]
            if checked[0] == "const":
                self.domains[var] = checked[1]
        test = self.cond(cond) if cond else None
        text = self.expr(label) if labelled else None
        v = "None" if each is None else self.lit(var)
        payload = f"['branch', {self.lit(block)}, {v}, {'None' if each is None else '_x'}]"
        line = f"offered.append(({text}, {payload}))" if labelled else \
            f"offered.append({payload})"
        body = [f"if {test}:", "    " + line] if test else [line]
        if each is None:
            return self.start(body)
        if exact is None or _passes_env(test, text):
            return self.start([*prefetch, f"for _x in {each}:", f"    env[{v}] = _x",
                               *("    " + b for b in (*self.each_pass(), *body))])
        # nothing in the loop reads env[var]: it is set once, to the last item, after it
        return self.start([*prefetch, "_x = _UNSET", f"for _x in {each}:",
                           *("    " + b for b in (*self.each_pass(), *body)),
                           f"if _x is not _UNSET: env[{v}] = _x"])

    def hoist(self, exprs: list, var: Any, missing: str) -> list[str]:
        """Lines reading, once, the variables `exprs` read (but `var`, the loop's, and
        `it`) into locals that this function then reads instead; the function's loop
        writes no other variable, so they cannot change. Should one have no value, the
        line `missing` runs instead (the exact form, which reads each where the
        language does, and so says which has no value only where one is read)."""
        names: set[str] = set()
        for e in exprs:
            if e is not None:
                names |= variables_read(e)
        names.discard("it")
        if var.__class__ is str:
            names.discard(var)
        if not names:
            return []
        reads = []
        for k, name in enumerate(sorted(names), 1):
            self.locals[name] = f"_h{k}"
            reads.append(f"    _h{k} = env[{name!r}]")
        return ["try:", *reads, "except _KeyError:", f"    {missing}"]


def _passes_env(*code: str | None) -> bool:
    """The source hands `env` on (a helper, an exact form): what it reads must be there."""
    return any(c is not None and "m, env" in c for c in code)


def _passes_it(code: str) -> bool:
    """The source hands `env` on to something that may read `it` from it: anything but
    a `where` filter's helper, which reads `it` as its own item, never its caller's."""
    return _passes_env(_FILTER_CALL.sub("", code))


FILTER = "w"  # the prefix of the names of `where` filters' helpers
COMPREHENSION = "l"  # ... and of list comprehensions' helpers
_FILTER_CALL = re.compile(rf"\b{FILTER}_\d+\(m, env, ")  # a call of one


# ---- what an expression is made of --------------------------------------------------
_PLAIN = frozenset({"const", "var", "global"})  # read directly: nothing to share
# The operands of each kind that are expressions (by position after the kind); a list
# operand holds expressions (texts between them, in `fmt`).
_PARTS: dict[str, tuple[int, ...]] = {
    "counter": (1,), "zone": (1,), "cards": (0,), "effect": (1,), "effect_list": (1,),
    "attr": (1,), "token": (0,), "opponent": (0,), "leader": (1,), "support_of": (1, 2),
    "support_at": (1,), "arith": (1, 2), "cmp": (1, 2), "ifelse": (0, 1, 2), "and": (0, 1),
    "or": (0, 1), "not": (0,), "neg": (0,), "list": (0,), "where": (0, 1), "items": (0,),
    "fmt": (0,), "call": (1,), "fn": (1,), "as_list": (0,), "comp": (1, 2, 3),
}


# Writing a function's code asks what an expression is made of, and which variables it
# reads, of each expression again for every expression around it (about 20 asks of each
# while a large pack's first game is written). Asked of a tuple (a program's expressions
# never change), the answer is kept until the function is written (unit.py then calls
# `forget_answers`), under the tuple's id with the tuple itself, so the id names that
# tuple alone; past _KEPT answers a table starts again.
_KEPT = 100_000
_PARTS_OF: dict[int, tuple[Any, tuple | None]] = {}
_READS_OF: dict[int, tuple[Any, frozenset[str]]] = {}


def _keep(table: dict[int, tuple[Any, Any]], e: Any, value: Any) -> Any:
    """`value`, kept as the answer for `e` if `e` is a tuple (see _KEPT)."""
    if e.__class__ is tuple:
        if len(table) >= _KEPT:
            table.clear()
        table[id(e)] = (e, value)
    return value


def forget_answers() -> None:
    """Let go of the answers kept (see _KEPT) and of the expressions they keep."""
    _PARTS_OF.clear()
    _READS_OF.clear()


def _operands(e: Any) -> tuple | None:
    """The expressions `e` is made of; None when it is malformed (writing it will say
    how)."""
    hit = _PARTS_OF.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    return _keep(_PARTS_OF, e, _find_operands(e))


def _find_operands(e: Any) -> tuple | None:
    if e.__class__ not in (tuple, list) or not e or e[0].__class__ is not str:
        return None
    kind = e[0]
    if kind not in GENERATORS or len(e) - 1 != ARITY[kind]:
        return None
    parts = []
    for i in _PARTS.get(kind, ()):
        x = e[1 + i]
        if x is None and kind in ("zone", "comp"):  # a zone of no one; no condition
            continue
        if kind in ("list", "fmt", "call", "fn"):
            if x.__class__ not in (tuple, list):
                return None
            parts.extend(p for p in x if not (kind == "fmt" and isinstance(p, str)))
        else:
            parts.append(x)
    return tuple(parts)


def _written_here(e: Any, fast: bool = False) -> tuple:
    """The parts of `e` worked out in the function that works out `e`: not a `where`'s
    condition nor a comprehension's element and condition, nor (but `fast`) the operands
    of a comparison needing a helper (they are written in functions of their own)."""
    if e[0] == "where":
        return (e[1],)
    if e[0] == "comp":
        return (e[2],)
    if not fast and _guarded_cmp(e):
        return ()
    return _operands(e) or ()


def effects_free(e: Any, functions: frozenset[str], called: set | None = None) -> bool:
    """Working `e` out draws no chance and changes nothing: it calls no builtin of
    builtins.EFFECTS and only pack functions in `functions` (with `called`, any pack
    function, whose names are added to it). Its value then depends only on the state
    and the variables, so it may be worked out once for several uses, or later."""
    parts = _operands(e)
    if parts is None:
        return False
    kind = e[0]
    if kind in ("call", "fn") and e[1].__class__ is not str:
        return False
    if kind == "call" and (e[1] in EFFECTS or e[1] not in BUILTINS):
        return False
    if kind == "fn":
        if called is not None:
            called.add(e[1])
        elif e[1] not in functions:
            return False
    return all(effects_free(p, functions, called) for p in parts)


def variables_read(e: Any) -> frozenset[str]:
    """The variables `e` reads (a `where`'s own `it`, a comprehension's name, left out)."""
    hit = _READS_OF.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    return _keep(_READS_OF, e, _find_variables_read(e))


def _find_variables_read(e: Any) -> frozenset[str]:
    parts = _operands(e)
    if parts is None:
        return frozenset()
    if e[0] == "var":
        return frozenset([e[1]]) if e[1].__class__ is str else frozenset()
    if e[0] == "where":
        return variables_read(e[1]) | (variables_read(e[2]) - {"it"})
    if e[0] == "comp":
        inside = variables_read(e[3]) | (variables_read(e[4]) if e[4] is not None else frozenset())
        return variables_read(e[2]) | (inside - {e[1]})
    out: frozenset[str] = frozenset()
    for p in parts:
        out |= variables_read(p)
    return out


def pure_functions(functions: dict) -> frozenset[str]:
    """The pack functions whose bodies are pure and call only pure functions, none of
    them recursive: peeled from those calling no other function, up."""
    waiting: dict[str, int] = {}
    callers: dict[str, list[str]] = {}
    for name, (_params, body) in functions.items():
        called: set = set()
        if effects_free(body, frozenset(), called) and called <= functions.keys():
            waiting[name] = len(called)
            for callee in called:
                callers.setdefault(callee, []).append(name)
    ready = [name for name, n in waiting.items() if n == 0]
    pure: set[str] = set()
    while ready:
        name = ready.pop()
        pure.add(name)
        for caller in callers.get(name, ()):
            if caller in waiting:
                waiting[caller] -= 1
                if waiting[caller] == 0:
                    ready.append(caller)
    return frozenset(pure)


# ---- small pure functions, written where they are called ---------------------------
INLINE_NODES = 120  # a body larger than this, its own calls written in, is called instead
# A body called once per item (a menu's condition, a `where`'s filter) may be
# larger: what of it does not depend on the item is then worked out once for them all.
LOOPED_INLINE_NODES = 800


class Inliner:
    """Writes a call of a small pure pack function as its body, each parameter replaced
    by the argument's expression. The call's scope holds only its parameters, so the
    body reads no other variable; the arguments are pure, so working one out where the
    body reads it (or twice, or not at all) gives what working it out first gave. The
    caller's shared subexpressions then reach into the body: a part of it that does
    not depend on a loop's variable is worked out once for the whole loop.

    Writing in is bounded before it starts: each function's size with every call in it
    written in is known beforehand (`written_in_sizes`, worked out once per function), so
    a call whose body would grow past MAX_WRITTEN_IN nodes is left a call without being
    expanded, and the nodes expanded for one program are charged against
    MAX_SETUP_NODES, past which every call is left a call. (Functions that double at
    each level, forty deep, once took forever here, as the game was set up.)"""

    def __init__(self, functions: dict, pure: frozenset[str]) -> None:
        self.functions = functions
        self.pure = pure
        self.sizes = written_in_sizes(functions, pure) if pure else {}
        self.spent = 0  # nodes the calls written in so far were measured at

    def __call__(self, e: Any, looped: bool = False) -> Any:
        """`e` with its calls written in; `looped`: it is worked out once per item."""
        if e is None or not self.pure:
            return e
        return self.expand(e, None, looped)

    def expand(self, e: Any, scope: dict | None, looped: bool = False) -> Any:
        """`e` with its calls written in; inside a body, `scope` maps its parameters to
        the arguments."""
        parts = _operands(e)
        if parts is None:  # malformed: writing it says how
            return e
        kind = e[0]
        if kind == "var":
            return scope.get(e[1], e) if scope is not None and e[1].__class__ is str else e
        if kind == "where":  # its filter is worked out once per item
            inner = scope
            if scope is not None and "it" in scope:
                inner = {k: v for k, v in scope.items() if k != "it"}  # `it` is the item there
            e = _with_parts(e, lambda p: self.expand(p, scope, looped), only=(0,))
            e = _with_parts(e, lambda p: self.expand(p, inner, True), only=(1,))
        elif kind == "comp":  # as `where`, its element and condition per item, its name theirs
            inner = {k: v for k, v in scope.items() if k != e[1]} if scope is not None else None
            e = _with_parts(e, lambda p: self.expand(p, scope, looped), only=(1,))
            e = _with_parts(e, lambda p: self.expand(p, inner, True), only=(2, 3))
        elif parts:
            e = _with_parts(e, lambda p: self.expand(p, scope, looped))
        return self.written_in(e, looped) if kind == "fn" else e

    def written_in(self, call: tuple, looped: bool = False) -> Any:
        """The call's body with its arguments in, or the call where that cannot be."""
        name, args = call[1], call[2]
        spec = self.functions.get(name) if name.__class__ is str else None
        if name not in self.pure or spec is None or len(spec[0]) != len(args):
            return call
        params, body = spec
        if not variables_read(body) <= set(params):
            return call
        if not all(effects_free(a, self.pure) for a in args):
            return call
        bound = _names_bound(body)
        if bound and any(bound & variables_read(a) for a in args):
            return call  # the argument's `it` (or name) would be the `where`'s (comprehension's)
        size = call_size(self.sizes, name, params, args)
        if size > MAX_WRITTEN_IN or self.spent + size > MAX_SETUP_NODES:
            return call  # measured, not expanded: too large to write in, or nothing left
        self.spent += size
        out = self.expand(body, dict(zip(params, args, strict=True)), looped)
        return out if _size(out) <= (LOOPED_INLINE_NODES if looped else INLINE_NODES) else call


# ---- the size of a function with its calls written in, before writing any --------------
# A size past this is as good as infinite (and keeps the numbers small).
_HUGE = 1 << 62

# A function's size written in: its nodes, and how many times each parameter is read.
Measured = tuple[int, dict[str, int]]


def written_in_sizes(functions: dict, pure: frozenset[str]) -> dict[str, Measured]:
    """For each pure function, the size of its body with every call of a pure function in
    it written in (as far as writing in could go: an upper bound), and how often each
    parameter is then read: worked out from the functions it calls up, each once, so a
    function doubling at each of forty levels costs forty steps, not 2**40."""
    sizes: dict[str, Measured] = {}
    for root in sorted(pure):
        todo = [root]
        while todo:  # depth first, without recursion: pure functions call no function back
            name = todo[-1]
            if name in sizes:
                todo.pop()
                continue
            body = functions[name][1]
            waiting = [c for c in pure_calls(body, pure) if c not in sizes]
            if waiting:
                todo.extend(waiting)
                continue
            sizes[name] = _measure(body, functions, sizes)
            todo.pop()
    return sizes


def call_size(sizes: dict[str, Measured], name: str, params: list, args: list) -> int:
    """The size a call of `name` with these arguments would be written in (an upper bound:
    the larger of its body's, each parameter read replaced by its argument, and the call
    left as it is)."""
    total, reads = sizes.get(name, (_HUGE, {}))
    kept = 1
    for p, a in zip(params, args, strict=False):
        n = _size(a)
        kept += n
        total += reads.get(p, 0) * (n - 1)
    return min(max(total, kept), _HUGE)


def _nodes(e: Any) -> Iterator[tuple]:
    """Every expression `e` is made of, itself included (without recursion: an expression
    may nest deeper than Python's stack)."""
    todo = [e]
    while todo:
        x = todo.pop()
        parts = _operands(x)
        if parts is not None:
            yield x
            todo.extend(parts)


def pure_calls(e: Any, pure: frozenset[str]) -> list[str]:
    """The pure functions `e` calls."""
    return [x[1] for x in _nodes(e) if x[0] == "fn" and x[1].__class__ is str and x[1] in pure]


def _measure(e: Any, functions: dict, sizes: dict[str, Measured]) -> Measured:
    """`e`'s size with its calls written in, and the reads of each variable in it."""
    parts = _operands(e)
    if parts is None:
        return 1, {}
    if e[0] == "var":
        return 1, ({e[1]: 1} if e[1].__class__ is str else {})
    measured = [_measure(p, functions, sizes) for p in parts]
    size = 1 + sum(n for n, _ in measured)
    reads: dict[str, int] = {}
    for _, r in measured:
        _add(reads, r, 1)
    name = e[1] if e[0] == "fn" else None
    if name.__class__ is str and name in sizes and len(functions[name][0]) == len(parts):
        body, body_reads = sizes[name]
        written: dict[str, int] = {}
        for p, (n, r) in zip(functions[name][0], measured, strict=True):
            times = body_reads.get(p, 0)
            body += times * (n - 1)
            _add(written, r, times)
        size = max(size, body)  # an upper bound, whether it is written in or not
        for k, v in written.items():
            reads[k] = max(reads.get(k, 0), v)
    return min(size, _HUGE), {k: min(v, _HUGE) for k, v in reads.items()}


def _add(total: dict[str, int], more: dict[str, int], times: int) -> None:
    for k, v in more.items():
        total[k] = min(total.get(k, 0) + v * times, _HUGE)


def _with_parts(e: Any, f: Callable[[Any], Any], only: tuple[int, ...] | None = None) -> Any:
    """`e` with f applied to each expression it is made of (those at `only`)."""
    kind = e[0]
    out = list(e)
    for i in _PARTS.get(kind, ()):
        if only is not None and i not in only:
            continue
        x = e[1 + i]
        if x is None:
            continue
        if kind in ("list", "fmt", "call", "fn"):
            out[1 + i] = x.__class__(p if p.__class__ is str and kind == "fmt" else f(p)
                                     for p in x)
        else:
            out[1 + i] = f(x)
    return e.__class__(out)


def _names_bound(e: Any) -> frozenset[str]:
    """The names `e` binds inside itself: `it` of a `where`, a comprehension's name."""
    return frozenset("it" if x[0] == "where" else x[1] for x in _nodes(e)
                     if x[0] == "where" or (x[0] == "comp" and x[1].__class__ is str))


def _size(e: Any) -> int:
    parts = _operands(e)
    return 1 + sum(_size(p) for p in parts) if parts else 1


# ---- the generators: one per expression kind ----------------------------------------
_BOUND = f"{-MAX_INT} <= {{t}} <= {MAX_INT}"


def _const(w: Writer, value) -> str:
    catalog = getattr(w.unit, "catalog", None)
    if catalog is not None and value.__class__ is str and not _ID.fullmatch(value):
        # a text to be shown (words, not an id the rules compare): in the game's language
        value = catalog.plain.get(value, value)
    return w.lit(value)


_ID = re.compile(r"[a-z0-9_]*")  # what names a thing; never translated


def _var(w: Writer, name) -> str:
    if name.__class__ is not str:
        raise RuleError(f"a variable's name is a text, not {name!r:.80}")
    return w.locals.get(name) or f"env[{name!r}]"


def _global(w: Writer, name) -> str:
    return f"m.s.vars[{w.lit(name)}]"


def _counter(w: Writer, name, who) -> str:
    return f"m.s.counters[{w.lit(name)}][{w.expr(who)}]"


def _zone(w: Writer, name, who) -> str:
    if who is None:
        return w.lit(name)
    return f"({f'{name}:'!r} + _format({w.expr(who)}))"


def _cards(w: Writer, zone) -> str:
    return f"_list(m.s.zones[{w.expr(zone)}])"


def _effect(w: Writer, name, who) -> str:
    return f"_effect_total(m, {w.lit(name)}, {w.expr(who)})"


def _effect_list(w: Writer, name, who) -> str:
    return f"_effect_values(m, {w.lit(name)}, {w.expr(who)})"


def _attr(w: Writer, name, sub) -> str:
    tables = w.unit.property_tables(name) if name.__class__ is str else None
    if tables is not None:  # looked up in the program's tables of it, as below
        cards, places, by_place = tables
        if _all_places(w, sub, by_place):
            return f"{places}[{w.expr(sub)}]"
        t = w.temp()
        return (f"(None if ({t} := {w.expr(sub)}) is None else {cards}[{t}] if "
                f"{t}.__class__ is _int else ({places}[{t}] if {t} in {places} "
                f"else _no_property({t}, {w.lit(name)})))")
    t, loc, n = w.temp(), w.temp(), w.lit(name)
    place = (f"({loc}.get({n}) if ({loc} := m.p.locations.get({t})) is not None "
             f"else _no_property({t}, {n}))")
    return (f"(None if ({t} := {w.expr(sub)}) is None else "
            f"m.p.cards[{t}].get({n}) if {t}.__class__ is _int else {place})")


def _all_places(w: Writer, sub: Any, places: dict) -> bool:
    """`sub` is a loop's variable whose every value is a place of `places` (the loop
    runs over a constant list of them): its property needs no test of what it is."""
    if not (sub.__class__ in (tuple, list) and len(sub) == 2 and sub[0] == "var"):
        return False
    domain = w.domains.get(sub[1]) if sub[1].__class__ is str else None
    return domain.__class__ is list and all(
        v.__class__ is str and v in places for v in domain)


def _token(w: Writer, who) -> str:
    return f"m.s.tokens.get({w.expr(who)})"


def _opponent(w: Writer, who) -> str:
    t = w.temp()
    return f"(m.opponents[{t}] if ({t} := {w.expr(who)}) is not None else None)"


def _leader(w: Writer, pool, loc) -> str:
    if not pool:  # the pool of the place's kind
        return f"_leader(m, {w.lit(pool)}, {w.expr(loc)})"
    return f"_owner(m, {w.lit(pool)}, {w.expr(loc)})"


def _support_of(w: Writer, pool, who, loc) -> str:
    # who is read only where someone holds the place
    t = w.temp()
    exclusive = (f"({t}[1] if ({t} := m.s.pools[{w.lit(pool)}].get({w.expr(loc)})) "
                 f"and {t}[0] == {w.expr(who)} else 0)")
    stacking = f"_support_of(m, {w.lit(pool)}, {w.expr(who)}, {w.expr(loc)})"
    known = w.unit.stacking
    if known is not None and pool.__class__ is str:  # the program says which it is
        return stacking if pool in known else exclusive
    return f"({stacking} if {w.lit(pool)} in m.stacking else {exclusive})"


def _support_at(w: Writer, pool, loc) -> str:
    return f"_support(m, {w.lit(pool)}, {w.expr(loc)})"


def _track(w: Writer, name) -> str:
    return f"_list(m.s.tracks[{w.lit(name)}])"


def _arith(w: Writer, op, a, b) -> str:
    if op.__class__ is str and op in ("+", "-"):
        t = w.temp()
        return (f"({t} if ({t} := {w.expr(a)} {op} {w.expr(b)}).__class__ is _int "
                f"and {_BOUND.format(t=t)} else _checked(m, {t}))")
    fn = _ARITH.get(op) if op.__class__ is str else None
    if fn is None:
        raise RuleError(f"unknown operator {op!r:.80}")
    if op in ("%", "//") and _divisor(b):
        # a 64-bit integer by a 64-bit constant other than 0 gives one: nothing to check
        t = w.temp()
        return (f"({t} {op} {b[1]!r} if ({t} := {w.expr(a)}).__class__ is _int "
                f"else _checked(m, {fn}({t}, {b[1]!r})))")
    return f"_checked(m, {fn}({w.expr(a)}, {w.expr(b)}))"


_ARITH = {"*": "_mul", "//": "_floordiv", "%": "_mod"}  # helpers of runtime.py
_ORDER = ("<", "<=", ">", ">=")


def _divisor(e: Any) -> bool:
    """`e` is a constant integer other than 0, within 64 bits."""
    return (e.__class__ in (tuple, list) and len(e) == 2 and e[0] == "const"
            and e[1].__class__ is int and e[1] != 0 and -MAX_INT <= e[1] <= MAX_INT)


def _cmp(w: Writer, op, a, b) -> str:
    if op.__class__ is not str:
        raise RuleError(f"unknown operator {op!r:.80}")
    if op in ("==", "!="):
        return f"({w.expr(a)} {op} {w.expr(b)})"
    if op == "in":  # the container first; none holds nothing
        t = w.temp()
        return f"(({t} := {w.expr(b)}) is not None and {w.expr(a)} in {t})"
    if op == "not in":
        t = w.temp()
        return f"(({t} := {w.expr(b)}) is None or {w.expr(a)} not in {t})"
    if op not in _ORDER:
        raise RuleError(f"unknown operator {op!r:.80}")
    if w.fast and not (_cannot_fail(a) and _cannot_fail(b)):
        return f"({w.expr(a)} {op} {w.expr(b)})"
    if _cannot_fail(a) and _cannot_fail(b):
        ta, tb = w.temp(), w.temp()
        return (f"({ta} {op} {tb} if ({ta} := {w.expr(a)}).__class__ is "
                f"({tb} := {w.expr(b)}).__class__ is _int else "
                f"{w.unit.bind(ORDERED[op])}({ta}, {tb}))")
    # A TypeError anywhere in the operands (a name against a number) makes the comparison
    # False: that needs statements, so a helper function.
    def body(h: Writer) -> list[str]:
        h.plan([a, b])
        return h.start(["try:", f"    return {h.expr(a)} {op} {h.expr(b)}",
                        "except _TypeError:", "    return False"])

    return w.helper("c", body)


def _guarded_cmp(e: Any) -> bool:
    """An ordering comparison that is False on a TypeError in its operands."""
    return (e[0] == "cmp" and len(e) == 4 and e[1] in _ORDER
            and not (_cannot_fail(e[2]) and _cannot_fail(e[3])))


def fast_pays(e: Any, pure: frozenset[str]) -> bool:
    """`e` is pure and holds a comparison a TypeError makes False (see Writer.value)."""
    return _has(e, _guarded_cmp) and effects_free(e, pure)


def _has(e: Any, test: Callable[[Any], bool]) -> bool:
    parts = _operands(e)
    if parts is None:
        return False
    return test(e) or any(_has(p, test) for p in parts)


def _cannot_fail(e: Any) -> bool:
    """Reading it can raise no TypeError (a constant, a variable, a global)."""
    if e.__class__ not in (tuple, list) or not e:
        return False
    if e[0] == "const":
        return True
    return e[0] in ("var", "global") and len(e) == 2 and e[1].__class__ is str


def _ifelse(w: Writer, cond, a, b) -> str:
    return f"({w.expr(a)} if {w.cond(cond)} else {w.expr(b)})"


def _and(w: Writer, a, b) -> str:
    return f"(True if {w.cond(a)} and {w.cond(b)} else False)"


def _or(w: Writer, a, b) -> str:
    return f"(True if {w.cond(a)} or {w.cond(b)} else False)"


def _not(w: Writer, a) -> str:
    return f"(not {w.cond(a)})"


def _neg(w: Writer, a) -> str:
    return f"_checked(m, -{w.expr(a)})"


def _list(w: Writer, items) -> str:
    return f"_items(m, [{', '.join(w.expr(i) for i in items)}])"


def _where(w: Writer, src, cond) -> str:
    return _filter(w, src, cond, counting=False)


def _is_where(e: Any) -> bool:
    """`e` is a well-formed `where` (a malformed one is refused as it is written)."""
    return e.__class__ in (tuple, list) and len(e) == 3 and e[0] == "where"


def _filter(w: Writer, src, cond, counting: bool) -> str:
    """The items of `src` that pass `cond`; `counting`: only how many (no list is made:
    `count(... where ...)`), with the same work charged."""
    # the list is worked out by the caller, before `it` is bound (it may share it)
    found, kept = ("_out = 0", "_out += 1") if counting else ("_out = []", "_out.append(_x)")

    def body(h: Writer, hoisting: bool = True) -> list[str]:
        h.plan([], [cond], "it")
        prefetch = h.hoist([cond], "it", f"return {exact}(m, env, _a1)") if hoisting else []
        h.inside = True
        h.locals["it"] = "_x"  # what the loop just put in env['it'] (a nested where puts it back)
        if src.__class__ in (tuple, list) and src and src[0] == "const":
            h.domains["it"] = src[1]
        test = h.cond(cond)
        charge = [found, "if _a1:", "    m.work += _len(_a1)",
                  "    if m.work > m.work_limit:", "        m.charge(0)"]
        passes = [*("    " + line for line in h.each_pass()), f"    if {test}:",
                  f"        {kept}"]
        if hoisting and not _passes_it(test):  # nothing reads env['it']: it is never set
            return h.start([*prefetch, *charge, "for _x in _a1:", *passes, "return _out"])
        return h.start([
            *prefetch,
            "_saved = env.get('it', _MISSING)",
            *charge,
            "try:",
            "    for _x in _a1:",
            "        env['it'] = _x",
            *("    " + line for line in passes),
            "finally:",
            "    if _saved is _MISSING:",
            "        env.pop('it', None)",
            "    else:",
            "        env['it'] = _saved",
            "return _out",
        ])

    # a variable with no value: the filter reading each where the language does
    exact = w.unit.later(FILTER, ("m", "env", "_a1"), lambda h: body(h, hoisting=False))
    return w.helper(FILTER, body, (w.expr(checked_items(src, WHERE_SOURCE)),))


def _comp(w: Writer, var, items, element, cond) -> str:
    """`[element for var in items if cond]`, in a helper: the list is worked out by the
    caller (before `var` is bound), its length charged as a `where`'s is; `var` is the
    loop's local, and in `env` too (put back after) only when something handed `env` reads
    it. A list of lists is charged for what it holds, as a list literal is."""
    if var.__class__ is not str:
        raise RuleError(f"a comprehension's name is a text, not {var!r:.80}")

    def body(h: Writer) -> list[str]:
        h.plan([], [element, cond], var)
        h.inside = True
        h.locals[var] = "_x"
        if items.__class__ in (tuple, list) and items and items[0] == "const":
            h.domains[var] = items[1]
        test = h.cond(cond) if cond is not None else None
        value = h.expr(element)
        keep = [f"if {test}:", f"    _out.append({value})"] if test else [f"_out.append({value})"]
        passes = [*h.each_pass(), *keep]
        charge = ["_out = []", "if _a1:", "    m.work += _len(_a1)",
                  "    if m.work > m.work_limit:", "        m.charge(0)"]
        if not _passes_env(test, value):  # nothing reads env[var]: it is never set
            return h.start([*charge, "for _x in _a1:", *("    " + p for p in passes),
                            "return _items(m, _out)"])
        name = h.lit(var)
        return h.start([
            f"_saved = env.get({name}, _MISSING)",
            *charge,
            "try:",
            "    for _x in _a1:",
            f"        env[{name}] = _x",
            *("        " + p for p in passes),
            "finally:",
            "    if _saved is _MISSING:",
            f"        env.pop({name}, None)",
            "    else:",
            f"        env[{name}] = _saved",
            "return _items(m, _out)",
        ])

    return w.helper(COMPREHENSION, body, (w.expr(checked_items(items, COMP_SOURCE)),))


def _items(w: Writer, expr, what) -> str:
    # a text where a list is gone through is an error (see `checked_items`)
    t = w.temp()
    return (f"({t} if ({t} := {w.expr(expr)}).__class__ is not _str "
            f"else _not_a_list({t}, {w.lit(what)}))")


def _as_list(w: Writer, e) -> str:
    # a phrase's targets: one place is a list of one place
    t = w.temp()
    return f"({t} if ({t} := {w.expr(e)}).__class__ is _list else _as_list(m, {t}))"


def _fmt(w: Writer, parts) -> str:
    pieces = []
    for p in parts:
        if isinstance(p, str):
            pieces.append(repr(str(p)))
            continue
        t = w.temp()
        # an id (a player, a place...) reads as its display name: m.names, which is empty
        # while the key labels are made
        pieces.append(f"(m.names.get({t}, {t}) if ({t} := {w.expr(p)}).__class__ is _str "
                      f"else m.show({t}))")
    shown = _translation(w, parts)
    if shown is not None:  # a game in another language: the catalog's order of the parts
        values = [p for p, part in zip(pieces, parts, strict=True) if not isinstance(part, str)]
        return f"_text(m, _translated({w.lit(shown)}, ({''.join(v + ', ' for v in values)})))"
    return f"_text(m, ''.join(({''.join(p + ', ' for p in pieces)})))"


def _translation(w: Writer, parts) -> tuple | None:
    """The translation of a text with parts, from the program's catalog (Program.catalog),
    as literal texts and part indexes; None when there is none."""
    catalog = getattr(w.unit, "catalog", None)
    if catalog is None:
        return None
    literals = [""]
    for p in parts:
        if isinstance(p, str):
            literals[-1] += p
        else:
            literals.append("")
    found = catalog.template(literals)
    return tuple(found) if found is not None else None


SHORT_LIST = 16  # `tally` of at most this many items is counted in place, uncharged


def _call(w: Writer, name, args) -> str:
    fn = BUILTINS.get(name) if name.__class__ is str else None
    if fn is None:
        raise RuleError(f"unknown function {name!r:.80}")
    listed = LIST_ARGUMENTS.get(name)
    args = [checked_items(a, f"what {name}() reads") if k == listed else a
            for k, a in enumerate(args)]
    table = w.unit.tables.get(name)
    if table is not None:  # looked up, not called (a missing key is the same KeyError)
        return f"{w.unit.bind(table)}{''.join(f'[{w.expr(a)}]' for a in args)}"
    if name == "count" and len(args) == 1 and _is_where(args[0]):
        return _filter(w, args[0][1], args[0][2], counting=True)  # counted as it is filtered
    if name == "tally" and len(args) == 2:
        # a short list (the common case) is counted in place: its work is one pass of
        # whatever loop asks, and a longer one is charged by the builtin as before
        items = w.temp()
        return (f"({items}.count({w.expr(args[1])}) if ({items} := {w.expr(args[0])})"
                f".__class__ is _list and _len({items}) <= {SHORT_LIST} else "
                f"{w.unit.bind(fn)}(m, {items}, {w.expr(args[1])}))")
    pool = args[0] if name == "support_of" and len(args) == 3 else None
    if pool is not None and _exclusive_pool(w.unit, pool):
        # as builtins._support_of, its arguments worked out in order and no call
        who, at, held = w.temp(), w.temp(), w.temp()
        return (f"({held}[1] if (({who} := {w.expr(args[1])}) or True) and (({at} := "
                f"{w.expr(args[2])}) or True) and ({held} := m.s.pools[{w.lit(pool[1])}]"
                f".get({at})) and {held}[0] == {who} else 0)")
    return f"{w.unit.bind(fn)}({', '.join(['m', *(w.expr(a) for a in args)])})"


def _exclusive_pool(unit: Unit, e: Any) -> bool:
    """`e` names, as a constant, a pool the program knows is not stacking."""
    return (unit.stacking is not None and e.__class__ in (tuple, list) and len(e) == 2
            and e[0] == "const" and e[1].__class__ is str and e[1] not in unit.stacking)


def _fn(w: Writer, name, args) -> str:
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
    "where": _where, "items": _items, "fmt": _fmt, "call": _call, "fn": _fn,
    "as_list": _as_list, "comp": _comp,
}
# The operands each kind takes (its generator's parameters after the writer).
ARITY = {kind: len(inspect.signature(g).parameters) - 1 for kind, g in GENERATORS.items()}
