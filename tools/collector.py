"""Python's garbage collector in a command-line process: quiet while the process starts.

Starting (imports, reading and compiling the pack, writing the first game's code) makes
about 100,000 objects that live as long as the process, and the collector walks them
again and again as they come: 35 ms of a 0.55 s `hustings play --quiet`, in one full
collection, fourteen middle ones and 150 young ones. A process started from the command
line therefore first collects only once it holds STARTUP_OBJECTS more objects than it
has freed. That collection done, all the process holds is set aside (`gc.freeze`: the
collector never walks it again; an object still goes when nothing refers to it, though a
cycle of them never does) and the collector runs with Python's thresholds. A short
command never collects; a long one (bench, simulate, soak, serve) pays one collection for
its start.
"""

from __future__ import annotations

import gc

STARTUP_OBJECTS = 100_000


def collect_after_startup() -> None:
    """From now on, the first collection waits for STARTUP_OBJECTS objects, and freezes."""
    usual = gc.get_threshold()
    first = True

    def after_first(phase: str, _info: dict) -> None:
        nonlocal first
        if phase == "stop" and first:
            first = False
            gc.freeze()
            gc.set_threshold(*usual)

    gc.callbacks.append(after_first)
    gc.set_threshold(STARTUP_OBJECTS, *usual[1:])
