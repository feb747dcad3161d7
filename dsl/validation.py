"""Checks content data against its schema models, reporting each problem in place.

An unknown field is reported at its key, a wrong value at the value itself, a
missing field at the key that was probably misspelt. A card's own fields are
checked against the pack's `card_fields:` declarations in dsl/fields.py.
"""

from __future__ import annotations

import json
import re
import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .diagnostics import NUMBER_WORDS, Report, closest, did_you_mean
from .fields import check_card_fields
from .fields import show as _show
from .yamlsource import YamlFile, plain

__all__ = ["check_card_fields", "read_cards", "validate"]


def validate(model: type[BaseModel], f: YamlFile, report: Report, data: Any = None,
             prefix: tuple = ()) -> Any:
    """Validate `data` (default: the whole file) against a schema model."""
    data = f.data if data is None else data
    try:
        return model.model_validate(plain(data))
    except ValidationError as e:
        problems = [_Problem(model, data, err) for err in e.errors()]
        extras = {(p.path[:-1], p.path[-1]) for p in problems if p.kind == "extra_forbidden"}
        reported: set[tuple] = set()
        for p in _fitting(problems):
            if p.path in reported:
                continue  # one message per spot (a union may fail in several ways)
            reported.add(p.path)
            _report(p, f, report, prefix, extras)
        return None


class _Problem:
    """One pydantic error, with its location split into the data path and union branches."""

    def __init__(self, model: type, data: Any, err: dict) -> None:
        self.err = err
        self.kind = err["type"]
        self.fits = True
        self.union: tuple | None = None  # data path where a union branch was taken
        self.choices: list = []  # the union's members there
        path: list = []
        tp: Any = model
        self.parent_type: Any = None
        node = data
        for part in err["loc"]:
            members = _union_members(tp)
            if members and (not isinstance(node, dict) or part not in node):
                branch = next((m for m in members if _tag(m) == str(part).split("[")[0]), None)
                if branch is not None:
                    self.union, self.choices = tuple(path), members
                    self.fits = self.fits and _shape_fits(branch, node)
                    tp = branch
                    continue
            self.parent_type = tp
            path.append(part)
            tp = _child_type(tp, part)
            node = node.get(part) if isinstance(node, dict) else (
                node[part] if isinstance(node, list) and isinstance(part, int)
                and part < len(node) else None)
        self.path = tuple(path)
        self.value = node

    @property
    def field(self) -> str:
        return ".".join(str(p) for p in self.path) or "(file)"


def _fitting(problems: list[_Problem]) -> list[_Problem]:
    """Of a union's failed branches, keep those that match the shape of the data."""
    fitting_unions = {p.union for p in problems if p.union is not None and p.fits}
    return [p for p in problems if p.fits or p.union not in fitting_unions]


def _report(p: _Problem, f: YamlFile, report: Report, prefix: tuple, extras: set) -> None:
    loc = prefix + p.path
    if p.kind == "extra_forbidden":
        allowed = _fields(p.parent_type)
        hint = did_you_mean(str(p.path[-1]), allowed) or (
            f"allowed fields: {', '.join(allowed)}" if allowed else "")
        report.error(f.key_source(*loc), "E102", f"unknown field '{p.path[-1]}'", hint)
    elif p.kind == "missing" and isinstance(p.path[-1], str):
        _report_missing(p, f, report, prefix, extras)
    elif p.kind == "missing":
        size = len(get_args(p.parent_type)) if get_origin(p.parent_type) is tuple else 0
        report.error(f.value_source(*loc[:-1]), "E103",
                     f"{_dotted(p.path[:-1])}: missing item {p.path[-1] + 1}",
                     f"this list takes {size} items" if size else "give every item of the list")
    elif not p.fits and p.union is not None:
        report.error(f.value_source(*loc[:len(prefix) + len(p.union)]), "E104",
                     f"{_dotted(p.union)}: {_unexpected(p)}", "")
    else:
        message, hint = _wrong_value(p)
        report.error(f.value_source(*loc), "E104", f"{p.field}: {message}", hint)


def _report_missing(p: _Problem, f: YamlFile, report: Report, prefix: tuple,
                    extras: set) -> None:
    name, parent = str(p.path[-1]), p.path[:-1]
    node = f.node(*prefix, *parent)
    keys = [str(k) for k in node] if isinstance(node, dict) else []
    strangers = [k for k in keys if k not in _fields(p.parent_type)]
    near = closest(name, strangers, cutoff=0.75)  # stricter: `state` is no typo of `title`
    if near is not None and (parent, near) in extras:
        return  # the unknown field's "did you mean" says it all
    if near is not None:
        report.error(f.key_source(*prefix, *parent, near), "E103",
                     f"missing field '{_dotted(p.path)}'",
                     f"`{near}` is not a field: did you mean `{name}`?")
        return
    where = f.key_source(*prefix, *parent) if prefix + parent else f.start_source()
    report.error(where, "E103", f"missing field '{_dotted(p.path)}'", f"add `{name}:`")


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path) or "(file)"


_SHAPES = {
    "int_parsing": "a whole number", "int_type": "a whole number", "int_from_float":
    "a whole number", "float_parsing": "a number", "float_type": "a number",
    "string_type": "text", "bool_parsing": "true or false", "bool_type": "true or false",
    "list_type": "a list ([a, b] or `- item` lines)", "tuple_type": "a list",
    "dict_type": "a mapping (`key: value` lines)", "model_type": "a mapping (`key: value` lines)",
    "model_attributes_type": "a mapping (`key: value` lines)",
}


