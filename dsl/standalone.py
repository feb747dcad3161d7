"""Writes dsl/_parser_tables.py: the parser tables of dsl/grammar.lark, built once.

Building the LALR tables from the grammar takes about 0.3 s of CPU, at every start of
every command that reads effect text. The generated module holds them instead, and
dsl/parser.py loads it. After changing the grammar, regenerate it with

    python -m hustings.dsl.standalone            (--check: exit 1 if the file is stale)

tests/test_parser_tables.py fails while the file and the grammar disagree.

The tables are Lark's own serialized parser (the DATA and MEMO that
`python -m lark.tools.standalone` writes), as Python literals written with `repr`: no
pickle, nothing in them but data. Imported, they come from the module's cached bytecode,
about three times faster than decoding the same tables from JSON. They are loaded by
the installed lark rather than by a copy of lark's runtime, so trees, tokens and syntax
errors stay lark's classes and the diagnostics are unchanged.
Lark numbers the tables' tokens and states differently from run to run; they are
renumbered canonically here, so one grammar always gives the same file.
"""

from __future__ import annotations

import argparse
import sys
from collections import deque
from pathlib import Path
from typing import Any

TABLES = Path(__file__).with_name("_parser_tables.py")
SHIFT = 0  # lark's serialized action codes: 0 shift (or goto), 1 reduce


def serialized() -> tuple[dict[str, Any], dict[int, Any]]:
    """Lark's (data, memo) for the parser built from the grammar, tables canonical."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    from .parser import build_parser

    data, memo = build_parser().memo_serialize([TerminalDef, Rule])
    data["options"]["postlex"] = None  # an object; dsl/parser.py passes its own when loading
    frontend = data["parser"]
    frontend["parser"] = canonical_table(frontend["parser"])
    return data, memo


def canonical_table(table: dict[str, Any]) -> dict[str, Any]:
    """The parse table with tokens numbered by name and states breadth-first from the starts.

    The states are the same automaton in every run, only numbered differently; walking it
    from the start states, following each state's symbols in name order, numbers it the
    same way every time."""
    names: dict[int, str] = table["tokens"]
    states: dict[int, dict[int, tuple]] = table["states"]
    token_id = {name: i for i, name in enumerate(sorted(set(names.values())))}
    number: dict[int, int] = {}
    queue: deque[int] = deque()

    def reach(state: int) -> None:
        if state not in number:
            number[state] = len(number)
            queue.append(state)

    for start in sorted(table["start_states"]):
        reach(table["start_states"][start])
    while queue:
        for _, (action, arg) in sorted(states[queue.popleft()].items(),
                                       key=lambda kv: names[kv[0]]):
            if action == SHIFT:
                reach(arg)
    if len(number) != len(states):
        raise RuntimeError("the parse table has states no start state reaches")
    renumbered = {
        number[s]: {token_id[names[t]]: (action, number[arg] if action == SHIFT else arg)
                    for t, (action, arg) in sorted(actions.items(),
                                                   key=lambda kv: token_id[names[kv[0]]])}
        for s, actions in states.items()
    }
    return {
        "tokens": {i: name for name, i in token_id.items()},
        "states": dict(sorted(renumbered.items())),
        "start_states": {k: number[v] for k, v in sorted(table["start_states"].items())},
        "end_states": {k: number[v] for k, v in sorted(table["end_states"].items())},
    }


def to_literal(value: Any) -> str:
    """A Python literal of `value` (dicts, lists, text, numbers, True/False/None; a tuple is
    written as a list, as a JSON round trip gave it), one line per state and per memo
    entry, so a change reads as a diff."""
    if isinstance(value, dict):
        parts = [(repr(k), to_literal(v)) for k, v in value.items()]
        spread = (len(value) > 1 and all(isinstance(v, dict) for v in value.values())) \
            or any("\n" in text for _, text in parts)
        if spread:
            return "{\n" + ",\n".join(f"{k}: {text}" for k, text in parts) + ",\n}"
        return "{" + ", ".join(f"{k}: {text}" for k, text in parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_literal(v) for v in value) + "]"
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    raise TypeError(f"lark's tables hold a {type(value).__name__}: not written as a literal")


def render() -> str:
    """The text of _parser_tables.py for the grammar and lark installed now."""
    import lark

    from .parser import grammar_sha256

    data, memo = serialized()
    return (
        "# Generated from dsl/grammar.lark by `python -m hustings.dsl.standalone`; do not edit.\n"
        '"""The effect language\'s parser tables: lark\'s serialized LALR parser, as Python\n'
        "literals (dicts, lists, text, numbers and nothing else).\n\n"
        "dsl/parser.py loads them when LARK_VERSION and GRAMMAR_SHA256 match the installed\n"
        "lark and dsl/grammar.lark, and builds the parser from the grammar otherwise.\n"
        '"""\n\n'
        f'LARK_VERSION = "{lark.__version__}"\n'
        f'GRAMMAR_SHA256 = "{grammar_sha256()}"\n\n'
        f"DATA = {to_literal(data)}\n\n"
        f"MEMO = {to_literal(memo)}\n"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hustings.dsl.standalone",
                                description="Write dsl/_parser_tables.py from dsl/grammar.lark.")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if the file is not what the grammar gives")
    args = p.parse_args(argv)
    text = render()
    current = TABLES.read_text("utf-8") if TABLES.exists() else ""
    if args.check:
        if current != text:
            print(f"{TABLES} is stale: run python -m hustings.dsl.standalone", file=sys.stderr)
            return 1
        print(f"{TABLES} is up to date")
        return 0
    if current != text:
        TABLES.write_text(text, "utf-8")
    print(f"wrote {TABLES}" if current != text else f"{TABLES} was already up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
