"""`hustings new card PATH [--number N] [--title T] [--pack P] [--mod M]`: write a
skeleton card file; `hustings new pack PATH [--name N] [--players a,b]`: write a small
playable pack to grow a game from (tools/skeleton_pack.py).

The skeleton has every field of a campaign card and an event that is a
placeholder on purpose: `hustings check` reports it (a syntax error at that
line) until the real event is written, so a half-made card cannot pass. A number
another card of the pack (or of its mods) already has is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

NAME = "new"
HELP = "write a skeleton: new card PATH, or new pack PATH"

PLACEHOLDER = "TODO write the event here"
HEADER = """\
# yaml-language-server: $schema={schema}
number: {number}
title: {title}
"""
FOOTER = """\
text: >-
  TODO: the card's printed text.
event: |
  # The event in the effect language (docs/dsl.md); `hustings check` flags the next line.
  {placeholder}
"""
_TYPE_NOTES = {"int": "a whole number", "str": "text", "name": "a name", "list": "a list"}


class UsageError(Exception):
    """The command line asks for something impossible (exit 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    what = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    card = what.add_parser("card", help="a campaign card file whose event is still to write",
                           allow_abbrev=False)
    card.add_argument("path", type=Path, metavar="PATH", help="the new file, e.g. cards/098-x.yaml")
    card.add_argument("--number", type=int, help="card number (default: from the file name)")
    card.add_argument("--title", help="card title (default: from the file name)")
    card.add_argument("--pack", type=Path, default=None,
                      help="the pack whose card fields and numbers to use (default: the pack "
                           "PATH is in, else 1960)")
    card.add_argument("--mod", action="append", default=[], type=Path, metavar="PATH",
                      dest="mods", help="a mod whose cards' numbers are taken too (repeatable; "
                                        "the mod PATH is in counts without it)")
    pack = what.add_parser("pack", help="a small playable pack to grow a game from",
                           allow_abbrev=False)
    pack.add_argument("path", type=Path, metavar="PATH",
                      help="the pack folder: new, or empty")
    pack.add_argument("--name", default=None, metavar="N",
                      help="the pack's name (default: the folder's name)")
    pack.add_argument("--players", default=None, metavar="a,b",
                      help="the seats, 2 to 8 names in turn order (default: red,blue)")


def run(args: argparse.Namespace) -> int:
    if args.what == "pack":
        return new_pack(args.path, args.name, args.players)
    return new_card(args)


def new_pack(path: Path, name: str | None, players: str | None) -> int:
    """Write the skeleton pack into `path` (new or empty); refuse anything else, exit 2."""
    from .. import skeleton_pack as skeleton

    try:
        seats = skeleton.parse_players(players) if players is not None else \
            list(skeleton.DEFAULT_PLAYERS)
        name = skeleton.check_name(name) if name is not None else \
            skeleton.check_name(path.resolve().name, from_folder=True)
    except skeleton.SkeletonError as e:
        print(f"hustings new: {e}", file=sys.stderr)
        return 2
    refusal = unfit_folder(path)
    if refusal:
        print(f"hustings new: {refusal}", file=sys.stderr)
        return 2
    files = skeleton.pack_files(name, seats)
    try:
        for relative, text in files.items():
            target = path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8") as out:  # "x": never overwrite
                out.write(text)
    except OSError as e:
        print(f"hustings new: cannot write in {path} ({e.strerror})", file=sys.stderr)
        return 2
    print(f"wrote pack {name!r} in {path}: {len(files)} files, players {', '.join(seats)}")
    print(f"next: hustings check {path}; hustings scenario {path / 'scenarios'}; "
          f"hustings play --pack {path} --seat {seats[0]}=human")
    return 0


def unfit_folder(path: Path) -> str:
    """Why the new pack cannot go in `path` ("" when it is new or an empty folder)."""
    if not path.exists():
        folder = next((p for p in path.parents if p.exists()), None)
        if folder is not None and not folder.is_dir():
            return f"{folder} is a file, not a folder"
        return ""
    if not path.is_dir():
        return f"{path} is a file; give a new or empty folder for the pack"
    if any(path.iterdir()):
        return (f"{path} is not empty; a new pack goes in a new or empty folder, so nothing "
                "in it is overwritten (give another PATH)")
    return ""


def new_card(args: argparse.Namespace) -> int:
    from ..formatting import content_root

    pack, mods = content_of(args.path, args.pack, args.mods)
    try:
        text = card_text(args.path, args.number, args.title, card_fields(pack),
                         first_card_kind(pack))
    except UsageError as e:
        print(f"hustings new: {e}", file=sys.stderr)
        return 2
    number = int(re.search(r"^number: (\d+)$", text, re.M).group(1))
    in_mod = bool(mods) and mods[-1] == content_root(args.path)
    taken = "" if args.path.exists() else taken_by(number, pack, mods, in_mod)
    if taken:
        print(f"hustings new: {taken}", file=sys.stderr)
        return 1
    try:
        args.path.parent.mkdir(parents=True, exist_ok=True)  # a new mod's cards/ folder
        with args.path.open("x", encoding="utf-8") as out:  # "x": never overwrite
            out.write(text)
    except FileExistsError:
        print(f"hustings new: {args.path} already exists; not overwriting it", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"hustings new: cannot write {args.path} ({e.strerror})", file=sys.stderr)
        return 2
    line = text.splitlines().index(f"  {PLACEHOLDER}") + 1
    print(f"wrote {args.path}: write the card's event at line {line}, then `hustings check`")
    return 0


def content_of(path: Path, pack: Path | None, mods: list[Path]) -> tuple[Path | None, list]:
    """The pack (--pack, else the pack folder PATH is in) and the mods (--mod, and the mod
    folder PATH is in) whose cards the new one joins."""
    from ..formatting import content_root

    root = content_root(path)
    if root is not None and (root / "mod.yaml").is_file():
        if root.resolve() not in {m.resolve() for m in mods}:
            mods = [*mods, root]
    elif pack is None and root is not None:
        pack = root
    return pack, mods


def taken_by(number: int, pack: Path | None, mods: list[Path], in_mod: bool = False) -> str:
    """Why `number` cannot be the new card's ("" when it is free; an existing file is
    refused later, with its own message)."""
    from ...dsl.pack import pack_cards

    cards = pack_cards(pack, mods)
    if number not in cards:
        return ""
    title, where = cards[number]
    free = next(n for n in range(number, number + len(cards) + 2) if n not in cards)
    why = (f"card number {number} is taken by {title!r} ({where}); the next free number "
           f"is {free} (--number {free})")
    if in_mod:
        why += f". A mod's card that stands in for card {number} says `replaces: {number}`"
    return why


def card_fields(pack: Path | None) -> dict:
    """The card fields the pack declares (pack.yaml `card_fields:`), in order."""
    from ruamel.yaml import YAML

    from ...dsl.loading import builtin_pack
    from ...schemas.content import CardFieldDef

    manifest = YAML(typ="safe").load(((pack or builtin_pack()) / "pack.yaml").read_text())
    fields = (manifest or {}).get("card_fields") or {}
    return {name: CardFieldDef.model_validate(spec or {}) for name, spec in fields.items()}


def default_kind() -> str:
    """The kind a card has when its file names none (the content schema's default)."""
    from ...schemas.content import Card

    return str(Card.model_fields["kind"].default)


def first_card_kind(pack: Path | None) -> str | None:
    """The first kind of card the pack declares (`card_kinds:`), the new card's; none when
    the pack declares none (a card then has the default kind)."""
    from ruamel.yaml import YAML

    from ...dsl.loading import builtin_pack

    manifest = YAML(typ="safe").load(((pack or builtin_pack()) / "pack.yaml").read_text())
    kinds = (manifest or {}).get("card_kinds") or {}
    return next((str(k) for k in kinds), None) if isinstance(kinds, dict) else None


def field_lines(fields: dict, kind: str | None = None) -> str:
    """One line per declared field of cards of `kind` (default: the default kind): a neutral
    value and a comment saying what fits."""
    kind = kind or default_kind()
    lines = []
    for name, spec in fields.items():
        if spec.kinds is not None and kind not in spec.kinds:
            continue
        value = {"int": "0", "list": "[]"}.get(spec.type, "null")
        note = _TYPE_NOTES[spec.type] + (f" of {spec.items or 'str'}" if spec.type == "list"
                                         else "")
        if spec.values:
            note = ("each " if spec.type == "list" else "") + "one of: " + ", ".join(
                str(v) for v in spec.values)
        lines.append(f"{name + ':':<12}{value:<6}# {note}")
    return "\n".join(lines) + ("\n" if lines else "")


def card_text(path: Path, number: int | None, title: str | None,
              fields: dict | None = None, kind: str | None = None) -> str:
    """The skeleton of a card file at `path` (checked for usage errors, not written)."""
    if path.suffix not in (".yaml", ".yml"):
        raise UsageError(f"{path}: a card file name ends in .yaml")
    folder = next((p for p in path.parents if p.exists()), None)  # the nearest that exists
    if folder is not None and not folder.is_dir():
        raise UsageError(f"{folder} is a file, not a folder")
    number = number if number is not None else default_number(path)
    if number < 1:
        raise UsageError(f"card numbers start at 1, not {number}")
    title = title if title is not None else default_title(path)
    head = HEADER.format(schema=schema_ref(path), number=number, title=yaml_text(title))
    head += f"kind: {kind}\n" if kind and kind != default_kind() else ""
    return head + field_lines(fields or {}, kind) + FOOTER.format(placeholder=PLACEHOLDER)


def schema_ref(path: Path) -> str:
    """The card schema, as a path relative to `path`'s folder: never absolute, so the file
    means the same on another machine or in another checkout.

    Inside the project (or a pack or mod next to it) this is the project's schemas/json;
    elsewhere it is the schema file of the installed package, reached relatively.
    A card inside a mod folder gets the mod card schema (it allows `replaces`).
    """
    from ...schemas.export import DEFAULT_FOLDER as SCHEMA_FOLDER
    from ..formatting import content_root

    root = content_root(path)
    in_mod = root is not None and (root / "mod.yaml").is_file()
    schema = (SCHEMA_FOLDER / "card.schema.json").resolve()
    if in_mod and (SCHEMA_FOLDER / "modcard.schema.json").is_file():
        schema = (SCHEMA_FOLDER / "modcard.schema.json").resolve()
    folder = path.resolve().parent
    try:
        return Path(os.path.relpath(schema, folder)).as_posix()
    except ValueError:  # another drive (Windows): no relative path exists; name the file only
        return schema.name


def default_number(path: Path) -> int:
    """The number a name like 098-slug.yaml starts with, else one past the folder's highest."""
    match = re.match(r"(\d+)", path.name)
    if match:
        return int(match.group(1))
    numbers = [int(m.group(1)) for f in path.parent.glob("*.y*ml")
               if (m := re.search(r"^number:\s*(\d+)", f.read_text(encoding="utf-8"), re.M))]
    return max(numbers, default=0) + 1


def default_title(path: Path) -> str:
    words = re.sub(r"^\d+[-_]?", "", path.stem).replace("_", "-").split("-")
    return " ".join(w.capitalize() for w in words if w) or "Untitled"


def yaml_text(value: str) -> str:
    """`value` as a YAML scalar: plain when it reads back the same, else double-quoted."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        if YAML(typ="safe").load(f"title: {value}") == {"title": value}:
            return value
    except YAMLError:
        pass
    return json.dumps(value, ensure_ascii=False)
