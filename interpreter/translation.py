"""A program shown in another language: the same rules, with every text a player reads
taken from a message catalog (interpreter/catalog.py).

`translated(program, catalog)` is a copy of the program whose display names, nouns, card
titles and texts, view labels and narration templates are the catalog's, and whose texts
with parts (`say`, option labels, questions) are compiled in the catalog's words. Nothing
the rules decide by changes: ids, numbers, the seed and the actions taken are the same,
so the same seed and actions make the same game in every language, and its save (the
state, which names ids) is the same save. Only what is shown differs.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from .catalog import Catalog, CatalogError, load
from .program import Program

LANGUAGE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")  # ja, pt_BR: also the file's name
ENGINE_CATALOGS = Path(__file__).parent / "locale"
# The keys of a pack's view (docs/view.md) whose values a player reads.
VIEW_TEXTS = frozenset({"label", "title", "name"})


def engine_catalog(language: str) -> Catalog:
    """The engine's own texts (narration's LINES) in `language`, or an empty catalog."""
    path = ENGINE_CATALOGS / f"{language}.po"
    return load(path, language) if path.is_file() else Catalog(language)


def pack_catalog(folder: Path, language: str) -> Catalog | None:
    """The pack's `locale/<language>.po`, or None when the pack has none."""
    path = folder / "locale" / f"{language}.po"
    return load(path, language) if path.is_file() else None


def in_language(program: Program, folder: Path, language: str,
                *more: Path) -> Program:
    """`program` (of the pack in `folder`) shown in `language`: the engine's catalog, those
    of the folders `more` (a tool's own texts: its locale/<language>.po) and the pack's
    over them. English, the language packs are written in, is the program itself;
    a language the pack has no catalog for is a CatalogError saying how to make one."""
    if language == "en":
        return program
    if not LANGUAGE.fullmatch(language):
        raise CatalogError("--lang", f"{language[:20]!r} is not a language code",
                           "give one such as ja or pt_BR")
    pack = pack_catalog(folder, language)
    if pack is None:
        raise CatalogError(f"{folder / 'locale' / (language + '.po')}:1:1",
                           f"the pack has no catalog for {language!r}",
                           f"write one: hustings translate extract {folder} --lang {language}")
    catalog = engine_catalog(language)
    for other in more:
        path = other / f"{language}.po"
        if path.is_file():
            catalog = catalog.merged(load(path, language))
    return translated(program, catalog.merged(pack))


def translated(program: Program, catalog: Catalog) -> Program:
    """`program` shown in the catalog's language (a new program: its code is compiled
    anew, with the catalog's templates)."""
    tr = catalog.text
    names = {msgid.replace(" ", "_"): text for msgid, text in catalog.plain.items()
             if "\x04" not in msgid}
    names.update({msgid: text for msgid, text in catalog.plain.items() if "\x04" not in msgid})
    names.update({key: tr(shown) for key, shown in program.names.items()})
    nouns = {key: {form: tr(word) for form, word in forms.items()}
             for key, forms in program.nouns.items()}
    cards = {number: _card(card, tr) for number, card in program.cards.items()}
    locations = {key: _place(info, tr) for key, info in program.locations.items()}
    pools = {key: dataclasses.replace(pool, name=tr(pool.name))
             for key, pool in program.pools.items()}
    return dataclasses.replace(program, names=names, nouns=nouns, cards=cards,
                               locations=locations, pools=pools,
                               view=_view(program.view, tr), language=catalog.language,
                               catalog=catalog)


def _card(card: dict[str, Any], tr) -> dict[str, Any]:
    out = dict(card)
    for key in ("title", "text"):
        if isinstance(out.get(key), str):
            out[key] = tr(out[key])
    return out


def _place(info: dict[str, Any], tr) -> dict[str, Any]:
    if not isinstance(info.get("name"), str):
        return info
    return {**info, "name": tr(info["name"])}


def _view(value: Any, tr, key: str = "") -> Any:
    """The view with the texts a player reads translated (labels, titles, names)."""
    if isinstance(value, dict) and key == "faces":  # a face's id -> the word shown for it
        return {k: tr(v) if isinstance(v, str) else v for k, v in value.items()}
    if isinstance(value, dict):
        return {k: _view(v, tr, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_view(v, tr, key) for v in value]
    if isinstance(value, str) and key in VIEW_TEXTS:
        return tr(value)
    return value
