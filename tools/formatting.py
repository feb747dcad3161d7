"""Canonical layout of content YAML, for `hustings fmt`.

ruamel.yaml's round-trip mode keeps comments, blank lines, quoting and the flow
or block style of every node. On top of it this module puts the keys of each
kind of content file in a fixed order, writes null as `null`, keeps the line
breaks authors put inside long flow lists (re-aligned under the first item) and
never re-wraps text. A result that would read back as other data, or that lost a
comment, is refused: the file is then left as it is.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import CollectionStartEvent, MappingEndEvent, SequenceEndEvent
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.serializer import Serializer
from ruamel.yaml.tokens import AnchorToken, CommentToken

from ..dsl.yamlsource import plain
from ..schemas.content import Board, Function, PackManifest, Procedure, RulesFile
from ..schemas.export import DEFAULT_FOLDER as SCHEMA_FOLDER
from ..schemas.scenario import Scenario


class FormatError(Exception):
    """The file cannot be laid out safely; it is left untouched."""


# ---- key order per kind of file ---------------------------------------------
@dataclass(frozen=True)
class KeyOrder:
    """`head` keys first, `tail` keys last, every other key between in its own order."""

    head: tuple[str, ...]
    tail: tuple[str, ...] = ()

    def arrange(self, keys: list[Any]) -> list[Any]:
        fixed = set(self.head) | set(self.tail)
        middle = [k for k in keys if k not in fixed]
        return [k for k in self.head if k in keys] + middle + [k for k in self.tail if k in keys]


def fields_of(model: type[BaseModel]) -> KeyOrder:
    """The order of a schema model's fields, which is the order the pack's files use."""
    return KeyOrder(tuple(model.model_fields))


# `replaces` (a mod's card standing in for a pack card) belongs with the number.
CARD = KeyOrder(("number", "replaces", "title", "cp", "rest", "icon", "issue", "state",
                 "persistent"), ("text", "event"))
# Cards listed several to a file: identity first, prose last.
LISTED_CARD = KeyOrder(("number", "title", "kind", "option"), ("text", "event"))


def flags_first(model: type[BaseModel]) -> KeyOrder:
    """A rule's own fields last, in the model's order; any other key before them: the flags
    a mod writes beside a procedure's or function's name (`replaces:`, `extends:`) are read
    with the name, not after the body."""
    return KeyOrder((), tuple(model.model_fields))


ANY = "*"
# kind -> (path from the document root to the mappings, their order); ANY matches
# every item of a list or every value of a mapping.
ORDERS: dict[str, tuple[tuple[tuple[str, ...], KeyOrder], ...]] = {
    "card": (((), CARD),),
    "cardlist": ((("cards", ANY), LISTED_CARD),),
    "pack": (((), fields_of(PackManifest)),),
    "board": (((), fields_of(Board)),),
    "rules": (((), fields_of(RulesFile)), (("procedures", ANY), flags_first(Procedure)),
              (("functions", ANY), flags_first(Function))),
    "scenario": ((("scenarios", ANY), fields_of(Scenario)),),
}


def file_kind(path: Path, data: Any) -> str:
    """card, cardlist, pack, board, rules, scenario, mod or yaml (layout only)."""
    if path.name in ("pack.yaml", "mod.yaml"):
        return path.stem
    if not isinstance(data, dict):
        return "yaml"
    keys = set(data)
    if "scenarios" in keys:
        return "scenario"
    if isinstance(data.get("cards"), list):
        return "cardlist"
    if path.name == "board.yaml" or "locations" in keys:
        return "board"
    if path.parent.name == "rules" or (keys and keys <= {"procedures", "functions"}):
        return "rules"
    if path.parent.name == "cards" or {"number", "title"} <= keys:
        return "card"
    return "yaml"


def _select(node: Any, path: tuple[str, ...]) -> Iterator[Any]:
    if not path:
        yield node
        return
    head, rest = path[0], path[1:]
    if head == ANY:
        children = list(node.values()) if isinstance(node, dict) else (
            list(node) if isinstance(node, list) else [])
    else:
        children = [node[head]] if isinstance(node, dict) and head in node else []
    for child in children:
        yield from _select(child, rest)


def ordered_maps(data: Any, kind: str) -> Iterator[tuple[CommentedMap, KeyOrder]]:
    for path, order in ORDERS.get(kind, ()):
        for node in _select(data, path):
            if isinstance(node, CommentedMap) and node:
                yield node, order


# ---- which files are content -------------------------------------------------
SCHEMA_COMMENT = re.compile(r"#\s*yaml-language-server:\s*\$schema=(\S+)")


def content_root(path: Path) -> Path | None:
    """The nearest folder holding pack.yaml or mod.yaml around `path`."""
    for folder in path.resolve().parents:
        if (folder / "pack.yaml").is_file() or (folder / "mod.yaml").is_file():
            return folder
    return None


def is_content(path: Path) -> bool:
    """Inside a pack or mod folder, or naming one of the content schemas."""
    if path.name in ("pack.yaml", "mod.yaml") or content_root(path) is not None:
        return True
    try:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return False
    match = SCHEMA_COMMENT.match(first)
    return bool(match) and (SCHEMA_FOLDER / Path(match.group(1)).name).is_file()


def yaml_files(paths: list[Path]) -> list[Path]:
    """The YAML files among `paths` and under its folders (hidden folders skipped)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = [f for pattern in ("*.yaml", "*.yml") for f in p.rglob(pattern)]
            out += [f for f in found if f.is_file()
                    and not any(part.startswith(".") for part in f.relative_to(p).parts[:-1])]
        elif p.suffix in (".yaml", ".yml"):
            out.append(p)
    return sorted(dict.fromkeys(out))


