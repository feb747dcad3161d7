"""Reads content YAML safely, keeping the line and column of every node.

Problems are reported where the designer has to look: a YAML syntax error at
the line that breaks the structure, an unknown field at its key, a wrong value
at the value itself, a missing field at the key that was probably misspelt.
"""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from .diagnostics import Report, Source, closest, did_you_mean


class YamlFile:
    """One parsed file: its data (round-trip nodes that know their positions) and text."""

    def __init__(self, path: Path, display: str, data: Any, text: str) -> None:
        self.path = path
        self.display = display
        self.data = data
        self.lines = text.splitlines()

    def key_source(self, *keys) -> Source:
        """Position of the deepest key (or item) of `keys` that exists."""
        node, line, col = self.data, 0, 0
        for k in keys:
            if isinstance(node, CommentedMap) and k in node:
                line, col = node.lc.key(k)
                node = node[k]
            elif isinstance(node, CommentedSeq) and isinstance(k, int) and k < len(node):
                line, col = node.lc.item(k)
                node = node[k]
            else:
                break
        return Source(self.display, line + 1, col + 1)

    def value_source(self, *keys) -> Source:
        """Position of the value at `keys` (falls back to its key, then to the file's start)."""
        if not keys:
            return self.start_source()
        parent = self.node(*keys[:-1])
        last = keys[-1]
        if isinstance(parent, CommentedMap) and last in parent:
            line, col = parent.lc.value(last)
            return Source(self.display, line + 1, col + 1)
        if isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent):
            line, col = parent.lc.item(last)
            return Source(self.display, line + 1, col + 1)
        return self.key_source(*keys)

    def start_source(self) -> Source:
        """The first key of the file (not the comment lines above it)."""
        if isinstance(self.data, CommentedMap) and self.data:
            line, col = self.data.lc.key(next(iter(self.data)))
            return Source(self.display, line + 1, col + 1)
        for n, raw in enumerate(self.lines, start=1):
            if raw.strip() and not raw.lstrip().startswith("#"):
                return Source(self.display, n, len(raw) - len(raw.lstrip()) + 1)
        return Source(self.display)

    def node(self, *keys) -> Any:
        """The data at `keys`, or None if the path does not exist."""
        node = self.data
        for k in keys:
            if isinstance(node, dict) and k in node:
                node = node[k]
            elif isinstance(node, list) and isinstance(k, int) and k < len(node):
                node = node[k]
            else:
                return None
        return node

    def text_source(self, parent: CommentedMap, key: str) -> Source:
        """Where the text of a scalar value starts (inside a `|` block: its first line).

        The source also maps each file line of a block to its offset in the text,
        so an expression folded onto one line still points at the right line.
        """
        line, col = parent.lc.value(key)
        raw = self.lines[line] if line < len(self.lines) else ""
        rest = raw[col:].lstrip()
        if rest[:1] in ("|", ">"):
            return self._block_source(line, str(parent[key] or ""))
        quote = 1 if rest[:1] in ('"', "'") else 0
        return Source(self.display, line + 1, col + 1 + quote)

    def _block_source(self, indicator: int, value: str) -> Source:
        first = next((n for n in range(indicator + 1, len(self.lines))
                      if self.lines[n].strip()), None)
        if first is None:
            return Source(self.display, indicator + 2, 1)
        indent = len(self.lines[first]) - len(self.lines[first].lstrip())
        folds, pos = [], 0
        for n in range(first, len(self.lines)):
            body = self.lines[n]
            if body.strip() and len(body) - len(body.lstrip()) < indent:
                break  # the block has ended
            content = body[indent:].rstrip()
            if not content:
                continue
            found = value.find(content, pos)
            if found < 0:
                break
            folds.append((found, n + 1, indent + 1))
            pos = found + len(content)
        # Line 1 of the text is the line after the indicator (blank lines count).
        return Source(self.display, indicator + 2, indent + 1, tuple(folds))


# ---- reading --------------------------------------------------------------------
def read_yaml(path: Path, display: str, report: Report) -> YamlFile | None:
    try:
        raw = path.read_bytes()
    except OSError as e:
        hint = (f"is {path.parent} a pack folder? it needs a pack.yaml"
                if path.name == "pack.yaml" else
                "check the file name in pack.yaml (`board:`, `cards:`, `rules:`)")
        report.error(Source(display), "E100", f"cannot read file: {e.strerror}", hint)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        report.error(Source(display, line, col), "E100", "the file is not UTF-8 text",
                     "save the file as UTF-8")
        return None
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(text)
    except MarkedYAMLError as e:
        line, col, problem, hint = yaml_problem(e, text.splitlines())
        report.error(Source(display, line, col), "E101", f"YAML syntax: {problem}", hint)
        return None
    except Exception as e:  # any other parser failure is still the file's fault
        report.error(Source(display), "E101", f"YAML syntax: {e}")
        return None
    return YamlFile(path, display, data, text)


