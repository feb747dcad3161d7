"""The parser's stored tables (dsl/_parser_tables.py) are the grammar's, and are the ones used.

When the grammar changes, regenerate them: `python -m hustings.dsl.standalone`.
"""

from __future__ import annotations

import random

import pytest
from lark.exceptions import UnexpectedInput
from lark.grammar import Rule
from lark.lexer import TerminalDef

from hustings.dsl import _parser_tables, parser, standalone
from hustings.dsl.loading import load_pack

REGENERATE = "dsl/_parser_tables.py is stale: run `python -m hustings.dsl.standalone`"


@pytest.fixture
def fresh_parser():
    """parser() forgets the parser it made, before and after the test."""
    parser.parser.cache_clear()
    yield
    parser.parser.cache_clear()


def test_the_stored_tables_are_what_the_grammar_gives():
    assert standalone.TABLES.read_text("utf-8") == standalone.render(), REGENERATE
    assert standalone.main(["--check"]) == 0


def test_the_parser_is_loaded_from_the_tables_not_built(fresh_parser, monkeypatch):
    def build():
        raise AssertionError("the parser was built from the grammar")

    monkeypatch.setattr(parser, "build_parser", build)
    assert parser.parser().parse("move 1 to x\n", start="start").data == "start"


@pytest.mark.parametrize("field", ["GRAMMAR_SHA256", "LARK_VERSION"])
def test_stale_tables_are_not_used(fresh_parser, monkeypatch, field):
    """Tables of another grammar or lark version: the parser is built from the grammar."""
    monkeypatch.setattr(_parser_tables, field, "something else")
    assert parser.stored_tables() is None
    built = []
    real = parser.build_parser
    monkeypatch.setattr(parser, "build_parser", lambda: built.append(1) or real())
    assert parser.parser().parse("move 1 to x\n", start="start").data == "start"
    assert built == [1]


def pack_texts() -> list[tuple[str, str]]:
    """Every (effect text, start rule) the 1960 pack parses."""
    parser.remember_trees(True)
    try:
        load_pack()
        return list(parser._TREES)
    finally:
        parser.remember_trees(False)


def test_loaded_and_built_parsers_give_the_same_trees_for_the_whole_pack():
    loaded, built = parser.parser(), parser.build_parser()
    texts = pack_texts()
    assert len(texts) > 200
    for text, start in texts:
        body = parser.parse_body(text, start)
        assert loaded.parse(body, start=start) == built.parse(body, start=start), text


BROKEN = [
    ("move 1 to\n", "start"), ("if x:\nmove 1 to y\n", "start"), ("mov 1 to x\n", "start"),
    ('say "open\n', "start"), ("x +\n", "expr"), ("(1 + 2\n", "expr"), ("move 1 to x $\n", "start"),
    ("if x:\n    move 1 to y\n  move 2 to z\n", "start"),
]


@pytest.mark.parametrize(("text", "start"), BROKEN)
def test_loaded_and_built_parsers_fail_alike(text, start):
    """Same exception, place and expected tokens: the diagnostics built on them agree."""
    seen = []
    for p in (parser.parser(), parser.build_parser()):
        with pytest.raises(Exception) as caught:
            p.parse(parser.parse_body(text, start), start=start)
        e = caught.value
        expected = sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or ())
        where = (e.line, e.column) if isinstance(e, UnexpectedInput) else None
        seen.append((type(e), where, expected))
    assert seen[0] == seen[1]


def test_canonical_numbering_ignores_how_lark_numbered_the_table():
    """Lark numbers tokens and states differently from run to run; the file must not."""
    data, _ = parser.build_parser().memo_serialize([TerminalDef, Rule])
    table = data["parser"]["parser"]
    rng = random.Random(7)
    states = list(table["states"])
    tokens = list(table["tokens"])
    new_state = dict(zip(states, rng.sample(range(1000, 1000 + len(states)), len(states)),
                         strict=True))
    new_token = dict(zip(tokens, rng.sample(range(500, 500 + len(tokens)), len(tokens)),
                         strict=True))
    shuffled = {
        "tokens": {new_token[i]: name for i, name in table["tokens"].items()},
        "states": {new_state[s]: {new_token[t]: (a, new_state[arg] if a == 0 else arg)
                                  for t, (a, arg) in actions.items()}
                   for s, actions in table["states"].items()},
        "start_states": {k: new_state[v] for k, v in table["start_states"].items()},
        "end_states": {k: new_state[v] for k, v in table["end_states"].items()},
    }
    assert standalone.canonical_table(shuffled) == standalone.canonical_table(table)
    assert standalone.canonical_table(table) != table  # it does renumber
