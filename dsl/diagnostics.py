"""Diagnostics: what is wrong, where (file:line:col), and how to fix it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Source:
    """Where a snippet of text starts inside a content file (1-based)."""

    path: str
    line: int = 1
    column: int = 1

    def at(self, line: int, column: int) -> Source:
        """The absolute position of (line, column) inside this snippet.

        Every line of a snippet is indented alike (a YAML block scalar), so the
        snippet's starting column shifts each of its lines.
        """
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

    def __str__(self) -> str:
        text = f"{self.source}: {self.severity}[{self.code}]: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, source: Source, code: str, message: str, hint: str = "") -> None:
        self.diagnostics.append(Diagnostic(source, code, message, hint))

    def warn(self, source: Source, code: str, message: str, hint: str = "") -> None:
        self.diagnostics.append(Diagnostic(source, code, message, hint, "warning"))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


def did_you_mean(word: str, candidates) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f"did you mean `{close[0]}`?" if close else ""


class ContentError(Exception):
    """Raised when a pack cannot be compiled; carries every diagnostic found."""

    def __init__(self, report: Report) -> None:
        self.report = report
        super().__init__("\n".join(str(d) for d in report.errors))
