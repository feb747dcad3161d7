"""The outline of one card (`hustings explain`): what its compiled event asks, reads,
changes and is limited by, and when it takes effect.

It reads the Program's instructions, so it describes what the engine will run
rather than what the printed text (shown beside it) promises. One level of each
called procedure is followed, with the card's arguments put in.
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...dsl.graph import nested_blocks
from ...interpreter.program import Program
from .instructions import DECISIONS, LOOPS, SILENT, ZONE_OPERANDS, operands, subexprs
from .render import Renderer
from .rule_analysis import PERSISTENT, effect_readers, persistent_handling, read_by, readers
from .walk import Step, call_view, context_note, stops, walk

# Expression kinds that read the table, by the heading they are listed under.
READ_KINDS = {"counter": "counters", "support_of": "pools", "support_at": "pools",
              "leader": "pools", "zone": "zones", "cards": "zones", "track": "tracks",
              "effect": "effects", "effect_list": "effects", "attr": "properties",
              "token": "tokens", "global": "variables", "call": "functions", "fn": "functions"}
READ_ORDER = ["counters", "pools", "zones", "cards", "tracks", "effects", "properties", "tokens",
              "variables", "functions"]
# Card attributes shown elsewhere than on the attributes line.
NOT_ATTRIBUTES = ("title", "number", "text")


@dataclass
class Outline:
    number: int
    title: str
    attributes: dict[str, Any]
    text: str
    source: str
    has_event: bool
    steps: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    reads: dict[str, list[str]] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)
    timing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def outline(program: Program, number: int) -> Outline:
    """What a card's event asks, reads, changes and is limited by, from its compiled form."""
    return _OutlineBuilder(program, Renderer(program)).build(number)


def _add(items: list[str], line: str) -> None:
    if line not in items:
        items.append(line)


