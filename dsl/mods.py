"""Mods: folders that change a base pack as it is loaded, never on disk.

A mod folder holds `mod.yaml` (`schemas/mod.py: ModManifest`), card files in
`cards/` and rules files in `rules/`. The pack loader (`dsl/pack.py`) reads the
base pack as usual and hands each part to a `ModStack`, which applies the mods
in the order given:

- manifest: the base pack must be the mod's `base.pack` at one of its
  `base.versions` (E602); `setup` is merged into pack.yaml key by key;
  `options` change the default of optional rules;
  `setup.card_fields` and `setup.board_fields` declare fields (the latter merged
  field by field), checked like the pack's own (dsl/fields.py);
- board: `board: {KIND: {LOCATION: {FIELD: VALUE}}}` and `board: {tokens: ...}`; a
  changed value of a kind with declared fields is checked against its declaration;
- cards: `remove: [N]` takes cards out; a mod card file adds a card, or, with
  `replaces: N`, replaces card N whole;
- rules: a mod procedure or function is added, or, with `replaces: true`,
  replaces the one of the same name (which must exist); builtins never.

A mod reads only regular files inside its own folder (dsl/yamlsource.py).

Everything a mod changes is recorded with the file, line and column that
changed it. A later mod may build on what an earlier mod added (replace or
remove its card, replace its procedure, change its new variable); any other
change of the same thing by two mods is a conflict (E601) naming both places.

Diagnostic codes:
  E600  the mod cannot be used: no folder, no mod.yaml, given twice, a listed
        cards/rules path that does not exist
  E601  two mods change the same thing (both file:line:col in the message)
  E602  the mod does not fit the base pack (pack name or version)
  E603  a mod redefines a card number, procedure or function of the pack
        without declaring it (`replaces: N` on the card, `replaces: true`)
  E604  a mod names something the pack does not have (a card to remove or
        replace, a procedure to replace, an option, a location, a player...)
  E605  a card's `replaces` is not its own `number`
  E606  one mod changes the same thing twice
  E607  a board value of another type than the base's (e.g. text for a number)
  E608  a function named like a builtin (`count`...): builtins are never replaced
        (checked in dsl/pack.py, for the pack's own functions too)
  E609  a counter's start breaks its declaration (an unsigned counter below 0)
  W601  a mod adds a setup name or board property close to an existing one
        (probably a misspelling)
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from ..schemas.content import Board, Location, PackManifest, SupportStart
from .diagnostics import Report, Source, did_you_mean
from .validation import read_cards, validate
from .yamlsource import YamlFile, confined_entry, plain

if TYPE_CHECKING:  # the mod models are imported when a mod is read, not by every load
    from ..schemas.mod import ModCard, ModManifest


class _Reader(Protocol):
    report: Report

    def display(self, path: Path) -> str: ...

    def read(self, path: Path, root: Path | None = None,
             where: Source | None = None) -> YamlFile | None: ...


def _copy_hint(cards: list, number: int) -> str:
    """When `number` is a later copy of a card file (`copies:`): mods change the file."""
    for c, _, _ in cards:
        if c.number < number < c.number + c.copies:
            return (f"card {number} is copy {number - c.number + 1} of card {c.number} "
                    f"(`copies: {c.copies}`): a mod removes or replaces card {c.number}, "
                    "all its copies with it; a replacement says how many with `copies:`")
    return ""


def node_source(f: YamlFile, node: Any, key: str) -> Source:
    """Position of `key` inside the mapping `node` of file `f`."""
    try:
        line, col = node.lc.key(key)
    except (AttributeError, KeyError, TypeError):
        return Source(f.display)
    return Source(f.display, line + 1, col + 1)


def find_mod_root(path: Path) -> Path | None:
    """The mod folder holding `path` (the nearest folder with mod.yaml), if any.

    The search stops at a pack folder (one with pack.yaml): scenario files of a
    pack never pick up a mod.
    """
    kind, folder = _content_root(path)
    return folder if kind == "mod" else None


def find_pack_root(path: Path) -> Path | None:
    """The pack folder holding `path` (the nearest folder with pack.yaml), if any; none
    when a mod folder comes first (a mod's scenarios run on the pack it names)."""
    kind, folder = _content_root(path)
    return folder if kind == "pack" else None


def _content_root(path: Path) -> tuple[str | None, Path | None]:
    """The nearest folder at or above `path` with mod.yaml ("mod") or pack.yaml ("pack");
    a folder with both is a mod's."""
    here = path.resolve()
    for folder in [here, *here.parents] if here.is_dir() else here.parents:
        if (folder / "mod.yaml").is_file():
            return "mod", folder
        if (folder / "pack.yaml").is_file():
            return "pack", folder
    return None, None


@dataclass
class Mod:
    root: Path
    file: YamlFile
    manifest: ModManifest
    cards: list[tuple[ModCard, YamlFile, Any]] = field(default_factory=list)
    procedures: list[tuple[str, Any, YamlFile, Any]] = field(default_factory=list)
    functions: list[tuple[str, Any, YamlFile, Any]] = field(default_factory=list)
    reactions: list[tuple[str, Any, YamlFile, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.manifest.name


@dataclass
class _Touch:
    mod: Mod
    op: str  # "add", "change" or "remove"
    source: Source


class ModStack:
    """The mods of one load, in order, and everything they have changed so far."""

    def __init__(self, reader: _Reader, paths: list[Path]) -> None:
        self.reader = reader
        self.report = reader.report
        self.paths = paths
        self.mods: list[Mod] = []
        self.touched: dict[tuple, _Touch] = {}
        # A mod procedure or function that replaces or extends another -> the hidden name
        # the one it builds on is kept under (`original`), by id of the mod's entry.
        self.bases: dict[int, str] = {}
        self._known: dict[str, set[str]] = {}  # board properties before the current mod
        self._named: set[tuple] = set()  # (mod, what, name) already warned about (W601)

    # ---- reading ------------------------------------------------------------
    def read(self, manifest: PackManifest) -> None:
        """Read every mod given; keep those that fit the base pack."""
        seen: dict[Path, str] = {}
        for given in self.paths:
            root = given.parent if given.name == "mod.yaml" else given
            where = Source(self.reader.display(given))
            if not root.is_dir():
                self.report.error(where, "E600", f"no mod folder at {given}",
                                  "give the folder that holds the mod's mod.yaml")
                continue
            if not (root / "mod.yaml").is_file():
                hint = "a mod folder holds mod.yaml"
                if (root / "pack.yaml").is_file():
                    hint = "this folder is a pack, not a mod: load it with --pack"
                self.report.error(where, "E600", f"{given} has no mod.yaml", hint)
                continue
            key = root.resolve()
            if key in seen:
                self.report.error(where, "E600", f"the mod {given} is given twice",
                                  f"it is already applied as {seen[key]}")
                continue
            seen[key] = str(given)
            mod = self._read_mod(root)
            if mod is not None and self._fits(mod, manifest):
                self._read_content(mod)
                self.mods.append(mod)

    def _read_mod(self, root: Path) -> Mod | None:
        from ..schemas.mod import ModManifest

        f = self.reader.read(root / "mod.yaml", root=root)
        if f is None:
            return None
        manifest = validate(ModManifest, f, self.report)
        if manifest is None:
            return None
        return Mod(root, f, manifest)

    def _fits(self, mod: Mod, base: PackManifest) -> bool:
        ref = mod.manifest.base
        this = f"this pack is '{base.name}' version {base.version}"
        if ref.pack != base.name:
            self.report.error(mod.file.key_source("base", "pack"), "E602",
                              f"mod '{mod.name}' is for the pack '{ref.pack}', "
                              f"not '{base.name}'", this)
            return False
        if not any(fnmatch.fnmatchcase(base.version, v) for v in ref.versions):
            self.report.error(mod.file.key_source("base", "versions"), "E602",
                              f"mod '{mod.name}' fits {ref.pack} versions "
                              f"{', '.join(ref.versions)}, not {base.version}",
                              f"{this}; update the mod for it, then add \"{base.version}\" "
                              "to base.versions")
            return False
        return True

    def _paths(self, mod: Mod, entries: list[str], key: str) -> list[Path]:
        """The yaml files under the listed folders or files of a mod."""
        given = isinstance(mod.file.data, dict) and key in mod.file.data
        out: list[Path] = []
        for i, entry in enumerate(entries):
            keys = (key, i) if key == "cards" else (key,)
            target = confined_entry(mod.root, entry, mod.file, keys, self.report,
                                    self.reader.display)
            if target is None:
                continue
            if target.is_dir():
                out.extend(sorted(target.glob("*.yaml")))
            elif target.is_file():
                out.append(target)
            elif given:
                where = mod.file.key_source(key, i) if key == "cards" else mod.file.key_source(key)
                self.report.error(where, "E600", f"no folder or file '{entry}' in the mod",
                                  f"looked for {self.reader.display(target)}")
        return out

    def _read_content(self, mod: Mod) -> None:
        from ..schemas.mod import ModCard, ModCardList, ModRulesFile

        for path in self._paths(mod, mod.manifest.cards, "cards"):
            f = self.reader.read(path, root=mod.root)
            if f is not None:
                mod.cards.extend(read_cards(f, ModCardList, ModCard, self.report))
        for path in self._paths(mod, [mod.manifest.rules], "rules"):
            f = self.reader.read(path, root=mod.root)
            if f is None:
                continue
            rules = validate(ModRulesFile, f, self.report)
            if rules is None:
                continue
            for name, proc in rules.procedures.items():
                mod.procedures.append((name, proc, f, f.data["procedures"][name]))
            for name, fn in rules.functions.items():
                mod.functions.append((name, fn, f, f.data["functions"][name]))
            for name, reaction in rules.reactions.items():
                mod.reactions.append((name, reaction, f, f.data["reactions"][name]))

    # ---- bookkeeping --------------------------------------------------------
    def touch(self, key: tuple, mod: Mod, op: str, source: Source, what: str) -> bool:
        """Record that `mod` changes `key`; False (and a diagnostic) on a conflict."""
        prev = self.touched.get(key)
        if prev is not None:
            if prev.mod is mod:
                self.report.error(source, "E606", f"mod '{mod.name}' changes {what} twice",
                                  f"also at {prev.source}; keep one of the two")
                return False
            if not (prev.op == "add" and op != "add"):
                self.report.error(
                    source, "E601",
                    f"mods '{prev.mod.name}' and '{mod.name}' both change {what}: "
                    f"{prev.source} and {source}",
                    "apply only one of these mods, or merge the two changes into one mod",
                )
                return False
        self.touched[key] = _Touch(mod, op, source)
        return True

    def _new_name(self, mod: Mod, source: Source, what: str, name: str, existing) -> None:
        """W601 when a mod's new name is close to one of the pack or of an earlier mod
        (`existing` never holds the mod's own new names); once per name."""
        if (mod.name, what, name) in self._named:
            return
        self._named.add((mod.name, what, name))
        hint = did_you_mean(name, existing)
        if hint:
            self.report.warn(source, "W601", f"mod '{mod.name}' adds a new {what} '{name}'",
                             hint)

    # ---- manifest: setup and options ---------------------------------------
    def apply_manifest(self, manifest: PackManifest,
                       manifest_file: YamlFile) -> PackManifest | None:
        if not self.mods:
            return manifest
        merged = plain(manifest_file.data)
        for mod in self.mods:
            setup = plain((mod.file.data or {}).get("setup") or {})
            # The names of the pack and of earlier mods: a mod's own new names (paired
            # ones such as `x_a` and `x_b`) are never taken for each other's misspelling.
            before = {k: set(v) for k, v in merged.items() if isinstance(v, dict)}
            for section, entries in setup.items():
                if entries is None:
                    continue
                if section == "bag":
                    self._merge_bag(mod, merged, entries, manifest)
                elif section == "counters":
                    self._merge_counters(mod, merged.setdefault("counters", {}), entries,
                                         before.get("counters", set()))
                elif section == "board_fields":
                    self._merge_board_fields(mod, merged, entries)
                else:
                    target = merged.setdefault(section, {})
                    for name, value in entries.items():
                        src = mod.file.key_source("setup", section, name)
                        op = "change" if name in target else "add"
                        if op == "add":
                            self._new_name(mod, src, section.rstrip("s"), name,
                                           before.get(section, set()))
                        if self.touch(("setup", section, name), mod, op, src,
                                      f"setup {section}.{name}"):
                            target[name] = value
            options = merged.setdefault("options", {})
            for name, value in mod.manifest.options.items():
                src = mod.file.key_source("options", name)
                if name not in options:
                    self.report.error(src, "E604", f"the pack has no option '{name}'",
                                      did_you_mean(name, options)
                                      or f"options: {', '.join(options) or 'none'}")
                    continue
                if self.touch(("option", name), mod, "change", src, f"option {name}"):
                    options[name] = {**(options[name] or {}), "default": value}
        try:
            result = PackManifest.model_validate(merged)
        except ValidationError as e:
            where = self.mods[-1].file.key_source("setup")
            for err in e.errors():
                loc = ".".join(str(p) for p in err["loc"])
                self.report.error(where, "E104", f"after the mods' setup, {loc}: {err['msg']}")
            return None
        if result.bag is not None and result.bag.pieces not in result.counters:
            for mod in self.mods:
                if "bag" in mod.manifest.setup.model_fields_set:
                    self.report.error(mod.file.key_source("setup", "bag"), "E604",
                                      f"the bag's pieces '{result.bag.pieces}' is not a counter",
                                      did_you_mean(result.bag.pieces, result.counters))
        return result

    def _merge_counters(self, mod: Mod, counters: dict, entries: dict,
                        existing: set[str]) -> None:
        for name, fields in entries.items():
            src = mod.file.key_source("setup", "counters", name)
            if name not in counters:
                self._new_name(mod, src, "counter", name, existing)
                if self.touch(("setup", "counters", name), mod, "add", src,
                              f"setup counters.{name}"):
                    counters[name] = dict(fields)
                continue
            counters[name] = dict(counters[name] or {})
            for fname, value in fields.items():
                fsrc = mod.file.key_source("setup", "counters", name, fname)
                if self.touch(("setup", "counters", name, fname), mod, "change", fsrc,
                              f"setup counters.{name}.{fname}"):
                    counters[name][fname] = value

    def _merge_board_fields(self, mod: Mod, merged: dict, entries: dict) -> None:
        """Field by field: a mod adds fields to a kind without repeating the pack's."""
        declared = merged.setdefault("board_fields", {})
        for kind, fields in entries.items():
            target = declared[kind] = dict(declared.get(kind) or {})
            for name, spec in (fields or {}).items():
                src = mod.file.key_source("setup", "board_fields", kind, name)
                op = "change" if name in target else "add"
                if self.touch(("setup", "board_fields", kind, name), mod, op, src,
                              f"setup board_fields.{kind}.{name}"):
                    target[name] = spec

    def _merge_bag(self, mod: Mod, merged: dict, entries: dict, manifest: PackManifest) -> None:
        if merged.get("bag") is None:
            if "pieces" not in entries:
                self.report.error(mod.file.key_source("setup", "bag"), "E604",
                                  "the pack has no bag to change",
                                  "give `pieces:` (the counter drawn cubes return to) to add one")
                return
            merged["bag"] = {"start": {}}
        bag = merged["bag"]
        for fname, value in entries.items():
            if fname != "start":
                src = mod.file.key_source("setup", "bag", fname)
                if self.touch(("setup", "bag", fname), mod, "change", src, f"setup bag.{fname}"):
                    bag[fname] = value
                continue
            start = bag.setdefault("start", {})
            for player, n in value.items():
                src = mod.file.key_source("setup", "bag", "start", player)
                if player not in manifest.players:
                    self.report.error(src, "E604", f"'{player}' is not a player",
                                      did_you_mean(player, manifest.players)
                                      or f"players: {', '.join(manifest.players)}")
                    continue
                if self.touch(("setup", "bag", "start", player), mod, "change", src,
                              f"setup bag.start.{player}"):
                    start[player] = n

    # ---- board --------------------------------------------------------------
    def apply_board(self, board: Board, manifest: PackManifest) -> Board:
        if not self.mods:
            return board
        locations = {kind: list(items) for kind, items in board.locations.items()}
        tokens = dict(board.tokens)
        ids = {loc.id for items in locations.values() for loc in items}
        for mod in self.mods:
            data = plain((mod.file.data or {}).get("board") or {})
            # Properties of the pack and earlier mods, for W601 (not this mod's own).
            self._known = {kind: {k for loc in items for k in loc.model_dump()}
                           for kind, items in locations.items()}
            for kind, entries in data.items():
                if kind == "tokens":
                    self._move_tokens(mod, entries, tokens, ids, manifest)
                    continue
                if kind not in locations:
                    self.report.error(mod.file.key_source("board", kind), "E604",
                                      f"the board has no kind of location '{kind}'",
                                      did_you_mean(kind, [*locations, "tokens"])
                                      or f"kinds: {', '.join(locations)} (or tokens)")
                    continue
                index = {loc.id: i for i, loc in enumerate(locations[kind])}
                for loc_id, fields in entries.items():
                    src = mod.file.key_source("board", kind, loc_id)
                    if loc_id not in index:
                        self.report.error(src, "E604", f"no {kind} '{loc_id}' on the board",
                                          did_you_mean(loc_id, index))
                        continue
                    if not isinstance(fields, dict):
                        self.report.error(src, "E104", f"board.{kind}.{loc_id}: write the "
                                          "changed fields as {FIELD: VALUE}",
                                          f"e.g. board: {{{kind}: {{{loc_id}: {{name: ...}}}}}}")
                        continue
                    i = index[loc_id]
                    locations[kind][i] = self._change_location(
                        mod, kind, locations[kind], i, fields, kind in manifest.board_fields)
        return board.model_copy(update={"locations": locations, "tokens": tokens})

    def _change_location(self, mod: Mod, kind: str, items: list[Location], i: int,
                         fields: dict, declared: bool = False) -> Location:
        """Apply a mod's changes of one location. A kind with declared fields has its
        values checked against the declarations afterwards (dsl/fields.py), and a new
        field of it that is not declared is an error there, not a warning here."""
        loc = items[i]
        current = loc.model_dump()
        known = self._known[kind]
        for fname, value in fields.items():
            src = mod.file.key_source("board", kind, loc.id, fname)
            what = f"board {kind}.{loc.id}.{fname}"
            if fname == "id":
                self.report.error(src, "E604", "a location's id cannot be changed",
                                  "effect text and other files name it by its id")
                continue
            if fname == "support" and value is not None:
                try:
                    SupportStart.model_validate(value)
                except ValidationError as e:
                    self.report.error(src, "E104", f"{what}: {e.errors()[0]['msg']}",
                                      "write {owner: PLAYER, count: N} or null")
                    continue
            old = current.get(fname)
            if old is not None and value is not None and _kind(old) != _kind(value):
                self.report.error(src, "E607", f"{what} is {_kind(old)} in the pack "
                                  f"({old!r}), the mod gives {_kind(value)} ({value!r})")
                continue
            if fname not in known and not declared:
                self._new_name(mod, src, f"property of {kind}", fname, known)
            if self.touch(("board", kind, loc.id, fname), mod, "change", src, what):
                current[fname] = value
        try:
            return Location.model_validate(current)
        except ValidationError as e:
            src = mod.file.key_source("board", kind, loc.id)
            for err in e.errors():
                self.report.error(src, "E104", f"board.{kind}.{loc.id}: {err['msg']}")
            return loc

    def _move_tokens(self, mod: Mod, entries: Any, tokens: dict, ids: set[str],
                     manifest: PackManifest) -> None:
        if not isinstance(entries, dict):
            self.report.error(mod.file.key_source("board", "tokens"), "E104",
                              "board.tokens: write {PLAYER: LOCATION}")
            return
        for player, where in entries.items():
            src = mod.file.key_source("board", "tokens", player)
            if player not in manifest.players:
                self.report.error(src, "E604", f"'{player}' is not a player",
                                  did_you_mean(player, manifest.players)
                                  or f"players: {', '.join(manifest.players)}")
                continue
            if where not in ids:
                self.report.error(src, "E604", f"no location '{where}' on the board",
                                  did_you_mean(str(where), ids))
                continue
            if self.touch(("board", "tokens", player), mod, "change", src,
                          f"board tokens.{player}"):
                tokens[player] = where

    # ---- cards --------------------------------------------------------------
    def apply_cards(self, cards: list[tuple[Any, YamlFile, Any]]) -> list:
        """Removals, replacements and additions, mod by mod, on the full card list."""
        if not self.mods:
            return cards
        cards = list(cards)
        for mod in self.mods:
            for j, number in enumerate(mod.manifest.remove):
                src = mod.file.key_source("remove", j)
                gone = not any(c.number == number for c, _, _ in cards)
                if gone and ("card", number) not in self.touched:
                    self.report.error(src, "E604", f"there is no card {number} to remove",
                                      _copy_hint(cards, number) or "the number of a card of "
                                      "the pack or of an earlier mod")
                    continue
                if self.touch(("card", number), mod, "remove", src, f"card {number}"):
                    cards = [e for e in cards if e[0].number != number]
            for card, f, node in mod.cards:
                cards = self._apply_card(mod, cards, card, f, node)
        return cards

    def _apply_card(self, mod: Mod, cards: list, card: ModCard, f: YamlFile, node: Any) -> list:
        number = card.number
        present = [i for i, (c, _, _) in enumerate(cards) if c.number == number]
        if card.replaces is not None:
            src = node_source(f, node, "replaces")
            if card.replaces != number:
                self.report.error(src, "E605", f"replaces: {card.replaces}, but this card "
                                  f"is number {number}",
                                  f"a replacement keeps the number: write `number: "
                                  f"{card.replaces}`, or drop `replaces` to add a new card")
                return cards
            if not present and ("card", number) not in self.touched:
                self.report.error(src, "E604", f"there is no card {number} to replace",
                                  _copy_hint(cards, number)
                                  or "drop `replaces` to add it as a new card")
                return cards
            if self.touch(("card", number), mod, "change", src, f"card {number}") and present:
                first = present[0]
                cards = [e for i, e in enumerate(cards) if i == first or i not in present]
                cards[first] = (card, f, node)
            return cards
        src = node_source(f, node, "number")
        if present:
            prev = self.touched.get(("card", number))
            if prev is None or prev.mod is mod:
                c, pf, pnode = cards[present[0]]
                where = prev.source if prev else node_source(pf, pnode, "number")
                code = "E606" if prev else "E603"
                self.report.error(src, code, f"card {number} is already in the game "
                                  f"({where}: {c.title})",
                                  f"to replace it write `replaces: {number}`; to add a "
                                  "new card choose an unused number")
                return cards
        if self.touch(("card", number), mod, "add", src, f"card {number}"):
            cards.append((card, f, node))
        return cards

    # ---- rules --------------------------------------------------------------
    def apply_rules(self, procedures: list, functions: list,
                    reactions: list | None = None) -> tuple[list, list, list]:
        reactions = list(reactions or [])
        if not self.mods:
            return procedures, functions, reactions
        procedures, functions = list(procedures), list(functions)
        for mod in self.mods:
            for entry in mod.procedures:
                procedures = self._apply_rule(mod, procedures, entry, "procedure")
            for entry in mod.functions:
                functions = self._apply_rule(mod, functions, entry, "function")
            for entry in mod.reactions:
                reactions = self._apply_rule(mod, reactions, entry, "reaction")
        return procedures, functions, reactions

    def _extend(self, mod: Mod, current: list, index: int | None, entry: tuple, what: str,
                src: Source) -> list:
        """A mod entry that builds on the one of its name: that one stays, under a hidden
        name (`original`), and the mod's takes the name. Several mods may extend one."""
        name = entry[0]
        if index is None:
            self.report.error(src, "E604", f"there is no {what} '{name}' to extend",
                              did_you_mean(name, [e[0] for e in current])
                              or "drop `extends` to add a new " + what)
            return current
        layer = sum(1 for e in current if e[0].startswith(name + "@")) + 1
        hidden = f"{name}@{layer}"  # `@` is no part of a name effect text can write
        current = list(current)
        current[index] = (hidden, *current[index][1:])
        self.bases[id(entry[1])] = hidden
        self.touched[(what, name)] = _Touch(mod, "add", src)  # later mods may build on it
        return [*current, entry]

    def _apply_rule(self, mod: Mod, current: list, entry: tuple, what: str) -> list:
        name, item, f, _ = entry
        section = what + "s"
        src = f.key_source(section, name)
        index = next((i for i, e in enumerate(current) if e[0] == name), None)
        key = (what, name)
        label = f"{what} '{name}'"
        if getattr(item, "extends", None):
            if item.replaces:
                self.report.error(src, "E610", f"{label} both replaces and extends",
                                  "keep `extends` to build on the original, or `replaces: true` "
                                  "to put a new one in its place")
                return current
            return self._extend(mod, current, index, entry, what, src)
        if item.replaces and what != "reaction" and index is not None:
            # the replaced one stays under a hidden name, for `original`
            if self.touch(key, mod, "change", src, label):
                touch = self.touched[key]
                current = self._extend(mod, current, index, entry, what, src)
                self.touched[key] = touch
            return current
        if item.replaces:
            if index is None:
                self.report.error(src, "E604", f"there is no {label} to replace",
                                  did_you_mean(name, [e[0] for e in current])
                                  or "drop `replaces: true` to add a new " + what)
                return current
            if self.touch(key, mod, "change", src, label):
                current = list(current)
                current[index] = entry
            return current
        if index is not None:
            prev = self.touched.get(key)
            if prev is None or prev.mod is mod:
                _, _, pf, _ = current[index]
                where = prev.source if prev else pf.key_source(section, name)
                self.report.error(src, "E606" if prev else "E603",
                                  f"{label} is already defined at {where}",
                                  "add `replaces: true` to replace it, or choose a new name")
                return current
        if self.touch(key, mod, "add", src, label):
            current = [*current, entry]
        return current


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a yes/no value"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
