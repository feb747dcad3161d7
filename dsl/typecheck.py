"""Compile-time type checks of effect text (E320, E321, E323).

A light, conservative check: only values whose kind the compiler can see
(constants, counts, comparisons, lists, a local name bound once to one of
those) are checked; anything computed at run time (a parameter, a function's
result) passes. Mixed into the compiler's unit, whose `expr`, `error`, `sym`
and `local_kinds` it uses.
"""

from __future__ import annotations

from typing import Any

from lark import Tree

from .diagnostics import did_you_mean

# Statements that bind a local name, and which of their children is the name.
_BINDERS = {"let_stmt": 0, "set_stmt": 0, "for_stmt": 0, "for_range_stmt": 0,
            "choose_value_stmt": 2, "option_for": 0}


def rebound_names(tree: Tree) -> set[str]:
    """Local names bound more than once in a text: their kind may change, so none is
    assumed (a loop can reach a use after a later binding of another kind)."""
    seen: set[str] = set()
    again: set[str] = set()
    for t in tree.iter_subtrees():
        k = _BINDERS.get(t.data)
        if k is not None and len(t.children) > k:
            n = str(t.children[k])
            (again if n in seen else seen).add(n)
    return again


class TypeChecks:
    # A light, conservative check: only values whose kind the compiler can see
    # (constants, counts, comparisons, lists) are checked; anything computed at
    # run time (a variable, a function's result) passes.
    def kind_of(self, e: tuple) -> str | None:
        """'number', 'text', 'truth value', 'player', 'place:KIND', 'place', 'list',
        'pool', 'zone', 'none', or None when it cannot be known before the game runs."""
        op = e[0]
        if op == "const":
            return self._const_kind(e[1])
        if op == "var":
            return getattr(self, "local_kinds", {}).get(e[1])
        if op == "attr":
            return self._property_kind(e[1], e[2])
        if op == "arith":
            if e[1] != "+":
                return "number"
            kinds = {self.kind_of(e[2]), self.kind_of(e[3])}
            return "list" if "list" in kinds else ("number" if "number" in kinds else None)
        if op == "call":
            return _MAP_CALL_KINDS.get(e[1])
        return _OP_KINDS.get(op)

    def _property_kind(self, prop: str, subject: tuple) -> str | None:
        """`PROP of X` is a place of one kind when every value of PROP names such a place:
        on places if X is a place, on cards if X is a card number, on both if not known."""
        of = self.kind_of(subject) or ""
        on_places = self.sym.place_properties.get(prop)
        on_cards = self.sym.card_properties.get(prop)
        if of.startswith("place"):
            kind = on_places
        elif of == "number":
            kind = on_cards
        elif on_places is None or on_cards is None:
            kind = on_places if on_cards is None else on_cards
        else:
            kind = on_places if on_places == on_cards else None
        return "place:" + kind if kind else None

    def element_kind(self, e: tuple) -> str | None:
        """The kind of every item of a list, when the compiler can see it: `states`,
        `[CT, MA]`, `players`, `states where ...`, `held(POOL, P)`."""
        if e[0] == "where":
            return self.element_kind(e[1])
        if e[0] == "comp":
            return self._comprehension_kind(e)
        if (e[0] == "call" and e[1] in ("held", "empty") and e[2] and e[2][0][0] == "const"
                and isinstance(e[2][0][1], str)):  # a pool's name (a list is no pool)
            kind = self.sym.pools.get(e[2][0][1])
            return "place:" + kind if kind else None
        if e[0] == "call" and e[1] in ("neighbours", "path") and self.sym.map_kind:
            return "place:" + self.sym.map_kind  # places of the map, in board order
        if e[0] != "const" or not isinstance(e[1], list) or not e[1]:
            return None
        kinds = {self._const_kind(v) for v in e[1]}
        if len(kinds) == 1:
            return kinds.pop()
        return "place" if all(k.startswith("place") for k in kinds) else None

    def _comprehension_kind(self, e: tuple) -> str | None:
        """A comprehension's items are its element's kind, its name standing for an item of
        the list it runs over (`[region of s for s in states]`: regions)."""
        _, name, src, value, _ = e
        kinds = self.local_kinds
        outer = kinds.pop(name, None)
        inner = self.element_kind(src)
        if inner is not None:
            kinds[name] = inner
        try:
            return self.kind_of(value)
        finally:
            kinds.pop(name, None)
            if outer is not None:
                kinds[name] = outer

    def _const_kind(self, v: Any) -> str:
        sym = self.sym
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "truth value"
        if isinstance(v, int):
            return "number"
        if isinstance(v, list):
            return "list"
        if v in sym.players:
            return "player"
        if v in sym.locations:
            return "place:" + str(sym.locations[v]["kind"])
        if v in sym.pools:
            return "pool"
        if v in sym.zones:
            return "zone"
        return "text"

    def expect(self, node, e: tuple, what: str, *wanted: str) -> None:
        """Report E320 if `e` is known to be none of the `wanted` kinds."""
        got = self.kind_of(e)
        if got is None or got == "none" or any(_fits(got, w) for w in wanted):
            return
        self.error(node, "E320", f"type mismatch: {what} must be {want(wanted[0])}, "
                   f"not {self.show(e, got)}", self._type_hint(wanted[0], e))

    def map_arguments(self, name, n: str, nodes: list, es: list[tuple]) -> None:
        """A map builtin needs a map (E340), and its arguments are places of the map's kind."""
        kind = self.sym.map_kind
        if kind is None:
            self.error(name, "E340", f"{n}() reads the board's map, and the board declares "
                       "none", "declare one in board.yaml: `map: {kind: KIND, links: [[A, B], "
                       "...]}` (docs/dsl.md, section 2.2)")
            return
        for node, e in zip(nodes, es, strict=False):
            self.expect(node, e, f"what {n}() is given", "place:" + kind)

    def condition(self, node, what: str) -> tuple:
        """The condition of an `if` or `elif`, compiled, and E323 for a constant among
        its parts (the sides of its `and` and `or`, what its `not` turns). Any value may
        be a condition (0, none, an empty list or text are false), but a constant's truth
        never changes: `turn == 3 or 4` always holds."""
        self._fixed_truth(node, what)
        return self.expr(node)

    def _fixed_truth(self, node, what: str, other=None) -> None:
        data = node.data if isinstance(node, Tree) else None
        if data in ("or_", "and_"):
            word = data[:-1]
            for side in node.children:
                self._fixed_truth(side, f"a side of `{word}`",
                                  node.children[0] if word == "or" else None)
            return
        if data == "not_":
            self._fixed_truth(node.children[0], "what `not` turns")
            return
        if data not in ("number", "string", "name"):
            return  # a comparison, a call, a property ...: its value can change
        name = str(node.children[0]) if data == "name" else ""
        if name and name not in self.sym.locations and name not in self.sym.players:
            return  # a variable, a function of the pack ...: read, not compiled twice
        e = self.expr(node)
        if e[0] != "const" or isinstance(e[1], bool) or e[1] is None:
            return
        always = "true" if e[1] not in (0, "") else "false"
        hint = "a condition compares values (`==`, `<`, `in` ...) or reads one that changes"
        left = _equated(other) if other is not None and other is not node else None
        if left is not None:  # `X == A or B`
            value = f'"{e[1]}"' if self.kind_of(e) == "text" else str(e[1])
            hint = (f"each side of `or` is a condition of its own: `... or {left} == {value}`"
                    f", or both at once: `{left} in [..., {value}]`")
        self.error(node, "E323", f"{what} is {self.show(e, self.kind_of(e) or 'text')}, "
                   f"which is always {always}", hint)

    def number(self, node, what: str) -> tuple:
        e = self.expr(node)
        self.expect(node, e, what, "number")
        return e

    def player(self, node, what: str) -> tuple:
        e = self.expr(node)
        self.expect(node, e, what, "player")
        return e

    def items(self, node, what: str) -> tuple:
        e = self.expr(node)
        self.expect(node, e, what, "list")
        return e

    def cards(self, node, what: str) -> tuple:
        """A card or a list of cards: constants must be card numbers the pack has."""
        return self.cards_of(node, self.expr(node), what)

    def cards_of(self, node, e: tuple, what: str) -> tuple:
        """`cards`, of the expression `e` already compiled from `node`."""
        if e[0] == "list":
            nodes = [c for c in node.children if c is not None]
            for sub, item in zip(nodes, e[1], strict=False):
                self._card(sub, item, what)
        elif e[0] == "const" and isinstance(e[1], list):
            nodes = [c for c in node.children if c is not None] \
                if isinstance(node, Tree) and node.data == "list" else [node] * len(e[1])
            for sub, value in zip(nodes, e[1], strict=False):
                self._card(sub, ("const", value), what)
        else:
            self._card(node, e, what)
        return e

    def _card(self, node, e: tuple, what: str) -> None:
        if e[0] != "const" or e[1] is None:
            self.expect(node, e, what, "card", "number", "list")
            return
        v = e[1]
        if isinstance(v, bool) or not isinstance(v, int):
            self.expect(node, e, what, "card")
        elif self.sym.cards is not None and v not in self.sym.cards:
            numbers = sorted(self.sym.cards)
            self.error(node, "E321", f"there is no card {v}",
                       did_you_mean(str(v), numbers)
                       or f"card numbers run from {numbers[0]} to {numbers[-1]}" if numbers
                       else "")

    def _expect_thing(self, node, e: tuple, prop: str) -> None:
        """`PROP of X`: properties belong to places and cards."""
        got = self.kind_of(e)
        if got is not None and got not in ("none", "number", "text") \
                and not got.startswith("place"):
            self.error(node, "E320", f"type mismatch: `{prop} of` needs a place or a card, "
                       f"not {self.show(e, got)}", "properties belong to places and cards")
        elif got == "number" and e[0] == "const":
            self._card(node, e, f"`{prop} of`")

    def _expect_comparable(self, node, a: tuple, b: tuple, op: str) -> None:
        ka, kb = self.kind_of(a), self.kind_of(b)
        if ka is None or kb is None or "none" in (ka, kb) or "text" in (ka, kb):
            return  # text may be any name; none compares with anything
        if _family(ka) != _family(kb):
            self.error(node, "E320", f"type mismatch: `{op}` compares {self.show(a, ka)} "
                       f"with {self.show(b, kb)}", "the two sides can never be equal")

    def show(self, e: tuple, kind: str) -> str:
        if e[0] != "const":
            text = text_of(e)
            return f"`{text}` ({want(kind)})" if text else want(kind)
        v = e[1]
        if kind.startswith("place:"):
            return f"'{v}' (one of the {kind[6:]})"
        if kind in ("player", "pool", "zone"):
            return f"'{v}' ({want(kind)})"
        if kind == "text":
            return f'the text "{v}"'
        if kind == "number":
            return f"the number {v}"
        if kind == "truth value":
            return f"`{str(v).lower()}`"
        return want(kind)

    def _type_hint(self, wanted: str, e: tuple) -> str:
        sym = self.sym
        if wanted == "player":
            return f"players: {', '.join(sym.players)}"
        if wanted.startswith("place:"):
            kind = wanted[6:]
            places = sym.kinds.get(kind, [])
            near = did_you_mean(str(e[1]), places) if e[0] == "const" else ""
            example = f"one of the {kind}, such as `{places[0]}`" if places else ""
            got = self.kind_of(e) if e[0] == "attr" else None
            if got is not None and got.startswith("place:"):  # `region of s`: not a state
                return f"`{e[1]} of` gives one of the {got[6:]}; write {example}"
            if self.kind_of(e) == "list":
                return ("one place at a time: `for s in LIST:` with the statement for `s` "
                        "indented below it")
            return near or example
        if wanted == "place":
            return "a place on the board"
        if wanted == "list":
            got = self.kind_of(e) or ""
            one = (text_of(e) or (str(e[1]) if e[0] == "const" else "")) \
                if got.startswith("place") else ""
            if one:
                alone = f"`[{one}]` is a list of it alone"
                of_kind = got[6:] if got.startswith("place:") else ""
                for kind in sym.kinds if of_kind else ():  # `for s in west`: its states
                    prop = sym.property_of_kind(kind, of_kind)
                    if prop:
                        return (f"the {kind} of `{one}` are `{kind} where {prop} of it == "
                                f"{one}`; {alone}")
                return f"`{one}` is one place: {alone}"
            kind = next(iter(sym.kinds), None)
            example = f", a kind of place such as `{kind}`" if kind else ""
            return f"write a list `[a, b]`{example}, or `cards(ZONE)`"
        if wanted == "card":
            return "write the card's number"
        return "write a number, or an expression that counts something"


