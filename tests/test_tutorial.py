"""Runs docs/authoring.md: its files are written and its commands run, in order.

`<!-- file: PATH -->` before a fenced block writes that block to PATH;
`<!-- run: exit=N -->` before a console block runs each `$ hustings ...` line
and expects exit code N and every other line of the block in the output.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

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
        want_exit = int(arg.split("=")[1])
        lines = body.strip().splitlines()
        commands = [line[2:] for line in lines if line.startswith("$ ")]
        expected = [line for line in lines if not line.startswith("$ ")]
        output = ""
        for command in commands:
            words = shlex.split(command)
            assert words[0] == "hustings"
            proc = subprocess.run([sys.executable, "-m", "hustings.tools.cli", *words[1:]],
                                  cwd=tmp_path, capture_output=True, text=True)
            output += proc.stdout + proc.stderr
            assert proc.returncode == want_exit, f"{command}\n{output}"
        for line in expected:
            assert line in output, f"{commands}: expected {line!r} in\n{output}"
