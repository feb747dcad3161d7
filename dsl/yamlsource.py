"""Reads content YAML safely, keeping the line and column of every node.

A YAML syntax error is reported at the line that breaks the structure, with a
hint for the usual slips (indentation, an unclosed bracket, a tab).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from .diagnostics import Report, Source


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
def plain(data: Any) -> Any:
    """Round-trip nodes to plain dicts and lists."""
    if isinstance(data, dict):
        return {str(k): plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
