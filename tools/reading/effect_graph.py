"""One card's event as a control-flow graph (networkx), drawn as Graphviz DOT or Mermaid.

Nodes are the event's instructions, labelled in effect-language text; edges say
where control goes next, which branch or option leads where, and which
procedures are called. (dsl/graph.py is the pack-wide call graph and its checks.)
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import networkx as nx

from ...interpreter.program import Program
from .instructions import LOOPS
from .render import Renderer
from .walk import branches


@dataclass(frozen=True)
class Follow:
    """Where control goes after a block ends (node None: no edge is added)."""

    node: str | None
    kind: str = "next"
    label: str = ""


_NODE_KIND = {"choose": "decision", "menu": "decision", "if": "branch", "for": "loop",
              "repeat": "loop", "while": "loop", "call": "call", "stop": "stop"}


def effect_graph(program: Program, number: int, depth: int = 0) -> nx.DiGraph:
    """A card's event as a control-flow graph of its instructions.

    Called procedures appear as nodes; with depth N their bodies are shown too,
    N levels deep. Node attributes: label, kind (start, end, action, decision,
    branch, loop, call, stop, procedure), op, level, where. Edge attributes:
    kind (next, branch, option, loop, back, calls) and label.
    """
    attrs = program.cards[number]
    title = f"{number} {attrs.get('title', '')}".strip()
    g = nx.DiGraph(title=title, card=number)
    g.add_node("start", label=f"event of {title}", kind="start", op="start", level=0, where="")
    g.add_node("end", label="end", kind="end", op="end", level=0, where="")
    block = program.events.get(number)
    if block is None:
        g.add_edge("start", "end", kind="next", label="no event written")
        return g
    first = _GraphBuilder(program, g, depth).block(block, Follow("end"), 0, "end")
    g.add_edge("start", first or "end", kind="next", label="")
    return g


class _GraphBuilder:
    def __init__(self, program: Program, g: nx.DiGraph, depth: int) -> None:
        self.p = program
        self.g = g
        self.r = Renderer(program)
        self.depth = depth
        self.expanded: set[str] = set()

    def block(self, b: int, follow: Follow, level: int, exit_node: str | None) -> str | None:
        """Add a block's instructions; return the node control enters it by."""
        ids = [self.node(b, i, ins, level) for i, ins in enumerate(self.p.blocks[b])]
        for i, ins in enumerate(self.p.blocks[b]):
            nxt = Follow(ids[i + 1]) if i + 1 < len(ids) else follow
            self.connect(ids[i], ins, nxt, level, exit_node)
        return ids[0] if ids else follow.node

    def node(self, b: int, i: int, ins: tuple, level: int) -> str:
        nid = f"b{b}_{i}"
        kind = _NODE_KIND.get(ins[0], "action")
        self.g.add_node(nid, label=self.label(ins), kind=kind, op=ins[0], level=level,
                        where=self._where(b, i))
        return nid

    def _where(self, b: int, i: int) -> str:
        positions = self.p.positions[b] if b < len(self.p.positions) else []
        return positions[i] if i < len(positions) else ""

    def label(self, ins: tuple) -> str:
        op = ins[0]
        if op == "call":
            return self.r.call(ins)
        if op == "if":
            conds = [self.r.expr(c) for c, _ in ins[1]]
            return f"if {conds[0]}" if len(conds) == 1 else "which branch?"
        if op == "menu":
            return f"{self.r.expr(ins[1])} chooses ({len(ins[2])} options)"
        if op in LOOPS:
            return self.r.loop(ins)
        return self.r.statement(ins)

    def edge(self, a: str, follow: Follow) -> None:
        if follow.node is not None:
            self.g.add_edge(a, follow.node, kind=follow.kind, label=follow.label)

    def connect(self, nid: str, ins: tuple, nxt: Follow, level: int, exit_node: str | None) -> None:
        op = ins[0]
        if op == "stop":
            self.edge(nid, Follow(exit_node, "next", "stop"))
        elif op in LOOPS:
            self.loop(nid, ins, nxt, level, exit_node)
        else:
            self.fork(nid, ins, nxt, level, exit_node)
        if op == "call":
            self.procedure(nid, ins[1], level)

    def loop(self, nid: str, ins: tuple, nxt: Follow, level: int, exit_node: str | None) -> None:
        body = branches(ins, self.r)[0]
        first = self.block(body.block, Follow(nid, "back", "again"), level, exit_node)
        self.edge(nid, Follow(first, "loop", body.label))
        self.edge(nid, Follow(nxt.node, nxt.kind, "done"))

    def fork(self, nid: str, ins: tuple, nxt: Follow, level: int, exit_node: str | None) -> None:
        """Edges to each block the instruction may run (they rejoin at nxt), or on to nxt."""
        taken = branches(ins, self.r)
        for br in taken:
            first = self.block(br.block, nxt, level, exit_node)
            self.edge(nid, Follow(first, br.kind, br.label))
        if ins[0] == "if" and ins[2] is None:
            self.edge(nid, Follow(nxt.node, "branch", "no" if len(taken) == 1 else "none"))
        elif not taken:
            self.edge(nid, nxt)

    def procedure(self, caller: str, name: str, level: int) -> None:
        pid = "proc_" + name
        spec = self.p.procedures.get(name)
        params = ", ".join(spec.params) if spec else "?"
        self.g.add_node(pid, label=f"procedure {name}({params})", kind="procedure", op="procedure",
                        level=level + 1, where=spec.source if spec else "")
        self.g.add_edge(caller, pid, kind="calls", label="")
        if spec is not None and level < self.depth and name not in self.expanded:
            self.expanded.add(name)
            first = self.block(spec.block, Follow(None), level + 1, None)
            self.edge(pid, Follow(first, "next", "body"))


