"""Finding a card of a compiled pack by number or title, with a did-you-mean."""

from __future__ import annotations

import difflib
import re

from ...interpreter.program import Program


class CardNotFound(LookupError):
    """No card (or more than one) answers to a number or title."""


def find_card(program: Program, query: str | int) -> int:
    """A card by number ("2", "#2") or title (any case; a unique part is enough)."""
    text = str(query).strip()
    digits = text.lstrip("#")
    if digits.isascii() and digits.isdigit():  # not '²', which int() refuses
        number = int(digits) if len(digits) <= 18 else None  # nor 5,000 digits
        if number in program.cards:
            return number
        raise CardNotFound(f"there is no card number {digits[:20]}")
    return _by_title(program, text)


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", "", text.lower()).split())


def _by_title(program: Program, text: str) -> int:
    titles: dict[str, list[int]] = {}  # folded title -> card numbers
    for number, attrs in sorted(program.cards.items()):
        titles.setdefault(_fold(str(attrs.get("title", number))), []).append(number)
    wanted = _fold(text)
    if wanted in titles:
        return titles[wanted][0]  # identical titles are identical cards: take the first
    partial = [t for t in titles if wanted and wanted in t]
    if len(partial) == 1:
        return titles[partial[0]][0]
    if partial:
        named = ", ".join(f"{titles[t][0]} {program.cards[titles[t][0]]['title']}" for t in partial)
        raise CardNotFound(f"'{text}' matches several cards: {named}")
    raise CardNotFound(f"there is no card titled '{text}'" + _suggest(program, titles, wanted))


def _suggest(program: Program, titles: dict[str, list[int]], wanted: str) -> str:
    close = difflib.get_close_matches(wanted, list(titles), n=3, cutoff=0.5)
    names = [f"'{program.cards[titles[t][0]]['title']}' ({titles[t][0]})" for t in close]
    return f"; did you mean {' or '.join(names)}?" if names else ""
