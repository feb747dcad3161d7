"""Prints the result of `hustings check` as text, JSON or GitHub annotations.

Exit status: 0 when the pack compiles (warnings allowed), 1 on content errors.
Usage errors (exit 2) are argparse's business in cli.py.
"""

from __future__ import annotations

import json
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
    return ", ".join(parts)


def counts(loaded: Loaded) -> str:
    """'2 errors, 1 warning' (empty when there is nothing to count)."""
    e, w = len(loaded.report.errors), len(loaded.report.warnings)
    parts = [f"{e} error{'s' * (e != 1)}"] if e else []
    parts += [f"{w} warning{'s' * (w != 1)}"] if w else []
    return ", ".join(parts)


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


def print_check(loaded: Loaded, fmt: str, elapsed: float, path: Path | str) -> int:
    diags = loaded.report.diagnostics
    if fmt == "json":
        print(json.dumps({
            "ok": loaded.program is not None,
            "errors": len(loaded.report.errors),
            "warnings": len(loaded.report.warnings),
            "diagnostics": [
                {"path": d.source.path, "line": d.source.line, "column": d.source.column,
                 "severity": d.severity, "code": d.code, "message": d.message, "hint": d.hint}
                for d in diags
            ],
            "summary": summary(loaded),
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
        status = "ok" if loaded.program is not None else "failed"
        counted = counts(loaded)
        print(f"{path}: {status}: {counted + '; ' if counted else ''}{summary(loaded)} "
              f"({elapsed:.2f} s)")
    return 0 if loaded.program is not None else 1
