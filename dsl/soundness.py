"""What `check` proves of a whole compiled pack so that play cannot fail on it later.

- A pure function's size with every call in it written in (E402): the game writes small
  pure functions in where they are called, and one call of a function is about that much
  work; a function doubling at each of forty levels would hang the game's set-up.
- The announcement graph (E335): a reaction that announces (itself, or through the
  procedures it calls) what it reacts to nests without end in play. It is an effect graph
  like the call graph (graph.py): its cycles are found with networkx and reported with
  the position of each of their members.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..interpreter.budget import MAX_FUNCTION_NODES
from ..interpreter.codegen import pure_calls, pure_functions, written_in_sizes
from .diagnostics import Report, Source
from .graph import has_cycle

if TYPE_CHECKING:
    import networkx as nx


def check_function_sizes(functions: dict, sources: dict[str, Source], report: Report) -> None:
    """E402 for each pure function larger than MAX_FUNCTION_NODES once written in, where
    the functions it calls are not (those calling it are larger still: one report says
    where the growth passes the bound)."""
    pure = pure_functions(functions)
    if not pure:
        return
    sizes = written_in_sizes(functions, pure)
    over = {name for name, (size, _) in sizes.items() if size > MAX_FUNCTION_NODES}
    for name in sorted(over):
        size = sizes[name][0]
        if name in sources and not over.intersection(pure_calls(functions[name][1], pure)):
            shown = f"{size:,}" if size < 10**15 else "more than 10**15"
            report.error(sources[name], "E402",
                         f"the function '{name}', each call in it written in, is {shown} "
                         f"nodes: more than the {MAX_FUNCTION_NODES:,} a function may be",
                         "it calls functions that call functions again and again (each call "
                         "doubling the work): work the value out step by step in a procedure "
                         "(`let`, `for`), or call each function once and reuse its value")


# ---- the announcement graph ----------------------------------------------------------
def announcement_graph(comp: Any) -> nx.DiGraph:
    """Nodes: announcements ("announce NAME"), reactions, procedures, card events; edges:
    an announcement runs each reaction to it, a reaction or procedure runs the procedures
    it calls and makes the announcements it makes. Each edge keeps where it is written.
    A reaction that is used up (`until used N times`) is left out: each time it runs, it
    has spent a use first, so no cycle through it goes on without end."""
    import networkx as nx

    g = nx.DiGraph()
    for reaction, name, where in comp.reacts:
        g.add_edge("announce " + name, reaction, where=where)
    for runner, proc, where in comp.runs:
        if not g.has_edge(runner, proc):
            g.add_edge(runner, proc, where=where)
    for runner, name, where in comp.announces:
        if not g.has_edge(runner, "announce " + name):
            g.add_edge(runner, "announce " + name, where=where)
    return g


def check_announcement_cycles(comp: Any, report: Report) -> None:
    """E335 for each cycle of the announcement graph through an announcement: in play it
    nests until the rules stop at their depth limit, with no file or line. A cycle of
    procedures alone is E401 (graph.py)."""
    if not comp.reacts or not comp.announces or not has_cycle(_successors(comp)):
        return  # no cycle at all: networkx (a long import) is not needed
    import networkx as nx

    g = announcement_graph(comp)
    found = []
    for cycle in nx.simple_cycles(g):
        if any(n.startswith("announce ") for n in cycle):
            at = cycle.index(min(cycle))
            found.append(cycle[at:] + cycle[:at])  # the same start every run
    for cycle in sorted(found):
        steps = list(zip(cycle, cycle[1:] + cycle[:1], strict=True))
        members = [g.edges[a, b]["where"] for a, b in steps]
        first = next(i for i, (a, _) in enumerate(steps) if a.startswith("announce "))
        shown = " -> ".join(f"{_shown(b)} ({members[i]})" for i, (_, b) in enumerate(steps))
        report.error(members[first], "E335",
                     f"reactions announce what they react to, without end: "
                     f"{_shown(steps[first][0])} -> {shown}",
                     "in play this nests until the rules stop; make the reaction used up "
                     "(`until used once:`), or announce something it does not react to")


def _successors(comp: Any) -> dict[str, list[str]]:
    """The announcement graph as plain lists, for the quick look for any cycle."""
    out: dict[str, list[str]] = {}
    for reaction, name, _ in comp.reacts:
        out.setdefault("announce " + name, []).append(reaction)
    for runner, proc, _ in comp.runs:
        out.setdefault(runner, []).append(proc)
    for runner, name, _ in comp.announces:
        out.setdefault(runner, []).append("announce " + name)
    for targets in list(out.values()):
        for t in targets:
            out.setdefault(t, [])
    return out


def _shown(node: str) -> str:
    """A node of the announcement graph as a designer reads it."""
    if node.startswith("whenever "):
        return node.split(" at ", 1)[0]
    if node.startswith(("announce ", "reaction ", "card ")):
        return node
    return f"do {node}"
