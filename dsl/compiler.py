"""Compiles parsed effect text to the interpreter's instruction tuples.

Names are resolved here against the pack's symbol tables, so a misspelt
state or counter is reported at its line and column before any game runs.
Card-text phrases ("may add a total of 5 state support in south, at most 2
per state") are lowered to calls of the pack's library procedures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree

from ..interpreter.budget import MAX_DIGITS
from ..interpreter.builtins import ARITY, LIST_ARGUMENTS, MAP_BUILTINS, POOL_ARGUMENTS
from .diagnostics import NUMBER_WORDS, Report, Source, did_you_mean
from .parser import DslSyntaxError, parse
from .typecheck import TypeChecks, rebound_names, text_of, want


def listed(names: list[str], most: int) -> str:
    """Names for a hint: the first `most` of them, and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def announcement_forms(known: dict[str, list[str]]) -> list[str]:
    """A pack's announcements with what each announces: `turn_began(turn)`, ..."""
    return [f"{n}({', '.join(p)})" for n, p in sorted(known.items())]


def unknown_hint(name: str, known: Iterable[str], shown: list[str], there: str,
                 section: str, most: int) -> str:
    """The hint of a name the pack does not declare: the one meant; else those there are
    (`shown`, after `there`) and where a new one is declared."""
    listing = f"{there} {listed(shown, most)}; " if shown else ""
    return did_you_mean(name, known) or (
        f"{listing}declare a new one under `{section}:` in pack.yaml (or a mod's setup)")


def unknown_announcement_hint(name: str, known: dict[str, list[str]]) -> str:
    """E330's hint (see `unknown_hint`)."""
    return unknown_hint(name, known, announcement_forms(known), "the rules announce",
                        "announcements", 8)


# Phrases and the library procedures they call, with the parameters each gets.
PHRASES = {
    "add_support": ["who", "pool", "amount", "targets", "per", "optional"],
    "subtract_support": ["who", "victim", "pool", "amount", "targets", "per", "optional"],
    "gain_support": ["who", "pool", "amount", "where"],
}

BUILTIN_PROPS = {"location", "opponent", "leader"}


@dataclass
class Symbols:
    players: list[str]
    counters: set[str]
    variables: dict[str, Any]
    pools: dict[str, str]
    locations: dict[str, dict[str, Any]]
    kinds: dict[str, list[str]]
    zones: dict[str, bool]
    tracks: set[str]
    effects: set[str]
    attributes: set[str]
    procedures: dict[str, list[str]] = field(default_factory=dict)
    list_effects: set[str] = field(default_factory=set)
    defaults: dict[str, set[str]] = field(default_factory=dict)
    functions: dict[str, list[str]] = field(default_factory=dict)
    durations: set[str] = field(default_factory=lambda: {"turn", "game"})
    # Optional, so a loader that does not know them yet still works; the checks
    # that need them (unknown card numbers, where tokens may stand) are skipped.
    cards: set[int] | None = None
    token_kind: str | None = None
    map_kind: str | None = None  # the kind of place the board's map joins (None: no map)
    announcements: dict[str, list[str]] = field(default_factory=dict)
    numeric_tracks: set[str] = field(default_factory=set)
    track_items: set[str] = field(default_factory=set)  # names on named tracks
    # The declared `values` of card and board fields: a bare one is that text.
    field_values: set[str] = field(default_factory=set)
    # Properties of places and of cards: the kind of place every value names
    # (`region` -> `regions`), or "" when the values are not all places of one kind.
    place_properties: dict[str, str] = field(default_factory=dict)
    card_properties: dict[str, str] = field(default_factory=dict)
    teams: list[str] = field(default_factory=list)  # this game's teams, by name
    team_names: set[str] = field(default_factory=set)  # every team of the pack's `teams:`

    def property_of_kind(self, kind: str, of_kind: str) -> str | None:
        """A property the places of `kind` have whose values are places of `of_kind`."""
        for loc in self.kinds.get(kind, [])[:1]:
            for prop in self.locations[loc]:
                if self.place_properties.get(prop) == of_kind:
                    return prop
        return None

    def all_names(self) -> set[str]:
        return (
            set(self.players) | self.counters | set(self.variables) | set(self.pools)
            | set(self.locations) | set(self.kinds) | set(self.zones) | self.tracks
            | {"players", "teams"} | self.team_names
        )


