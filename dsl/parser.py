"""Parses effect text with the Lark grammar in grammar.lark.

Every node keeps its line and column, so later passes can point at the exact
spot in the content file.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from .diagnostics import Source

GRAMMAR = Path(__file__).with_name("grammar.lark")


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


class DslSyntaxError(Exception):
    def __init__(self, source: Source, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.source = source
        self.message = message
        self.hint = hint


@lru_cache(maxsize=1)
def parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        postlex=_Indenter(),
        start=["start", "expr"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


_READABLE = {
    "_NL": "end of line", "_INDENT": "indented block", "_DEDENT": "end of block",
    "NAME": "a name", "NUMBER": "a number", "STRING": "a quoted string",
    "COLON": "':'", "COMMA": "','", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['",
    "RSQB": "']'", "EQUAL": "'='", "$END": "end of text",
}


def _expected(terms) -> str:
    names = sorted({_READABLE.get(t, t.lower().strip('"')) for t in terms})
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")


def parse(text: str, source: Source, start: str = "start") -> Tree:
    if start == "expr":
        body = " ".join(text.split())
    else:
        body = text if text.endswith("\n") else text + "\n"
    try:
        return parser().parse(body, start=start)
    except UnexpectedInput as e:
        line, col = max(getattr(e, "line", 1), 1), max(getattr(e, "column", 1), 1)
        where = source.at(line, col)
        if isinstance(e, UnexpectedToken):
            token = e.token
            shown = "end of line" if token.type == "_NL" else repr(str(token))
            if token.type in ("_INDENT", "_DEDENT"):
                shown = "a change of indentation"
            raise DslSyntaxError(
                where, f"unexpected {shown}", f"expected {_expected(e.expected)}"
            ) from None
        if isinstance(e, UnexpectedCharacters):
            raise DslSyntaxError(
                where, f"unexpected character {e.char!r}",
                "names are letters, digits and '_'; text goes in double quotes",
            ) from None
        if isinstance(e, UnexpectedEOF):
            raise DslSyntaxError(where, "the text ends too early", "finish the statement") from None
        raise DslSyntaxError(where, str(e)) from None
