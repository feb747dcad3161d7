"""The language reference keeps up with the grammar: every form is documented."""

from __future__ import annotations

import re
from pathlib import Path

from hustings.interpreter.builtins import ARITY

ROOT = Path(__file__).resolve().parents[1]
GRAMMAR = (ROOT / "dsl" / "grammar.lark").read_text()
REFERENCE = (ROOT / "docs" / "dsl.md").read_text()


def grammar_forms() -> set[str]:
    rules = set(re.findall(r"^(\w+_(?:stmt|phrase)):", GRAMMAR, flags=re.M))
    aliases = set(re.findall(r"->\s*(\w+)", GRAMMAR))
    return rules | aliases


def test_every_grammar_form_is_in_the_reference():
    missing = sorted(f for f in grammar_forms() if f"`{f}`" not in REFERENCE)
    assert not missing, f"docs/dsl.md does not document: {', '.join(missing)}"


def test_every_builtin_function_is_in_the_reference():
    missing = sorted(n for n in ARITY if f"`{n}" not in REFERENCE)
    assert not missing, f"docs/dsl.md does not document: {', '.join(missing)}"


def test_the_forms_are_found():
    forms = grammar_forms()
    assert {"let_stmt", "add_phrase", "where", "prop"} <= forms