class _OutlineBuilder:
    def __init__(self, program: Program, r: Renderer) -> None:
        self.p = program
        self.r = r
        self.o: Outline
        self.effect_readers = effect_readers(program, r)
        self.variable_readers = readers(program, r, {"global"}, lambda e: e[1])
        self.signed = set(program.initial.get("signed", []))
        self.lasting: list[str] = []

    def build(self, number: int) -> Outline:
        card = self.p.cards[number]
        attrs = {k: v for k, v in card.items() if k not in NOT_ATTRIBUTES}
        block = self.p.events.get(number)
        self.o = Outline(number, str(card.get("title", "")), attrs, str(card.get("text", "")),
                         self._source(block), block is not None)
        if block is not None:
            self.o.steps = listing(self.p, block, self.r)
            for step in walk(self.p, block, self.r):
                self.step(step)
        self.o.timing = self.timing(attrs)
        return self.o

    def _source(self, block: int | None) -> str:
        if block is None or not self.p.positions[block]:
            return ""
        path, line, _ = self.p.positions[block][0].rsplit(":", 2)
        return f"{Path(path).name}, line {line}"

    def step(self, step: Step, via: str = "") -> None:
        ins, ctx = step.ins, context_note(step.context)
        prefix = f"via {via}: " if via else ""
        if ins[0] in DECISIONS:
            _add(self.o.decisions, prefix + self.decision(ins) + ctx)
        if not via:
            self.reads(ins)
        self.limits(step, prefix)
        change = self.change(ins)
        if change is not None:
            _add(self.o.changes, prefix + change + ctx)
        if ins[0] == "call" and not via:
            self.follow_call(step)

    def follow_call(self, step: Step) -> None:
        """One level into a called procedure, with the arguments put in. A card phrase
        reads as the phrase: what the library asks inside it is the phrase's decision,
        its locals and option labels are no part of the card."""
        view = call_view(self.p, step.ins)
        if view is None:
            return
        inner_steps = walk(self.p, self.p.procedures[step.ins[1]].block, self.r, view)
        phrase = self.r.phrase(step.ins[1], step.ins[2])
        if phrase is not None:
            if any(inner.ins[0] in DECISIONS for inner in inner_steps):
                _add(self.o.decisions, phrase + context_note(step.context))
            return  # the phrase already says what changes and within what limits
        for inner in inner_steps:
            inner = Step(inner.block, inner.index, inner.ins, step.context + inner.context)
            self.step(inner, via=step.ins[1])

    def decision(self, ins: tuple) -> str:
        who = self.r.expr(ins[1])
        if ins[0] == "choose":
            label = f", labelled {self.r.expr(ins[4])}" if ins[4] is not None else ""
            return f"{who} chooses {ins[2]} from {self.r.expr(ins[3])}{label}"
        offered = [opt for opt in ins[2] if opt[3] != ("const", False)]
        return f"{who} chooses one of: {'; '.join(self.r.option(opt) for opt in offered)}"

    # ---- reads --------------------------------------------------------------
    def reads(self, ins: tuple) -> None:
        skip = {id(ins[k]) for k in ZONE_OPERANDS.get(ins[0], ())}  # destinations, not reads
        for e in operands(ins):
            if id(e) in skip:
                continue
            for x in subexprs(e):
                self.read(x)

    def note_read(self, category: str, text: str) -> None:
        _add(self.o.reads.setdefault(category, []), text)

    def read(self, x: tuple) -> None:
        kind = x[0]
        if kind == "cmp":
            self.read_card(x)
        category = READ_KINDS.get(kind)
        if category is None:
            return
        text = self.r.expr(x)
        if kind == "cards":
            text = self.r.expr(x[1])
        elif kind in ("call", "fn"):
            if any(a[0] == "const" and isinstance(a[1], str) and a[1] in self.p.pools
                   for a in x[2]):
                self.note_read("pools", text)
            text = f"{x[1]}()" + (" (pack function)" if kind == "fn" else "")
        self.note_read(category, text)

    def read_card(self, x: tuple) -> None:
        """A test naming a card outright against a zone (`7 in cards(pile)`)."""
        for side, other in ((x[2], x[3]), (x[3], x[2])):
            looks_in_zone = any(y[0] == "cards" for y in subexprs(other))
            named = self.r.named_cards(side) if side[0] == "const" and looks_in_zone else []
            if named:
                self.note_read("cards", self.r.card_names(named))

    # ---- changes --------------------------------------------------------------
    def change(self, ins: tuple) -> str | None:
        op = ins[0]
        if op in SILENT:
            return None
        text = self.r.statement(ins)
        if op == "effect":
            _add(self.lasting, f"lasting effect: {self.r.expr(ins[1])} has {ins[2]}"
                 f"{self.r.amount(ins[3])} until the end of the {ins[4]}")
            text += f"  (lasting effect; {read_by(self.effect_readers.get(ins[2], []))})"
        elif op == "set":
            text += f"  ({read_by(self.variable_readers.get(ins[1], []))})"
        return text

    # ---- limits ---------------------------------------------------------------
    def limits(self, step: Step, prefix: str) -> None:
        for line in self.limit_lines(step):
            _add(self.o.limits, prefix + line)

    def limit_lines(self, step: Step) -> list[str]:
        ins, op, ctx = step.ins, step.ins[0], context_note(step.context)
        if op == "call":
            return self.phrase_limits(ins)
        if op in LOOPS:
            return ["loop: " + self.r.loop(ins) + ctx]
        if op == "if":  # constant conditions are settled by the call's arguments
            return [f"{'stops early' if stops(self.p, block) else 'only'} if "
                    f"{self.r.expr(cond)}{ctx}" for cond, block in ins[1] if cond[0] != "const"]
        if op == "menu":  # an option never offered is left out; one always offered is free
            return [f"option {self.r.expr(opt[0])} only if {self.r.expr(opt[3])}"
                    for opt in ins[2] if opt[3] is not None and opt[3][0] != "const"]
        line = self.loss_limit(ins)
        return [line] if line else []

    def phrase_limits(self, ins: tuple) -> list[str]:
        a = dict(ins[2])
        if self.r.phrase(ins[1], ins[2]) is None or "per" not in a:
            return []
        e = {k: self.r.expr(v) for k, v in a.items()}
        where = self.r.targets(a["targets"], a["pool"])
        out = [f"total: {e['amount']} {e['pool']} support, {where}"]
        if a["per"] != a["amount"]:
            out.append(f"at most {e['per']} per {self.r.unit(a['pool'])}")
        if a["optional"] == ("const", True):
            out.append(f"optional: {e['who']} may stop before the total")
        else:
            out.append(f"mandatory: {e['who']} must reach the total where the board allows")
        return out

    def loss_limit(self, ins: tuple) -> str | None:
        if ins[0] == "pay":
            return f"{self.r.expr(ins[1])} must have {self.r.expr(ins[2])} {ins[3]} to pay"
        if ins[0] == "lose" and ins[3] not in self.signed:
            return f"{ins[3]} never drops below 0 (a loss takes only what there is)"
        if ins[0] == "remove":
            return f"{self.r.expr(ins[2])} support: a loss removes only what is there"
        return None

    # ---- timing -----------------------------------------------------------------
    def timing(self, attrs: dict[str, Any]) -> list[str]:
        value = attrs.get(PERSISTENT)
        out = []
        if value:
            handled = persistent_handling(self.p, self.r).get(str(value))
            out.append(handled.describe(PERSISTENT) if handled else
                       f"{PERSISTENT} {value}: no rule of the pack tests this value")
        elif PERSISTENT in attrs:
            out.append(f"not {PERSISTENT}: the event takes effect as soon as it is resolved")
        return out + self.lasting


