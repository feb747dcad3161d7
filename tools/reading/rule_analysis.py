"""What the pack's rules do with cards and lasting effects, found in their compiled form.

A card's event means little alone: a lasting effect matters only if some rule
reads it, a prevented card only if a rule checks, a kept card only when a rule
resolves it later. These functions find those rules, for the outline of one
card and the interactions between cards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import networkx as nx

from ...interpreter.program import Program
from .instructions import CARD_OPERAND, operands, subexprs
from .render import Renderer
from .walk import Step, walk

# The card attribute naming when a card's event is kept for later (a pack convention).
PERSISTENT = "persistent"
# The builtin the rules use to ask whether a card's event is prevented.
PREVENTED = "prevented"


def read_by(rules: list[str]) -> str:
    """A note naming the rules that read something (or saying none does)."""
    return f"read by {', '.join(rules) or 'no rule'}"


def procedure_steps(program: Program, r: Renderer) -> Iterator[tuple[str, Step]]:
    """Every instruction of every procedure, with the procedure's name."""
    for name, spec in program.procedures.items():
        for step in walk(program, spec.block, r):
            yield name, step


def announcers(program: Program, r: Renderer) -> dict[str, list[str]]:
    """Announcement -> the procedures that announce it (a card's reaction waits on these)."""
    found: dict[str, list[str]] = {}
    for proc, step in procedure_steps(program, r):
        if step.ins[0] == "announce" and proc not in found.setdefault(step.ins[1], []):
            found[step.ins[1]].append(proc)
    return found


def _closure(direct: dict[str, set[str]], calls: dict[str, set[str]]) -> dict[str, set[str]]:
    """What each name reaches itself or through the names it calls, however deep."""
    g = nx.DiGraph([(a, b) for a, callees in calls.items() for b in callees])
    g.add_nodes_from(direct)
    return {name: found.union(*(direct.get(d, set()) for d in nx.descendants(g, name)))
            for name, found in direct.items()}


# ---- who reads what ---------------------------------------------------------------
def readers(program: Program, r: Renderer, kinds: set[str], key: Callable[[tuple], str | None]
            ) -> dict[str, list[str]]:
    """Which procedures read something: key(expr) names it for expressions of `kinds`,
    directly or through the pack functions they call."""
    def direct(e: tuple) -> set[str]:
        return {k for x in subexprs(e) if x[0] in kinds and (k := key(x)) is not None}

    via_fn = _closure({name: direct(expr) for name, (_, expr) in program.functions.items()},
                      {name: {e[1] for e in subexprs(expr) if e[0] == "fn"}
                       for name, (_, expr) in program.functions.items()})
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


# ---- procedures that handle cards --------------------------------------------------
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
    """The expressions an instruction uses as cards (`typed`: card parameters so far)."""
    slot = CARD_OPERAND.get(ins[0])
    if slot is not None:
        return [ins[slot]]
    if ins[0] == "call":
        return [e for n, e in ins[2] if n in typed.get(ins[1], set())]
    return []


def event_runners(program: Program, r: Renderer) -> set[str]:
    """Procedures that resolve a card's event, themselves or through what they call."""
    runs: dict[str, set[str]] = {name: set() for name in program.procedures}
    calls: dict[str, set[str]] = {name: set() for name in program.procedures}
    for proc, step in procedure_steps(program, r):
        if step.ins[0] == "event":
            runs[proc].add("event")
        elif step.ins[0] == "call":
            calls[proc].add(step.ins[1])
    return {name for name, found in _closure(runs, calls).items() if found}


# ---- cards kept for later ------------------------------------------------------------
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
        steps = list(walk(program, spec.block, r))
        holders = {s.ins[1] for s in steps if s.ins[0] == "let" and s.ins[2][:2] == ("attr", attr)}
        for step in steps:
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
    moved_to = [s.ins[2] for s in walk(program, block, r) if s.ins[0] == "transfer"]
    zones = list(dict.fromkeys(r.expr(z) for z in moved_to))
    path = step.trail + ((step.block, step.index),)
    at_once = any(ins[0] == "event" for b, i in path for ins in program.blocks[b][:i])
    names = {_zone_name(z) for z in moved_to} - {None}
    later = [] if at_once else _resolvers(program, r, names, exclude=proc)
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
