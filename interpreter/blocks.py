"""Instruction blocks compiled to Python: straight-line code between decision points.

The machine keeps its frames in the state, so a game can pause at any decision, be
saved and resume there. Only what may pause needs a frame; everything between two such
points runs here as ordinary Python, in the program's generated module (unit.Unit).

A block is *framed* when running it may pause or push a frame: it holds a decision, an
event, an announcement, a reaction, a guard, `finish`, a call of a framed procedure, or
a nested block that is framed (or nests too deep to write inline). A framed block is cut
after each such *pausing* instruction; each piece, a *segment*, is one generated
function `def s_N(m, f)` that runs the piece's instructions and, last, the pausing one,
after setting the frame's `pc` past it: an `if`, a call, an announcement or a menu whose
labels are made later is written there, anything else runs through its op (ops.py).
The body of an `if`, a `for`, a `repeat` or a `while` that is not framed is written
inline, as the Python statement of the same name; so is an op with an `apply` (its
operands worked out in place). A procedure whose block is not framed, calling only such
procedures (none recursively, and no chain of them deeper than MAX_DIRECT_CALLS), is a
Python function `def p_N(m, env)` and is called without a frame. A block is written the
first time it runs (`Segments.at`), or all at once by `write_all`.

Every line that runs an instruction ends with a marker `#@B:P` (block B, instruction
P): an error raised there is reported at that instruction's position in the content,
as it was when every block ran in a frame. Work is charged as before, one unit per
instruction: a piece of straight-line code charges its length as it starts, and a loop
looks at the budget (and the clock, every so often) at each pass.

Content reaches the source only as literals (unit.Unit.literal); every identifier is
made here.
"""

from __future__ import annotations

import re
from typing import Any

from . import narration
from .codegen import Writer, checked_items, fast_pays
from .errors import RuleError
from .narration import CAUSE
from .ops import CHOSEN_FROM, built
from .program import Program
from .unit import COMPILE_BATCH, Unit, unit_for

# Instructions that end a segment: they may pause, push a frame or pop one (a guard's
# reaction stops when its condition fails; `finish` empties the stack).
_PAUSING = frozenset({"choose", "menu", "event", "announce", "react", "guard", "finish"})
# How deep blocks nest inline; a deeper one runs in a frame (Python limits nesting).
MAX_INLINE_DEPTH = 10
# How many frameless procedure calls may nest (deeper ones run in frames).
MAX_DIRECT_CALLS = 24
_MARK = re.compile(r"#@(\d+):(\d+)$")
FOR_ITEMS = "what `for` runs over"  # as ops.For names it


def sub_blocks(ins: tuple) -> list[int]:
    """The blocks nested in an instruction, in the order they appear."""
    kind = ins[0]
    if kind == "if":
        return [b for _, b in ins[1]] + ([ins[2]] if ins[2] is not None else [])
    if kind in ("for", "while"):
        return [ins[3]]
    if kind == "repeat":
        return [ins[2]]
    return []


class Plan:
    """Which blocks need frames, given the procedures called without one (`direct`)."""

    def __init__(self, program: Program, direct: frozenset[str]) -> None:
        self.blocks = program.blocks
        self.direct = direct
        # a move on a shared track that ends the game may empty the stack, as `finish` does
        self.ending = frozenset(t for t, ends in program.shared_tracks.items()
                                if ends["ends_game"])
        self.memo: dict[tuple[int, int], bool] = {}

    def pauses(self, ins: tuple, depth: int) -> bool:
        kind = ins[0]
        if kind in _PAUSING:
            return True
        if kind in ("gain", "lose", "pay") and ins[3] in self.ending:
            return True
        if kind == "call":
            return ins[1] not in self.direct
        return any(self.framed(b, depth + 1) for b in sub_blocks(ins))

    def framed(self, block: int, depth: int) -> bool:
        if depth > MAX_INLINE_DEPTH:
            return True
        key = (block, depth)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = any(self.pauses(i, depth) for i in self.blocks[block])
        return hit


