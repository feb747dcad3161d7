"""What `check` proves of a whole compiled pack so that play cannot fail on it later.

- A pure function's size with every call in it written in (E402): the game writes small
  pure functions in where they are called, and one call of a function is about that much
  work; a function doubling at each of forty levels would hang the game's set-up.
- The announcement graph (E335): a reaction that announces (itself, or through the
  procedures it calls) what it reacts to nests without end in play. It is an effect graph
  like the call graph (graph.py): its cycles are found with networkx and reported with
  the position of each of their members.
"""

from __future__ import annotations

from ..interpreter.budget import MAX_FUNCTION_NODES
from ..interpreter.codegen import pure_calls, pure_functions, written_in_sizes
from .diagnostics import Report, Source


def check_function_sizes(functions: dict, sources: dict[str, Source], report: Report) -> None:
    """E402 for each pure function larger than MAX_FUNCTION_NODES once written in, where
    the functions it calls are not (those calling it are larger still: one report says
    where the growth passes the bound)."""
    pure = pure_functions(functions)
    if not pure:
        return
    sizes = written_in_sizes(functions, pure)
    over = {name for name, (size, _) in sizes.items() if size > MAX_FUNCTION_NODES}
    for name in sorted(over):
        size = sizes[name][0]
        if name in sources and not over.intersection(pure_calls(functions[name][1], pure)):
            shown = f"{size:,}" if size < 10**15 else "more than 10**15"
            report.error(sources[name], "E402",
                         f"the function '{name}', each call in it written in, is {shown} "
                         f"nodes: more than the {MAX_FUNCTION_NODES:,} a function may be",
                         "it calls functions that call functions again and again (each call "
                         "doubling the work): work the value out step by step in a procedure "
                         "(`let`, `for`), or call each function once and reuse its value")
