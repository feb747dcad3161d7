"""Parses effect text with the Lark grammar in grammar.lark.

Every node keeps its line and column, so later passes can point at the exact
spot in the content file. A text that does not parse is explained in the
designer's words by syntax_errors.py.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Tree
from lark.exceptions import LarkError, UnexpectedInput
from lark.indenter import DedentError, Indenter

from .diagnostics import Source
from .positions import record_starts

GRAMMAR = Path(__file__).with_name("grammar.lark")
TAB_LEN = 8  # a tab's width in indentation


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = TAB_LEN


class DslSyntaxError(Exception):
    def __init__(self, source: Source, message: str, hint: str = "",
                 wants: tuple[str, str, Source] | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.message = message
        self.hint = hint
        # what the pack names at a spot the error concerns: (kind, the word written there,
        # its position), for the compiler to check it against the pack and list the names
        self.wants = wants


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The parser, its tables read from _parser_tables.py (dsl/standalone.py writes it) when
    they are the grammar's for the installed lark; built from the grammar otherwise. Its
    trees record where each node starts, not where it ends (see positions.py)."""
    stored = stored_tables()
    if stored is None:
        return record_starts(build_parser())
    data, memo = stored
    return record_starts(Lark._load_from_dict(data, memo, postlex=_Indenter()))


def build_parser() -> Lark:
    """The parser built from grammar.lark: LALR tables computed, about 0.3 s of CPU. Its
    trees have all of lark's positions."""
    return Lark(
        GRAMMAR.read_text("utf-8"),
        parser="lalr",
        postlex=_Indenter(),
        start=["start", "expr"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


def stored_tables() -> tuple[dict[str, Any], dict[int, Any]] | None:
    """Lark's serialized parser from _parser_tables.py, or None when it is stale."""
    from . import _parser_tables as stored

    if stored.LARK_VERSION != lark.__version__ or stored.GRAMMAR_SHA256 != grammar_sha256():
        return None
    return stored.DATA, stored.MEMO


def grammar_sha256() -> str:
    """The grammar's fingerprint (of its text: a checkout's line endings do not count)."""
    import hashlib

    return hashlib.sha256(GRAMMAR.read_text("utf-8").encode("utf-8")).hexdigest()


# Trees of texts parsed cleanly, by (text, start rule): kept only while a tool that compiles
# many near-identical packs (the content fuzzer) turns it on with `remember_trees(True)`.
_TREES: dict[tuple[str, str], Tree] | None = None
_ADDING_TREES = False


def remember_trees(on: bool) -> None:
    """Keep (or stop keeping) parse trees; the compiler only reads them."""
    global _TREES, _ADDING_TREES
    _TREES = {} if on else None
    _ADDING_TREES = on


def remember_no_more_trees() -> None:
    """Keep the trees remembered so far (a pack's original texts) but add no more."""
    global _ADDING_TREES
    _ADDING_TREES = False


def parse(text: str, source: Source, start: str = "start") -> Tree:
    if _TREES is None:
        return _parse(text, source, start)
    tree = _TREES.get((text, start))
    if tree is None:
        tree = _parse(text, source, start)
        if _ADDING_TREES and len(_TREES) < 5000:
            _TREES[(text, start)] = tree
    return tree


def parse_body(text: str, start: str) -> str:
    """The text as the parser reads it."""
    if start == "expr":
        # One line, but every character keeps its offset, so positions map back
        # to the file through the source's folds.
        return text.replace("\r", " ").replace("\n", " ")
    return text if text.endswith("\n") else text + "\n"


def _parse(text: str, source: Source, start: str) -> Tree:
    body = parse_body(text, start)
    try:
        return parser().parse(body, start=start)
    except (DedentError, UnexpectedInput) as e:
        # The explanations are read only when a text fails to parse.
        from .syntax_errors import explain

        raise explain(e, body, source) from None
    except LarkError as e:  # anything else from the parser is still a syntax problem
        raise DslSyntaxError(source, f"syntax error: {e}") from None
