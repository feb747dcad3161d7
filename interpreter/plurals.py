"""Counted nouns: "1 card", "2 cards", chosen by the language's plural rule (Babel's CLDR
rules), never by adding letters.

A pack declares the forms of the nouns it shows with a count (`nouns:` in pack.yaml,
`card: {one: card, other: cards}`); a noun it does not declare is shown as its display name
(or its id in words) whatever the count, which suits the uncountable ("2 gold").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

LOCALE = "en"  # the language the packs are written in (a translated program has its own)
# The nouns the engine itself counts (cards dealt), unless the pack words them its own way.
COUNTED = "{n} {noun}"  # a number and its noun: the catalog's msgid for how they join
ENGINE_NOUNS = {"card": {"one": "card", "other": "cards"}}


@lru_cache(maxsize=64)
def category(n: int, locale: str = LOCALE) -> str:
    """The CLDR plural category of `n` in `locale`: 'one', 'other', ('few', 'many'...)."""
    from babel import Locale, UnknownLocaleError  # only when a count is shown

    try:
        return Locale.parse(locale).plural_form(abs(n))
    except (UnknownLocaleError, ValueError):  # a catalog's language CLDR does not know
        return "other"


def noun(program, n: int, key: str) -> str:
    """The form of noun `key` (of the program's `nouns`) that goes with the number n."""
    forms = program.nouns.get(key) or ENGINE_NOUNS.get(key)
    if forms:
        form = forms.get(category(n, program.language))
        return form or forms.get("other") or forms.get("one") or key
    shown = program.names.get(key)
    return shown if shown is not None else key.replace("_", " ")


def counted(m, n: Any, key: str) -> str:
    """`n` and the form of noun `key` for it: "1 card", "3 cards"."""
    if n.__class__ is not int or n.__class__ is bool:
        return _joined(m, m.show(n), noun(m.p, 2, key))
    return _joined(m, str(n), noun(m.p, n, key))


def _joined(m, number: str, word: str) -> str:
    """"3 cards": a space between, unless the game's catalog words it otherwise ("{n}{noun}",
    for a language that writes no space)."""
    catalog = m.p.catalog
    if catalog is None:
        return f"{number} {word}"
    return catalog.plain.get(COUNTED, COUNTED).format(n=number, noun=word)
