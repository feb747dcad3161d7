"""The parser's stored tables (dsl/_parser_tables.py) are the grammar's, and are the ones used.

When the grammar changes, regenerate them: `python -m hustings.dsl.standalone`.
"""

from __future__ import annotations

import ast
import random

import pytest
from lark.exceptions import UnexpectedInput
from lark.grammar import Rule
from lark.indenter import DedentError
from lark.lexer import TerminalDef

from hustings.dsl import _parser_tables, parser, standalone
from hustings.dsl.loading import builtin_pack, load_pack

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


def test_the_stored_tables_are_data_alone():
    """Every statement of the module assigns a literal: importing it runs nothing else."""
    module = ast.parse(standalone.TABLES.read_text("utf-8"))
    names = []
    for statement in module.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # the docstring
        assert isinstance(statement, ast.Assign), ast.dump(statement)[:80]
        ast.literal_eval(statement.value)  # raises for anything but a literal
        names += [target.id for target in statement.targets]
    assert names == ["LARK_VERSION", "GRAMMAR_SHA256", "DATA", "MEMO"]


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


def pack_texts(*packs: str) -> list[tuple[str, str]]:
    """Every (effect text, start rule) the built-in packs named parse (default: 1960)."""
    parser.remember_trees(True)
    try:
        for pack in packs or ("1960",):
            load_pack(builtin_pack(pack))
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


def starts(tree) -> list[tuple]:
    """Each node's rule and where it starts (None: nowhere, an empty rule), top down."""
    return [(t.data, None if t.meta.empty else (t.meta.line, t.meta.column))
            for t in tree.iter_subtrees_topdown()]


def test_every_node_starts_where_lark_own_positions_say():
    """The parser records starts alone (dsl/positions.py); lark's own propagation, which
    the built parser keeps, must agree on every node, keywords left out of the tree and
    rules written inline included."""
    loaded, built = parser.parser(), parser.build_parser()
    texts = pack_texts("1960", "campaign-trail", "tic-tac-toe")
    assert len(texts) > 400
    for text, start in texts:
        body = parser.parse_body(text, start)
        assert starts(loaded.parse(body, start=start)) == starts(built.parse(body, start=start))


def test_a_node_starts_at_the_keyword_the_tree_leaves_out():
    """`if` is not in the tree; the statement still starts at it, not at its condition."""
    tree = parser.parser().parse("move 1 to x\nif  y:\n    move 2 to z\n", start="start")
    statement = next(t for t in tree.iter_subtrees_topdown() if t.data == "if_stmt")
    assert (statement.meta.line, statement.meta.column) == (2, 1)
    assert not hasattr(statement.meta, "end_line")  # the ends are not recorded


def test_a_node_starts_at_the_bracket_around_its_first_part():
    """`(1 + 2) * 3` starts at the bracket, the sum inside it after the bracket."""
    product = parser.parser().parse("(1 + 2) * 3", start="expr")
    assert (product.meta.line, product.meta.column) == (1, 1)
    assert (product.children[0].meta.line, product.children[0].meta.column) == (1, 2)


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
        # a parse error, never another failure both could share (a crash, a bad table)
        with pytest.raises((UnexpectedInput, DedentError)) as caught:
            p.parse(parser.parse_body(text, start), start=start)
        e = caught.value
        expected = sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or ())
        where = (e.line, e.column) if isinstance(e, UnexpectedInput) else None
        seen.append((type(e), where, expected))
    assert seen[0] == seen[1]
    assert seen[0][1] is not None or seen[0][0] is DedentError  # an input error has a place


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
