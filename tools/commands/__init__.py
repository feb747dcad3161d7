"""Further `hustings` subcommands, one module each.

A module here defines NAME, HELP, `add_arguments(parser)` and `run(args) -> int`;
the CLI finds it by itself, so adding a command touches no other file.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def discover() -> list[ModuleType]:
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            modules.append(importlib.import_module(f"{__name__}.{info.name}"))
    return modules