# ---- the whole pipeline ------------------------------------------------------
def format_file(path: Path) -> tuple[str, str]:
    """(current text, canonical text) of one file."""
    text = path.read_text(encoding="utf-8")
    data = load(text)
    return text, format_text(text, file_kind(path, data), data)


def format_text(text: str, kind: str = "yaml", data: Any = None) -> str:
    """The canonical layout of `text` (`data`: `text` already loaded, if at hand)."""
    data = load(text) if data is None else data
    expected = plain(data)
    if not isinstance(data, (CommentedMap, CommentedSeq)):
        return _settle(text, [_tidy(text)], expected)
    ordered = _reorder_blocks(text, kind, data)
    if ordered is not text:
        data = load(ordered)
    for node, order in ordered_maps(data, kind):
        if node.fa.flow_style():
            for key in order.arrange(list(node)):
                node.move_to_end(key)
    _keep_anchors(data)
    dumped = _dump(data)
    if dumped != ordered:
        dumped = _align_comments(ordered, dumped)
    aligned = _keep_alignment(text, dumped)
    # Trailing spaces inside a block scalar are its text: then the untidied dump is used.
    return _settle(text, [_tidy(aligned), _tidy(dumped), dumped], expected)


def _keep_alignment(before: str, after: str) -> str:
    """The author's spacing inside a line, where the canonical line differs from theirs
    only by it: rows lined up by hand (`- {id: a,  name: "Alpha",   vp: 1}`) stay lined up.
    The indentation stays the canonical one (it is the layout), and the result is checked
    to read as the same data like any other candidate."""
    written: dict[str, list[str]] = {}
    for line in before.splitlines():
        written.setdefault(_spacing_free(line), []).append(line.strip())
    out = []
    for line in after.splitlines():
        same = written.get(_spacing_free(line)) if line.strip() else None
        out.append(" " * _indent(line) + same.pop(0) if same else line)
    return "\n".join(out) + ("\n" if after.endswith("\n") else "")


def _spacing_free(line: str) -> str:
    """A line with each run of spaces outside quotes made one space."""
    out: list[str] = []
    quote = ""
    for i, ch in enumerate(line.strip()):
        if quote:
            if ch == quote and not (quote == '"' and _escaped(line.strip(), i)):
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == " " and out and out[-1] == " ":
            continue
        out.append(ch)
    return "".join(out)


def _escaped(text: str, i: int) -> bool:
    """Whether the character at `i` follows an odd number of backslashes."""
    k = i
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (i - k) % 2 == 1


