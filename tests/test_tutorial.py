"""Runs docs/authoring.md: its files are written and its commands run, in order.

`<!-- file: PATH -->` before a fenced block writes that block to PATH;
`<!-- run: exit=N -->` before a console block runs each `$ hustings ...` line
and expects exit code N and every other line of the block in the output.
"""

from __future__ import annotations

import re
from pathlib import Path

from console_steps import run_console_block

DOC = Path(__file__).resolve().parents[1] / "docs" / "authoring.md"
STEP = re.compile(r"<!-- (file|run): ([^>]*?) -->\n```\w*\n(.*?)```", re.S)


def steps() -> list[tuple[str, str, str]]:
    return STEP.findall(DOC.read_text())


def test_the_tutorial_has_files_and_commands():
    kinds = [kind for kind, _, _ in steps()]
    assert kinds.count("file") >= 3 and kinds.count("run") >= 5


def test_the_tutorial_runs(tmp_path):
    for kind, arg, body in steps():
        if kind == "file":
            target = tmp_path / arg.strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body)
            continue
        run_console_block(arg, body, tmp_path)
