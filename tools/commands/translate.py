"""`hustings translate extract [PATH] --lang LANG`: write or update a pack's message
catalog, `PATH/locale/LANG.po`, with every text of the pack a player reads (display names,
nouns, card titles and texts, view labels, and the quoted texts of its rules and cards:
`say`, option labels, `asking`, `noting`). Translations already in the file are kept; a
text the pack no longer has is dropped. See docs/translation.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

NAME = "translate"
HELP = "extract a pack's texts into its message catalog (locale/LANG.po)"
# A quoted text of the effect language that a player reads: not an id ("red",
# "exhausted"), which the rules compare, but words with a space, a capital or a part.
QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ID = re.compile(r"[a-z0-9_]*")
PART_ONLY = re.compile(r"(\{[^{}]*\})+")  # nothing but parts: no words to translate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["extract"], help="what to do")
    parser.add_argument("path", type=Path, nargs="?", default=None, metavar="PATH",
                        help="the pack folder (default: the built-in pack)")
    parser.add_argument("--lang", required=True, metavar="LANG",
                        help="the language's code: ja, pt_BR (the catalog's file name)")


def run(args: argparse.Namespace) -> int:
    from ...dsl.loading import builtin_pack
    from ...interpreter.catalog import CatalogError, load

    folder: Path = args.path if args.path is not None else builtin_pack()
    if not (folder / "pack.yaml").is_file():
        print(f"hustings translate: {folder} is not a pack folder (no pack.yaml)",
              file=sys.stderr)
        return 2
    if not re.fullmatch(r"[a-z]{2,3}(_[A-Z]{2})?", args.lang):
        print(f"hustings translate: {args.lang!r} is not a language code (ja, pt_BR)",
              file=sys.stderr)
        return 2
    target = folder / "locale" / f"{args.lang}.po"
    old = {}
    if target.is_file():
        try:
            old = dict(load(target).plain)
        except CatalogError as e:
            print(f"hustings translate: {e}", file=sys.stderr)
            return 1
    msgids = pack_texts(folder)
    # a translation the extraction does not find (a word shown for an id, "initiative")
    # is kept: only the translator knows it is still wanted
    msgids += [m for m, text in old.items() if text and m not in msgids]
    target.parent.mkdir(exist_ok=True)
    target.write_text(po_text(msgids, old, args.lang), encoding="utf-8")
    done = sum(1 for m in msgids if old.get(m))
    print(f"{target}: {len(msgids)} texts, {done} translated")
    return 0


def pack_texts(folder: Path, program: Any = None) -> list[str]:
    """Every text of the pack a player reads, in a stable order, each once (`program`: the
    pack as compiled, if it is at hand)."""
    from ...dsl.loading import load_pack
    from ..wording import heading

    program = program if program is not None else load_pack(folder)
    found: dict[str, None] = {}

    def keep(text: object) -> None:
        if isinstance(text, str) and text.strip():
            found.setdefault(text, None)

    for shown in program.names.values():
        keep(shown)
    for forms in program.nouns.values():
        for word in forms.values():
            keep(word)
    for pool in program.pools.values():
        keep(pool.name)
    for text in view_texts(program.view):
        keep(text)
    for entry in pack_headings(folder):
        keep(entry)
    for column in program.view.get("card_columns") or []:
        keep(heading(column))
    # ids a player reads as words where the pack names them not (`cp_bonus`: "cp bonus")
    for ids in (program.pools, program.zones, program.effects, program.counters,
                program.tracks, program.durations):
        for key in ids:
            if key not in program.names:
                keep(key.replace("_", " "))
    for card in program.cards.values():
        keep(card.get("title"))
        keep(card.get("text"))
    for source in rule_sources(folder):
        for text in QUOTED.findall(source):
            if not ID.fullmatch(text) and not PART_ONLY.fullmatch(text):
                keep(text.replace('\\"', '"'))
    return list(found)


def pack_headings(folder: Path) -> list[str]:
    """The pack's `texts:` (headings the rules say), from pack.yaml."""
    from ruamel.yaml import YAML, YAMLError

    try:
        data = YAML(typ="safe", pure=True).load((folder / "pack.yaml").read_text("utf-8"))
    except (YAMLError, OSError, UnicodeDecodeError):
        return []
    texts = data.get("texts") if isinstance(data, dict) else None
    if not isinstance(texts, dict):
        return []
    return [e["text"] for e in texts.values() if isinstance(e, dict) and "text" in e]


