"""Message catalogs: what a player reads, in another language (gettext PO files).

A catalog maps the English text as the pack (or the engine) writes it, its msgid, to the
text shown in its place, its msgstr. A text with `{...}` parts (a template: "{player}
gains {amount}", or a rule's `say "{who} leaves {title of c}"`) keeps its parts in the
translation, in any order; a msgstr naming a part its msgid lacks is refused, since
nothing could fill it. An untranslated entry (empty msgstr) is left out: the English shows.

PO files are content: read within a size limit, and a bad one is refused with a
diagnostic naming its file, line and column and how to fix it, never a traceback.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_BYTES = 2_000_000  # a catalog of the largest pack is a few hundred kilobytes
MAX_ENTRIES = 20_000
PART = re.compile(r"\{([^{}]*)\}")
# msgctxt and msgid, joined as gettext joins them
CONTEXT_SEPARATOR = "\x04"


class CatalogError(ValueError):
    """A catalog refused: `where` is file:line:col, `hint` how to fix it."""

    def __init__(self, where: str, message: str, hint: str) -> None:
        super().__init__(f"{where}: {message} ({hint})")
        self.where, self.message, self.hint = where, message, hint


@dataclass
class Catalog:
    """One language's texts. `plain`: msgid (with its context, if any) -> msgstr;
    `templates`: a template's shape (its literal text, `{}` for each part) -> the
    translation's pieces, literal texts and the index of the part that goes there."""

    language: str = "en"
    plain: dict[str, str] = field(default_factory=dict)
    templates: dict[str, list[str | int]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # msgid -> its line in the file

    def text(self, msgid: str, context: str | None = None) -> str:
        """The translation of a text without parts, else the text itself."""
        key = f"{context}{CONTEXT_SEPARATOR}{msgid}" if context else msgid
        return self.plain.get(key, msgid)

    def template(self, pieces: list[str]) -> list[str | int] | None:
        """The translation of a template given as its literal pieces (one more than its
        parts), as literal texts and part indexes; None if untranslated."""
        return self.templates.get(shape(pieces))

    def merged(self, other: Catalog) -> Catalog:
        """This catalog with `other`'s entries over it (a pack's over the engine's)."""
        return Catalog(self.language, {**self.plain, **other.plain},
                       {**self.templates, **other.templates}, {**self.lines, **other.lines})


def shape(pieces: list[str]) -> str:
    """A template's key: its literal pieces joined by a mark no text holds."""
    return "\x00".join(pieces)


def parts_of(text: str) -> list[str]:
    return PART.findall(text)


def load(path: Path, language: str | None = None) -> Catalog:
    """The catalog in PO file `path`, or CatalogError."""
    where = str(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise CatalogError(f"{where}:1:1", f"cannot read the catalog: {e.strerror}",
                           "check that the file exists and is readable") from None
    if size > MAX_BYTES:
        raise CatalogError(f"{where}:1:1", f"the catalog is {size:,} bytes, over the limit of "
                           f"{MAX_BYTES:,}", "split the pack or shorten its texts")
    return parse(path.read_bytes(), where, language or path.stem)


def parse(data: bytes, where: str, language: str) -> Catalog:
    """The catalog in PO text `data` (named `where` in diagnostics), or CatalogError."""
    from babel.messages.pofile import PoFileError, read_po  # only when a language is chosen

    if len(data) > MAX_BYTES:
        raise CatalogError(f"{where}:1:1", f"the catalog is over the limit of {MAX_BYTES:,} "
                           "bytes", "split the pack or shorten its texts")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise CatalogError(f"{where}:{line}:1", "the catalog is not UTF-8 text",
                           "save the file as UTF-8") from None
    try:
        po = read_po(io.BytesIO(data), abort_invalid=True, charset="utf-8")
    except PoFileError as e:
        # babel counts lines from 0
        raise CatalogError(f"{where}:{e.lineno + 1}:1", f"not a PO entry: {e.line.strip()[:60]!r}",
                           'write entries as msgid "English" / msgstr "translation"') from None
    except (ValueError, LookupError) as e:
        raise CatalogError(f"{where}:1:1", f"not a PO file: {str(e)[:80]}",
                           'write entries as msgid "English" / msgstr "translation"') from None
    catalog = Catalog(language)
    for message in po:
        if not message.id:
            continue  # the header
        if len(catalog.lines) >= MAX_ENTRIES:
            raise CatalogError(f"{where}:{message.lineno}:1", f"more than {MAX_ENTRIES:,} "
                               "entries", "split the catalog")
        if not isinstance(message.id, str) or not isinstance(message.string, str):
            raise CatalogError(f"{where}:{message.lineno}:1", "plural entries are not used",
                               "give each form its own msgid (nouns: in pack.yaml)")
        add(catalog, message.id, message.string, message.context, f"{where}:{message.lineno}")
    return catalog


def add(catalog: Catalog, msgid: str, msgstr: str, context: str | None, where: str) -> None:
    """One entry, its parts checked: the translation may use only the parts of its msgid."""
    catalog.lines[msgid] = int(where.rsplit(":", 1)[1])
    if not msgstr:
        return
    wanted = parts_of(msgid)
    for match in PART.finditer(msgstr):
        if match.group(1) not in wanted:
            raise CatalogError(f"{where}:1", f"the translation of {msgid[:50]!r} has a part "
                               f"{{{match.group(1)}}} its English text lacks",
                               "use only the {parts} of the msgid, spelled as there")
    if msgstr.count("{") != msgstr.count("}"):
        raise CatalogError(f"{where}:1", f"the translation of {msgid[:50]!r} has an unmatched "
                           "brace", "every { needs its }")
    key = f"{context}{CONTEXT_SEPARATOR}{msgid}" if context else msgid
    if not wanted:
        catalog.plain[key] = msgstr
        return
    pieces: list[str | int] = []
    pos = 0
    for match in PART.finditer(msgstr):
        pieces.append(msgstr[pos:match.start()])
        pieces.append(wanted.index(match.group(1)))
        pos = match.end()
    pieces.append(msgstr[pos:])
    catalog.templates[shape(PART.split(msgid)[::2])] = pieces
    catalog.plain[key] = msgstr  # a named-value template (narration's) is formatted by name
