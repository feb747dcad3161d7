"""Diagnostics: what is wrong, where (file:line:col), and how to fix it."""

from __future__ import annotations

import difflib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .textbounds import visible


@dataclass(frozen=True)
class Source:
    """Where a snippet of text starts inside a content file (1-based)."""

    path: str
    line: int = 1
    column: int = 1
    # (offset in the snippet, file line, file column) where each file line of a
    # snippet starts; lets an expression read as one line (a folded `>` block)
    # point back into the right line of the file.
    folds: tuple[tuple[int, int, int], ...] = field(default=(), compare=False, repr=False)

    def at(self, line: int, column: int) -> Source:
        """The absolute position of (line, column) inside this snippet.

        Every line of a snippet is indented alike (a YAML block scalar), so the
        snippet's starting column shifts each of its lines.
        """
        if line == 1 and self.folds:
            offset = column - 1
            starts = [f for f in self.folds if f[0] <= offset]
            if starts:
                start, fline, fcol = starts[-1]
                return Source(self.path, fline, fcol + offset - start)
        return Source(self.path, self.line + line - 1, column + self.column - 1)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass
class Diagnostic:
    source: Source
    code: str
    message: str
    hint: str = ""
    severity: str = "error"
    # False when the file must not be quoted (it failed to parse, or is not the content's own)
    quote: bool = True

    def __str__(self) -> str:
        # content (a name, a file's name) may hold a control character: shown as its escape
        text = f"{self.source}: {self.severity}[{self.code}]: {self.message}"
        return visible(f"{text}\n  hint: {self.hint}" if self.hint else text)


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, source: Source, code: str, message: str, hint: str = "",
              quote: bool = True) -> None:
        self.diagnostics.append(Diagnostic(source, code, shorten(message), shorten(hint),
                                           quote=quote))

    def warn(self, source: Source, code: str, message: str, hint: str = "") -> None:
        self.diagnostics.append(Diagnostic(source, code, shorten(message), shorten(hint),
                                           "warning"))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


_LONG_WORD = re.compile(r"\S{61,}")


def shorten(text: str) -> str:
    """Cut any run of more than 60 characters without a space (a quoted value, a
    number of 4,000 digits), so a message never carries more than a short excerpt.
    File paths (with `/`) are kept whole: they say where to look. A control character
    (from content) is shown as its escape: a message goes to a terminal."""
    return _LONG_WORD.sub(lambda m: m.group() if "/" in m.group() else m.group()[:57] + "...",
                          visible(text[:2000]))


def closest(word: str, candidates: Iterable[Any], cutoff: float = 0.6) -> str | None:
    """The candidate nearest to `word` (case aside), or None if none is near.

    Ties go to a candidate sharing a longer prefix, then to the earlier one, so
    `=` suggests `==` rather than `>=`.
    """
    names = [str(c) for c in candidates]
    low = word.lower()
    best, best_key = None, None
    for i, name in enumerate(names):
        ratio = difflib.SequenceMatcher(None, low, name.lower()).ratio()
        if ratio < cutoff:
            continue
        key = (ratio, len(os.path.commonprefix([low, name.lower()])), -i)
        if best_key is None or key > best_key:
            best, best_key = name, key
    return best


# Numbers a card writes as words ("gains one point"): content takes digits.
NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def did_you_mean(word: str, candidates: Iterable[Any]) -> str:
    close = closest(str(word), candidates)
    return f"did you mean `{close}`?" if close is not None and close != str(word) else ""


class ContentError(Exception):
    """Raised when a pack cannot be compiled; carries every diagnostic found."""

    def __init__(self, report: Report) -> None:
        self.report = report
        super().__init__("\n".join(str(d) for d in report.errors))


# A diagnostic shows at most this much of a source line.
EXCERPT_CHARS = 60


def excerpt(d: Diagnostic, limit_bytes: int = 1_000_000) -> tuple[str, int] | None:
    """(at most EXCERPT_CHARS of the diagnostic's line, the column's offset in it).

    None when the file must not be quoted or cannot be read safely: only a
    regular file of bounded size is read, and never a pipe or device.
    """
    if not d.quote:
        return None
    try:
        if not stat.S_ISREG(os.stat(d.source.path).st_mode):
            return None
        fd = os.open(d.source.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        raw = os.read(fd, limit_bytes + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
    if not raw or len(raw) > limit_bytes:
        return None
    lines = raw.decode("utf-8", errors="replace").splitlines()
    if not 1 <= d.source.line <= len(lines):
        return None
    # control characters shown as escapes (the line goes to a terminal), the caret's
    # offset moved with them
    raw_line = lines[d.source.line - 1]
    line = visible(raw_line.expandtabs())
    offset = len(visible(raw_line[:max(d.source.column - 1, 0)].expandtabs()))
    start = max(0, min(offset - EXCERPT_CHARS // 2, len(line) - EXCERPT_CHARS))
    return line[start:start + EXCERPT_CHARS], offset - start
