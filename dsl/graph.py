"""Effect graphs: the compiled pack's call graph, and the checks on it.

Nodes are procedures, card events and blocks; edges say "runs" (a block holds
a nested block) or "calls" (a block calls a procedure). The checks:
- a procedure that can call itself again is an unbounded loop (error);
- a procedure nothing reaches from the entry or a card event is dead (warning).

Every load runs them, so they walk plain dicts: networkx (a long import) is loaded only
to list the loops of a pack that has one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .diagnostics import Report, Source

if TYPE_CHECKING:
    import networkx as nx


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
    import networkx as nx

    g = nx.DiGraph()
    for caller, callee, where in comp.calls:
        g.add_edge(caller, callee, where=where)
    return g


def successors(comp: Any) -> dict[str, list[str]]:
    """Each node's callees, nodes and edges in the order the compiler found them."""
    out: dict[str, list[str]] = {}
    for caller, callee, _ in comp.calls:
        out.setdefault(callee, [])
        if callee not in out.setdefault(caller, []):
            out[caller].append(callee)
    return out


def has_cycle(graph: dict[str, list[str]]) -> bool:
    """Whether some node can reach itself (depth first, without recursion)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in graph:
        if root in state:
            continue
        state[root] = 1
        path = [(root, iter(graph[root]))]
        while path:
            node, nexts = path[-1]
            nxt = next(nexts, None)
            if nxt is None:
                state[node] = 2
                path.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                path.append((nxt, iter(graph[nxt])))
    return False


def reachable(graph: dict[str, list[str]], roots: Iterable[str]) -> set[str]:
    """The roots in the graph and every node they reach."""
    seen = {r for r in roots if r in graph}
    queue = deque(seen)
    while queue:
        for nxt in graph[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def check_graph(
    comp: Any, entry: str, report: Report, defined: dict[str, Source] | None = None,
    warn_unused: bool = True,
) -> None:
    graph = successors(comp)
    if has_cycle(graph):
        report_loops(comp, report)
    if entry not in comp.sym.procedures or not warn_unused:
        return  # E107 already says so; without the entry every procedure would look dead
    roots = {entry} | {n for n in graph if n.startswith(("card ", "reaction "))}
    reached = reachable(graph, roots)
    for name in comp.sym.procedures:
        if "@" in name:
            continue  # a procedure a mod replaced, kept for `original`
        if name != entry and name not in reached and name not in comp.used_phrases:
            where = (defined or {}).get(name, Source("(pack)"))
            report.warn(where, "W401", f"procedure '{name}' is never called",
                        "call it with `do`, or delete it")


def report_loops(comp: Any, report: Report) -> None:
    """E401 for every elementary loop of the call graph, each once, in a stable order."""
    import networkx as nx

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


def path_lengths(links: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Links (both ways) -> {a: {b: fewest links from a to b}} for every pair that connects;
    breadth first, in the order networkx's all_pairs_shortest_path_length gives."""
    near: dict[str, list[str]] = {}
    for a, b in links:
        for x, y in ((a, b), (b, a)):
            if y not in near.setdefault(x, []):
                near[x].append(y)
    out = {}
    for source in near:
        dist = {source: 0}
        level, frontier = 0, [source]
        while frontier:
            level += 1
            nxt = []
            for node in frontier:
                for other in near[node]:
                    if other not in dist:
                        dist[other] = level
                        nxt.append(other)
            frontier = nxt
        out[source] = dist
    return out
