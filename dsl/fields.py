"""Declared fields of cards and locations, each value checked in place; suspicious words.

pack.yaml declares the fields a card may have besides its own (`card_fields:`) and, per
kind of location, the properties its locations may have (`board_fields:`); a mod's
`setup:` may add to both. A declaration gives a type (`int`, `str`, `name`, or `list`
of `items`), the allowed `values`, `kind_of: KIND` (the value is the id of a location of
that kind), whether the field is `optional`, and for cards the `kinds` that have it.

Diagnostic codes (docs/diagnostics.md):
  E102  a field that is not declared (a card's, or a location's of a declared kind)
  E103  a required (`optional: false`) field is missing
  E104  a value of the wrong type, not among `values`, not a location of the `kind_of`
        kind, a list where one value is expected, or one value where a list is
  E108  `kind_of` or `board_fields` names a kind of location the board does not have
  E130  a declaration that cannot hold together (`items` on a field that is no list,
        a value of `values` of another type, `kind_of` on numbers, a built-in field)
  W101  a plain `none`, `yes`, `no`, `on`, `off`, `y` or `n`: YAML 1.2 reads it as text
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..schemas.content import FieldDef
from .diagnostics import Report, Source, closest, did_you_mean

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES = {"int": "a whole number", "str": "text", "name": "a name (letters, digits, '_')"}
_PLURALS = {"int": "whole numbers", "str": "texts", "name": "names"}
CARD_OWN = ("number", "title", "copies", "kind", "text", "event", "option")
LOCATION_OWN = ("id", "name", "support")

# Where a value sits: `at(None)` is the value itself, `at(i)` its item i.
Spot = Callable[[int | None], Source]


def items_type(spec: FieldDef) -> str:
    return spec.items or "str"


def describe(spec: FieldDef) -> str:
    """How a declaration reads in a hint: `int`, `list of name`."""
    return f"list of {items_type(spec)}" if spec.type == "list" else spec.type


def _fits(type_: str, value: Any) -> bool:
    if type_ == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ == "name":
        return isinstance(value, str) and NAME.fullmatch(value) is not None
    return isinstance(value, str)


def show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _listing(words: Iterable[Any], most: int = 12) -> str:
    words = [str(w) for w in words]
    return ", ".join(words[:most]) + (", ..." if len(words) > most else "")


# ---- one value against its declaration ---------------------------------------------
def check_value(name: str, spec: FieldDef, value: Any, at: Spot, report: Report,
                section: str, places: dict[str, list[str]], owner: str = "") -> None:
    """Report (E104) each way `value` breaks the declaration of field `name`.

    `owner` (a location's id) starts the messages: `AK.ev: ...`."""
    declared = f"`{name}` is declared as {describe(spec)} under `{section}:`"
    label = f"{owner}.{name}" if owner else name
    if spec.type == "list":
        if not isinstance(value, list):
            hint = (f"write [{value}] for a list of one" if not isinstance(value, dict)
                    else declared)
            report.error(at(None), "E104", f"{label}: expected a list of "
                         f"{_PLURALS[items_type(spec)]}, got {show(value)}", hint)
            return
        for i, item in enumerate(value):
            _check_one(f"{label}[{i}]", spec, items_type(spec), item, at(i), report,
                       declared, places)
        return
    if isinstance(value, list | dict):
        report.error(at(None), "E104", f"{label}: expected {_TYPES[spec.type]}, got "
                     f"{show(value)}", f"{declared}, one value; to allow several, declare it "
                     f"{{type: list, items: {spec.type}}}")
        return
    _check_one(label, spec, spec.type, value, at(None), report, declared, places)


def _check_one(label: str, spec: FieldDef, type_: str, value: Any, where: Source,
               report: Report, declared: str, places: dict[str, list[str]]) -> None:
    if not _fits(type_, value):
        report.error(where, "E104", f"{label}: expected {_TYPES[type_]}, got {show(value)}",
                     declared)
        return
    allowed = allowed_values(spec, places)
    if allowed is not None and value not in allowed:
        what = (f"a location of kind '{spec.kind_of}'" if spec.kind_of and not spec.values
                else f"one of {_listing(allowed)}")
        report.error(where, "E104", f"{label}: {show(value)} is not {what}",
                     did_you_mean(str(value), allowed) or f"{declared}; allowed: "
                     f"{_listing(allowed)}")


def allowed_values(spec: FieldDef, places: dict[str, list[str]]) -> list | None:
    """The values a field (or each element) may take; None: any of its type.

    With `kind_of`, the ids of that kind's locations (if the board has the kind) and
    then the declared `values`."""
    if spec.kind_of is not None:
        if spec.kind_of not in places:
            return None  # reported at the declaration (E108)
        return [*places[spec.kind_of], *(spec.values or [])]
    return spec.values


# ---- declarations -----------------------------------------------------------------
def check_declaration(name: str, spec: FieldDef, own: Iterable[str], at: Callable[..., Source],
                      report: Report, kinds: Iterable[str] | None) -> None:
    """A declaration that can hold together (E130); its `kind_of` on the board (E108).

    `at(*keys)` is where a part of the declaration is written; `kinds` are the board's
    kinds of location (None: not known, not checked)."""
    if name in own:
        report.error(at(), "E130", f"'{name}' is a field every one has; it cannot be declared",
                     f"these are built in: {', '.join(own)}; choose another name")
    if spec.items is not None and spec.type != "list":
        report.error(at("items"), "E130", f"{name}: `items` is for list fields, but its type "
                     f"is {spec.type}", f"write `type: list` for a list of {spec.items}")
    element = items_type(spec) if spec.type == "list" else spec.type
    if spec.kind_of is not None and element == "int":
        report.error(at("kind_of"), "E130", f"{name}: `kind_of` names locations, but the "
                     "field holds whole numbers", "give it `type: name` (or a list of names)")
    for i, value in enumerate(spec.values or []):
        if not _fits(element, value):
            report.error(at("values", i), "E130", f"{name}: the allowed value {show(value)} "
                         f"is not {_TYPES[element]}", f"the field is declared as "
                         f"{describe(spec)}")
    if spec.kind_of is not None and kinds is not None and spec.kind_of not in kinds:
        kinds = list(kinds)
        report.error(at("kind_of"), "E108", f"{name}: '{spec.kind_of}' is not a kind of "
                     "location", did_you_mean(spec.kind_of, kinds)
                     or f"kinds on the board: {', '.join(kinds)}")


# ---- cards --------------------------------------------------------------------------
def check_card_fields(fields: dict[str, Any], cards: list[tuple[Any, Any, Any]],
                      report: Report, places: dict[str, list[str]] | None = None) -> None:
    """Check each card's own fields against the pack's `card_fields:` declarations.

    `cards` holds (card model, file, YAML node) triples; `places` the location ids by
    kind (for `kind_of`). Undeclared fields are allowed when the pack declares none."""
    for card, f, node in cards:
        if not isinstance(node, CommentedMap):
            continue
        own = list(type(card).model_fields)
        for key in node:
            if key in own:
                continue
            spec = fields.get(key)
            warn_plain_words(f, node, key, report, spec.values if spec else None)
            if fields:
                _known_field(card, f, node, key, spec, [*own, *fields], report)
        for name, spec in fields.items():
            if spec.kinds is None or card.kind in spec.kinds:
                _check_card_field(name, spec, node, f, report, places or {})


def _known_field(card: Any, f: Any, node: CommentedMap, key: str, spec: Any,
                 names: list[str], report: Report) -> None:
    line, col = node.lc.key(key)
    where = Source(f.display, line + 1, col + 1)
    if spec is None:
        report.error(where, "E102", f"unknown field '{key}'", did_you_mean(str(key), names)
                     or "declare it under `card_fields:` in pack.yaml")
    elif spec.kinds is not None and card.kind not in spec.kinds and node[key] is not None:
        report.error(where, "E102", f"unknown field '{key}' of a {card.kind} card",
                     f"`{key}` is declared for {', '.join(spec.kinds)} cards only "
                     "(`kinds:` under `card_fields:`)")


def _check_card_field(name: str, spec: Any, node: CommentedMap, f: Any, report: Report,
                      places: dict[str, list[str]]) -> None:
    if name not in node or node[name] is None:
        if not spec.optional:
            line, col = node.lc.key(next(iter(node)))
            report.error(Source(f.display, line + 1, col + 1), "E103",
                         f"missing field '{name}'", f"add `{name}:`")
        return
    check_value(name, spec, node[name], lambda i: node_spot(f, node, name, i), report,
                "card_fields", places)


def node_spot(f: Any, node: CommentedMap, key: str, item: int | None = None) -> Source:
    """Where `node[key]` (or its item `item`) is written in file `f`."""
    line, col = node.lc.value(key)
    value = node[key]
    if item is not None and isinstance(value, CommentedSeq) and item < len(value):
        line, col = value.lc.item(item)
    return Source(f.display, line + 1, col + 1)


# ---- locations ----------------------------------------------------------------------
# Where a part of a location is written: (kind, index, id, field, item, at_key) -> Source.
BoardSpot = Callable[[str, int, str, str, int | None, bool], Source]


def check_board_fields(declared: dict[str, dict[str, FieldDef]], locations: dict[str, list],
                       at: BoardSpot, report: Report) -> None:
    """Each location of a declared kind has only declared fields, of the declared types."""
    places = {kind: [loc.id for loc in items] for kind, items in locations.items()}
    for kind, fields in declared.items():
        section = f"board_fields: {kind}"
        names = [*LOCATION_OWN, *fields]
        for i, loc in enumerate(locations.get(kind, [])):
            extras = dict(loc.model_extra or {})
            strangers = [key for key in extras if key not in fields]
            for key in strangers:
                report.error(at(kind, i, loc.id, key, None, True), "E102",
                             f"unknown field '{key}' of {kind} location '{loc.id}'",
                             did_you_mean(key, names)
                             or f"declare it under `{section}:` in pack.yaml")
            for name, spec in fields.items():
                value = extras.get(name)
                if value is None:
                    # a misspelt key was reported above, with this name as its hint
                    if not spec.optional and closest(name, strangers, cutoff=0.75) is None:
                        report.error(at(kind, i, loc.id, "id", None, True), "E103",
                                     f"{loc.id}: missing field '{name}'", f"add `{name}:`")
                    continue
                check_value(name, spec, value,
                            lambda j, k=kind, n=i, c=loc.id, m=name: at(k, n, c, m, j, False),
                            report, section, places, loc.id)


# ---- words YAML 1.2 reads as text ---------------------------------------------------
SUSPICIOUS = {"none", "None", "yes", "Yes", "no", "No", "on", "On", "off", "Off", "y", "n"}


def warn_plain_words(f: Any, parent: Any, key: Any, report: Report,
                     allowed: Iterable[Any] | None = None) -> None:
    """W101 for each plain (unquoted) `none`, `yes`, `no`... in `parent[key]`, nested too.

    YAML 1.2 reads them as text, though `none` is meant as no value more often than
    not. Values the field declares as allowed are meant as text and not warned."""
    allowed = set(allowed or ())
    todo = [(parent, key)]
    while todo:
        node, k = todo.pop()
        value = node[k]
        if isinstance(value, CommentedMap):
            todo.extend((value, sub) for sub in value)
        elif isinstance(value, CommentedSeq):
            todo.extend((value, i) for i in range(len(value)))
        elif isinstance(value, str) and value in SUSPICIOUS and value not in allowed:
            where = _plain_at(f, node, k, value)
            if where is not None:
                report.warn(where, "W101", f"`{value}` is read as the text \"{value}\"",
                            _meaning(value))


def _plain_at(f: Any, node: Any, key: Any, value: str) -> Source | None:
    """Where the scalar is, if it is written plain (a quoted one starts with a quote)."""
    try:
        line, col = node.lc.item(key) if isinstance(node, CommentedSeq) else node.lc.value(key)
    except (AttributeError, KeyError, IndexError, TypeError):
        return None
    text = f.lines[line] if line < len(f.lines) else ""
    if text[col:col + len(value)] != value:
        return None
    return Source(f.display, line + 1, col + 1)


def _meaning(word: str) -> str:
    if word.lower() == "none":
        return f"write `null` for no value, or quote it (\"{word}\") if you mean the text"
    return (f"write `true` or `false` for a yes/no value, or quote it (\"{word}\") if you "
            "mean the text")