class Compiler:
    """Owns the growing list of blocks; one Compiler per pack."""

    def __init__(self, symbols: Symbols, report: Report) -> None:
        self.sym = symbols
        self.report = report
        self.blocks: list[list[tuple]] = []
        self.positions: list[list[str]] = []
        self.calls: list[tuple[str, str, Source]] = []  # (caller, callee, where)
        self.token_moves: list[Source] = []  # each `move P to PLACE` (dsl/language.py)
        self.used_phrases: set[str] = set()
        self.spots: set[tuple[str, int, int]] = set()  # where errors were reported
        self.missing_phrases: set[str] = set()  # library procedures already reported missing
        self.reaction_blocks: list[int] = []  # blocks that reactions run
        # The announcement graph (soundness.py): (what runs, the announcement it announces,
        # where); (the reaction, the announcement it reacts to, where); (what runs, the
        # procedure it calls, where), a reaction's calls its own, not its block's owner's.
        self.announces: list[tuple[str, str, Source]] = []
        self.reacts: list[tuple[str, str, Source]] = []
        self.runs: list[tuple[str, str, Source]] = []
        # While compiling a mod's replacement or extension: the hidden name of the
        # procedure or function it builds on (what `original` calls).
        self.original: str | None = None

    # ---- entry points ----------------------------------------------------
    def compile_text(
        self, text: str, source: Source, owner: str, params: list[str] | None = None
    ) -> int | None:
        """Compile a block of statements; returns its block id, or None on errors."""
        try:
            tree = parse(text, source)
        except DslSyntaxError as e:
            self.report.error(*self._named(e))
            return None
        unit = _Unit(self, source, owner, set(params or []))
        unit.rebound = rebound_names(tree)
        before = len(self.report.errors)
        try:
            block = unit.block(tree.children)
        except RecursionError:
            self._too_deep(source)
            return None
        return block if len(self.report.errors) == before else None

    def _named(self, e: DslSyntaxError) -> tuple[Source, str, str, str]:
        """A syntax error as reported: where the parser wanted one of the pack's names
        (a `whenever`'s announcement), checked against them and listed in the hint."""
        if e.wants is None or e.wants[0] != "announcement":
            return e.source, "E201", e.message, e.hint
        _, word, at = e.wants
        known = self.sym.announcements
        shown = f"; the rules announce {listed(announcement_forms(known), 8)}" if known else ""
        if word not in known:
            what = f"{word!r} is not an" if word else "a `whenever` names no"
            close = did_you_mean(word, known) if word else None
            return (at, "E201", f"{what} announcement of the rules", close or e.hint + shown)
        return e.source, "E201", e.message, e.hint + shown

    def compile_reaction(self, body: str, source: Source, condition: str | None,
                         cond_source: Source | None, owner: str,
                         params: list[str]) -> int | None:
        """A reaction of the rules: its condition (over the announcement's parameters)
        becomes the block's first instruction."""
        cond = None
        if condition is not None:
            cond = self.compile_expression(condition, cond_source or source, owner, params)
            if cond is None:
                return None
        block = self.compile_text(body, source, owner, params)
        if block is None:
            return None
        self.blocks[block].insert(0, ("guard", cond, False))
        self.positions[block].insert(0, str(cond_source or source))
        self.reaction_blocks.append(block)
        return block

    def compile_expression(
        self, text: str, source: Source, owner: str, params: list[str]
    ) -> tuple | None:
        try:
            tree = parse(text, source, start="expr")
        except DslSyntaxError as e:
            self.report.error(e.source, "E201", e.message, e.hint)
            return None
        unit = _Unit(self, source, owner, set(params))
        before = len(self.report.errors)
        try:
            expr = unit.expr(tree)
        except RecursionError:
            self._too_deep(source)
            return None
        return expr if len(self.report.errors) == before else None

    def _too_deep(self, source: Source) -> None:
        self.report.error(source, "E205", "this text nests too deeply to compile",
                          "split it with `let` into smaller steps")

    # ---- helpers used by _Unit -------------------------------------------
    def new_block(self) -> int:
        self.blocks.append([])
        self.positions.append([])
        return len(self.blocks) - 1