_OP_KINDS = {
    "neg": "number", "counter": "number", "support_of": "number", "support_at": "number",
    "effect": "number", "cmp": "truth value", "and": "truth value", "or": "truth value",
    "not": "truth value", "cards": "list", "list": "list", "where": "list", "track": "list",
    "comp": "list",
    "effect_list": "list", "as_list": "list", "fmt": "text", "opponent": "player",
    "zone": "zone", "token": "place",
}

# What the map's builtins give (interpreter/maps.py): `distance` may also be none.
_MAP_CALL_KINDS = {"adjacent": "truth value", "distance": "number", "neighbours": "list",
                   "path": "list"}

_WORDS = {
    "number": "a number", "text": "text", "truth value": "a truth value", "player": "a player",
    "place": "a place", "list": "a list", "pool": "a kind of support", "zone": "a zone of cards",
    "card": "a card number", "none": "none",
}


def _equated(node) -> str | None:
    """`X` of a parse tree `X == ...`, as written, when X is a name or `NAME of NAME` (read
    off the tree: compiling it again would count its calls twice); "X" for another X."""
    if not (isinstance(node, Tree) and node.data == "compare"
            and "".join(map(str, node.children[1].children)) == "=="):
        return None
    left = node.children[0]
    if isinstance(left, Tree) and left.data == "name":
        return str(left.children[0])
    if isinstance(left, Tree) and left.data == "prop" and isinstance(left.children[1], Tree) \
            and left.children[1].data == "name":
        return f"{left.children[0]} of {left.children[1].children[0]}"
    return "X"


def text_of(e: tuple) -> str:
    """A local name or `PROP of NAME` as it was written; "" for anything longer."""
    if e[0] in ("var", "global"):
        return e[1]
    if e[0] == "attr" and e[2][0] in ("var", "global"):
        return f"{e[1]} of {e[2][1]}"
    return ""


def want(kind: str) -> str:
    """How a kind reads in a message: "a number", "one of the states"."""
    if kind.startswith("place:"):
        return f"one of the {kind[6:]}"
    return _WORDS.get(kind, kind)


def _fits(got: str, wanted: str) -> bool:
    if got == wanted:
        return True
    if wanted == "place":
        return got.startswith("place")
    if wanted.startswith("place:"):
        return got == "place"  # a token's place: its kind is not known before the game
    return False


def _family(kind: str) -> str:
    """Kinds that may meet in `==`: any two places may be compared, not a place and a number."""
    return "place" if kind.startswith("place") else kind