def direct_procedures(program: Program) -> frozenset[str]:
    """The procedures called as Python functions: their blocks need no frame, they call
    only such procedures, none of them recursively, and no chain of such calls is
    longer than MAX_DIRECT_CALLS (a longer one runs in frames, within the budget's
    depth). One pass over the call graph, whatever its size."""
    procedures = program.procedures
    alone = Plan(program, frozenset(procedures))  # every call taken as frameless
    height: dict[str, int | None] = {}  # calls down to the deepest; None: needs frames
    for root in procedures:
        stack = [(root, False)]
        while stack:
            name, children_done = stack.pop()
            if name in height and not children_done:
                continue
            block = procedures[name].block
            callees = sorted(called_inline(program, block))
            if not children_done:
                if alone.framed(block, 0):
                    height[name] = None
                    continue
                height.setdefault(name, -1)  # being worked out: a call back is a cycle
                stack.append((name, True))
                stack.extend((c, False) for c in callees if c not in height)
                continue
            deepest = 0
            for c in callees:
                h = height.get(c)
                if h is None or h < 0:  # framed, or a call back into the chain
                    deepest = None
                    break
                deepest = max(deepest, h + 1)
            height[name] = deepest if deepest is not None and deepest <= MAX_DIRECT_CALLS \
                else None
    return frozenset(n for n, h in height.items() if h is not None and h >= 0)


def called_inline(program: Program, block: int, depth: int = 0) -> set[str]:
    """The procedures a block calls where it would be written inline."""
    found: set[str] = set()
    todo = [(block, depth)]
    while todo:
        b, d = todo.pop()
        for ins in program.blocks[b]:
            if ins[0] == "call" and ins[1] in program.procedures:
                found.add(ins[1])
            if d < MAX_INLINE_DEPTH:
                todo.extend((sub, d + 1) for sub in sub_blocks(ins))
    return found