def _wrong_value(p: _Problem) -> tuple[str, str]:
    err = p.err
    if err["type"] in _SHAPES:
        return f"expected {_SHAPES[err['type']]}, got {_show(err['input'])}", _shape_hint(p)
    if err["type"] == "literal_error":
        allowed = re.findall(r"'([^']*)'", err.get("ctx", {}).get("expected", ""))
        got = str(err["input"])
        return (f"{_show(err['input'])} is not one of {', '.join(allowed)}",
                did_you_mean(got, allowed))
    return f"{err['msg']} (got {_show(err['input'])})", _range_hint(p)


_BOUNDS = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}


def _range_hint(p: _Problem) -> str:
    """A number outside its field's bounds: the bounds, as the field declares them (e.g.
    "`copies` is a whole number from 1 to 100")."""
    if p.err["type"] not in ("greater_than_equal", "greater_than", "less_than_equal",
                             "less_than") or not p.path:
        return ""
    fields = getattr(p.parent_type, "model_fields", {})
    info = fields.get(str(p.path[-1])) if isinstance(fields, dict) else None
    bounds = {name: getattr(m, name) for m in (info.metadata if info else ())
              for name in _BOUNDS if getattr(m, name, None) is not None}
    if set(bounds) == {"ge", "le"}:
        number = "a whole number" if info is not None and info.annotation is int else "a number"
        return f"`{p.path[-1]}` is {number} from {bounds['ge']} to {bounds['le']}"
    told = " and ".join(f"{_BOUNDS[name]} {value}" for name, value in bounds.items())
    return f"`{p.path[-1]}` is {told}" if told else ""


def _shape_hint(p: _Problem) -> str:
    """The value as it would fit: a number in digits, one text where a list of one was
    written, a list where one text was."""
    got, kind, name = p.err["input"], p.err["type"], p.path[-1] if p.path else ""
    if kind in ("int_parsing", "int_type", "float_parsing") \
            and str(got).lower() in NUMBER_WORDS:
        return f"write the number in digits: `{NUMBER_WORDS[str(got).lower()]}`"
    if kind == "string_type" and isinstance(got, list) and len(got) == 1 \
            and isinstance(got[0], str):
        return f"one value, not a list: `{name}: {_yaml_text(got[0])}`"
    if kind == "list_type" and isinstance(got, str):
        return f"a list, even of one: `{name}: [{_yaml_text(got)}]`"
    return ""


def _yaml_text(text: str) -> str:
    """A text as YAML writes it: bare if it is a plain word, else quoted."""
    return text if re.fullmatch(r"[A-Za-z_][\w-]*", text) else json.dumps(text)


def _unexpected(p: _Problem) -> str:
    wanted = dict.fromkeys(_describe(m) for m in p.choices)
    return f"expected {' or '.join(wanted)}, got {_show(p.value)}"


def _describe(tp: Any) -> str:
    origin = get_origin(tp) or tp
    if isinstance(origin, type) and (issubclass(origin, BaseModel) or origin is dict):
        return "a mapping"
    if origin in (list, tuple):
        return "a list"
    return {str: "text", int: "a whole number", bool: "true or false",
            float: "a number"}.get(origin, str(tp))


# ---- walking the models' type annotations ---------------------------------------
def _union_members(tp: Any) -> list:
    if get_origin(tp) in (Union, types.UnionType):
        return [m for m in get_args(tp) if m is not type(None)]
    return []


def _tag(tp: Any) -> str:
    """The name pydantic gives a union branch in an error location."""
    origin = get_origin(tp)
    if origin is Literal:
        return "literal"
    return getattr(origin or tp, "__name__", str(tp))


def _shape_fits(tp: Any, node: Any) -> bool:
    origin = get_origin(tp) or tp
    mapping = isinstance(origin, type) and (issubclass(origin, BaseModel) or origin is dict)
    sequence = origin in (list, tuple)
    if isinstance(node, dict):
        return mapping
    if isinstance(node, list):
        return sequence
    return not mapping and not sequence


def _child_type(tp: Any, part: Any) -> Any:
    members = _union_members(tp)
    if len(members) == 1:
        tp = members[0]
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(str(part))
        return field.annotation if field is not None else None
    origin, args = get_origin(tp), get_args(tp)
    if origin is dict and len(args) == 2:
        return args[1]
    if origin in (list, tuple) and args:
        return args[part] if origin is tuple and isinstance(part, int) and part < len(args) \
            else args[0]
    return None


def _fields(tp: Any) -> list[str]:
    members = _union_members(tp)
    if len(members) == 1:
        tp = members[0]
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return list(tp.model_fields)
    return []


def read_cards(f: YamlFile, list_model: type[BaseModel], card_model: type[BaseModel],
               report: Report) -> list[tuple[Any, YamlFile, Any]]:
    """The cards of one file, as (card, file, YAML node): a list file or a one-card file."""
    if isinstance(f.data, dict) and "cards" in f.data:
        listing = validate(list_model, f, report)
        if listing is None:
            return []
        return [(card, f, f.data["cards"][i]) for i, card in enumerate(listing.cards)]
    card = validate(card_model, f, report)
    return [(card, f, f.data)] if card is not None else []