# ---- drawing ------------------------------------------------------------------------
def _wrap_label(text: str, width: int = 44) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


_DOT_NODE = {
    "start": 'shape=oval, style=filled, fillcolor="#d1fae5"',
    "end": 'shape=oval, style=filled, fillcolor="#e5e7eb"',
    "decision": 'shape=hexagon, style=filled, fillcolor="#fde68a", penwidth=2',
    "branch": 'shape=diamond, style=filled, fillcolor="#dbeafe"',
    "loop": 'shape=box, style="rounded,filled", fillcolor="#ede9fe"',
    "call": 'shape=box, style="filled", fillcolor="#f3f4f6"',
    "procedure": 'shape=component, style=filled, fillcolor="#e5e7eb"',
    "stop": "shape=octagon",
    "action": "shape=box",
}
_DOT_EDGE = {"loop": "style=bold", "back": "style=dashed, constraint=false",
             "calls": "style=dashed, arrowhead=empty",
             "option": 'color="#b45309"'}


def _dot_text(text: str) -> str:
    lines = _wrap_label(text)
    return "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in lines)


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz DOT: every node declared before the edges that use it."""
    title = _dot_text(str(g.graph.get("title", "")))
    out = [f'digraph "event_{g.graph.get("card", "")}" {{',
           f'  graph [label="{title}", labelloc=t, rankdir=TB, fontname="Helvetica"];',
           '  node [fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for nid, data in g.nodes(data=True):
        style = _DOT_NODE.get(data.get("kind", "action"), "shape=box")
        out.append(f'  "{nid}" [label="{_dot_text(data.get("label", nid))}", {style}];')
    for a, b, data in g.edges(data=True):
        parts = [f'label="{_dot_text(data["label"])}"'] if data.get("label") else []
        if data.get("kind") in _DOT_EDGE:
            parts.append(_DOT_EDGE[data["kind"]])
        attrs = f" [{', '.join(parts)}]" if parts else ""
        out.append(f'  "{a}" -> "{b}"{attrs};')
    out.append("}")
    return "\n".join(out) + "\n"


_MERMAID_SHAPE = {"start": ('(["', '"])'), "end": ('(["', '"])'), "decision": ('{{"', '"}}'),
                  "branch": ('{"', '"}'), "loop": ('[/"', '"/]'), "procedure": ('[["', '"]]'),
                  "stop": ('(("', '"))'), "call": ('["', '"]'), "action": ('["', '"]')}
_MERMAID_ARROW = {"calls": "-.->", "back": "-.->", "loop": "==>"}
_MERMAID_CLASS = {"decision": "fill:#fde68a,stroke:#b45309,stroke-width:2px",
                  "branch": "fill:#dbeafe,stroke:#1d4ed8", "loop": "fill:#ede9fe,stroke:#6d28d9",
                  "procedure": "fill:#e5e7eb,stroke:#374151", "start": "fill:#d1fae5"}
_MERMAID_ESCAPES = (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"))


def _mermaid_text(text: str) -> str:
    def escape(s: str) -> str:
        for a, b in _MERMAID_ESCAPES:
            s = s.replace(a, b)
        return s

    return "<br/>".join(escape(s) for s in _wrap_label(text))


def to_mermaid(g: nx.DiGraph) -> str:
    """A Mermaid flowchart; node ids are renamed n0, n1... (Mermaid reserves `end`)."""
    ids = {nid: f"n{k}" for k, nid in enumerate(g.nodes)}
    out = ["flowchart TD"]
    title = g.graph.get("title")
    if title:
        out.append(f"  %% {title}")
    for nid, data in g.nodes(data=True):
        left, right = _MERMAID_SHAPE.get(data.get("kind", "action"), ('["', '"]'))
        out.append(f"  {ids[nid]}{left}{_mermaid_text(data.get('label', nid))}{right}")
    for a, b, data in g.edges(data=True):
        arrow = _MERMAID_ARROW.get(data.get("kind", ""), "-->")
        label = f'|"{_mermaid_text(data["label"])}"|' if data.get("label") else ""
        out.append(f"  {ids[a]} {arrow}{label} {ids[b]}")
    for kind, style in _MERMAID_CLASS.items():
        members = [ids[n] for n, d in g.nodes(data=True) if d.get("kind") == kind]
        if members:
            out.append(f"  classDef k_{kind} {style}")  # prefixed: Mermaid reserves some words
            out.append(f"  class {','.join(members)} k_{kind}")
    return "\n".join(out) + "\n"