class Segments:
    """The compiled segments of one program's blocks: `at(block, pc)` is the function
    running block `block` from instruction `pc`."""

    def __init__(self, program: Program, ops: list[list[Any]]) -> None:
        self.program = program
        self.ops = ops
        self.unit: Unit = unit_for(program)
        self.plan = Plan(program, direct_procedures(program))
        # a block's segments by the instruction they start at (None: not written yet)
        self.table: list[list] = [[None] * len(block) for block in program.blocks]
        self.functions: dict[str, str] = {}  # procedure -> its generated function
        self.count = 0  # generated locals and tags so far
        self.written: list[tuple[int, int, str]] = []  # (block, pc, function) to look up
        self.blocks_written: set[int] = set()
        self.unit.namespace.update(_Scope=Scope, _RuleError=RuleError, _range=range)

    def _compile(self) -> None:
        self.unit.compile()
        for block, pc, name in self.written:
            self.table[block][pc] = self.unit.namespace[name]
        self.written.clear()

    def at(self, block: int, pc: int):
        """The segment starting at instruction `pc` of `block`. A block's segments are
        written the first time one of them runs (a game runs a part of its rules only;
        a starting point no pausing instruction makes, as a save could name, is written
        alone)."""
        row = self.table[block]
        fn = row[pc]
        if fn is None:
            with self.unit.lock:
                starts = self._write_block(block) if block not in self.blocks_written else []
                if pc not in starts and row[pc] is None:
                    self._write_segment(block, pc)
                self._compile()
            fn = row[pc]
        return fn

    def write_all(self) -> None:
        """Write and compile every block's segments now (before forking workers, which
        then share them), not as each first runs."""
        with self.unit.lock:
            for block in range(len(self.program.blocks)):
                if block not in self.blocks_written and self.program.blocks[block]:
                    self._write_block(block)
                    if self.unit.pending() > COMPILE_BATCH:
                        self._compile()  # a batch at a time (see COMPILE_BATCH)
            self._compile()

    # ---- writing ----
    def _write_block(self, block: int) -> list[int]:
        """Every segment of a block: from its start and after each pausing instruction.
        Answers where they start."""
        self.blocks_written.add(block)
        instructions = self.program.blocks[block]
        starts = [0] + [pc + 1 for pc, ins in enumerate(instructions)
                        if self.plan.pauses(ins, 0) and pc + 1 < len(instructions)]
        starts = [pc for pc in starts if pc < len(instructions)]
        for pc in starts:
            self._write_segment(block, pc)
        return starts

    def _write_segment(self, block: int, start: int) -> None:
        instructions = self.program.blocks[block]
        end = start
        while end < len(instructions) and not self.plan.pauses(instructions[end], 0):
            end += 1
        size = end - start + (1 if end < len(instructions) else 0)

        def emit(_w: Writer) -> list[str]:
            out = ["env = f.env"]
            self._charge(out, "", size, (block, start), loop=True)
            for pc in range(start, end):
                self._instruction(out, "", block, pc, 0, framed=True)
            if end < len(instructions):  # the pausing instruction
                out.append(f"f.pc = {end + 1}")
                self._pausing(out, block, end)
            else:  # the block's end: a frame that is no loop's pass is done (as _end_block)
                out.append(f"f.pc = {end}")
                out.append("if f.items is None and f.cond is None and not f.bound: "
                           "m.s.stack.pop()")
            return out

        self.written.append((block, start, self.unit.define("s", ("m", "f"), emit)))

    def _pausing(self, out: list[str], block: int, pc: int) -> None:
        """The instruction that ends a segment (`f.pc` is already past it). An `if`, a
        call of a procedure, an announcement and a menu whose labels are made later are
        written here, their expressions inline: a frame is pushed only for what may pause
        (a branch that is framed, the procedure's block, the reactions, the option
        taken). Anything else runs through its op."""
        ins, mark = self.program.blocks[block][pc], _mark(block, pc)
        kind = ins[0]
        if kind == "if":
            self._framed_if(out, ins, mark)
        elif kind == "call" and ins[1] in self.program.procedures:
            scope = self._arguments(out, "", ins, mark)
            block_of = self.program.procedures[ins[1]].block
            out.append(f"m.push({self.unit.literal(block_of)}, {scope}, True){mark}")
        elif kind == "announce":
            values = [(self.unit.literal(p), self._settled(out, e, mark)) for p, e in ins[2]]
            table = ", ".join(f"{p}: {v}" for p, v in values)
            out.append(f"m.announce({self.unit.literal(ins[1])}, {{{table}}}, f){mark}")
        elif kind == "menu" and built(self.ops, block, pc).lazy:
            self._menu(out, ins, mark)
        elif kind == "choose" and built(self.ops, block, pc).lazy:
            self._choose(out, ins, mark)
        else:
            out.append(f"{self.unit.bind(built(self.ops, block, pc))}.run(m, f){mark}")

    def _menu(self, out: list[str], ins: tuple, mark: str) -> None:
        """A menu whose labels are made when asked for, as ops.Menu runs one: its
        question, then each option's offers, then one offer is taken at once, or more
        are put to the player."""
        who, options = ins[1], ins[2]
        question = ins[4] if len(ins) > 4 else None
        prompt = self._settled(out, question, mark) if question is not None else None
        offered = self._local("o")
        out.append(f"{offered} = []{mark}")
        for option in options:
            out.append(f"{self.unit.offer_name(option, False)}(m, env, {offered}){mark}")
        player, who_local = self._expr(out, "", who, mark, settle=False), self._local("p")
        if prompt is None:  # asked from the player's name (narration.menu_question)
            prompt = f"{self.unit.bind(narration.menu_question)}(m, {who_local})"
        out.append(f"if {offered}:{mark}")
        single = 0 if len(ins) > 5 and ins[5] else 1  # `always`: asked even with one option
        out.append(f"    if _len({offered}) == {single}: m.apply_payload({offered}[0]){mark}")
        out.append(f"    else:{mark}")
        out.append(f"        {who_local} = {player}{mark}")
        out.append(f"        m.decide({who_local}, {prompt}, {offered}){mark}")

    def _choose(self, out: list[str], ins: tuple, mark: str) -> None:
        """`P chooses x from LIST` whose labels are made when asked for, as ops.Choose
        runs it: no item binds none, one is taken at once, more are put to the player."""
        who, var, items = ins[1], _name(ins[2]), ins[3]
        question = ins[5] if len(ins) > 5 else None
        listed = self._settled(out, checked_items(items, CHOSEN_FROM), mark)
        out.append(f"if not {listed}: env[{var}] = None{mark}")
        single = 0 if len(ins) > 6 and ins[6] else 1  # `always`: asked even with one item
        out.append(f"elif _len({listed}) == {single}: env[{var}] = {listed}[0]{mark}")
        out.append(f"else:{mark}")
        prompt = self._settled(out, question, mark, "    ") if question is not None else None
        out.append(f"    env[{var}] = {listed}[-1]{mark}")  # where offering leaves it
        player, item = self._expr(out, "    ", who, mark, settle=False), self._local("i")
        who_local = self._local("p")
        out.append(f"    {who_local} = {player}{mark}")
        if prompt is None:  # asked from what is offered (narration.default_question)
            prompt = f"{self.unit.bind(narration.default_question)}(m, {who_local}, {listed})"
        out.append(f"    m.decide({who_local}, {prompt}, "
                   f"[['bind', {var}, {item}] for {item} in {listed}]){mark}")

    def _settled(self, out: list[str], e: Any, mark: str, ind: str = "") -> str:
        """`e` worked out into a local now (so later lines cannot change what it reads)."""
        code, v = self._expr(out, ind, e, mark), self._local("v")
        out.append(f"{ind}{v} = {code}{mark}")
        return v

    def _framed_if(self, out: list[str], ins: tuple, mark: str) -> None:
        """An `if` a branch of which may pause: as ops.If, the first branch whose test
        holds is pushed as a frame, but a branch that cannot pause runs here, inline."""
        branches, otherwise = ins[1], ins[2]
        tests = [self._expr(out, "", cond, mark, cond=True, settle=k == 0)
                 for k, (cond, _) in enumerate(branches)]
        for k, ((_, b), test) in enumerate(zip(branches, tests, strict=True)):
            out.append(f"{'if' if k == 0 else 'elif'} {test}:{mark}")
            self._branch(out, b, mark)
        if otherwise is not None:
            out.append(f"else:{mark}")
            self._branch(out, otherwise, mark)

    def _branch(self, out: list[str], block: Any, mark: str) -> None:
        if block.__class__ is int and 0 <= block < len(self.program.blocks) \
                and not self.plan.framed(block, 1):
            self._body(out, "    ", block, 1, framed=True)
        else:
            out.append(f"    m.push({self.unit.literal(block)}, env){mark}")

    def _procedure(self, name: str) -> str:
        """The function of a procedure called without a frame (written once)."""
        fn = self.functions.get(name)
        if fn is not None:
            return fn
        block = self.program.procedures[name].block

        def emit(_w: Writer) -> list[str]:
            out: list[str] = []
            self._body(out, "", block, 0, framed=False, loop=True)
            # an op run through its `run` reads its variables from a scope
            return ["f = _Scope(env)", *out] if any(".run(m, f)" in line for line in out) \
                else out

        fn = self.functions[name] = self.unit.define("p", ("m", "env"), emit)
        return fn

    def _local(self, prefix: str) -> str:
        self.count += 1
        return f"_{prefix}{self.count}"

    def _charge(self, out: list[str], ind: str, n: int, at: tuple[int, int],
                loop: bool) -> None:
        """Charge n units of work; at a loop's pass (or a segment's start), look at the
        budget too."""
        mark = _mark(*at)
        out.append(f"{ind}m.work += {n}{mark}")
        if loop:
            out.append(f"{ind}if m.work > m.tick_at: m.tick(){mark}")

    def _body(self, out: list[str], ind: str, block: int, depth: int, framed: bool,
              loop: bool = False) -> None:
        """A whole block written inline (it is not framed)."""
        instructions = self.program.blocks[block]
        if not instructions:
            out.append(f"{ind}pass")
            return
        self._charge(out, ind, len(instructions), (block, 0), loop)
        for pc in range(len(instructions)):
            self._instruction(out, ind, block, pc, depth, framed)

    def _expr(self, out: list[str], ind: str, e: Any, mark: str, cond: bool = False,
              settle: bool = True) -> str:
        """An expression's source; the lines that must come before it go to `out`.
        `settle`: it is worked out right there, so a pure one holding comparisons that a
        TypeError makes False may be worked out into a local with every comparison
        inline, and again exactly on a TypeError (as codegen's `Writer.value`)."""
        e = self.unit.inliner(e)
        fast = settle and fast_pays(e, self.unit.pure_functions)
        w = Writer(self.unit, self._local("e") + "_", fast=fast)
        w.plan([e])
        code = w.cond(e) if cond else w.expr(e)
        out.extend(f"{ind}{line}{mark}" for line in w.start([]))
        if not fast:
            return code
        v = self._local("v")
        out.extend([f"{ind}try:", f"{ind}    {v} = {code}{mark}", f"{ind}except _TypeError:",
                    f"{ind}    {v} = {self.unit.exact(e)}{mark}"])
        return v

    def _instruction(self, out: list[str], ind: str, block: int, pc: int, depth: int,
                     framed: bool) -> None:
        """One instruction that does not pause, written inline. `framed`: the code runs in
        the frame `f` (a `stop` pops frames); else in a procedure's function (it returns)."""
        ins = self.program.blocks[block][pc]
        kind, mark = ins[0], _mark(block, pc)
        lit = self.unit.literal
        if kind == "let":
            code = self._expr(out, ind, ins[2], mark)
            out.append(f"{ind}env[{_name(ins[1])}] = {code}{mark}")
        elif kind == "set":
            code = self._expr(out, ind, ins[2], mark)
            out.append(f"{ind}m.s.vars[{lit(ins[1])}] = {code}{mark}")
        elif kind == "say":
            code, t = self._expr(out, ind, ins[1], mark), self._local("s")
            out.append(f"{ind}{t} = {code}{mark}")
            out.append(f"{ind}m.say(m.show({t})){mark}")
        elif kind == "stop":
            if framed:
                out.append(f"{ind}m.stop(){mark}")
            out.append(f"{ind}return{mark}")
        elif kind == "if":
            self._if(out, ind, ins, mark, depth, framed)
        elif kind == "for":
            self._for(out, ind, ins, mark, depth, framed)
        elif kind == "repeat":
            n = self._local("n")
            out.append(f"{ind}{n} = {self._expr(out, ind, ins[1], mark)}{mark}")
            out.append(f"{ind}if {n} > 0:{mark}")
            out.append(f"{ind}    for _ in _range({n}):{mark}")
            self._body(out, ind + "        ", ins[2], depth + 1, framed, loop=True)
        elif kind == "while":
            self._while(out, ind, ins, mark, depth, framed)
        elif kind == "call":
            self._call(out, ind, ins, mark)
        else:  # through its op: `f` is the frame, or in a procedure's function its scope
            op = built(self.ops, block, pc)
            if op.OPERANDS is None:
                out.append(f"{ind}{self.unit.bind(op)}.run(m, f){mark}")
                return
            # its operands worked out here, one after another, as its `run` would
            values = []
            for k in op.OPERANDS:
                values.append(self._settled(out, ins[1 + k], mark, ind))
                if op.COUNTED and len(values) == 1:  # the rest only for a count above 0
                    out.append(f"{ind}if {values[0]} > 0:{mark}")
                    ind += "    "
            out.append(f"{ind}{self.unit.bind(op)}.apply(m, env, {', '.join(values)}){mark}")

    def _if(self, out, ind, ins, mark, depth, framed) -> None:
        branches, otherwise = ins[1], ins[2]
        # only the first test is sure to be worked out: a later one is written in place
        tests = [self._expr(out, ind, cond, mark, cond=True, settle=k == 0)
                 for k, (cond, _) in enumerate(branches)]
        for k, ((_, b), test) in enumerate(zip(branches, tests, strict=True)):
            out.append(f"{ind}{'if' if k == 0 else 'elif'} {test}:{mark}")
            self._body(out, ind + "    ", b, depth + 1, framed)
        if otherwise is not None:
            out.append(f"{ind}else:")
            self._body(out, ind + "    ", otherwise, depth + 1, framed)

    def _for(self, out, ind, ins, mark, depth, framed) -> None:
        _, var, items, body = ins
        seq, x = self._local("l"), self._local("x")
        code = self._expr(out, ind, checked_items(items, FOR_ITEMS), mark)
        out.append(f"{ind}{seq} = {code}{mark}")
        out.append(f"{ind}if {seq}:{mark}")
        out.append(f"{ind}    m.work += _len({seq}){mark}")
        out.append(f"{ind}    for {x} in _list({seq}):{mark}")
        out.append(f"{ind}        env[{_name(var)}] = {x}{mark}")
        self._body(out, ind + "        ", body, depth + 1, framed, loop=True)

    def _while(self, out, ind, ins, mark, depth, framed) -> None:
        _, cond, bound, body = ins
        i = self._local("i")
        first = self._expr(out, ind, cond, mark, cond=True)
        out.append(f"{ind}if {first}:{mark}")
        out.append(f"{ind}    {i} = 0{mark}")
        out.append(f"{ind}    while True:{mark}")
        inner = ind + "        "
        self._body(out, inner, body, depth + 1, framed, loop=True)
        again = self._expr(out, inner, cond, mark, cond=True)
        out.append(f"{inner}if not {again}:{mark}")
        out.append(f"{inner}    break{mark}")
        out.append(f"{inner}{i} += 1{mark}")
        out.append(f"{inner}if {i} >= {self.unit.literal(bound)}:{mark}")
        out.append(f"{inner}    raise _RuleError('a while loop ran past its bound'){mark}")

    def _call(self, out, ind, ins, mark) -> None:
        """A procedure called without a frame: its variables, then its function."""
        fn = self._procedure(ins[1])
        scope = self._arguments(out, ind, ins, mark)
        out.append(f"{ind}{fn}(m, {scope}){mark}")

    def _arguments(self, out, ind, ins, mark) -> str:
        """A local holding the called procedure's variables (as ops.Call makes them)."""
        _, proc, args = ins
        spec = self.program.procedures[proc]
        scope = self._local("a")
        defaults = f"{self.unit.bind(spec.defaults)}.copy()" if spec.defaults else "{}"
        out.append(f"{ind}{scope} = {defaults}{mark}")
        for name, e in args:
            code = self._expr(out, ind, e, mark)
            out.append(f"{ind}{scope}[{_name(name)}] = {code}{mark}")
        cause = repr(CAUSE)
        out.append(f"{ind}if {cause} in env: {scope}[{cause}] = env[{cause}]{mark}")
        return scope