def listing(program: Program, root: int, r: Renderer, indent: int = 0) -> list[str]:
    """The compiled block as effect text, one instruction a line, nested by indentation."""
    pad = "  " * indent
    out: list[str] = []
    for ins in program.blocks[root]:
        if ins[0] == "guard":
            continue  # a reaction's condition: its `whenever` line says it
        out.append(pad + r.statement(ins))
        if ins[0] == "if":
            for k, (cond, block) in enumerate(ins[1]):
                if k:
                    out.append(pad + f"elif {r.expr(cond)}:")
                out += listing(program, block, r, indent + 1)
            if ins[2] is not None:
                out.append(pad + "else:")
                out += listing(program, ins[2], r, indent + 1)
        elif ins[0] == "menu":
            for opt in ins[2]:
                out.append(pad + "  " + r.option(opt) + ":")
                out += listing(program, opt[-1], r, indent + 2)
        else:
            for block in nested_blocks(ins):
                out += listing(program, block, r, indent + 1)
    return out


# ---- as text ---------------------------------------------------------------------------
def format_outline(o: Outline, width: int = 88) -> str:
    attrs = " | ".join(f"{k} {'-' if v is None else v}" for k, v in o.attributes.items())
    out = [f"{o.number} {o.title}", f"  {attrs}", "", "Printed text:"]
    out += textwrap.wrap(o.text or "(none)", width, initial_indent="  ", subsequent_indent="  ")
    if not o.has_event:
        out += ["", "Event: none written (this card has no event to explain)"]
        return "\n".join(out + _section("Takes effect", o.timing)) + "\n"
    out += ["", f"Event ({o.source}):" if o.source else "Event:"]
    out += ["  " + line for line in o.steps]
    out += _section("Decisions", o.decisions, "none: the event asks no player anything")
    out += _reads_section(o.reads)
    out += _section("Changes", o.changes, "nothing")
    out += _section("Limits", o.limits, "none")
    out += _section("Takes effect", o.timing)
    return "\n".join(out) + "\n"


def _section(title: str, items: list[str], empty: str = "") -> list[str]:
    if not items and not empty:
        return []
    return ["", f"{title}:"] + ([f"  - {i}" for i in items] if items else [f"  {empty}"])


def _reads_section(reads: dict[str, list[str]]) -> list[str]:
    if not reads:
        return ["", "Reads:", "  nothing"]
    keys = [k for k in READ_ORDER if k in reads] + [k for k in reads if k not in READ_ORDER]
    return ["", "Reads:"] + [f"  {k + ':':<12}{', '.join(reads[k])}" for k in keys]
