"""Effect graphs: the compiled pack as a networkx graph, and the checks on it.

Nodes are procedures, card events and blocks; edges say "runs" (a block holds
a nested block) or "calls" (a block calls a procedure). The checks:
- a procedure that can call itself again is an unbounded loop (error);
- a procedure nothing reaches from the entry or a card event is dead (warning).
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from .diagnostics import Report, Source


def nested_blocks(ins: tuple) -> list[int]:
    """Blocks an instruction may run."""
    op = ins[0]
    if op == "if":
        out = [b for _, b in ins[1]]
        return out + ([ins[2]] if ins[2] is not None else [])
    if op in ("for", "repeat", "while"):
        return [ins[-1]]
    if op == "menu":
        return [opt[-1] for opt in ins[2]]
    if op == "whenever":  # the reaction's body, run when it is announced
        return [ins[2]]
    return []


def call_graph(comp: Any) -> nx.DiGraph:
    g = nx.DiGraph()
    for caller, callee, where in comp.calls:
        g.add_edge(caller, callee, where=where)
    return g


def check_graph(
    comp: Any, entry: str, report: Report, defined: dict[str, Source] | None = None,
    warn_unused: bool = True,
) -> None:
    g = call_graph(comp)
    for cycle in sorted(nx.simple_cycles(g)):
        # Start each loop at its first name, so the report is the same every run.
        at = cycle.index(min(cycle))
        cycle = cycle[at:] + cycle[:at]
        first = cycle[0]
        nxt = cycle[1] if len(cycle) > 1 else cycle[0]
        where = g.edges[first, nxt]["where"]
        path = " -> ".join(cycle + [first])
        report.error(where, "E401", f"unbounded loop: {path} can call itself forever",
                     "use a bounded `repeat`, `for` or `while ..., at most N times` instead")
    if entry not in comp.sym.procedures or not warn_unused:
        return  # E107 already says so; without the entry every procedure would look dead
    roots = {entry} | {n for n in g if n.startswith(("card ", "reaction "))}
    reached = set()
    for r in roots:
        if r in g:
            reached |= nx.descendants(g, r) | {r}
    for name in comp.sym.procedures:
        if "@" in name:
            continue  # a procedure a mod replaced, kept for `original`
        if name != entry and name not in reached and name not in comp.used_phrases:
            where = (defined or {}).get(name, Source("(pack)"))
            report.warn(where, "W401", f"procedure '{name}' is never called",
                        "call it with `do`, or delete it")