class Scope:
    """What an op reads of its frame (its variables), in a procedure run without one."""

    __slots__ = ("env",)

    def __init__(self, env: dict) -> None:
        self.env = env


def _mark(block: int, pc: int) -> str:
    return f"  #@{block}:{pc}"


def _name(name: Any) -> str:
    if name.__class__ is not str:
        raise RuleError(f"a variable's name is a text, not {name!r:.80}")
    return repr(name)


def marked(unit: Unit, error: BaseException) -> tuple[int, int] | None:
    """The instruction (block, pc) at the innermost marked generated line an error went
    through, or the error it was raised handling went through (`'x' has no value here`
    is raised in place of a KeyError): where it happened in compiled code."""
    seen = 0
    while error is not None and seen < 4:
        found = None
        tb = error.__traceback__
        while tb is not None:
            line = tb.tb_lineno or 0  # None at code the compiler gave no line (cleanups)
            if tb.tb_frame.f_globals is unit.namespace and 0 < line <= len(unit.lines):
                hit = _MARK.search(unit.lines[line - 1])
                if hit:
                    found = (int(hit[1]), int(hit[2]))
            tb = tb.tb_next
        if found is not None:
            return found
        error, seen = error.__context__, seen + 1
    return None




def segments_for(program: Program, ops: list[list[Any]]) -> Segments:
    """The program's segments, written and compiled once while the program lives."""
    return program.once("segments", lambda p: Segments(p, ops))
