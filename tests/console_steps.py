"""Running a documented console block: each `$ hustings ...` line is run in a folder, and
the block's other lines must appear in what the commands print (docs that cannot drift)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path


def run_console_block(arg: str, body: str, cwd: Path) -> None:
    """`arg` is the marker's `exit=N`: every command must exit with N."""
    want_exit = int(arg.split("=")[1])
    lines = body.strip().splitlines()
    commands = [line[2:] for line in lines if line.startswith("$ ")]
    expected = [line for line in lines if not line.startswith("$ ")]
    output = ""
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "hustings", command
        proc = subprocess.run([sys.executable, "-m", "hustings.tools.cli", *words[1:]],
                              cwd=cwd, capture_output=True, text=True, timeout=300)
        output += proc.stdout + proc.stderr
        assert proc.returncode == want_exit, f"{command}\n{output}"
    for line in expected:
        assert line in output, f"{commands}: expected {line!r} in\n{output}"
