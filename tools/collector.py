"""Python's garbage collector in a command-line process: quiet while the process starts.

Starting (imports, reading and compiling the pack, writing the first game's code) makes
about 100,000 objects that live as long as the process, and the collector walks them
again and again as they come: 35 ms of a 0.55 s `hustings play --quiet`, in one full
collection and fourteen middle ones. A process started from the command line therefore
first collects only once it holds STARTUP_OBJECTS more objects than it has freed; that
collection done, all the process holds is set aside for good (`gc.freeze`: never walked
again, never freed) and the collector runs with Python's thresholds. A short command
never collects; a long one (bench, simulate, soak) pays one collection for its start.
"""

from __future__ import annotations

import gc

STARTUP_OBJECTS = 100_000


def collect_after_startup() -> None:
    """From now on, the first collection waits for STARTUP_OBJECTS objects, and freezes."""
    usual = gc.get_threshold()
    pending = [True]

    def after_first(phase: str, _info: dict) -> None:
        if phase == "stop" and pending:
            pending.clear()
            gc.freeze()
            gc.set_threshold(*usual)

    gc.callbacks.append(after_first)
    gc.set_threshold(STARTUP_OBJECTS, *usual[1:])
