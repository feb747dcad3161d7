"""Further `hustings` subcommands, one module each.

A module here defines NAME, HELP, `add_arguments(parser)` and `run(args) -> int`;
the CLI finds it by itself, so adding a command touches no other file. Every module is
imported to list the commands (`hustings --help`), so what only `run` needs is imported
when it runs.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def discover(named: str | None = None) -> list[ModuleType]:
    """Every command's module; only the one of the command `named`, when there is one (a
    command line needs no other, and the others' imports cost a few tenths of a second)."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__)
                   if not info.name.startswith("_"))
    wanted = (named or "").replace("-", "_")
    if wanted in names:
        module = importlib.import_module(f"{__name__}.{wanted}")
        if module.NAME == named:
            return [module]
    return [importlib.import_module(f"{__name__}.{name}") for name in names]
