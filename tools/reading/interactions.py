"""Cards acting on cards (`hustings interactions`): which events prevent, move, deal,
flip, reveal or resolve other cards, which set lasting effects the rules read or lasting
reactions the rules' announcements set off, and which cards the rules keep for later.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ...interpreter.program import Program
from .render import Renderer
from .rule_analysis import (
    PERSISTENT,
    PREVENTED,
    announcers,
    builtin_users,
    card_params,
    effect_readers,
    event_runners,
    persistent_handling,
    read_by,
)
from .walk import Step, context_note, walk


@dataclass
class Interaction:
    card: int
    title: str
    relation: str  # prevents, moves card, moves cards, deals cards, reacts to, ...
    target: str
    detail: str
    cards: list[int] = field(default_factory=list)  # cards named outright
    readers: list[str] = field(default_factory=list)  # rules that read a lasting effect


def interactions(program: Program) -> list[Interaction]:
    """Cards whose events act on other cards, and the lasting effects and stored events
    that reach into the rules."""
    finder = _InteractionFinder(program)
    rows: list[Interaction] = []
    for number in sorted(program.cards):
        rows += finder.card(number)
    return rows


class _InteractionFinder:
    def __init__(self, program: Program) -> None:
        self.p = program
        self.r = Renderer(program)
        self.effect_readers = effect_readers(program, self.r)
        self.checkers = builtin_users(program, self.r, PREVENTED)
        self.typed = card_params(program, self.r)
        self.runners = event_runners(program, self.r)
        self.handling = persistent_handling(program, self.r)
        self.announcers = announcers(program, self.r)

    def card(self, number: int) -> list[Interaction]:
        title = str(self.p.cards[number].get("title", ""))
        rows: list[Interaction] = []
        block = self.p.events.get(number)
        bindings: dict[str, str] = {}
        for step in walk(self.p, block, self.r) if block is not None else []:
            self.bind(step.ins, bindings)
            for relation, target, detail, named, who in self.relations(step, bindings):
                rows.append(Interaction(number, title, relation, target,
                                        detail + context_note(step.context), named, who))
        rows += self.persistent(number, title, rows)
        return _dedupe(rows)

    def bind(self, ins: tuple, bindings: dict[str, str]) -> None:
        """Remember where local names come from, to say which card a name stands for."""
        if ins[0] == "let":
            bindings[ins[1]] = f"{ins[1]} = {self.r.expr(ins[2])}"
        elif ins[0] in ("choose", "for"):
            var, items = (ins[2], ins[3]) if ins[0] == "choose" else (ins[1], ins[2])
            bindings[var] = f"{var} from {self.r.expr(items)}"
        elif ins[0] == "menu":
            for _, var, items, _, _ in ins[2]:
                if var is not None:
                    bindings[var] = f"{var} from {self.r.expr(items)}"

    def target(self, e: tuple, bindings: dict[str, str]) -> tuple[str, list[int]]:
        """The cards an expression names outright, or else where its cards come from."""
        named = self.r.named_cards(e)
        if named:
            return self.r.card_names(named), named
        if e[0] == "var" and e[1] in bindings:
            return bindings[e[1]], named
        return self.r.expr(e), named

    def relations(self, step: Step, bindings: dict[str, str]) -> Iterator[tuple]:
        """(relation, target, detail, cards named, rules reading) for one instruction."""
        ins, op = step.ins, step.ins[0]
        text = self.r.statement(ins)
        if op == "prevent":
            target, named = self.target(ins[1], bindings)
            checked = f"; checked by {', '.join(self.checkers)}" if self.checkers else ""
            yield "prevents", target, f"{text}{checked}", named, []
        elif op == "transfer":
            target, named = self.target(ins[1], bindings)
            yield _moves(named), target, text, named, []
        elif op == "deal":
            yield "deals cards", f"{self.r.expr(ins[1])} from {self.r.expr(ins[2])}", text, [], []
        elif op in ("event", "flip"):
            target, named = self.target(ins[1], bindings)
            yield "resolves event" if op == "event" else "flips card", target, text, named, []
        elif op == "reveal":
            yield "reveals cards", self.r.expr(ins[1]), text, [], []
        elif op == "show":
            yield "shows cards", self.r.expr(ins[1]), text, [], []
        elif op == "effect":
            who = self.effect_readers.get(ins[2], [])
            yield "sets effect", ins[2], f"{text}; {read_by(who)}", [], who
        elif op == "whenever":  # a lasting reaction: the rules' announcement sets it off
            by = self.announcers.get(ins[1], [])
            said = f"announced by {', '.join(by)}" if by else "announced by no rule"
            yield "reacts to", ins[1], f"{text} {said}", [], by
        elif op == "call":
            yield from self.call(ins, text, bindings)

    def call(self, ins: tuple, text: str, bindings: dict[str, str]) -> Iterator[tuple]:
        """A rule called with a card: it resolves the card's event, or moves the card."""
        detail = f"{text} (rule {ins[1]})"
        for name, e in ins[2]:
            if name not in self.typed.get(ins[1], set()):
                continue
            target, named = self.target(e, bindings)
            if ins[1] in self.runners:
                yield "resolves event", target, detail, named, []
            else:
                yield _moves(named), target, detail, named, []

    def persistent(self, number: int, title: str, rows: list[Interaction]) -> list[Interaction]:
        value = self.p.cards[number].get(PERSISTENT)
        if not value:
            return []
        handled = self.handling.get(str(value))
        detail = handled.describe(PERSISTENT) if handled else "no rule tests this value"
        effects = [row.target for row in rows if row.relation == "sets effect"]
        if effects:
            detail += f"; sets {', '.join(dict.fromkeys(effects))}"
        elif number not in self.p.events:
            detail += "; no event written yet"
        return [Interaction(number, title, "persistent", str(value), detail)]


def _moves(named: list[int]) -> str:
    return "moves card" if named else "moves cards"


def _dedupe(rows: list[Interaction]) -> list[Interaction]:
    seen: set[tuple] = set()
    out = []
    for row in rows:
        key = (row.relation, row.target, row.detail)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def format_interactions(rows: list[Interaction]) -> str:
    """An aligned table: card, title, relation, target, then the detail."""
    if not rows:
        return "no card acts on another card\n"
    head = ("card", "title", "relation", "target")
    cells = [(str(r.card), _clip(r.title, 28), r.relation, _clip(r.target, 36)) for r in rows]
    widths = [max(len(c[k]) for c in cells + [head]) for k in range(4)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  detail"]
    out.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    for cell, row in zip(cells, rows, strict=True):
        out.append("  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)) + "  "
                   + row.detail)
    cards = len({r.card for r in rows})
    out.append(f"\n{len(rows)} interactions from {cards} cards")
    return "\n".join(out) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