def rule_sources(folder: Path) -> list[str]:
    """The effect-language texts of the pack's YAML files (procedures' bodies, cards'
    events, reactions), in file order."""
    from ruamel.yaml import YAML, YAMLError

    reader = YAML(typ="safe", pure=True)
    out: list[str] = []

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in ("body", "event", "do", "then", "expr"):
            out.append(value)

    for path in sorted(folder.rglob("*.yaml")):
        if "scenarios" in path.relative_to(folder).parts:
            continue  # tests of the pack, not what it shows
        try:
            walk(reader.load(path.read_text(encoding="utf-8")))
        except (YAMLError, OSError, UnicodeDecodeError):
            continue  # `hustings check` reports a bad file; extraction takes what it can
    return out


def view_texts(value: object, key: str = "") -> list[str]:
    if isinstance(value, dict):
        if key == "faces":
            return [v for v in value.values() if isinstance(v, str)]
        return [t for k, v in value.items() for t in view_texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in view_texts(v, key)]
    return [value] if isinstance(value, str) and key in ("label", "title", "name") else []


def po_text(msgids: list[str], old: dict[str, str], language: str) -> str:
    lines = ['msgid ""', 'msgstr ""', f'"Language: {language}\\n"',
             '"Content-Type: text/plain; charset=UTF-8\\n"', ""]
    for msgid in msgids:
        lines += [f"msgid {quoted(msgid)}", f"msgstr {quoted(old.get(msgid, ''))}", ""]
    return "\n".join(lines)


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# ---- hustings check: the pack's catalogs ------------------------------------------------
WORDS = re.compile(r"[a-z0-9 ]+")  # an id in words ("initiative"): the words shown for it


def catalog_diagnostics(folder: Path, program: Any) -> list:
    """What is wrong with the pack's catalogs (locale/*.po): a catalog the loader refuses
    (E701, at its line), a msgid that is none of the pack's texts (W701: a text the
    pack no longer has, or a typo; an id in words may stand for the words shown for it),
    and a translation that leaves out a part of its English text (W702)."""
    from ...dsl.diagnostics import Diagnostic, Source
    from ...interpreter.catalog import CatalogError, load, parts_of

    found = []
    paths = sorted((folder / "locale").glob("*.po")) if (folder / "locale").is_dir() else []
    known: set[str] | None = None
    for path in paths:
        try:
            catalog = load(path)
        except CatalogError as e:
            file, line, column = (e.where.rsplit(":", 2) + ["1", "1"])[:3]
            found.append(Diagnostic(Source(file, _number(line), _number(column)), "E701",
                                    e.message, e.hint, quote=False))
            continue
        if known is None:
            known = set(pack_texts(folder, program))
        for msgid, line in catalog.lines.items():
            kept = parts_of(catalog.plain.get(msgid, msgid))
            lost = [p for p in parts_of(msgid) if p not in kept]
            if lost:
                found.append(Diagnostic(Source(str(path), line, 1), "W702",
                                        f"the translation of {msgid[:50]!r} leaves out "
                                        f"{{{lost[0]}}}", "keep every {part} of the msgid: "
                                        "it says what the player needs to know",
                                        severity="warning", quote=False))
            if msgid not in known and not WORDS.fullmatch(msgid):
                found.append(Diagnostic(Source(str(path), line, 1), "W701",
                                        f"{msgid[:60]!r} is none of the pack's texts",
                                        "drop it, or run hustings translate extract to "
                                        "bring the catalog up to date", severity="warning",
                                        quote=False))
    return found


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 1