def load(text: str) -> Any:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    try:
        return yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise FormatError(f"{where}YAML syntax: {(e.problem or e.context or '').strip()}") from e
    except YAMLError as e:
        raise FormatError(f"YAML: {e}") from e


def _tidy(text: str) -> str:
    """No trailing spaces, exactly one final newline (none for an empty file)."""
    body = "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")
    return body + "\n" if body else ""


def _settle(source: str, candidates: list[str], expected: Any) -> str:
    """The first candidate that reads as the same data, checked to keep every comment."""
    for result in candidates:
        if result == source:
            return source
        if plain(load(result)) == expected:
            lost = marks(source) - marks(result)
            if lost:
                raise FormatError(f"the canonical layout would lose {next(iter(lost))!r}; "
                                  "left unchanged")
            return result
    raise FormatError("the canonical layout would read as other data; left unchanged")


def _keep_anchors(node: Any) -> None:
    """ruamel writes an anchor only when an alias uses it; the author's anchors stay."""
    anchor = getattr(node, "yaml_anchor", lambda: None)()
    if anchor is not None:
        anchor.always_dump = True
    if isinstance(node, dict):
        for value in node.values():
            _keep_anchors(value)
    elif isinstance(node, list):
        for item in node:
            _keep_anchors(item)


def marks(text: str) -> Counter[str]:
    """Every comment line and anchor of a YAML text, as the scanner sees it (a quoted `#`
    or the text of a block scalar is no comment)."""
    found: Counter[str] = Counter()
    try:
        tokens = _tokens(text)
    except YAMLError:
        return found
    for token in tokens:
        if isinstance(token, AnchorToken):
            found[f"&{token.value}"] += 1
        for comment in _comment_tokens(getattr(token, "_comment", None)):
            found.update(line.strip() for line in comment.value.splitlines()
                         if line.strip().startswith("#"))
    return found


@lru_cache(maxsize=8)
def _tokens(text: str) -> tuple[Any, ...]:
    """The scanner's tokens (they carry the comments); cached, as both checks read them."""
    return tuple(YAML(typ="rt").scan(text))


def _comment_rows(text: str) -> list[int]:
    """The lines holding only a comment (never the text of a block scalar)."""
    lines = text.splitlines()
    rows = set()
    for token in _tokens(text):
        for comment in _comment_tokens(getattr(token, "_comment", None)):
            for i, part in enumerate(comment.value.split("\n")):
                row = comment.start_mark.line + i
                if part.strip().startswith("#") and row < len(lines) \
                        and lines[row].strip() == part.strip():
                    rows.add(row)
    return sorted(rows)


def _align_comments(before: str, after: str) -> str:
    """Re-indents a comment line with the line below it, when it was so in `before`.

    ruamel writes comment lines verbatim, so a comment above a list item would keep
    the old indentation when the list moves.
    """
    src, out = before.splitlines(), after.splitlines()
    try:
        src_rows, out_rows = _comment_rows(before), _comment_rows(after)
    except YAMLError:
        return after
    if [src[r].strip() for r in src_rows] != [out[r].strip() for r in out_rows]:
        return after  # not matched one to one: leave them as written
    src_skip, out_skip = set(src_rows), set(out_rows)
    for s, o in zip(src_rows, out_rows, strict=True):
        s_next, o_next = _next_content(src, s, src_skip), _next_content(out, o, out_skip)
        if s_next is not None and o_next is not None and _indent(src[s]) == _indent(src[s_next]):
            out[o] = " " * _indent(out[o_next]) + out[o].strip()
    return "\n".join(out) + ("\n" if after.endswith("\n") else "")


def _next_content(lines: list[str], row: int, skip: set[int]) -> int | None:
    """The next line below `row` that is neither blank nor a comment."""
    return next((r for r in range(row + 1, len(lines)) if lines[r].strip() and r not in skip),
                None)


def _comment_tokens(value: Any) -> Iterator[CommentToken]:
    if isinstance(value, CommentToken):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _comment_tokens(item)


# ---- key order: move whole lines, so comments travel with their key ----------
MAX_MOVES = 10_000


