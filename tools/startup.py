"""Start-up time as a user meets it: `hustings check` and `hustings play --quiet` of a pack,
each a new process, timed by the wall clock from its start to its exit.

Each is timed two ways: compiling the pack (`HUSTINGS_CACHE=off`: a fresh install, or the
first run after a change to the pack) and with the pack cache (a folder of its own, filled
by one untimed run of each first, so the user's cache is neither used nor written). The
four kinds of run take turns, so a host whose speed wanders meets them alike. A process
runs what the `hustings` script runs, with the bytecode the install has.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# What the `hustings` script does: the process starts as the command does.
_SCRIPT = "import sys; from hustings.tools.cli import main; sys.exit(main())"
KINDS = ("check", "play", "check_cached", "play_cached")


class StartupFailed(Exception):
    """A timed command did not succeed (its error output says why)."""


def content_arguments(pack: Path | None, options: list[str], mods: list[Path]) -> list[str]:
    """The command-line arguments naming the content a bench ran on."""
    out = ["--pack", str(pack)] if pack is not None else []
    for option in options:
        out += ["--option", option]
    for mod in mods:
        out += ["--mod", str(mod)]
    return out


def time_startup(content: list[str], runs: int) -> dict[str, list[float]]:
    """Seconds of each run of each kind (KINDS), `runs` of each, taking turns."""
    commands = {"check": ["check", *content], "play": ["play", *content, "--seed", "1", "--quiet"]}
    with tempfile.TemporaryDirectory(prefix="hustings-startup-") as cache:
        for name in commands:  # the cache filled, untimed
            _run(commands[name], cache)
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        for _ in range(runs):
            for kind in KINDS:
                name, _, cached = kind.partition("_")
                times[kind].append(_run(commands[name], cache if cached else "off"))
    return times


def _run(arguments: list[str], cache: str) -> float:
    env = {**os.environ, "HUSTINGS_CACHE": cache}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _SCRIPT, *arguments], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise StartupFailed(f"`hustings {' '.join(arguments)}` exited {done.returncode}"
                            + (f": {said[-1]}" if said else ""))
    return seconds


def figures(times: dict[str, list[float]] | None) -> dict[str, float | None]:
    """The median of each kind, in seconds: the JSON line's `startup_*_s` (None when
    start-up was not timed)."""
    return {f"startup_{kind}_s": round(statistics.median(times[kind]), 3) if times else None
            for kind in KINDS}


def report_line(times: dict[str, list[float]]) -> str:
    def spread(kind: str) -> str:
        values = times[kind]
        return (f"{statistics.median(values):.3f} s "
                f"({min(values):.3f}–{max(values):.3f})")

    runs = len(times["check"])
    return (f"start-up, wall clock, whole process, median (range) of {runs} run"
            f"{'s' if runs > 1 else ''} each, taking turns: compiling the pack, check "
            f"{spread('check')}, play --seed 1 --quiet {spread('play')}; with the pack "
            f"cache, check {spread('check_cached')}, play {spread('play_cached')}")