def yaml_problem(e: MarkedYAMLError, lines: list[str]) -> tuple[int, int, str, str]:
    """(line, column, problem, hint) of a YAML error, at the line the designer must fix."""
    problem = (e.problem or e.context or "invalid YAML").strip()
    context = (e.context or "").strip()
    mark = e.problem_mark or e.context_mark
    line, col = (mark.line, mark.column) if mark else (0, 0)
    cmark = e.context_mark
    hint = "check the indentation and that every `key:` has a value"

    def start_of(n: int) -> int:
        text = lines[n] if n < len(lines) else ""
        return len(text) - len(text.lstrip())

    if "'\\t'" in problem:
        problem = "a tab character"
        hint = "YAML indents with spaces only: replace the tab"
    elif problem.startswith("mapping values are not allowed"):
        prev = _previous_content_line(lines, line)
        if prev is not None and start_of(line) > start_of(prev):
            problem = "this line is indented more than the line above"
            col = start_of(line)
            hint = ("keys of one mapping start in the same column; to nest, end the "
                    "line above with `:` and nothing after it")
        else:
            problem = "a value contains ': '"
            hint = 'quote the value, e.g. title: "A: B"'
    elif problem.startswith("could not find expected ':'") and cmark is not None:
        line, col = cmark.line, cmark.column
        problem = "this line is not `key: value`"
        prev = _previous_content_line(lines, line)
        if prev is not None and re.search(r":\s*[|>][-+0-9]*\s*(#.*)?$", lines[prev]):
            hint = "the text of a `|` block must be indented under its key"
        else:
            hint = "add the missing `:`, or indent the line if it continues the one above"
    elif problem.startswith("expected <block end>"):
        col = start_of(line)
        problem = "this line's indentation matches no enclosing block"
        opened = f" (the block starts at line {cmark.line + 1})" if cmark else ""
        hint = f"line it up with the keys or `-` items it belongs to{opened}"
    elif "flow" in context and cmark is not None and cmark.line != line:
        line, col = cmark.line, cmark.column
        opener = lines[line][col] if line < len(lines) and col < len(lines[line]) else "["
        closer = {"[": "]", "{": "}"}.get(opener, "]")
        problem = f"`{opener}` is never closed"
        hint = f"close it with `{closer}`"
    elif "quoted scalar" in context and cmark is not None:
        line, col = cmark.line, cmark.column
        problem = "a quoted string is never closed"
        hint = "end it with the same quote it starts with"
    elif problem.startswith("found duplicate key") and cmark is not None:
        key = lines[line][col:].split(":")[0].strip() if line < len(lines) else ""
        first = _first_key_line(lines, cmark.line, key)
        problem = f"the key '{key}' appears twice" if key else problem
        hint = "a key may appear only once in a mapping" + (
            f" (it is first at line {first})" if first else "")
    if lines and line >= len(lines):  # past the end: show the last line instead
        line = len(lines) - 1
        col = len(lines[line])
    return line + 1, col + 1, problem, hint


def _previous_content_line(lines: list[str], line: int) -> int | None:
    for n in range(min(line, len(lines)) - 1, -1, -1):
        text = lines[n].strip()
        if text and not text.startswith("#"):
            return n
    return None


def _first_key_line(lines: list[str], start: int, key: str) -> int | None:
    key = key.strip()
    for n in range(start, len(lines)):
        if key and re.match(rf"\s*(- )?\{{?\s*{re.escape(key)}\s*:", lines[n]):
            return n + 1
    return None


# ---- validating against the schema models ------------------------------------
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
        return f"expected {_SHAPES[err['type']]}, got {_show(err['input'])}", ""
    if err["type"] == "literal_error":
        allowed = re.findall(r"'([^']*)'", err.get("ctx", {}).get("expected", ""))
        got = str(err["input"])
        return (f"{_show(err['input'])} is not one of {', '.join(allowed)}",
                did_you_mean(got, allowed))
    return f"{err['msg']} (got {_show(err['input'])})", ""


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


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


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


# ---- declared card fields ----------------------------------------------------------
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES = {"int": "a whole number", "str": "text", "name": "a name (letters, digits, '_')"}


def check_card_fields(fields: dict[str, Any], cards: list[tuple[Any, YamlFile, Any]],
                      report: Report) -> None:
    """Check each card's own fields against the pack's `card_fields:` declarations.

    `cards` holds (card model, file, YAML node) triples. Nothing is checked when
    the pack declares no card fields.
    """
    if not fields:
        return
    for card, f, node in cards:
        if not isinstance(node, CommentedMap):
            continue
        base = list(type(card).model_fields)
        for key in node:
            if key not in fields and key not in base:
                line, col = node.lc.key(key)
                report.error(Source(f.display, line + 1, col + 1), "E102",
                             f"unknown field '{key}'",
                             did_you_mean(str(key), [*base, *fields])
                             or "declare it under `card_fields:` in pack.yaml")
        for name, spec in fields.items():
            _check_card_field(name, spec, node, f, report)


def _check_card_field(name: str, spec: Any, node: CommentedMap, f: YamlFile,
                      report: Report) -> None:
    if name not in node or node[name] is None:
        if not spec.optional:
            line, col = node.lc.key(next(iter(node)))
            report.error(Source(f.display, line + 1, col + 1), "E103",
                         f"missing field '{name}'", f"add `{name}:`")
        return
    value = node[name]
    line, col = node.lc.value(name)
    where = Source(f.display, line + 1, col + 1)
    ok = {"int": isinstance(value, int) and not isinstance(value, bool),
          "str": isinstance(value, str),
          "name": isinstance(value, str) and bool(_NAME.fullmatch(value))}[spec.type]
    if not ok:
        report.error(where, "E104", f"{name}: expected {_TYPES[spec.type]}, got {_show(value)}",
                     f"`{name}` is declared as {spec.type} under `card_fields:`")
    elif spec.values is not None and value not in spec.values:
        report.error(where, "E104", f"{name}: {_show(value)} is not one of "
                     f"{', '.join(spec.values)}", did_you_mean(str(value), spec.values))


def plain(data: Any) -> Any:
    """Round-trip nodes to plain dicts and lists."""
    if isinstance(data, dict):
        return {str(k): plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data


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