def _reorder_blocks(text: str, kind: str, data: Any) -> str:
    """Reorders block mappings one at a time by moving their lines.

    Done on the text, not on ruamel's nodes: ruamel files a comment above a key
    under the deepest last node before it, so moving nodes would leave comments
    behind with the wrong key.
    """
    target = _first_unordered(data, kind)
    if target is None:
        return text  # the same object: no need to load it again
    text = text if text.endswith("\n") else text + "\n"
    for _ in range(MAX_MOVES):
        text = _move_keys(text, *target)
        target = _first_unordered(load(text), kind)
        if target is None:
            return text
    raise FormatError("the key order did not settle")


def _first_unordered(data: Any, kind: str) -> tuple[CommentedMap, list[Any]] | None:
    for node, order in ordered_maps(data, kind):
        wanted = order.arrange(list(node))
        if not node.fa.flow_style() and wanted != list(node):
            return node, wanted
    return None


def _move_keys(text: str, node: CommentedMap, wanted: list[Any]) -> str:
    lines = text.splitlines(keepends=True)
    keys = list(node)
    rows = [node.lc.key(k)[0] for k in keys]
    col = node.lc.key(keys[0])[1]
    starts = [rows[0]] + [_comments_above(lines, rows[i], rows[i - 1], col)
                          for i in range(1, len(keys))]
    end = _block_end(lines, rows[-1], col)
    chunks = {k: lines[s:e] for k, s, e in zip(keys, starts, starts[1:] + [end], strict=True)}
    # The first line may start with a list dash: it stays with the mapping, not the key.
    prefix = lines[rows[0]][:col]
    chunks[keys[0]][0] = " " * col + lines[rows[0]][col:]
    first = wanted[0]
    at = rows[keys.index(first)] - starts[keys.index(first)]
    lead, body = chunks[first][:at], chunks[first][at:]
    body[0] = prefix + body[0][col:]
    if prefix.strip():  # its comments now sit above the dash: indent them like the dash
        lead = [" " * _indent(prefix) + line.lstrip(" ") for line in lead]
    moved = lead + body + [line for k in wanted[1:] for line in chunks[k]]
    return "".join(lines[:rows[0]] + moved + lines[end:])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_comment(line: str, col: int) -> bool:
    # Deeper-indented '#' lines may be the text of a block scalar: never moved apart.
    return line.strip().startswith("#") and _indent(line) <= col


def _comments_above(lines: list[str], row: int, previous: int, col: int) -> int:
    """The first of the comment lines directly above a key (they move with it)."""
    while row - 1 > previous and _is_comment(lines[row - 1], col):
        row -= 1
    return row


def _block_end(lines: list[str], row: int, col: int) -> int:
    """Where the last key's value ends; trailing comments and blank lines stay put."""
    end = row + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and not line.strip().startswith("#") and _indent(line) <= col:
            break
        end += 1
    while end - 1 > row and (not lines[end - 1].strip() or _is_comment(lines[end - 1], col)):
        end -= 1
    return end


# ---- dumping: ruamel.yaml with the project's layout ----------------------------
def dump(data: Any) -> str:
    """`data` read by `load` (and perhaps changed) written back in the project's layout,
    its comments kept: what a tool that edits content (`hustings upgrade`) writes."""
    return _dump(data)


def _dump(data: Any) -> str:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 20  # never re-wrap: line breaks are the author's
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.Representer = _Representer
    yaml.Serializer = _Serializer
    yaml.Emitter = _Emitter
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _last_line(node: Any, line: int) -> int:
    """The last line a flow node reaches in the source, starting from `line`."""
    positions = getattr(getattr(node, "lc", None), "data", None) or {}
    if isinstance(node, CommentedSeq):
        for i, item in enumerate(node):
            if i in positions:
                line = max(line, _last_line(item, positions[i][0]))
    elif isinstance(node, CommentedMap):
        for key, value in node.items():
            if key in positions:
                line = max(line, positions[key][0], _last_line(value, positions[key][2]))
    return line


