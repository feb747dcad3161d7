"""Reads content YAML safely, keeping the line and column of every node.

A YAML syntax error is reported at the line that breaks the structure, with a
hint for the usual slips (indentation, an unclosed bracket, a tab).

Content is untrusted, so reading is guarded: only regular files inside the
pack's (or mod's) own folder are opened, never more than MAX_FILE_BYTES, and
while a pack loads (`pack_reading`) never more than MAX_PACK_BYTES for the pack and
its mods together, each file counted before it is parsed. Before a parser reads a
text, its nesting is measured (a parser recurses once per level: libyaml's crashes
the process) and control characters are refused (textbounds.py). YAML aliases are
refused (a few hundred bytes of aliases can expand to gigabytes), a number longer
than MAX_DIGITS digits is a diagnostic, and so is a control character in any string
the YAML builds (an escape such as `"\\e"`).
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from ruamel.yaml.resolver import VersionedResolver

try:  # libyaml's parser (ruamel.yaml.clib); without it the pure-Python one reads alone
    from _ruamel_yaml import CParser
except ImportError:  # pragma: no cover - an interpreter the C parser is not built for
    CParser = None

from ..interpreter.budget import (
    MAX_DIGITS,
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_PACK_BYTES,
    MAX_PACK_VALUES,
)
from .diagnostics import Report, Source
from .textbounds import CONTROL, control_name, control_offset, too_deep

# Files parsed cleanly, by (display name, bytes): kept only while a tool that loads many
# near-identical packs (the content fuzzer) turns it on with `remember_files(True)`.
_FILES: dict[tuple[str, bytes], YamlFile] | None = None
_ADDING_FILES = False


def remember_files(on: bool) -> None:
    """Keep (or stop keeping) parsed files, so reloading an unchanged file is free.

    Safe because nothing changes a YamlFile once read (models and mods copy its data)."""
    global _FILES, _ADDING_FILES
    _FILES = {} if on else None
    _ADDING_FILES = on


def remember_no_more_files() -> None:
    """Keep the files remembered so far (a pack's originals) but add no more: each mutant
    of the fuzzer is read once, so keeping it would only grow the memory, by about a
    megabyte a mutant of a large pack."""
    global _ADDING_FILES
    _ADDING_FILES = False


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

    def joined_lines(self, parent: CommentedMap, key: str) -> bool:
        """Whether a value written over several lines was joined into one by YAML: a
        plain or quoted scalar that goes on below its first line, or a folded (`>`)
        block of several lines. Statements must keep their lines (`|`)."""
        line, col = parent.lc.value(key)
        raw = self.lines[line] if line < len(self.lines) else ""
        rest = raw[col:].strip()
        value = str(parent[key] or "")
        if rest[:1] == ">":  # each line of the block is one fold of the text
            return "\n" not in value.strip() and len(self._block_source(line, value).folds) > 1
        if rest[:1] == "|":
            return False
        return len(value.strip()) > len(rest.strip("\"'"))

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
class PackTooLarge(Exception):
    """The files of a pack and its mods went past MAX_PACK_BYTES: the load stops, so
    nothing more is parsed or compiled. Carries the report holding the diagnostic."""

    def __init__(self, report: Report) -> None:
        super().__init__("the pack is too large")
        self.report = report


class _PackBytes:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.values = 0  # YAML values (scalars, mappings, lists) of the files read


_READING: ContextVar[_PackBytes | None] = ContextVar("hustings_pack_bytes", default=None)


@contextmanager
def pack_reading(limit: int | None = None) -> Iterator[None]:
    """Within it, the content files read count towards one total of at most `limit`
    (default MAX_PACK_BYTES) bytes; the file that would cross it is reported (E140) and
    PackTooLarge raised."""
    token = _READING.set(_PackBytes(MAX_PACK_BYTES if limit is None else limit))
    try:
        yield
    finally:
        _READING.reset(token)


def _count_values(text: str, display: str, report: Report) -> None:
    """Add the YAML values of a file to the pack's total, counted by libyaml's parser
    before anything is built of them (building them is what costs: a 900 KB file of
    small mappings took over ten seconds). Past MAX_PACK_VALUES: E140 at the value
    that crossed it, and PackTooLarge. Without libyaml only the bytes are counted."""
    reading = _READING.get()
    if reading is None or CParser is None:
        return
    parser = CParser(text)
    try:
        while parser.check_event():
            event = parser.get_event()
            if event.__class__ in _VALUES:
                reading.values += 1
                if reading.values > MAX_PACK_VALUES:
                    mark = event.start_mark
                    report.error(Source(display, mark.line + 1, mark.column + 1), "E140",
                                 f"with this file the pack and its mods hold more than "
                                 f"{MAX_PACK_VALUES:,} YAML values (keys, values, items)",
                                 "make the content smaller: the largest shipped pack holds "
                                 "about 8,500 values", quote=False)
                    raise PackTooLarge(report)
    except PackTooLarge:
        raise
    except Exception:  # noqa: BLE001 - not well-formed: the loader says what is wrong
        return
    finally:
        parser.dispose()


_VALUES = (ScalarEvent, MappingStartEvent, SequenceStartEvent)


def _count_bytes(size: int, src: Source, report: Report) -> None:
    """Add a file's size to the pack's total, before the file is read."""
    reading = _READING.get()
    if reading is None:
        return
    reading.total += size
    if reading.total > reading.limit:
        report.error(src, "E140", f"with this file the pack and its mods are "
                     f"{reading.total:,} bytes, more than the {reading.limit:,} a pack may "
                     "have in all", "make the content smaller: the largest shipped pack reads "
                     "about 180 KB", quote=False)
        raise PackTooLarge(report)


def outside(root: Path, target: Path) -> bool:
    """True when `target` (after following symlinks and `..`) is not inside `root`."""
    try:
        target.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return True
    return False


def confined_entry(root: Path, value: str, f: YamlFile, keys: tuple, report: Report,
                   display) -> Path | None:
    """`root / value` when it stays inside `root`; else a diagnostic at the entry (E110).

    The path is checked before anything is opened or listed: an absolute path,
    `..` out of the folder, or a symlink resolving outside are refused alike.
    """
    target = root / value
    if Path(value).is_absolute() or outside(root, target):
        report.error(f.value_source(*keys), "E110",
                     f"'{value[:60]}' is outside the folder {display(root)}",
                     "name a file or folder inside it by a relative path (no `..`, no "
                     "absolute path, no symlink leading out)")
        return None
    try:
        target.exists()  # the system refuses some names outright (too long)
    except OSError as e:
        reason = e.strerror or str(e)
        report.error(f.value_source(*keys), "E100", f"cannot use the path '{value[:40]}': "
                     f"{reason}", "name a file or folder of the pack")
        return None
    return target


def read_bounded(path: Path, src: Source, report: Report) -> bytes | None:
    """The bytes of a regular file of at most MAX_FILE_BYTES; never opens a pipe or device."""
    try:
        info = os.stat(path)
    except (OSError, ValueError) as e:
        hint = (f"is {path.parent} a pack folder? it needs a pack.yaml"
                if path.name == "pack.yaml" else
                "check the file name in pack.yaml (`board:`, `cards:`, `rules:`)")
        reason = getattr(e, "strerror", None) or "invalid path"
        report.error(src, "E100", f"cannot read file: {reason}", hint, quote=False)
        return None
    if not stat.S_ISREG(info.st_mode):
        report.error(src, "E111", "not a regular file (a folder, device, pipe or socket)",
                     "name a .yaml file of the pack", quote=False)
        return None
    if info.st_size > MAX_FILE_BYTES:
        report.error(src, "E112", f"the file is {info.st_size:,} bytes, more than the "
                     f"{MAX_FILE_BYTES:,} a content file may have",
                     "split it into several files", quote=False)
        return None
    _count_bytes(info.st_size, src, report)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        report.error(src, "E100", f"cannot read file: {e.strerror}", quote=False)
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the stat above
            report.error(src, "E111", "not a regular file", quote=False)
            return None
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        report.error(src, "E112", f"the file is more than the {MAX_FILE_BYTES:,} bytes a "
                     "content file may have", "split it into several files", quote=False)
        return None
    return b"".join(chunks)


def read_yaml(path: Path, display: str, report: Report, root: Path | None = None,
              where: Source | None = None) -> YamlFile | None:
    """Read and parse one content file. With `root`, a file outside that folder is refused;
    `where` is the spot that named the file (reported when it cannot be read)."""
    src = where or Source(display)
    if root is not None and outside(root, path):
        report.error(src, "E110", f"{display} is outside the folder {root}",
                     "content may only read files inside its own folder: copy the file in "
                     "and name it by a relative path", quote=False)
        return None
    raw = read_bounded(path, src, report)
    if raw is None:
        return None
    if _FILES is not None and (display, raw) in _FILES:
        return _FILES[(display, raw)]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        report.error(Source(display, line, col), "E100", "the file is not UTF-8 text",
                     "save the file as UTF-8", quote=False)
        return None
    if not _text_within_bounds(text, display, report):
        return None
    _count_values(text, display, report)
    try:
        # Pack and mod content (read with a root) may not use aliases; scenario files
        # (read without one) still may, as the shipped scenarios do.
        if root is not None and "*" in text and _refuse_aliases(text, display, report):
            return None
        data = fast_load(text)
        if data is _FAILED:  # the pure parser reads it again and says what is wrong
            data = YAML(typ="rt").load(text)
    except MarkedYAMLError as e:
        line, col, problem, hint = yaml_problem(e, text.splitlines())
        report.error(Source(display, line, col), "E101", f"YAML syntax: {problem}", hint,
                     quote=False)
        return None
    except ValueError as e:  # an integer too long for Python to convert
        long_number = re.search(rf"\d{{{MAX_DIGITS + 1},}}", text)
        if long_number is None:
            report.error(Source(display), "E101", f"YAML syntax: {str(e)[:60]}", quote=False)
            return None
        report.error(_offset_source(display, text, long_number.start()), "E114",
                     f"a number of {len(long_number.group())} digits",
                     f"numbers have at most {MAX_DIGITS} digits", quote=False)
        return None
    except Exception as e:  # any other parser failure is still the file's fault
        report.error(Source(display), "E101", f"YAML syntax: {str(e)[:60]}", quote=False)
        return None
    if not _check_values(data, display, report):
        return None
    parsed = YamlFile(path, display, data, text)
    if _FILES is not None and _ADDING_FILES and len(_FILES) < 1000:
        _FILES[(display, raw)] = parsed
    return parsed


_FAILED = object()


def fast_load(text: str) -> Any:
    """The round-trip data of `text` (the same nodes, values and positions the pure loader
    gives) read with libyaml's parser; _FAILED when it is not installed or the text is
    not well-formed, so the pure loader's own diagnostics are reported."""
    if CParser is None:
        return _FAILED
    loader = _FastLoader(text)
    try:
        return loader.get_single_data()
    except Exception:  # noqa: BLE001 - whatever it is, the pure loader reports it
        return _FAILED
    finally:
        loader.dispose()


if CParser is not None:
    class _FastLoader(CParser, RoundTripConstructor, VersionedResolver):
        """libyaml's events composed into nodes, built by ruamel's round-trip constructor
        (which takes each node's line and column from the parser's marks)."""

        comment_handling = None  # libyaml drops comments: nothing to attach
        # The YAML version whose rules resolve plain scalars: 1.2, the pure loader's
        # default. ruamel otherwise works it out again for each scalar, through two
        # caught exceptions, which took a sixth of the load.
        processing_version = (1, 2)

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            self._parser = self._composer = self
            RoundTripConstructor.__init__(self, loader=self)
            VersionedResolver.__init__(self, None, loader=self)


def _text_within_bounds(text: str, display: str, report: Report) -> bool:
    """No control character, and nesting within MAX_NESTING, found on the text itself:
    before a parser (which would recurse once per level) reads it."""
    at = control_offset(text)
    if at is not None:
        report.error(_offset_source(display, text, at), "E141",
                     f"a control character ({control_name(text[at])}) in the file",
                     "delete it: content is shown on terminals, where control characters "
                     "act (clear the screen, set its title)", quote=False)
        return False
    deep = too_deep(text, MAX_NESTING)
    if deep is not None:
        report.error(Source(display, deep[0] + 1, deep[1] + 1), "E115",
                     f"mappings and lists nest more than {MAX_NESTING} deep",
                     "flatten the data (each indentation step, `- ` and bracket is a level)",
                     quote=False)
        return False
    return True


def _offset_source(display: str, text: str, offset: int) -> Source:
    line = text.count("\n", 0, offset) + 1
    return Source(display, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def _refuse_aliases(text: str, display: str, report: Report) -> bool:
    """Report the first YAML alias (`*name`) of a file; True if there is one."""
    event = _first_alias(text)
    if event is None:
        return False
    mark = event.start_mark
    report.error(Source(display, mark.line + 1, mark.column + 1), "E113",
                 f"a YAML alias (*{event.anchor}): content may not use aliases",
                 "write the value out in full (aliases can expand a few lines "
                 "into gigabytes, so they are refused)")
    return True


def _first_alias(text: str) -> AliasEvent | None:
    """The first alias of `text`, found by libyaml's parser when it is installed (a `*`
    in a card's text makes every such file be looked through: the pure parser took
    15 ms a file). A text libyaml cannot read is looked through by the pure parser, so
    nothing it would load passes unlooked-at."""
    if CParser is not None:
        parser = CParser(text)
        try:
            while parser.check_event():
                event = parser.get_event()
                if isinstance(event, AliasEvent):
                    return event
            return None
        except Exception:  # noqa: BLE001 - not libyaml's YAML: the pure parser decides
            pass
        finally:
            parser.dispose()
    for event in YAML(typ="rt").parse(text):
        if isinstance(event, AliasEvent):
            return event
    return None


def _check_values(data: Any, display: str, report: Report) -> bool:
    """Numbers within MAX_DIGITS digits, finite, no control character in a string (a key
    or a value), and nesting at most MAX_NESTING deep."""
    ok = True
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_NESTING:
            report.error(_node_source(display, node), "E115",
                         f"mappings and lists nest more than {MAX_NESTING} deep",
                         "flatten the data")
            return False
        if isinstance(node, CommentedMap):
            items = [(_position(node, k, "value"), v) for k, v in node.items()]
            keys = [(_position(node, k, "key"), k) for k in node if isinstance(k, str)]
            ok = _no_control(keys, display, report) and ok
        elif isinstance(node, CommentedSeq):
            items = [(_position(node, i, "item"), v) for i, v in enumerate(node)]
        else:
            continue
        for (line, col), value in items:
            if isinstance(value, CommentedMap | CommentedSeq):
                todo.append((value, depth + 1))
            elif isinstance(value, str):
                ok = _no_control([((line, col), value)], display, report) and ok
            elif _bad_number(value):
                ok = False
                report.error(Source(display, line + 1, col + 1), "E114",
                             f"{_number_text(value)} is not a number content may use",
                             f"numbers are finite and have at most {MAX_DIGITS} digits")
    return ok


def _no_control(strings: list[tuple[tuple[int, int], str]], display: str,
                report: Report) -> bool:
    """E141 for each string holding a control character (made by a YAML escape)."""
    ok = True
    for (line, col), text in strings:
        found = CONTROL.search(text)
        if found is not None:
            ok = False
            report.error(Source(display, line + 1, col + 1), "E141",
                         f"a control character ({control_name(found.group())}) in the text",
                         "delete the escape: content is shown on terminals, where control "
                         "characters act (clear the screen, set its title)")
    return ok


def _position(node: Any, key: Any, kind: str) -> tuple[int, int]:
    """(line, column) of a value or item; a merged key (`<<:`) has none: use its mapping's."""
    try:
        line, col = getattr(node.lc, kind)(key)
    except (KeyError, IndexError, TypeError):
        return node.lc.line or 0, node.lc.col or 0
    return line, col


def _bad_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) >= 10**MAX_DIGITS
    if isinstance(value, float):
        return not math.isfinite(value) or abs(value) >= 10**MAX_DIGITS
    return False


def _number_text(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"a number of {len(text)} digits"


def _node_source(display: str, node: Any) -> Source:
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        return Source(display, lc.line + 1, (lc.col or 0) + 1)
    return Source(display)


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
def plain(data: Any) -> Any:
    """Round-trip nodes to plain dicts and lists."""
    if isinstance(data, dict):
        return {str(k): plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
