"""Walking compiled blocks in text order, knowing under what each instruction runs.

`walk` yields every instruction of a block and of the blocks nested in it as a
`Step`, with the conditions, options and loops that lead there. `call_view`
shows a called procedure's instructions with the caller's arguments put in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...dsl.graph import nested_blocks
from ...interpreter.program import Program
from .instructions import LOOPS, map_instruction, simplify, substitute
from .render import Renderer


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


def context_note(context: tuple[str, ...]) -> str:
    """Under what a step runs, as a trailing note: `  [if x > option y]`."""
    shown = [c for c in context if c]
    return f"  [{' > '.join(shown)}]" if shown else ""


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


def stops(program: Program, block: int) -> bool:
    """Whether a block always ends in `stop` (leaving the procedure or event at once)."""
    body = program.blocks[block]
    return bool(body) and body[-1][0] == "stop"


def early_stops(program: Program, ins: tuple, r: Renderer) -> list[str]:
    """What an `if` whose branch stops leaves the instructions after it running under:
    `if x: stop` is `unless x` for everything that follows."""
    if ins[0] != "if":
        return []
    out = []
    for k, (cond, block) in enumerate(ins[1]):
        if stops(program, block) and cond[0] != "const":
            out.append(f"unless {r.expr(cond)}" if k == 0 else
                       f"unless it stopped at `if {r.expr(cond)}`")
    if ins[2] is not None and stops(program, ins[2]):
        out.append(f"only if {r.expr(ins[1][0][0])}" if len(ins[1]) == 1 else
                   "only if a condition of the `if` before held")
    return out


def walk(program: Program, root: int, r: Renderer, map_ins: Callable[[tuple], tuple] | None = None,
         context: tuple[str, ...] = (), trail: tuple = ()) -> Iterator[Step]:
    """Every instruction of a block and its nested blocks, in text order. An early `stop`
    conditions what follows it, here and in the enclosing blocks (returned to them)."""
    added: tuple[str, ...] = ()
    for i, ins in enumerate(program.blocks[root]):
        ins = map_ins(ins) if map_ins else ins
        yield Step(root, i, ins, context + added, trail)
        for br in branches(ins, r):
            added += yield from walk(program, br.block, r, map_ins,
                                     context + added + (br.context,), trail + ((root, i),))
        added += tuple(early_stops(program, ins, r))
    return added


def call_view(program: Program, ins: tuple) -> Callable[[tuple], tuple] | None:
    """How a callee's instructions read with the caller's arguments in place of parameters."""
    spec = program.procedures.get(ins[1])
    if spec is None:
        return None
    env = {k: ("const", v) for k, v in spec.defaults.items()}
    env.update(dict(ins[2]))
    return lambda x: map_instruction(x, lambda e: simplify(substitute(e, env)))
