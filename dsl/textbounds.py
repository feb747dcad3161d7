"""Bounds a content file's text must keep before any parser reads it.

A YAML parser recurses once per level of nesting: libyaml's composer (in C) overflows
the stack and kills the process on a file of 100,000 `[` (200 KB), with no message; the
pure-Python parser hits Python's recursion limit. So nesting is measured here first,
by one linear pass over the text that no input can make recurse, and a file nesting
too deep is refused at the spot where it goes too deep.

The pass over-counts rather than under-counts: a level is each step of block
indentation, each `- ` that opens a sequence on the line of another, and each `[` or `{`
(inside a quoted scalar, a comment or a `|`/`>` block nothing counts; a `]` or `}` never
takes the count below zero, so brackets in plain text cannot bank levels).

Control characters are refused too: text of a pack reaches terminals, where an escape
sequence (`\\e]0;...\\a`, `\\e[2J`) retitles or clears the screen. C0 characters other
than tab and newline, DEL and the C1 range are refused in the raw text (YAML itself
would also refuse most of them, without a position) and in every string the YAML
builds (a double-quoted `"\\e"` is an escape YAML turns into ESC).
"""

from __future__ import annotations

import re

# A character content may not hold: C0 but tab and newline (a carriage return of a CRLF
# line break is read as part of the break, see `control_offset`), DEL and C1.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_RAW_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")

# A line that ends in a block scalar's indicator (`key: |`, `- >-`, `|2+`), before any comment.
_BLOCK_INDICATOR = re.compile(r"(?:^|[\s:-])[|>][0-9+-]{0,2}\s*(?:#.*)?$")
_QUOTE_AFTER = frozenset(":-[{,?")  # a quote after these (or at a line's start) opens a scalar
_OPENS = frozenset(" [{,")  # ... and right after a space or one of these (not `x-'y`)
_MARKS = re.compile(r"[#'\"\[\]{}-]")  # the characters the nesting pass looks at


def control_offset(text: str) -> int | None:
    """Offset of the first control character of a file's text, or None."""
    found = _RAW_CONTROL.search(text)
    return found.start() if found else None


def control_name(ch: str) -> str:
    """A control character as it may be shown: its escape, never the character."""
    return {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}.get(ch, f"\\x{ord(ch):02x}")


def visible(text: str) -> str:
    """`text` with each control character written as its escape (`\\e`, `\\x07`)."""
    return CONTROL.sub(lambda m: control_name(m.group()), text)


def too_deep(text: str, limit: int) -> tuple[int, int] | None:
    """(line, column), 0-based, where the text first nests deeper than `limit`, or None."""
    scan = _Scan(limit)
    for n, line in enumerate(text.split("\n")):
        col = scan.line(line)
        if col is not None:
            return n, col
    return None


class _Scan:
    """The state carried from line to line: the indentation of each open block, the
    brackets open, an open quoted scalar, an open `|` block."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.indents: list[int] = []
        self.flow = 0
        self.quote = ""  # the quote of a scalar still open at the line's end
        self.block_of: int | None = None  # a `|` block is open, under this indentation
        self.block_at: int | None = None  # its text's indentation, once a line shows it

    def line(self, line: str) -> int | None:
        """Read one line; the column where it goes past the limit, or None."""
        body = line.rstrip("\r")
        stripped = body.lstrip(" ")
        indent = len(body) - len(stripped)
        if self.in_block(stripped, indent):
            return None
        start = 0
        if not self.quote and not self.flow:
            if not stripped or stripped.startswith("#"):
                return None
            while self.indents and self.indents[-1] > indent:
                self.indents.pop()
            if not self.indents or self.indents[-1] < indent:
                self.indents.append(indent)
            start = indent
            if len(self.indents) > self.limit:
                return indent
        col = self.columns(body, start)
        if col is None and not self.quote and not self.flow \
                and _BLOCK_INDICATOR.search(body):
            self.block_of, self.block_at = indent, None
        return col

    def in_block(self, stripped: str, indent: int) -> bool:
        """Whether the line is text of an open `|`/`>` block (or a blank line in it)."""
        if self.block_of is None:
            return False
        if not stripped:
            return True
        if self.block_at is None and indent > self.block_of:
            self.block_at = indent
        if self.block_at is not None and indent >= self.block_at:
            return True
        self.block_of = self.block_at = None
        return False

    def columns(self, body: str, start: int) -> int | None:
        """Go through the line from `start`: quotes, comments, `- ` and brackets (found by
        a regex, so a long run of plain text costs one search)."""
        depth = len(self.indents)
        i, n = start, len(body)
        dashes = 0
        while i < n:
            if self.quote:
                i = self.skip_quote(body, i)
                continue
            found = _MARKS.search(body, i)
            if found is None:
                break
            i = found.start()
            ch = body[i]
            last = self.before(body, i, start)
            if ch == "#":
                if i == 0 or body[i - 1] in " \t":
                    break
            elif ch in "'\"":
                if (last == "" or last in _QUOTE_AFTER) and (i == start or body[i - 1] in _OPENS):
                    self.quote = ch
            elif ch == "-":
                if last in ("", "-") and (i + 1 == n or body[i + 1] == " ") and not self.flow:
                    dashes += 1
                    if dashes > 1 and depth + dashes - 1 > self.limit:
                        return i
            elif ch in "[{":
                self.flow += 1
                if depth + max(dashes - 1, 0) + self.flow > self.limit:
                    return i
            else:
                self.flow = max(self.flow - 1, 0)
            i += 1
        return None

    def before(self, body: str, i: int, start: int) -> str:
        """The last character before `i` that is not a space ("" at the line's start; a
        line continuing a flow collection starts as if after a comma)."""
        j = i - 1
        while j >= start and body[j] == " ":
            j -= 1
        if j >= start:
            return body[j]
        return "," if self.flow else ""

    def skip_quote(self, body: str, i: int) -> int:
        """Past the quoted text from `i`: to just after its closing quote, or the line's end."""
        q = self.quote
        n = len(body)
        while i < n:
            ch = body[i]
            if q == '"' and ch == "\\":
                i += 2
                continue
            if ch == q:
                if q == "'" and i + 1 < n and body[i + 1] == "'":
                    i += 2  # '' inside single quotes is one quote
                    continue
                self.quote = ""
                return i + 1
            i += 1
        return n