class _Unit(TypeChecks):
    """Compiles one snippet (a procedure body or a card event)."""

    def __init__(self, comp: Compiler, source: Source, owner: str, scope: set[str]) -> None:
        self.c = comp
        self.sym = comp.sym
        self.src = source
        self.owner = owner
        self.scope = scope
        # Inside `until ...:`: the duration (a name, or ("count", NAME, n)) and, for
        # `until used N times`, how many uses a reaction has.
        self.duration: str | tuple | None = None
        self.uses: tuple | None = None
        self.local_kinds: dict[str, str] = {}  # locals bound once, whose kind is known
        self.rebound: set[str] = set()
        self.saying = False  # within `say`: a bare word there may be meant as text
        self.reacting: str | None = None  # within a `whenever`'s body: the reaction

    # ---- positions and errors --------------------------------------------
    def where(self, node) -> Source:
        meta = getattr(node, "meta", None)
        if isinstance(node, Token):
            return self.src.at(node.line or 1, node.column or 1)
        if meta is not None and not getattr(meta, "empty", True):
            return self.src.at(meta.line, meta.column)
        return self.src

    def error(self, node, code: str, message: str, hint: str = "") -> None:
        where = self.where(node)
        spot = (where.path, where.line, where.column)
        if spot in self.c.spots:
            return  # one error per spot: an unknown name should not also be a wrong type
        self.c.spots.add(spot)
        self.c.report.error(where, code, message, hint)

    # ---- statements ------------------------------------------------------
    def block(self, stmts) -> int:
        bid = self.c.new_block()
        code: list[tuple] = []
        where: list[str] = []
        for stmt in stmts:
            if isinstance(stmt, Tree) and stmt.data == "block":
                stmt = stmt.children
            for s in stmt if isinstance(stmt, list) else [stmt]:
                for ins in self.stmt(s):
                    code.append(ins)
                    where.append(str(self.where(s)))
                    if ins[0] == "move_token":
                        self.c.token_moves.append(self.where(s))
        self.c.blocks[bid] = code
        self.c.positions[bid] = where
        return bid

    def sub(self, node: Tree) -> int:
        """Compile a `block` node (indented or inline) into a new block."""
        return self.block(node.children)

    def stmt(self, t: Tree) -> list[tuple]:
        handler = getattr(self, "s_" + t.data, None)
        if handler is None:
            self.error(t, "E202", f"statement '{t.data}' is not supported here",
                       "the grammar has a form the compiler does not know: report it")
            return []
        out = handler(*t.children) if t.children else handler()
        return out if isinstance(out, list) else [out]

    def bind(self, name, kind: str | None = None) -> str:
        """Introduce a local name; it may not hide a name the pack defines."""
        n = str(name)
        if n not in self.scope and n in self.sym.all_names():
            self.error(name, "E319", f"the local name '{n}' hides a name the pack defines",
                       f"choose another name, such as `{n}_here`")
        if kind is not None and n not in self.scope and n not in self.rebound and n != "it":
            self.local_kinds[n] = kind
        self.scope.add(n)
        return n

    def s_let_stmt(self, name, value):
        e = self.expr(value)
        return ("let", self.bind(name, self.kind_of(e)), e)

    def s_set_stmt(self, name, value):
        e = self.expr(value)
        n = str(name)
        if n in self.scope:
            return ("let", n, e)
        if n in self.sym.variables:
            return ("set", n, e)
        self.error(name, "E301", f"cannot set '{n}': it is neither a variable of the pack "
                   "nor a local name", did_you_mean(n, set(self.sym.variables) | self.scope)
                   or "declare it under `variables:` in pack.yaml, or use `let`")
        return []

    def s_do_stmt(self, name, *args):
        n = str(name)
        call_args = [(str(a.children[0]), self.expr(a.children[1])) for a in args if a is not None]
        if n == "original" and self.c.original is not None and n not in self.sym.procedures:
            n = self.c.original
            if not call_args:  # `do original`: with the parameters this procedure was given
                call_args = [(p, ("var", p)) for p in self.sym.procedures.get(n, [])]
        self._check_call(name, n, [a for a, _ in call_args])
        return ("call", n, call_args)

    def _check_call(self, node, proc: str, given: list[str]) -> None:
        params = self.sym.procedures.get(proc)
        if params is None:
            self.error(node, "E302", f"unknown procedure '{proc}'",
                       did_you_mean(proc, self.sym.procedures) or "define it under `procedures:`")
            return
        self.c.calls.append((self.owner, proc, self.where(node)))
        self.c.runs.append((self.reacting or self.owner, proc, self.where(node)))
        optional = self.sym.defaults.get(proc, set())
        missing = [p for p in params if p not in given and p not in optional]
        extra = [a for a in given if a not in params]
        if missing or extra:
            wanted = [p for p in params if p in given or p in missing]
            self.error(node, "E303", f"'{proc}' takes ({', '.join(params)})"
                       + (f"; missing {', '.join(missing)}" if missing else "")
                       + (f"; unknown {', '.join(extra)}" if extra else ""),
                       f"write `do {proc}({', '.join(p + ': ...' for p in wanted)})`"
                       if wanted else f"write `do {proc}`")

    def s_stop_stmt(self):
        return ("stop",)

    def s_say_stmt(self, text):
        self.saying = True
        try:
            return ("say", self.expr(text))
        finally:
            self.saying = False

    def s_record_stmt(self, name, owner, value):
        who = self.player(owner, "whose record") if owner is not None else None
        return ("record", str(name), who, self.expr(value))

    def s_finish_stmt(self):
        return ("finish",)

    def s_eliminate_stmt(self, who):
        return ("eliminate", self.player(who, "who is out"))

    def s_gain_stmt(self, who, amount, name, support):
        return self._gain_or_lose("gain", who, amount, name, support)

    def s_lose_stmt(self, who, amount, name, support):
        return self._gain_or_lose("lose", who, amount, name, support)

    def _gain_or_lose(self, verb, who, amount, name, support):
        n = str(name)
        w, a = self.expr(who), self.expr(amount)
        self.expect(who, w, f"who {verb}s", "player")
        self.expect(amount, a, f"the amount to {verb}", "number")
        if support is None:
            if n not in self.sym.counters:
                self.error(name, "E304", f"'{n}' is not a counter",
                           did_you_mean(n, self.sym.counters | set(self.sym.pools))
                           or f"counters: {', '.join(sorted(self.sym.counters))}")
                return []
            return (verb, w, a, n)
        if n not in self.sym.pools:
            self.error(name, "E305", f"'{n}' is not a kind of support",
                       did_you_mean(n, self.sym.pools) or f"kinds: {', '.join(self.sym.pools)}")
            return []
        where = self.expr(support.children[0])
        self.expect(support.children[0], where, "the place", "place:" + self.sym.pools[n])
        if verb == "lose":
            return ("remove", a, ("const", n), w, where)
        return self._phrase("gain_support", support, who=w, pool=("const", n), amount=a,
                            where=where)

    def s_pay_stmt(self, who, amount, name):
        n = str(name)
        if n not in self.sym.counters:
            self.error(name, "E304", f"'{n}' is not a counter", did_you_mean(n, self.sym.counters))
            return []
        w, a = self.expr(who), self.expr(amount)
        self.expect(who, w, "who pays", "player")
        self.expect(amount, a, "the amount to pay", "number")
        return ("pay", w, a, n)

    def _phrase(self, proc: str, node, **args) -> tuple:
        self.c.used_phrases.add(proc)
        if proc not in self.sym.procedures:
            if proc not in self.c.missing_phrases:  # once: the fix is in one place
                self.c.missing_phrases.add(proc)
                self.error(node, "E306", f"this phrase needs the library procedure '{proc}'",
                           f"define `{proc}` ({', '.join(PHRASES[proc])}) under `procedures:`")
            return ("call", proc, [])
        self.c.calls.append((self.owner, proc, self.where(node)))
        self.c.runs.append((self.reacting or self.owner, proc, self.where(node)))
        return ("call", proc, list(args.items()))

    def s_add_phrase(self, who, modal, total, amount, pool, targets, per):
        p = self._pool(pool)
        if p is None:
            return []
        a = self.expr(amount)
        self.expect(amount, a, "the amount to add", "number")
        return self._phrase(
            "add_support", pool, who=self.player(who, "who adds"), pool=("const", p), amount=a,
            targets=self.targets(targets, p), per=self._per(per, a),
            optional=("const", str(modal.children[0]) == "may"),
        )

    def s_subtract_phrase(self, who, modal, total, amount, pool, victim, targets, per):
        p = self._pool(pool)
        if p is None:
            return []
        a = self.expr(amount)
        self.expect(amount, a, "the amount to subtract", "number")
        chooser = self.player(who, "who subtracts")
        return self._phrase(
            "subtract_support", pool, who=chooser,
            victim=self.player(victim, "whose support") if victim is not None else chooser,
            pool=("const", p), amount=a, targets=self.targets(targets, p),
            per=self._per(per, a), optional=("const", str(modal.children[0]) == "may"),
        )

    def _per(self, per, amount):
        if per is None:
            return amount
        return self.number(per.children[0], "the limit per place")

    def _pool(self, name) -> str | None:
        n = str(name)
        if n not in self.sym.pools:
            self.error(name, "E305", f"'{n}' is not a kind of support",
                       did_you_mean(n, self.sym.pools) or f"kinds: {', '.join(self.sym.pools)}")
            return None
        return n

    def targets(self, node, pool: str) -> tuple:
        """Where a phrase may act: a list, a filter, or a place that contains locations."""
        kind = self.sym.pools[pool]
        everything = ("const", list(self.sym.kinds[kind]))
        if isinstance(node, Tree) and node.data == "anywhere":
            return everything
        e = self.expr(node)
        names = self._constant_names(e)
        if names is None:
            return self._target_list(node, e, kind)
        parts = []
        for n in names:
            loc = self.sym.locations.get(n)
            if loc is not None and loc["kind"] == kind:
                parts.append([n])
                continue
            members = self._members(kind, n)
            if not members:
                self.error(_token_named(node, n), "E307", f"'{n}' holds no {kind}",
                           f"name {kind} or a place whose {kind} are listed on the board")
            parts.append(members)
        flat = [x for part in parts for x in part]
        return ("const", [x for x in self.sym.kinds[kind] if x in flat])

    def _target_list(self, node, e: tuple, kind: str) -> tuple:
        """Targets computed in the game: one place is a list of one, never a text whose
        letters would be offered one by one."""
        got = self.kind_of(e)
        if got in ("place", "place:" + kind):
            return ("list", [e])
        if got is not None and got.startswith("place:"):
            prop = self.sym.property_of_kind(kind, got[6:])
            self.error(node, "E320", f"type mismatch: the places of the phrase must be {kind} "
                       f"or a list of them, not {self.show(e, got)}",
                       f"write `{kind} where {prop} of it == {text_of(e) or '...'}`" if prop
                       else f"name {kind}, or a list of them")
            return e
        if got == "list":
            return e
        if got not in (None, "text", "none"):
            self.expect(node, e, "the places of the phrase", "list")
            return e
        return ("as_list", e)  # a parameter or a function's result: checked in the game

    def _constant_names(self, e) -> list[str] | None:
        """Names written out in a target: `south`, `[CT, MA]`, or `west or midwest`."""
        if e[0] == "const" and isinstance(e[1], str):
            return [e[1]]
        if e[0] == "const" and isinstance(e[1], list) and all(isinstance(i, str) for i in e[1]):
            return list(e[1])
        if e[0] == "or":
            left, right = self._constant_names(e[1]), self._constant_names(e[2])
            return left + right if left is not None and right is not None else None
        return None

    def _members(self, kind: str, container: str) -> list[str]:
        return [
            name for name in self.sym.kinds[kind]
            if container in self.sym.locations[name].values()
        ]

    def s_place_stmt(self, amount, pool, who, where):
        return self._place_or_remove("place", amount, pool, who, where)

    def s_remove_stmt(self, amount, pool, who, where):
        return self._place_or_remove("remove", amount, pool, who, where)

    def _place_or_remove(self, verb, amount, pool, who, where):
        p = self._pool_expr(pool)
        if not p:
            return []
        w = self.expr(where)
        if p[0] == "const":
            kind = "place:" + self.sym.pools[p[1]]
            self.expect(where, w, f"where to {verb} {p[1]} support", kind)
        return (verb, self.number(amount, f"the amount to {verb}"), p,
                self.player(who, "whose support"), w)

    def _pool_expr(self, name) -> tuple | None:
        """A pool named outright, or a local name holding one (in library procedures)."""
        if str(name) in self.scope:
            return ("var", str(name))
        p = self._pool(name)
        return ("const", p) if p else None

    def s_bag_put_stmt(self, amount, who):
        return ("bag_put", self.number(amount, "the number of cubes"),
                self.player(who, "whose cubes"))

    def s_bag_empty_stmt(self):
        return ("bag_empty",)

    def s_move_token_stmt(self, who, where):
        w = self.expr(where)
        kind = self.sym.token_kind
        self.expect(where, w, "where a token moves", "place:" + kind if kind else "place")
        return ("move_token", self.player(who, "whose token"), w)

    def s_transfer_stmt(self, card, zone):
        return ("transfer", self.cards(card, "what is transferred"), self.zone(zone))

    def s_deal_stmt(self, n, source, target):
        return ("deal", self.number(n, "the number of cards"), self.zone(source),
                self.zone(target))

    def s_shuffle_stmt(self, zone):
        return ("shuffle", self.zone(zone))

    def zone(self, node) -> tuple:
        e = self.expr(node)
        if e[0] == "zone" or e[0] == "var":
            return e
        if e[0] == "const" and e[1] in self.sym.zones:
            return e
        self.error(node, "E308", "expected a zone of cards",
                   f"zones: {', '.join(sorted(self.sym.zones))} (per player: `hand of P`)")
        return ("const", "")

    def _track(self, name) -> str:
        n = str(name)
        if n not in self.sym.tracks:
            self.error(name, "E309", f"'{n}' is not a track", did_you_mean(n, self.sym.tracks))
        return n

    def s_track_move_stmt(self, item, direction, amount, track):
        if str(track) in self.sym.numeric_tracks:  # a marker per player: a bounded counter
            verb = "gain" if str(direction.children[0]) == "up" else "lose"
            return (verb, self.player(item, "whose marker moves"),
                    self.number(amount, "how far to move"), str(track))
        delta = self.number(amount, "how far to move")
        if str(direction.children[0]) == "up":
            delta = ("neg", delta)
        return ("track_move", self.expr(item), delta, self._track(track))

    def s_track_swap_stmt(self, a, b, track):
        return ("track_swap", self.expr(a), self.expr(b), self._track(track))

    def s_track_place_stmt(self, item, pos, track):
        return ("track_place", self.expr(item), self.number(pos, "the position"),
                self._track(track))

    def s_flip_stmt(self, card, face):
        return ("flip", self.cards(card, "what is flipped"), _unquote(face))

    def s_reveal_stmt(self, zone, who):
        return ("reveal", self.zone(zone), self.player(who, "who sees the cards"))

    def s_show_stmt(self, cards, who):
        e = self.expr(cards)
        if not (e[0] in ("zone", "var") or (e[0] == "const" and e[1] in self.sym.zones)):
            self.cards_of(cards, e, "what is shown")  # a zone's name, a card or a list
        return ("show", e, self.player(who, "who is shown the cards"))

    def s_tell_stmt(self, who, text):
        player = self.player(who, "who is told")
        self.saying = True  # the text is written as `say`'s is
        try:
            return ("tell", player, self.expr(text))
        finally:
            self.saying = False

    def s_prevent_stmt(self, cards):
        return ("prevent", self.cards(cards, "what is prevented"))

    def s_event_stmt(self, card, who):
        return ("event", self.cards(card, "whose event is resolved"),
                self.player(who, "who resolves the event"))

    def s_until_stmt(self, duration, block):
        outer = self.duration, self.uses
        self.duration, self.uses = self._duration(duration)
        out: list[tuple] = []
        for s in block.children:
            out.extend(self.stmt(s))
        self.duration, self.uses = outer
        return out

    def _duration(self, node: Tree) -> tuple:
        """(duration, uses) of an `until` clause."""
        kind = node.data
        if kind in ("until_end", "until_end_or_used_once", "until_end_or_used"):
            d = str(node.children[0])
            if d not in self.sym.durations:
                self.error(node.children[0], "E310", f"unknown duration '{d}'",
                           f"use one of: {', '.join(sorted(self.sym.durations))}")
            if kind == "until_end":
                return d, None
            # whichever comes first: the duration's end, or the last use
            return d, (("const", 1) if kind == "until_end_or_used_once" else
                       self.number(node.children[1], "how many uses"))
        if kind == "until_count":
            name, n = node.children
            self._announcement(name)
            return ("count", str(name), self.number(n, "how many times")), None
        uses = ("const", 1) if kind == "until_used_once" else \
            self.number(node.children[0], "how many uses")
        return "game", uses

    def _announcement(self, name) -> list[str] | None:
        n = str(name)
        params = self.sym.announcements.get(n)
        if params is None:
            self.error(name, "E330", f"'{n}' is not an announcement of the pack",
                       unknown_announcement_hint(n, self.sym.announcements))
        return params

    def s_announce_stmt(self, name, *args):
        params = self._announcement(name)
        given = [(str(a.children[0]), a.children[1]) for a in args if a is not None]
        if params is None:
            return []
        names = [g for g, _ in given]
        missing = [p for p in params if p not in names]
        extra = [g for g in names if g not in params]
        if missing or extra or len(set(names)) != len(names):
            self.error(name, "E331", f"'{name}' announces ({', '.join(params)})"
                       + (f"; missing {', '.join(missing)}" if missing else "")
                       + (f"; unknown {', '.join(extra)}" if extra else ""),
                       f"write `announce {name}({', '.join(p + ': ...' for p in params)})`")
            return []
        values = dict(given)
        self.c.announces.append((self.reacting or self.owner, str(name), self.where(name)))
        return ("announce", str(name), [(p, self.expr(values[p])) for p in params])

    def s_whenever_stmt(self, name, renames, cond, block):
        params = self._announcement(name)
        if self.duration is None:
            self.error(name, "E332", "a reaction inside a card or rule needs a duration",
                       "put it inside `until end of turn:` (or `until used once:`, ...); a "
                       "reaction for the whole game goes under `reactions:` in a rules file")
            return []
        if params is None:
            return []
        names = [str(r) for r in renames.children] if renames is not None else list(params)
        if len(names) != len(params):
            # the names offered must not hide a local name (a card's `player`) either
            self.error(renames, "E331", f"'{name}' announces {len(params)} values "
                       f"({', '.join(params)}), not {len(names)}",
                       f"write `whenever {name}({', '.join(self._unhidden(params))})`")
            return []
        hidden = [r for r in names if r in self.scope]
        if hidden:
            own = "announces" if renames is None else "names its value"
            self.error(name if renames is None else renames, "E333",
                       f"'{name}' {own} '{hidden[0]}', which would hide the local name "
                       f"'{hidden[0]}' here", f"name its values yourself: `whenever {name}("
                       + ", ".join(self._unhidden(names)) + ")`")
            return []
        outer_scope = set(self.scope)
        for r in names:
            self.bind(renames.children[names.index(r)] if renames is not None else r)
        c = self.expr(cond) if cond is not None else None
        duration, uses = self.duration, self.uses
        self.duration = self.uses = None  # the body is a reaction, not a lasting effect
        reacting, at = self.reacting, self.where(name)
        if uses is None:  # a reaction that is used up spends a use before it runs: it ends
            self.reacting = f"whenever {name} at {at}"
            self.c.reacts.append((self.reacting, str(name), at))
        else:
            self.reacting = f"used-up whenever {name} at {at}"
        bid = self.block(block.children)
        self.reacting = reacting
        self.duration, self.uses = duration, uses
        self.scope = outer_scope
        self.c.blocks[bid].insert(0, ("guard", c, uses is not None))
        self.c.positions[bid].insert(0, str(self.where(name)))
        self.c.reaction_blocks.append(bid)
        return ("whenever", str(name), bid, names, duration, uses)

    def _unhidden(self, names: list[str]) -> list[str]:
        """The names, each that would hide a local name here given `_now`."""
        return [n + "_now" if n in self.scope else n for n in names]

    def _effect_hint(self, n: str) -> str:
        """E312's hint (see `unknown_hint`)."""
        effects = self.sym.effects
        return unknown_hint(n, effects, sorted(effects), "the pack's effects:", "effects", 24)

    def s_cancel_stmt(self, name, who):
        n = str(name)
        if n not in self.sym.effects:
            self.error(name, "E312", f"unknown effect '{n}'", self._effect_hint(n))
            return []
        return ("cancel", n, self.player(who, "whose effect ends"))

    def s_effect_stmt(self, who, name, value):
        n = str(name)
        if self.uses is not None:
            self.error(name, "E334", "an effect cannot be used up: only reactions are",
                       "end it with `cancel EFFECT of PLAYER` where it is used, or give it a "
                       "duration such as `until end of turn:`")
            return []
        if self.duration is None:
            self.error(name, "E311", "a lasting effect needs a duration",
                       "put it inside `until end of turn:` (or `until end of game:`)")
            return []
        if n not in self.sym.effects:
            self.error(name, "E312", f"unknown effect '{n}'", self._effect_hint(n))
            return []
        return ("effect", self.player(who, "who has the effect"), n,
                self._effect_value(value, n) if value else None, self.duration)

    def _effect_value(self, node, n: str) -> tuple:
        """An effect's value, of the kind the effect adds up: a number, or (an effect
        declared `values: names`) a name; a value known to be of another kind is E320 here
        rather than a failure in play where the effect is read."""
        if n not in self.sym.list_effects:
            return self.number(node, f"the value of the effect `{n}`")
        e = self.expr(node)
        self.expect(node, e, f"the value of the effect `{n}` (it lists names)", "text",
                    "place", "player", "pool", "zone")
        return e

    def s_expire_stmt(self, duration):
        d = str(duration)
        if d not in self.sym.durations:
            self.error(duration, "E310", f"unknown duration '{d}'",
                       f"use one of: {', '.join(sorted(self.sym.durations))}")
        return ("expire", d)

    def s_if_stmt(self, cond, block, *rest):
        branches = [(self.condition(cond, "the condition of `if`"), self.sub(block))]
        otherwise = None
        for clause in rest:
            if clause is None:
                continue
            if clause.data == "elif_clause":
                branches.append((self.condition(clause.children[0], "the condition of `elif`"),
                                 self.sub(clause.children[1])))
            else:
                otherwise = self.sub(clause.children[0])
        return ("if", branches, otherwise)

    def s_for_stmt(self, name, items, block):
        e = self.items(items, "what `for` runs over")
        return ("for", self.bind(name, self.element_kind(e)), e, self.sub(block))

    def s_for_range_stmt(self, name, low, high, block):
        e = ("call", "range", [self.number(low, "the start"), self.number(high, "the end")])
        return ("for", self.bind(name, "number"), e, self.sub(block))

    def s_repeat_stmt(self, n, block):
        return ("repeat", self.number(n, "how many times to repeat"), self.sub(block))

    def s_while_stmt(self, cond, bound, block):
        return ("while", self.expr(cond), self.literal(bound), self.sub(block))

    def s_choose_value_stmt(self, who, always, name, items, label, asking):
        w, e = self.player(who, "who chooses"), self.items(items, "what is chosen from")
        # the question is asked before anything is chosen: it cannot name the choice
        question = self.fmt(asking.children[0]) if asking is not None else None
        self.bind(name, self.element_kind(e))
        lab = self.fmt(label.children[0]) if label is not None else None
        # `always` rides last, and only when written, so other decisions compile as before
        return ("choose", w, str(name), e, lab, question) + ((True,) if always else ())

    def s_choose_menu_stmt(self, who, always, asking, status, *options):
        w = self.player(who, "who chooses")
        question = self.fmt(asking.children[0]) if asking is not None else None
        compiled, notes = [], []
        for opt in options:
            label, note, over, cond, block = opt.children
            var, items = None, None
            if over is not None:
                items = self.items(over.children[1], "what the option runs over")
                var = self.bind(over.children[0], self.element_kind(items))
            c = self.expr(cond.children[0]) if cond is not None else None
            notes.append(self.fmt(note.children[0]) if note is not None else None)
            compiled.append((self.fmt(label), var, items, c, self.sub(block)))
        remarks = None
        if status is not None or any(notes):
            remarks = (self.fmt(status.children[0]) if status is not None else None, notes)
        # Remarks and the question ride in elements of their own after the options, so
        # readers of the options stay as they were.
        if always:  # last, and only when written (see s_choose_value_stmt)
            return ("menu", w, compiled, remarks, question, True)
        if question is not None:
            return ("menu", w, compiled, remarks, question)
        return ("menu", w, compiled) if remarks is None else ("menu", w, compiled, remarks)

    # ---- expressions -----------------------------------------------------
    def expr(self, t) -> tuple:
        if isinstance(t, Token):
            return self.e_name(t)
        handler = getattr(self, "e_" + t.data, None)
        if handler is None:
            self.error(t, "E203", f"expression '{t.data}' is not supported",
                       "the grammar has a form the compiler does not know: report it")
            return ("const", None)
        return handler(*t.children)

    def e_number(self, tok):
        return ("const", self.literal(tok))

    def literal(self, tok) -> int:
        """A number written in the text; one too long to be a number is an error (E322)."""
        digits = str(tok)
        if len(digits) > MAX_DIGITS:
            self.error(tok, "E322", f"a number of {len(digits)} digits",
                       f"numbers have at most {MAX_DIGITS} digits")
            return 0
        return int(digits)

    def e_string(self, tok):
        return self.fmt(tok)

    def e_none(self):
        return ("const", None)

    def e_true(self):
        return ("const", True)

    def e_false(self):
        return ("const", False)

    def e_list(self, *items):
        es = [self.expr(i) for i in items if i is not None]
        if all(e[0] == "const" for e in es):
            return ("const", [e[1] for e in es])
        return ("list", es)

    def e_name(self, tok):
        n = str(tok)
        sym = self.sym
        if n in self.scope or n == "it":
            return ("var", n)
        if n == "original" and self.c.original in sym.functions:
            # in a function that extends another: its value for the same arguments
            return ("fn", self.c.original, [("var", p) for p in sym.functions[self.c.original]])
        if n in sym.variables:
            return ("global", n)
        if n in sym.players or n in sym.locations or n in sym.pools:
            return ("const", n)
        if n in sym.kinds:
            return ("const", list(sym.kinds[n]))
        if n == "players":
            return ("const", list(sym.players))
        if n in sym.team_names:
            return ("const", n)
        if n == "teams":
            return ("const", list(sym.teams))
        if n in sym.zones:
            if sym.zones[n]:
                self.error(tok, "E313", f"'{n}' belongs to each player", f"write `{n} of PLAYER`")
            return ("const", n)
        if n in sym.tracks:
            return ("track", n)
        if n in sym.track_items:
            return ("const", n)
        if n in sym.counters or n in sym.effects:
            self.error(tok, "E314", f"'{n}' needs an owner", f"write `{n} of PLAYER`")
            return ("const", None)
        if n in sym.field_values:  # last: any other kind of name comes first
            return ("const", n)
        self.error(tok, "E315", f"unknown name '{n}'", self._name_hint(n))
        return ("const", None)

    def _name_hint(self, n: str) -> str:
        """A near name; the id of a place the text wrote by its full name; or the digits
        of a number written as a word."""
        if n.lower() in NUMBER_WORDS and n not in self.sym.all_names() | self.scope:
            return f"write the number in digits: `{NUMBER_WORDS[n.lower()]}`"
        for loc_id, attrs in self.sym.locations.items():
            if str(attrs.get("name", "")).replace(" ", "").lower() == n.lower():
                return f"did you mean `{loc_id}` ({attrs['name']})?"
        near = did_you_mean(n, self.sym.all_names() | self.scope | self.sym.field_values)
        if near or not self.saying:
            return near or (f"a name is one the pack declares (a place, player, zone, pool, "
                            f"track or variable) or one this text gives a value first: "
                            f"`let {n} = ...`")
        return f'text goes in double quotes: `say "{n}"` (a name in it in braces: "{{{n}}}")'

    def e_prop(self, name, sub):
        n = str(name)
        target = self.expr(sub)
        sym = self.sym
        if n in sym.counters or n in sym.zones or n in sym.effects or n in ("location", "opponent"):
            self.expect(sub, target, f"the owner of `{n}`", "player")
        elif n in sym.attributes and n not in BUILTIN_PROPS:
            self._expect_thing(sub, target, n)
        if n in sym.counters:
            return ("counter", n, target)
        if n in sym.zones:
            return ("zone", n, target)
        if n in sym.list_effects:
            return ("effect_list", n, target)
        if n in sym.effects:
            return ("effect", n, target)
        if n == "location":
            return ("token", target)
        if n == "opponent":
            return ("opponent", target)
        if n == "leader":
            return ("leader", None, target)
        if n in sym.attributes:
            return ("attr", n, target)
        self.error(name, "E316", f"unknown property '{n}'",
                   did_you_mean(n, sym.attributes | sym.counters | sym.zones.keys()
                                | sym.effects | BUILTIN_PROPS))
        return ("const", None)

    def e_support_of(self, pool, who, where):
        p = self._pool(pool)
        if not p:
            return ("const", 0)
        return ("support_of", p, self.player(who, "whose support"), self._at(p, where))

    def e_support_at(self, pool, where):
        p = self._pool(pool)
        return ("support_at", p, self._at(p, where)) if p else ("const", 0)

    def _at(self, pool: str, where) -> tuple:
        w = self.expr(where)
        self.expect(where, w, f"where {pool} support is counted", "place:" + self.sym.pools[pool])
        return w

    def e_call(self, name, *args):
        n = str(name)
        es = [self.expr(a) for a in args if a is not None]
        if n == "cards":
            if len(es) != 1:
                self.error(name, "E317", "cards(ZONE) takes one zone")
                return ("const", [])
            return ("cards", es[0])
        if n == "original" and self.c.original in self.sym.functions:
            n = self.c.original
        if n in self.sym.functions:
            params = self.sym.functions[n]
            if len(params) != len(es):
                self.error(name, "E317", f"{n}() takes {len(params)} argument(s), not {len(es)}")
            self.c.calls.append((self.owner, "fn " + n, self.where(name)))
            return ("fn", n, es)
        if n not in ARITY:
            self.error(name, "E318", f"unknown function '{n}'", did_you_mean(n, ARITY))
            return ("const", None)
        if ARITY[n] is not None and ARITY[n] != len(es):
            self.error(name, "E317", f"{n}() takes {ARITY[n]} argument(s), not {len(es)}")
        k = LIST_ARGUMENTS.get(n)
        if k is not None and k < len(es):
            self.expect([a for a in args if a is not None][k], es[k], f"what {n}() reads", "list")
        k = POOL_ARGUMENTS.get(n)
        if k is not None and k < len(es):
            self._pool_argument(n, [a for a in args if a is not None][k], es[k])
        if n in MAP_BUILTINS:
            self.map_arguments(name, n, [a for a in args if a is not None], es)
        return ("call", n, es)

    def _pool_argument(self, n: str, node, e: tuple) -> None:
        """A constant where a builtin names a pool must be one (`empty(states)` for
        `empty(state)` once passed the check and failed in play); a variable may hold one."""
        if e[0] != "const" or (isinstance(e[1], str) and e[1] in self.sym.pools):
            return
        written = str(node) if isinstance(node, Token) else \
            next((str(t) for t in getattr(node, "scan_values", lambda _: ())(
                lambda v: isinstance(v, Token))), "")
        self.error(node, "E305", f"{n}() reads a kind of support first, and "
                   f"'{written or e[1]!s:.40}' is not one",
                   did_you_mean(written, self.sym.pools) or f"kinds: {', '.join(self.sym.pools)}")

    def e_compare(self, a, op, b):
        o = " ".join(str(t) for t in op.children)
        ea, eb = self.expr(a), self.expr(b)
        if o in ("<", "<=", ">", ">="):
            self.expect(a, ea, f"the left side of `{o}`", "number")
            self.expect(b, eb, f"the right side of `{o}`", "number")
        elif o in ("in", "not in"):
            self.expect(b, eb, f"the right side of `{o}`", "list", "text")
        else:
            self._expect_comparable(a, ea, eb, o)
        return ("cmp", o, ea, eb)

    def e_arith(self, a, op, b):
        o = str(op.children[0])
        ea, eb = self.expr(a), self.expr(b)
        wanted = ("number", "list", "text") if o == "+" else ("number",)
        self.expect(a, ea, f"the left side of `{o}`", *wanted)
        self.expect(b, eb, f"the right side of `{o}`", *wanted)
        ka, kb = self.kind_of(ea), self.kind_of(eb)
        if o == "+" and ka in wanted and kb in wanted and ka != kb:
            self.error(b, "E320", f"type mismatch: `+` joins {want(ka)} and {want(kb)}",
                       "add numbers to numbers, lists to lists (`[x]`), text to text")
        return ("arith", o, ea, eb)

    def e_and_(self, a, b):
        return ("and", self.expr(a), self.expr(b))

    def e_or_(self, a, b):
        return ("or", self.expr(a), self.expr(b))

    def e_not_(self, a):
        return ("not", self.expr(a))

    def e_neg(self, a):
        return ("neg", self.number(a, "what `-` negates"))

    def e_ifelse(self, a, cond, b):
        return ("ifelse", self.expr(cond), self.expr(a), self.expr(b))

    def e_where(self, src, cond):
        items = self.expr(src)
        if items[0] in ("cmp", "and", "or", "not"):  # `if X in LIST where ...`
            self.error(src, "E320", "type mismatch: what `where` filters must be a list, not "
                       "a truth value", "`where` filters all that stands to its left: put the "
                       "list and its filter in parentheses, `X in (LIST where COND)`")
        else:
            self.expect(src, items, "what `where` filters", "list")
        return ("where", items, self.expr(cond))

    def e_comprehension(self, element, name, items, cond):
        """`[ELEMENT for NAME in ITEMS if COND]`: NAME is bound to each item in the element
        and the condition alone (the list is read before it is bound), and is gone after."""
        src = self.items(items, "what a list comprehension runs over")
        n = self._comprehension_name(name)
        kind = self.element_kind(src)
        outer = (n in self.scope, self.local_kinds.pop(n, None))
        self.scope.add(n)
        if kind is not None:
            self.local_kinds[n] = kind
        try:
            test = self.expr(cond) if cond is not None else None
            value = self.expr(element)
        finally:  # the name leaves with the comprehension: nothing after it sees it
            if not outer[0]:
                self.scope.discard(n)
            self.local_kinds.pop(n, None)
            if outer[1] is not None:
                self.local_kinds[n] = outer[1]
        return ("comp", n, src, value, test)

    def _comprehension_name(self, name) -> str:
        """The name a comprehension binds: one that hides nothing (E319 for a name of the
        pack, E324 for a local name or `it`, which would be silently hidden inside)."""
        n = str(name)
        if n in self.scope or n == "it":
            what = "the name of `where`'s item" if n == "it" else "already a local name here"
            other = "x" if n == "it" else n + "2"
            self.error(name, "E324", f"the comprehension's name '{n}' is {what}",
                       f"give the comprehension a name of its own, such as `{other}`: "
                       f"`[... for {other} in ...]`")
        elif n in self.sym.all_names():
            self.error(name, "E319", f"the local name '{n}' hides a name the pack defines",
                       f"choose another name, such as `{n}_here`")
        return n

    # ---- text templates --------------------------------------------------
    def fmt(self, tok) -> tuple:
        """A quoted string; `{expr}` parts are evaluated when the text is shown."""
        raw = str(tok)
        quoted = raw.startswith('"')
        text = raw[1:-1] if quoted else raw
        start = self.where(tok)
        parts: list[Any] = []
        pos = 0
        for m in re.finditer(r"\{([^{}]*)\}", text):
            if m.start() > pos:
                parts.append(_unescape(text[pos:m.start()]))
            # The expression's own position, so its errors point inside the string.
            inner = Source(start.path, start.line, start.column + m.start(1) + int(quoted))
            try:
                tree = parse(_unescape(m.group(1)), inner, start="expr")
            except DslSyntaxError as e:
                self.c.report.error(e.source, "E204",
                                    f"bad expression in text: {{{m.group(1)}}}: {e.message}",
                                    e.hint)
            else:
                (outer, self.src), (saying, self.saying) = (self.src, inner), (self.saying, False)
                parts.append(self.expr(tree))
                self.src, self.saying = outer, saying
            pos = m.end()
        if pos < len(text):
            parts.append(_unescape(text[pos:]))
        if all(isinstance(p, str) for p in parts):
            return ("const", "".join(parts))
        return ("fmt", parts)


def _token_named(node, name: str):
    """The token spelling `name` inside `node` (to point at one item of a list), else `node`."""
    if isinstance(node, Token):
        return node
    for tok in node.scan_values(lambda v: isinstance(v, Token)):
        if str(tok) == name:
            return tok
    return node


def _unquote(tok) -> str:
    s = str(tok)
    return _unescape(s[1:-1]) if s.startswith('"') else s


def _unescape(s: str) -> str:
    return s.replace('\\"', '"')


# What an instruction yields, when that does not depend on its operands.
