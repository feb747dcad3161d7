"""Prints the result of `hustings check` as text, JSON or GitHub annotations."""

from __future__ import annotations

import json
from pathlib import Path

from ..dsl.diagnostics import Diagnostic
from ..dsl.pack import Loaded


def caret(d: Diagnostic) -> str:
    """The source line with a caret under the column, when the file can be read."""
    try:
        line = Path(d.source.path).read_text(encoding="utf-8").splitlines()[d.source.line - 1]
    except (OSError, IndexError):
        return ""
    return f"  {line}\n  {' ' * (d.source.column - 1)}^"


def summary(loaded: Loaded) -> str:
    st = loaded.stats
    campaign = st.kinds.get("campaign", 0)
    with_events = campaign - len(st.without_event)
    parts = [f"{campaign} campaign cards", f"{with_events} with events"]
    parts += [f"{n} {kind} cards" for kind, n in st.kinds.items() if kind != "campaign"]
    parts.append(f"{st.procedures} rule procedures")
    return ", ".join(parts)


def print_check(loaded: Loaded, fmt: str, elapsed: float, path: Path) -> int:
    diags = loaded.report.diagnostics
    if fmt == "json":
        print(json.dumps({
            "ok": loaded.program is not None,
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
            kind = "error" if d.severity == "error" else "warning"
            text = f"[{d.code}] {d.message}" + (f" ({d.hint})" if d.hint else "")
            print(f"::{kind} file={d.source.path},line={d.source.line},"
                  f"col={d.source.column}::{text}")
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
            print(f"note: campaign cards without an event yet: {missing}")
        status = "ok" if loaded.program is not None else "failed"
        print(f"{path}: {status}: {summary(loaded)} ({elapsed:.2f} s)")
    return 0 if loaded.program is not None else 1