def flow_breaks(node: CommentedSeq | CommentedMap) -> list[bool]:
    """For each item of a flow collection: did it start a new line in the source? (A node
    a tool made has no source lines: none.)"""
    positions = node.lc.data or {}
    if isinstance(node, CommentedMap):
        items = [(positions.get(k), v, 2) for k, v in node.items()]
    else:
        items = [(positions.get(i), v, 0) for i, v in enumerate(node)]
    spans = []
    for pos, value, value_at in items:
        if pos is None:
            return []
        spans.append((pos[0], _last_line(value, pos[value_at])))
    return [i > 0 and start > spans[i - 1][1] for i, (start, _) in enumerate(spans)]


class _Representer(RoundTripRepresenter):
    """Writes null as `null` and notes where flow collections broke their lines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flow_breaks: dict[int, list[bool]] = {}

    def represent_null(self, data: Any) -> Any:
        return self.represent_scalar("tag:yaml.org,2002:null", "null")

    def represent_sequence(self, tag: Any, sequence: Any, flow_style: Any = None) -> Any:
        node = super().represent_sequence(tag, sequence, flow_style)
        self._note(node, sequence)
        return node

    def represent_mapping(self, tag: Any, mapping: Any, flow_style: Any = None) -> Any:
        node = super().represent_mapping(tag, mapping, flow_style)
        self._note(node, mapping)
        return node

    def _note(self, node: Any, data: Any) -> None:
        if node.flow_style and isinstance(data, (CommentedSeq, CommentedMap)):
            breaks = flow_breaks(data)
            if any(breaks):
                self.flow_breaks[id(node)] = breaks


_Representer.add_representer(type(None), _Representer.represent_null)


class _Serializer(Serializer):
    """Hands the emitter the line breaks of the node whose events come next."""

    def serialize_node(self, node: Any, parent: Any, index: Any) -> None:
        self.emitter.next_breaks = self.dumper.representer.flow_breaks.get(id(node))
        super().serialize_node(node, parent, index)


@dataclass
class _Flow:
    column: int
    breaks: list[bool] = field(default_factory=list)
    index: int = 0


class _Emitter(RoundTripEmitter):
    """Breaks a flow collection's line before the items that started a line in the
    source, aligned under its first item."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.next_breaks: list[bool] | None = None
        self.event_breaks: dict[int, list[bool]] = {}
        self.flows: list[_Flow] = []
        self.break_due = False

    def emit(self, event: Any) -> None:
        if isinstance(event, CollectionStartEvent) and self.next_breaks:
            self.event_breaks[id(event)] = self.next_breaks
        self.next_breaks = None
        super().emit(event)

    def expect_flow_sequence(self, *args: Any, **kwargs: Any) -> None:
        super().expect_flow_sequence(*args, **kwargs)
        self._open()

    def expect_flow_mapping(self, *args: Any, **kwargs: Any) -> None:
        super().expect_flow_mapping(*args, **kwargs)
        self._open()

    def expect_first_flow_sequence_item(self) -> None:
        self._item(SequenceEndEvent)
        super().expect_first_flow_sequence_item()

    def expect_flow_sequence_item(self) -> None:
        self._item(SequenceEndEvent)
        super().expect_flow_sequence_item()

    def expect_first_flow_mapping_key(self) -> None:
        self._item(MappingEndEvent)
        super().expect_first_flow_mapping_key()

    def expect_flow_mapping_key(self) -> None:
        self._item(MappingEndEvent)
        super().expect_flow_mapping_key()

    def write_indicator(self, indicator: Any, need_whitespace: Any, whitespace: bool = False,
                        indention: bool = False) -> None:
        super().write_indicator(indicator, need_whitespace, whitespace, indention)
        if self.break_due and indicator == ",":
            self.break_due = False
            self._new_line(self.flows[-1].column)

    def _open(self) -> None:
        self.flows.append(_Flow(self.column, self.event_breaks.pop(id(self.event), [])))

    def _item(self, end: type) -> None:
        flow = self.flows[-1]
        if isinstance(self.event, end):
            self.flows.pop()
            return
        self.break_due = flow.index < len(flow.breaks) and flow.breaks[flow.index]
        flow.index += 1

    def _new_line(self, column: int) -> None:
        self.write_line_break()
        pad = " " * column
        self.stream.write(pad.encode(self.encoding) if self.encoding else pad)
        self.column = column
        self.whitespace = True
