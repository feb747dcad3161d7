"""Prints the result of `hustings check` as text, JSON or GitHub annotations.

Exit status: 0 when the pack compiles (warnings allowed), 1 on content errors.
Usage errors (exit 2) are argparse's business in cli.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..dsl.diagnostics import Diagnostic, excerpt
from ..dsl.loading import Loaded


def caret(d: Diagnostic) -> str:
    """A short excerpt of the source line with a caret under the column, when the file
    may be quoted and can be read safely (see `dsl.diagnostics.excerpt`)."""
    found = excerpt(d)
    if found is None:
        return ""
    line, offset = found
    return f"  {line}\n  {' ' * offset}^"


def summary(loaded: Loaded) -> str:
    """Cards of each kind (the pack's `card_kinds:` first), with how many have events where
    any do or the kind expects them, then the rule procedures."""
    st = loaded.stats
    parts = []
    for kind, n in st.kinds.items():
        parts.append(f"{n} {kind} cards")
        if st.events.get(kind) or kind in st.expect_events:
            parts.append(f"{st.events.get(kind, 0)} with events")
    parts.append(f"{st.procedures} rule procedures")
    if st.player_counts is not None:  # check compiled it at each count (cli.other_counts)
        least, most, default = st.player_counts
        parts.append(f"{least} to {most} players (default {default})")
    return ", ".join(parts)


def counts(diags: list[Diagnostic]) -> str:
    """'2 errors, 1 warning' (empty when there is nothing to count)."""
    e = error_count(diags)
    w = len(diags) - e
    parts = [f"{e} error{'s' * (e != 1)}"] if e else []
    parts += [f"{w} warning{'s' * (w != 1)}"] if w else []
    return ", ".join(parts)


def error_count(diags: list[Diagnostic]) -> int:
    return sum(d.severity == "error" for d in diags)


def github_line(d: Diagnostic) -> str:
    """A GitHub Actions workflow command (`::error file=F,line=N,col=M::message`)."""
    kind = "error" if d.severity == "error" else "warning"
    text = f"[{d.code}] {d.message}" + (f" ({d.hint})" if d.hint else "")
    return (f"::{kind} file={_escape(d.source.path, True)},line={d.source.line},"
            f"col={d.source.column}::{_escape(text)}")


def scenario_annotation(name: str, d: Diagnostic) -> str:
    """A failed scenario's problem as a workflow command at the line it comes from."""
    code = f"[{d.code}] " if d.code else ""
    text = f"{code}scenario '{name}': {d.message}" + (f" ({d.hint})" if d.hint else "")
    return (f"::error file={_escape(d.source.path, True)},line={d.source.line},"
            f"col={d.source.column}::{_escape(text)}")


def _escape(text: str, prop: bool = False) -> str:
    """Workflow commands escape %, CR and LF (and, in properties, ':' and ',')."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


@dataclass
class Wider:
    """The second check of `check`: with the options that leave cards or players out
    turned on (`on`), and what it found (None when no option leaves anything out)."""

    on: list[str] = field(default_factory=list)
    loaded: Loaded | None = None

    def new(self, first: Loaded) -> list[Diagnostic]:
        """What it found that the first check did not: the added cards' and players'."""
        if self.loaded is None:
            return []
        seen = {str(d) for d in first.report.diagnostics}
        return [d for d in self.loaded.report.diagnostics if str(d) not in seen]

    def flags(self) -> str:
        return " ".join(f"--option {o}" for o in self.on)


def print_check(loaded: Loaded, fmt: str, elapsed: float, path: Path | str,
                wider: Wider | None = None) -> int:
    wider = wider or Wider()
    diags = [*loaded.report.diagnostics, *wider.new(loaded)]
    errors = error_count(diags)
    # an error beside a compiled program (a message catalog's) fails the check too
    ok = loaded.program is not None and (wider.loaded is None or wider.loaded.program is not None) \
        and errors == 0
    if fmt == "json":
        print(json.dumps({
            "ok": ok,
            "errors": errors,
            "warnings": len(diags) - errors,
            "diagnostics": [
                {"path": d.source.path, "line": d.source.line, "column": d.source.column,
                 "severity": d.severity, "code": d.code, "message": d.message, "hint": d.hint}
                for d in diags
            ],
            "summary": summary(loaded),
            "also_checked_with": wider.on,
            "seconds": round(elapsed, 3),
        }))
    elif fmt == "github":
        for d in diags:
            print(github_line(d))
    else:
        for d in diags:
            print(f"{d.source}: {d.severity}[{d.code}]: {d.message}")
            shown = caret(d)
            if shown:
                print(shown)
            if d.hint:
                print(f"  hint: {d.hint}")
        if loaded.stats.without_event:
            missing = ", ".join(str(n) for n in loaded.stats.without_event)
            print(f"note: cards without an event yet: {missing}")
        status = "ok" if ok else "failed"
        counted = counts(diags)
        print(f"{path}: {status}: {counted + '; ' if counted else ''}{summary(loaded)} "
              f"({elapsed:.2f} s)")
        if wider.loaded is not None:
            print(f"  also checked with {wider.flags()} (the cards and players they add): "
                  f"{summary(wider.loaded)}")
    return 0 if ok else 1
