"""Loads a content pack folder and compiles it into an interpreter Program.

Pipeline: YAML (positions kept) -> schema models -> effect text parsed and
compiled -> effect graph checks -> Program.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..interpreter.builtins import ARITY, MAP_BUILTINS
from ..interpreter.program import PoolSpec, ProcedureSpec, Program, ZoneSpec
from ..schemas.content import (
    MAX_CARDS,
    MAX_COPIES,
    Board,
    Card,
    CardList,
    NumericTrack,
    PackManifest,
    RulesFile,
    TextDef,
)
from . import language, loading
from .compiler import Compiler, Symbols, unknown_announcement_hint
from .diagnostics import Report, Source, did_you_mean
from .fields import (
    CARD_OWN,
    LOCATION_OWN,
    check_board_fields,
    check_card_fields,
    check_declaration,
    warn_plain_words,
)
from .graph import check_graph, path_lengths
from .loading import Loaded, ModPaths, PackStats, builtin_pack
from .maps import check_map
from .mods import ModStack, node_source
from .soundness import check_announcement_cycles, check_function_sizes
from .teams import check_sharing, check_teams, manifest_names, seated_teams
from .teams import tables as team_tables
from .validation import read_cards, validate
from .view import check_view
from .yamlsource import YamlFile, confined_entry, read_yaml

# Where scripts found them before dsl/loading.py held them (docs/architecture.md, "The game API").
load_pack = loading.load_pack
check_pack = loading.check_pack


def compile_pack(root: Path, options: dict[str, bool], mods: list[Path],
                 players: int | None = None) -> Loaded:
    """Read and compile a pack with its mods, whatever the cache holds (see loading.py);
    `players`: how many take part (`--players N`; None: the pack's default)."""
    report = Report()
    stats = PackStats()
    program = _Loader(root, report, stats, options, mods, players).load()
    if report.errors:
        program = None
    return Loaded(program, report, stats)


def pack_declarations(path: Path | str) -> tuple[PackManifest | None, dict[str, list[str]],
                                                  Report]:
    """A pack's manifest and its location ids by kind, read and validated, not compiled:
    what `hustings schema --pack` needs of it."""
    report = Report()
    loader = _Loader(Path(path), report, PackStats(), {})
    f = loader.manifest_file = loader.read(loader.root / "pack.yaml")
    manifest = validate(PackManifest, f, report) if f is not None else None
    if manifest is not None:
        loader.load_board(manifest)
    return manifest, loader.places, report


def field_values(manifest: PackManifest) -> set[str]:
    """The declared `values` of card and board fields: names effect text may write bare."""
    specs = [*manifest.card_fields.values(),
             *(spec for fields in manifest.board_fields.values() for spec in fields.values())]
    return {v for spec in specs for v in spec.values or () if isinstance(v, str)}

def pack_cards(path: Path | str | None = None, mods: ModPaths = ()) -> dict[int, tuple[str, str]]:
    """Every card of a pack with mods applied, whatever the options: number -> (title,
    file). Files with problems are left out (`check` reports them)."""
    root = Path(path) if path is not None else builtin_pack()
    loader = _Loader(root, Report(), PackStats(), {}, [Path(m) for m in mods])
    cards = loader.all_cards()
    first = loader.copy_of
    return {card.number: (card.title, f.display + copy_words(
                card.number, first.get(card.number, card.number), card.copies))
            for card, f, _ in cards}


class _Loader:
    def __init__(self, root: Path, report: Report, stats: PackStats, options: dict,
                 mods: list[Path] | None = None, players: int | None = None) -> None:
        self.root = root
        self.players_asked = players  # `--players N`; None: the pack's default count
        self.player_count: int | None = None  # the count seated (None: no player_count)
        self.report = report
        self.stats = stats
        self.option_values = options
        self.functions: list = []
        self.reactions: list = []
        self.mods = ModStack(self, mods or [])
        self.places: dict[str, list[str]] = {}  # location ids by kind, once the board is read
        self.board_file: YamlFile | None = None  # None: a game with no board file
        self.has_map = False  # the board declares a map (its builtins are defined)
        self.map_links: dict[str, list[str]] = {}  # each place's neighbours, once checked
        self.declared: list[str] = []  # every player of the pack, seated in this game or not
        self.teams: dict[str, list[str]] = {}  # this game's teams (dsl/teams.py)
        # What files that failed their schema would have defined, read from their raw
        # YAML: other files' effect text may name them without a cascade of errors.
        self.broken_numbers: set[int] = set()
        self.copy_of: dict[int, int] = {}  # a later copy's number -> its card file's number
        self.unread_cards = False
        self.left_out = False  # a card or rules file was not compiled
        self.broken_procedures: dict[str, list[str]] = {}
        self.broken_functions: dict[str, list[str]] = {}

    def display(self, path: Path) -> str:
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)

    def read(self, path: Path, root: Path | None = None,
             where: Source | None = None) -> YamlFile | None:
        """Read a content file; only files inside `root` (default: the pack) are read."""
        return read_yaml(path, self.display(path), self.report, root or self.root, where)

    def entry(self, value: str, *keys) -> Path | None:
        """The path a pack.yaml entry names, if it stays inside the pack folder."""
        return confined_entry(self.root, value, self.manifest_file, keys, self.report,
                              self.display)

    # ---- the whole pack --------------------------------------------------
    def load(self) -> Program | None:
        manifest_file = self.manifest_file = self.read(self.root / "pack.yaml")
        if manifest_file is None:
            return None
        manifest = validate(PackManifest, manifest_file, self.report)
        if manifest is None:
            return None
        self.mods.read(manifest)
        if not self.languages_known(manifest):
            return None
        manifest = self.mods.apply_manifest(manifest, manifest_file)
        if manifest is None:
            return None
        self.warn_plain_words()
        options = {k: v.default for k, v in manifest.options.items()}
        for k, v in self.option_values.items():
            if k not in options:
                self.report.error(Source(manifest_file.display), "E105",
                                  f"unknown option '{k}'", f"options: {', '.join(options)}")
            options[k] = v
        manifest = self.seated(manifest, options)
        board = self.load_board(manifest)
        if board is not None:
            self.check_setup(manifest, board)
            self.check_fields(manifest, board)
            self.map_links = check_map(board, self.board_file, self.report) or {}
            self.check_teams(manifest, board)
        declarations_ok = board is not None and not self.report.errors
        cards = self.load_cards(manifest, options)
        rules = self.load_rules(manifest)
        if not declarations_ok:
            return None  # pack.yaml and the board define every name effect text uses
        # Effect text is compiled even when card or rules files failed: those are left
        # out, so one bad file does not hide the problems of every other.
        return self.compile(manifest, board, cards, rules, options)

    def languages_known(self, manifest: PackManifest) -> bool:
        """E150 for the pack or a mod written in a language newer than this engine's."""
        known = [language.check_declared(self.manifest_file, manifest.language, self.report)]
        known += [language.check_declared(mod.file, mod.manifest.language, self.report)
                  for mod in self.mods.mods]
        return all(known)

    def language_of(self, manifest: PackManifest):
        """The language each file is written in, by its displayed path (dsl/language.py)."""
        return language.languages_by_file(
            manifest.language,
            [(mod.file.display, mod.manifest.language) for mod in self.mods.mods])

    def seated(self, manifest: PackManifest, options: dict[str, bool]) -> PackManifest:
        """The manifest with the players who take part: a player an option names plays only
        when every option naming them is on. The pack's full list stays `self.declared`."""
        self.declared = list(manifest.players)
        optional: dict[str, list[str]] = {}
        for name, option in manifest.options.items():
            for i, who in enumerate(option.players):
                if who not in manifest.players:
                    self.report.error(self.manifest_file.value_source(
                        "options", name, "players", i), "E108", f"option '{name}' names "
                        f"'{who}', who is not a player", did_you_mean(who, manifest.players)
                        or f"players: {', '.join(manifest.players)}")
                optional.setdefault(who, []).append(name)
        fixed = [p for p in manifest.players if p not in optional]
        counted = set(self.counted(manifest, fixed))
        if optional and len(fixed) < 2:
            self.report.error(self.manifest_file.key_source("players"), "E122",
                              f"only {len(fixed)} player(s) take part whatever the options "
                              f"({', '.join(fixed) or 'none'}); a game needs two",
                              "leave at least two players out of every option's `players:`")
        seated = [p for p in manifest.players
                  if all(options.get(o, False) for o in optional.get(p, []))
                  and (p in counted or p in optional)]
        for p in manifest.players:
            self.gate([o for o in optional.get(p, []) if not options.get(o, False)])
        return manifest.model_copy(update={"players": seated})

    def counted(self, manifest: PackManifest, fixed: list[str]) -> list[str]:
        """The players no option names who take part: the first N of them for a game of N
        (`player_count:`), all of them without one. E175: a range that cannot be played;
        E176: a count asked outside it."""
        spec, asked = manifest.player_count, self.players_asked
        if spec is None:
            if asked is not None and asked != len(fixed):
                self.report.error(Source(self.manifest_file.display), "E176",
                                  f"this pack always seats {len(fixed)} players, not {asked}",
                                  "declare `player_count: {min, max}` in pack.yaml, or leave "
                                  "--players out")
            return fixed
        default = spec.default if spec.default is not None else spec.max
        if not self.count_range_ok(spec, default, len(fixed)):
            return fixed
        self.stats.player_counts = [spec.min, spec.max, default]
        n = default if asked is None else asked
        if not spec.min <= n <= spec.max:
            self.report.error(self.manifest_file.key_source("player_count"), "E176",
                              f"this game seats from {spec.min} to {spec.max} players, "
                              f"not {n}",
                              f"ask for --players {spec.min} to {spec.max}")
            n = default
        self.player_count = n
        return fixed[:n]

    def count_range_ok(self, spec, default: int, seats: int) -> bool:
        """E175 for each bound of `player_count:` that no game could be played with."""
        at = self.manifest_file.value_source
        problems = []
        if spec.min < 2:
            problems.append(("min", f"player_count.min is {spec.min}; a game needs two "
                             "players", "set min to 2 or more"))
        if spec.max > seats:
            problems.append(("max", f"player_count.max is {spec.max}, but {seats} players "
                             "are listed (and named by no option)",
                             f"list more players in `players:`, or set max to {seats}"))
        if spec.min > spec.max:
            problems.append(("min", f"player_count.min ({spec.min}) is above max "
                             f"({spec.max})", "swap them"))
        if spec.default is not None and spec.min <= spec.max \
                and not spec.min <= default <= spec.max:
            problems.append(("default", f"player_count.default is {default}, outside "
                             f"{spec.min} to {spec.max}", "give a default within the range"))
        for key, message, hint in problems:
            self.report.error(at("player_count", key), "E175", message, hint)
        return not problems

    def check_teams(self, manifest: PackManifest, board: Board) -> None:
        """pack.yaml `teams:` and what teams share (dsl/teams.py), and this game's teams."""
        names = manifest_names(manifest) | set(board.locations) | {
            loc.id for items in board.locations.values() for loc in items}
        check_teams(manifest, self.manifest_file, self.declared, names, self.report)
        check_sharing(manifest, self.manifest_file, self.report)
        self.teams = seated_teams(manifest, manifest.players)

    def gate(self, options: list[str]) -> None:
        """Note options off in this run that leave something out (PackStats.gated_off)."""
        gated = self.stats.gated_off
        gated.extend(o for o in options if o not in gated)
        gated.sort()

    def all_cards(self) -> list[tuple[Card, YamlFile, Any]]:
        """The cards of the pack and mods with every option on (nothing is compiled)."""
        manifest_file = self.manifest_file = self.read(self.root / "pack.yaml")
        manifest = validate(PackManifest, manifest_file, self.report) if manifest_file else None
        if manifest is None:
            return []
        self.mods.read(manifest)
        manifest = self.mods.apply_manifest(manifest, manifest_file)
        if manifest is None:
            return []
        return self.load_cards(manifest, {name: True for name in manifest.options})

    def load_board(self, manifest: PackManifest) -> Board | None:
        if "board" not in manifest.model_fields_set and not (self.root / manifest.board).exists():
            board = self.mods.apply_board(Board(locations={}), manifest)  # cards alone
            self.places = {kind: [loc.id for loc in items]
                           for kind, items in board.locations.items()}
            return board
        path = self.entry(manifest.board, "board")
        f = self.read(path) if path else None
        if f is None:
            return None
        self.board_file = f
        board = validate(Board, f, self.report)
        if board is None:
            return None
        board = self.mods.apply_board(board, manifest)
        self.places = {kind: [loc.id for loc in items] for kind, items in board.locations.items()}
        self.has_map = board.map is not None
        return board

    def check_setup(self, manifest: PackManifest, board: Board) -> None:
        """Names the setup uses must exist, and counters must start as declared."""
        mf, report = self.manifest_file, self.report
        counters, players = manifest.counters, self.declared  # seated or not
        for name, pool in manifest.pools.items():
            if pool.kind not in board.locations:
                report.error(mf.value_source("pools", name, "kind"), "E108",
                             f"pool '{name}': '{pool.kind}' is not a kind of location",
                             did_you_mean(pool.kind, board.locations)
                             or f"kinds on the board: {', '.join(board.locations)}")
            if pool.pieces is not None and pool.pieces not in counters:
                report.error(mf.value_source("pools", name, "pieces"), "E108",
                             f"pool '{name}': pieces '{pool.pieces}' is not a counter",
                             did_you_mean(pool.pieces, counters) or "declare it under counters:")
        if manifest.bag is not None:
            for who in manifest.bag.start:
                if who not in players:
                    report.error(mf.value_source("bag", "start", who), "E108",
                                 f"the bag's start names '{who}', who is not a player",
                                 did_you_mean(who, players))
            if manifest.bag.pieces not in counters:
                report.error(mf.value_source("bag", "pieces"), "E108",
                             f"the bag's pieces '{manifest.bag.pieces}' is not a counter",
                             did_you_mean(manifest.bag.pieces, counters))
        for kind, items in board.locations.items():
            for i, loc in enumerate(items):
                if loc.support is not None and loc.support.owner not in players:
                    report.error(self.board_file.value_source("locations", kind, i, "support",
                                                              "owner"), "E108",
                                 f"{loc.id}: support owner '{loc.support.owner}' is not a "
                                 "player", did_you_mean(loc.support.owner, players))
        self.check_bounds(manifest)
        self.check_shared_tracks(manifest)
        for name, counter in counters.items():
            if counter.start < 0 and not counter.signed and counter.min is None:
                touch = (self.mods.touched.get(("setup", "counters", name, "start"))
                         or self.mods.touched.get(("setup", "counters", name)))
                where = touch.source if touch else mf.value_source("counters", name, "start")
                report.error(where, "E609", f"counter '{name}' starts at {counter.start}, but "
                             "it is not signed, so it never goes below 0",
                             "start it at 0 or more, or declare it `signed: true`")

    def check_bounds(self, manifest: PackManifest) -> None:
        """A counter or numbered track starts within its bounds, and they are in order."""
        mf = self.manifest_file
        items = [("counters", n, c.start, c.min, c.max) for n, c in manifest.counters.items()]
        items += [("tracks", n, t.min if t.start is None else t.start, t.min, t.max)
                  for n, t in manifest.tracks.items() if isinstance(t, NumericTrack)]
        shown_low = {n: lo for n, (lo, _) in counter_bounds(manifest).items()}
        for section, name, start, low, high in items:
            # point at the mod that set a bound or the start, if one did
            touch = next((self.mods.touched[k] for k in (
                ("setup", section, name, "max"), ("setup", section, name, "min"),
                ("setup", section, name, "start"), ("setup", section, name))
                if k in self.mods.touched), None)
            where = touch.source if touch else mf.value_source(section, name)
            if low is not None and high is not None and low > high:
                self.report.error(where, "E609", f"{section[:-1]} '{name}': min {low} is "
                                  f"above max {high}", "swap them")
            elif (low is not None and start < low) or (high is not None and start > high):
                low = shown_low.get(name)  # an unsigned counter's least value is 0
                self.report.error(where, "E609", f"{section[:-1]} '{name}' starts at {start}, "
                                  f"outside {low if low is not None else '-∞'}.."
                                  f"{high if high is not None else '∞'}",
                                  "start it inside its bounds, or change min/max")

    def check_shared_tracks(self, manifest: PackManifest) -> None:
        """E118: a shared track is pulled by two different players of the pack."""
        players = [*manifest.players, *(p for o in manifest.options.values() for p in o.players)]
        for name, track in manifest.tracks.items():
            if not isinstance(track, NumericTrack) or track.shared is None:
                continue
            ends = track.shared
            for end in ("max", "min"):
                who = getattr(ends, end)
                if who not in players:
                    self.report.error(
                        self.manifest_file.value_source("tracks", name, "shared", end), "E118",
                        f"the {end} end of shared track '{name}' is '{who}', not a player",
                        did_you_mean(who, players) or f"players: {', '.join(players)}")
            if ends.max == ends.min:
                self.report.error(
                    self.manifest_file.value_source("tracks", name, "shared", "min"), "E118",
                    f"both ends of shared track '{name}' are '{ends.max}'",
                    "give each end its own player: the one whose gains pull the marker there")

    # ---- declared fields of cards and locations ------------------------------
    def warn_plain_words(self) -> None:
        """W101 for a plain `none`, `yes`... among the starting values and board data."""
        if isinstance(self.manifest_file.data, dict) and "variables" in self.manifest_file.data:
            warn_plain_words(self.manifest_file, self.manifest_file.data, "variables",
                             self.report)
        for mod in self.mods.mods:
            for section in ("setup", "board"):
                if isinstance(mod.file.data, dict) and section in mod.file.data:
                    warn_plain_words(mod.file, mod.file.data, section, self.report)

    def check_fields(self, manifest: PackManifest, board: Board) -> None:
        """The declarations hold together, and every location has the declared fields."""
        for name, spec in manifest.card_fields.items():
            check_declaration(name, spec, CARD_OWN, self.declared_at("card_fields", name),
                              self.report, board.locations)
        for kind, fields in manifest.board_fields.items():
            if kind not in board.locations:
                self.report.error(self.declared_at("board_fields", kind)(), "E108",
                                  f"board_fields: '{kind}' is not a kind of location",
                                  did_you_mean(kind, board.locations)
                                  or f"kinds on the board: {', '.join(board.locations)}")
            for name, spec in fields.items():
                check_declaration(name, spec, LOCATION_OWN,
                                  self.declared_at("board_fields", kind, name), self.report,
                                  board.locations)
        check_board_fields(manifest.board_fields, board.locations, self.board_spot, self.report)
        written = self.board_file.data if self.board_file is not None else None
        for kind, items in (written or {}).get("locations", {}).items():
            for node in items if isinstance(items, list) else []:
                for key in node if isinstance(node, dict) else ():
                    if key not in LOCATION_OWN:
                        spec = manifest.board_fields.get(kind, {}).get(key)
                        warn_plain_words(self.board_file, node, key, self.report,
                                         spec.values if spec else None)

    def declared_at(self, *head: str):
        """Where the parts of a declaration are written: pack.yaml, or the mod that made it."""
        def at(*rest) -> Source:
            touch = next((t for k, t in self.mods.touched.items()
                          if k[:len(head) + 1] == ("setup", *head)), None)
            if touch is not None:
                return touch.mod.file.value_source("setup", *head, *rest) if rest \
                    else touch.mod.file.key_source("setup", *head)
            f = self.manifest_file
            return f.value_source(*head, *rest) if rest else f.key_source(*head)
        return at

    def board_spot(self, kind: str, i: int, loc_id: str, fname: str, item: int | None,
                   at_key: bool) -> Source:
        """Where a location's field is written: board.yaml, or the mod that changed it."""
        touch = self.mods.touched.get(("board", kind, loc_id, fname))
        f, keys = ((touch.mod.file, ("board", kind, loc_id, fname)) if touch
                   else (self.board_file, ("locations", kind, i, fname)))
        keys = keys if item is None else (*keys, item)
        return f.key_source(*keys) if at_key else f.value_source(*keys)

    def load_cards(self, manifest: PackManifest, options: dict) -> list[tuple[Card, YamlFile, Any]]:
        out = []
        self.copy_of = {}
        for i, entry in enumerate(manifest.cards):
            target = self.entry(entry, "cards", i)
            if target is None:
                continue
            files = sorted(target.glob("*.yaml")) if target.is_dir() else [target]
            for path in files:
                f = self.read(path)
                if f is None:
                    self.unread_cards = self.left_out = True  # its numbers are not known
                else:
                    before = len(self.report.errors)
                    out.extend(read_cards(f, CardList, Card, self.report))
                    if len(self.report.errors) > before:
                        self.broken_numbers |= raw_numbers(f.data)
                        self.left_out = True
        out = self.mods.apply_cards(out)
        check_card_fields(manifest.card_fields, out, self.report, self.places)
        self.check_card_kinds(manifest, out)
        out = self.within_deck_size(out)
        kept = []
        seen: dict[int, str] = {}
        for card, f, node in out:
            if card.option and not options.get(card.option, False):
                self.gate([card.option])
                continue
            told = False  # one E106 a card file, however many of its copies clash
            for copy in copies_of(card):
                if copy.number in seen:
                    if not told:
                        self.number_twice(copy, card, f, node, seen[copy.number])
                    told = True
                    continue
                seen[copy.number] = f.display + copy_words(copy.number, card.number, card.copies)
                if copy is not card:
                    self.copy_of[copy.number] = card.number
                kept.append((copy, f, node))
        return kept

    # ---- copies of a card (`copies: N`) ------------------------------------------
    def within_deck_size(self, cards: list) -> list:
        """The cards up to MAX_CARDS, copies counted (every option on, so no option can
        make a deck too large); the card that crosses it is an error (E140) at its
        `copies`, and it and the cards after it are left out."""
        total = 0
        for i, (card, f, node) in enumerate(cards):
            total += card.copies
            if total > MAX_CARDS:
                key = "copies" if "copies" in node else "number"
                self.report.error(value_source(f, node, key), "E140",
                                  f"card {card.number}: the pack's cards, copies counted, "
                                  f"come to more than the {MAX_CARDS:,} a game may have",
                                  "give cards fewer `copies:`, or split the game into packs")
                self.left_out = True
                return cards[:i]
        return cards

    def number_twice(self, copy: Card, card: Card, f: YamlFile, node: Any, other: str) -> None:
        """E106: a card number already taken, at `number` (or, for a later copy, at the
        `copies` that numbered it)."""
        key = "number" if copy is card else "copies"
        line, col = node.lc.key(key)
        message = f"card number {copy.number} is used twice"
        hint = f"also in {other}"
        if card.copies > 1:
            message += (f": `copies: {card.copies}` numbers card {card.number}'s copies "
                        f"{card.number} to {card.number + card.copies - 1}")
            hint += "; number the card past the others' numbers, or give it fewer copies"
        self.report.error(Source(f.display, line + 1, col + 1), "E106", message, hint)

    def check_card_kinds(self, manifest: PackManifest, cards: list) -> None:
        """Declared card kinds: every card's kind and every zone's start is one (E121)."""
        kinds = manifest.card_kinds
        if not kinds:
            return
        hint = f"kinds: {', '.join(kinds)} (declare a new one under `card_kinds:`)"
        for card, f, node in cards:
            if card.kind not in kinds:
                where = value_source(f, node, "kind") if "kind" in node else \
                    node_source(f, node, "number")
                self.report.error(where, "E121", f"card {card.number}: '{card.kind}' is not "
                                  "a kind of card of the pack",
                                  did_you_mean(card.kind, kinds) or hint)
        for name, zone in manifest.zones.items():
            if zone.start is not None and zone.start not in kinds:
                self.report.error(self.manifest_file.value_source("zones", name, "start"),
                                  "E121", f"zone '{name}' starts with '{zone.start}' cards, "
                                  "which is not a kind of card of the pack",
                                  did_you_mean(zone.start, kinds) or hint)

    def check_card_starts(self, manifest: PackManifest, cards: list) -> None:
        """Every card starts in a zone: a kind that no zone starts with leaves its cards in
        none, which play would find at its first step (E123), at the first such card."""
        starting = {z.start for z in manifest.zones.values() if z.start is not None}
        told: set[str] = set()
        for card, f, node in cards:
            if card.kind in starting or card.kind in told:
                continue
            told.add(card.kind)
            where = value_source(f, node, "kind") if "kind" in node else \
                node_source(f, node, "number")
            self.report.error(where, "E123", f"the {card.kind} cards (card {card.number} and "
                              "any others) start in no zone: no zone of pack.yaml has "
                              f"`start: {card.kind}`",
                              f"give the zone they begin in `start: {card.kind}`")

    def load_rules(self, manifest: PackManifest) -> list[tuple[str, Any, YamlFile, Any]]:
        out = []
        folder = self.entry(manifest.rules, "rules")
        for path in sorted(folder.glob("*.yaml")) if folder is not None else []:
            f = self.read(path)
            if f is None:
                self.left_out = True
                continue
            rules = validate(RulesFile, f, self.report)
            if rules is None:
                self.left_out = True
                self.broken_procedures.update(raw_params(f.data, "procedures"))
                self.broken_functions.update(raw_params(f.data, "functions"))
                continue
            for name, proc in rules.procedures.items():
                out.append((name, proc, f, f.data["procedures"][name]))
            for name, fn in rules.functions.items():
                self.functions.append((name, fn, f, f.data["functions"][name]))
            for name, reaction in rules.reactions.items():
                self.reactions.append((name, reaction, f, f.data["reactions"][name]))
        for kind, defined in (("procedure", out), ("function", self.functions),
                              ("reaction", self.reactions)):
            self.defined_once(kind, defined)
        out, self.functions, self.reactions = self.mods.apply_rules(
            out, self.functions, self.reactions)
        self.functions = [fn for fn in self.functions if self.may_define(fn)]
        return out

    def defined_once(self, kind: str, defined: list[tuple]) -> None:
        """E124: a name defined in two rules files of the pack. Which one would win depends
        on the files' order, so neither is taken silently (a mod replaces one on purpose)."""
        first: dict[str, YamlFile] = {}
        section = kind + "s" if kind != "function" else "functions"
        for name, _, f, _ in defined:
            if name not in first:
                first[name] = f
                continue
            was = first[name].key_source(section, name)
            self.report.error(f.key_source(section, name), "E124",
                              f"{kind} '{name}' is defined again; it is already defined at "
                              f"{was.path}:{was.line}:{was.column}",
                              f"rename one of them, or keep one: a {kind} is defined once "
                              "in a pack (a mod replaces one with `replaces: true`)")

    def may_define(self, fn: tuple) -> bool:
        """A pack or mod function may not take the name of a builtin (E608)."""
        name, _, f, _ = fn
        if name not in ARITY and name != "cards":
            return True
        if name in MAP_BUILTINS and not self.has_map:
            return True  # the map's builtins come with a map: without one the name is free
        self.report.error(f.key_source("functions", name), "E608",
                          f"'{name}' is a builtin function: it cannot be defined or replaced",
                          f"choose another name, such as `{name}_of`")
        return False

    # ---- symbols and compilation ----------------------------------------
    def compile(self, manifest, board, cards, rules, options) -> Program | None:
        """The pack's names gathered (Symbols), then its functions, procedures, reactions
        and card events compiled against them and the whole checked; None when anything
        is wrong (the report says what)."""
        locations, kinds = board_tables(board)
        self.check_card_owners(manifest, cards)
        self.check_card_starts(manifest, cards)
        card_table = card_attributes(cards)
        attributes = self.attributes(manifest, locations, card_table)
        texts = {n: v if isinstance(v, TextDef) else TextDef(text=v)
                 for n, v in manifest.texts.items()}
        procs = {name: proc for name, proc, _, _ in rules}
        symbols = self.symbols(manifest, board, options, locations, kinds, card_table,
                               attributes, texts, procs)
        comp = Compiler(symbols, self.report)
        functions = self.compile_functions(comp, manifest, symbols, texts)
        procedures = self.compile_procedures(comp, rules, procs)
        reactions = self.compile_reactions(comp, symbols)
        dispatch = comp.new_block()
        comp.blocks[dispatch], comp.positions[dispatch] = [("react",)], ["(reactions)"]
        events = self.compile_events(comp, manifest, cards)
        language.check_token_moves(comp.token_moves, self.language_of(manifest),
                                   manifest.players, board.tokens, self.report)
        self.stats.procedures = len(procedures)
        self.check_whole(comp, manifest, rules, procedures, symbols, attributes, kinds)
        if self.report.errors:
            return None
        program = self.program(manifest, board, locations, kinds, card_table, comp,
                               procedures, events, options)
        program.functions = functions
        program.agents = self.agents(manifest, functions)
        program.announcements = dict(symbols.announcements)
        program.reactions = reactions
        program.reaction_blocks = list(comp.reaction_blocks)
        program.dispatch_block = dispatch
        program.durations = sorted(symbols.durations)
        return program

    @staticmethod
    def attributes(manifest: PackManifest, locations: dict, card_table: dict) -> set[str]:
        """Every property a place or a card has. A declared field is one even when no card
        of this game has it (the cards carrying it may be those an option leaves out)."""
        attributes: set[str] = set()
        for table in (locations, card_table):
            for attrs in table.values():
                attributes.update(attrs)
        attributes.update(manifest.card_fields)
        if manifest.cards:  # every card has these, even when no card file could be read
            attributes.update(("number", "title", "kind", "text"))
        for fields in manifest.board_fields.values():
            attributes.update(fields)
        return attributes

    def symbols(self, manifest, board, options, locations, kinds, card_table, attributes,
                texts, procs) -> Symbols:
        """What effect text may name: the pack's players, counters, places, cards ..."""
        numeric = {n for n, v in manifest.tracks.items() if isinstance(v, NumericTrack)}
        broken = self.broken_procedures
        return Symbols(
            players=manifest.players,
            counters=set(manifest.counters) | numeric,
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: p.kind for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            zones={n: z.per_player for n, z in manifest.zones.items()},
            tracks=set(manifest.tracks) - numeric,
            numeric_tracks=numeric,
            track_items={i for n, v in manifest.tracks.items() if n not in numeric for i in v},
            announcements={n: list(a.params) for n, a in manifest.announcements.items()},
            durations={"game", *manifest.durations} if manifest.durations else {"turn", "game"},
            effects=set(manifest.effects),
            list_effects={n for n, e in manifest.effects.items()
                          if not isinstance(e, str) and e.values == "names"},
            attributes=attributes,
            # A procedure of a file that failed may be called with any of its parameters.
            procedures={**broken, **{name: self._params(name, procs)[0] for name in procs}},
            defaults={**{n: set(ps) for n, ps in broken.items()},
                      **{name: set(self._params(name, procs)[1]) for name in procs}},
            functions={**self.broken_functions,
                       **{name: self._fn_params(name, fn) for name, fn, _, _ in self.functions},
                       **{name: list(text.params) for name, text in texts.items()}},
            # A card file that could not be read hides its numbers: none is checked then.
            cards=None if self.unread_cards else set(card_table) | self.broken_numbers,
            token_kind=board.travel.kind if board.travel else None,
            map_kind=board.map.kind if board.map else None,
            field_values=field_values(manifest),
            place_properties=property_kinds(locations, locations),
            card_properties=property_kinds(card_table, locations),
            teams=list(self.teams),
            team_names={team for _, table, _ in team_tables(manifest, self.manifest_file)
                        for team in table},
        )

    def compile_functions(self, comp: Compiler, manifest, symbols, texts) -> dict:
        """The pack's functions and its texts (functions that make a label), by name."""
        functions, sources = {}, {}
        for name, fn, f, node in self.functions:
            comp.original = self.mods.bases.get(id(fn))
            params = symbols.functions[name]
            sources[name] = f.text_source(node, "expr")
            expr = comp.compile_expression(fn.expr, sources[name], "fn " + name, params)
            if expr is not None:
                functions[name] = (params, expr)
        comp.original = None
        check_function_sizes(functions, sources, self.report)
        for name, text in texts.items():
            expr = self.compile_text_def(comp, manifest, name, text)
            if expr is not None:
                functions[name] = (list(text.params), expr)
        return functions

    def compile_procedures(self, comp: Compiler, rules: list, procs: dict) -> dict:
        """The rules' procedures (and the extensions mods add to them), by name."""
        procedures: dict[str, ProcedureSpec] = {}
        self._extension_specs: dict[str, ProcedureSpec] = {}
        for name, proc, f, node in rules:
            spec = self.compile_procedure(comp, name, proc, f, node, procs)
            if spec is not None:
                procedures[name] = spec
        procedures.update(self._extension_specs)
        return procedures

    def compile_events(self, comp: Compiler, manifest: PackManifest, cards: list) -> dict:
        """Each card's event, as the block it compiles to, by card number; counts the cards
        of each kind, and those with events, for the summary."""
        events: dict[int, int] = {}
        self.stats.cards = len(cards)
        self.count_kinds(manifest)
        for card, f, node in cards:
            self.stats.kinds[card.kind] = self.stats.kinds.get(card.kind, 0) + 1
            if not card.event:
                if card.kind in self.stats.expect_events:
                    self.stats.without_event.append(card.number)
                continue
            self.stats.events[card.kind] = self.stats.events.get(card.kind, 0) + 1
            if card.number in self.copy_of:
                # A copy runs its file's event, compiled once (`card` tells the copies apart).
                first = events.get(self.copy_of[card.number])
                if first is not None:
                    events[card.number] = first
                continue
            if self.lines_joined(f, node, "event"):
                continue
            src = f.text_source(node, "event")
            block = comp.compile_text(card.event, src, f"card {card.number}",
                                      ["player", "opponent", "card"])
            if block is not None:
                events[card.number] = block
        return events

    def lines_joined(self, f: YamlFile, node, key: str) -> bool:
        """Statements written over several lines without `|`: YAML joined them into one
        line, where they run together (E206, at the text)."""
        if not f.joined_lines(node, key):
            return False
        self.report.error(f.text_source(node, key), "E206",
                          f"the lines of `{key}` were joined into one: YAML reads lines "
                          f"written without `|` as one text", f"write `{key}: |` and the "
                          "statements on the lines below it, indented")
        return True

    def check_whole(self, comp: Compiler, manifest, rules, procedures, symbols, attributes,
                    kinds) -> None:
        """What only the whole pack shows: the entry procedure, the call graph (cycles,
        procedures never called) and the view the pack declares."""
        if manifest.entry not in procedures and not self.report.errors:
            self.report.error(self.manifest_file.key_source("entry"), "E107",
                              f"the entry procedure '{manifest.entry}' is not defined")
        defined = {name: f.key_source("procedures", name) for name, _, f, _ in rules}
        # A file left out, or a text that could not be parsed, may hold the only call of a
        # procedure: no "never called" then.
        complete = not self.left_out and not any(d.code in ("E201", "E205")
                                                 for d in self.report.errors)
        check_graph(comp, manifest.entry, self.report, defined, warn_unused=complete)
        check_announcement_cycles(comp, self.report)
        check_view(manifest, self.manifest_file, self.report, symbols.functions,
                   attributes, set(kinds), self.declared)

    def count_kinds(self, manifest: PackManifest) -> None:
        """The declared kinds come first in the summary; those declared `events: true` (or,
        with no kinds declared, the default kind) expect every card to have an event."""
        for name, spec in manifest.card_kinds.items():
            self.stats.kinds[name] = 0
            if not isinstance(spec, str) and spec.events:
                self.stats.expect_events.add(name)
        if not manifest.card_kinds:
            self.stats.expect_events.add(Card.model_fields["kind"].default)

    # ---- procedures built on others, texts, reactions --------------------
    def _params(self, name: str, procs: dict) -> tuple[list[str], dict]:
        """A procedure's parameters and defaults; a mod's extension or replacement that
        names none has those of the procedure it builds on."""
        proc = procs[name]
        base = self.mods.bases.get(id(proc))
        if base in procs and (not proc.params or getattr(proc, "extends", None)):
            return self._params(base, procs)
        return list(proc.params), dict(proc.defaults)

    def _fn_params(self, name: str, fn) -> list[str]:
        base = self.mods.bases.get(id(fn))
        if base is not None and not fn.params:
            for other, g, _, _ in self.functions:
                if other == base:
                    return self._fn_params(other, g)
        return list(fn.params)

    def compile_procedure(self, comp: Compiler, name: str, proc, f, node,
                          procs: dict) -> ProcedureSpec | None:
        params, defaults = self._params(name, procs)
        base = self.mods.bases.get(id(proc))
        src = f.text_source(node, "body")
        if getattr(proc, "extends", None) and proc.params and proc.params != params:
            self.report.error(f.key_source("procedures", name, "params"), "E611",
                              f"'{name}' takes ({', '.join(params)}); "
                              "a procedure built on it takes the same parameters",
                              "leave `params:` out to take them as they are")
            return None
        if self.lines_joined(f, node, "body"):
            return None
        comp.original = base
        body_name = name if not getattr(proc, "extends", None) else f"{base}.{proc.extends}"
        block = comp.compile_text(proc.body, src, body_name, params)
        comp.original = None
        if block is None:
            return None
        extends = getattr(proc, "extends", None)
        if not extends:
            return ProcedureSpec(block, params, str(src), defaults)
        # before/after: the extension and the original, each in its own call
        symbols_procs = comp.sym.procedures
        symbols_procs[body_name] = params
        self._extension_specs[body_name] = ProcedureSpec(block, params, str(src), defaults)
        args = [(p, ("var", p)) for p in params]
        calls = [("call", body_name, args), ("call", base, args)]
        if extends == "after":
            calls.reverse()
        for callee in (base, body_name):
            comp.calls.append((name, callee, src))
        combined = comp.new_block()
        comp.blocks[combined], comp.positions[combined] = calls, [str(src)] * 2
        return ProcedureSpec(combined, params, str(src), defaults)

    def compile_text_def(self, comp: Compiler, manifest, name: str, text) -> tuple | None:
        """A named text becomes a function whose value is the text, filled in."""
        where = self.mods.touched.get(("setup", "texts", name))
        src = where.source if where else self.manifest_file.value_source("texts", name)
        quoted = '"' + " ".join(text.text.split()).replace('"', '\\"') + '"'
        return comp.compile_expression(quoted, src, "text " + name, list(text.params))

    def compile_reactions(self, comp: Compiler, symbols) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for name, reaction, f, node in self.reactions:
            params = symbols.announcements.get(reaction.whenever)
            if params is None:
                self.report.error(f.value_source("reactions", name, "whenever"), "E330",
                                  f"'{reaction.whenever}' is not an announcement of the pack",
                                  unknown_announcement_hint(reaction.whenever,
                                                            symbols.announcements))
                continue
            if self.lines_joined(f, node, "body"):
                continue
            cond_src = f.text_source(node, "if") if reaction.condition is not None else None
            block = comp.compile_reaction(reaction.body, f.text_source(node, "body"),
                                          reaction.condition, cond_src, "reaction " + name,
                                          params)
            if block is not None:
                out.setdefault(reaction.whenever, []).append(block)
                comp.reacts.append(("reaction " + name, reaction.whenever,
                                    f.key_source("reactions", name)))
        return out

    def agents(self, manifest, functions) -> dict[str, Any]:
        """The agents section, checked: the functions it names exist and take one player."""
        agents = manifest.agents
        for key in ("value", "places"):
            name = getattr(agents, key)
            if name is not None and len(functions.get(name, ((),))[0]) != 1:
                found = "takes " + str(len(functions[name][0])) + " parameters" \
                    if name in functions else "is not defined"
                self.report.error(self.manifest_file.key_source("agents", key), "E120",
                                  f"agents.{key}: the function '{name}' {found}",
                                  "name a function of the rules files with one parameter "
                                  "(the player)")
        return agents.model_dump()

    def program(self, manifest, board, locations, kinds, card_table, comp, procedures,
                events, options) -> Program:
        travel_area: dict[str, str] = {}
        travel_cost: dict[str, dict[str, int]] = {}
        if board.travel is not None:
            for loc in kinds.get(board.travel.kind, []):
                travel_area[loc] = locations[loc].get(board.travel.area)
            travel_cost = path_lengths(board.travel.links)
        zones = {
            n: ZoneSpec(z.per_player, z.hidden, z.ordered_secret, z.refill_from,
                        z.shown_to_team)
            for n, z in manifest.zones.items()
        }
        return Program(
            name=manifest.name,
            version=str(manifest.version or "0"),  # the pack's own, whatever mods apply
            players=list(manifest.players),
            player_count=self.player_count,
            counters=[*manifest.counters,
                      *(n for n, v in manifest.tracks.items() if isinstance(v, NumericTrack))],
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: PoolSpec(p.kind, p.pieces, p.stacking, pool_name(manifest, n))
                   for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            travel_area=travel_area,
            travel_cost=travel_cost,
            zones=zones,
            tracks={n: list(v) for n, v in manifest.tracks.items()
                    if not isinstance(v, NumericTrack)},
            bounds=counter_bounds(manifest),
            shared_tracks={n: t.shared.model_dump() for n, t in manifest.tracks.items()
                           if isinstance(t, NumericTrack) and t.shared is not None},
            cards=card_table,
            events=events,
            procedures=procedures,
            blocks=comp.blocks,
            positions=comp.positions,
            effects={n: e if isinstance(e, str) else e.doc for n, e in manifest.effects.items()},
            entry=manifest.entry,
            initial=self.initial(manifest, board, locations, card_table),
            options=options,
            view={**manifest.view.model_dump(), "title": manifest.title},
            names=display_names(manifest, locations),
            nouns={n: forms.model_dump(exclude_none=True) for n, forms in manifest.nouns.items()},
            map_kind=board.map.kind if board.map else None,
            map_links=self.map_links,
            teams=self.teams,
            team_counters=[n for n, c in manifest.counters.items() if c.per_team],
        )

    def check_card_owners(self, manifest: PackManifest, cards: list) -> None:
        """A card of a kind that starts in a zone per player starts in its owner's zone:
        its `owner` must be a player (E108), or the card would be in no zone at all."""
        starts = {z.start for z in manifest.zones.values() if z.per_player and z.start}
        for card, f, node in cards:
            if card.kind not in starts or card.number in self.copy_of:
                continue  # a copy has its file's owner, reported once at the file
            owner = (card.model_extra or {}).get("owner")
            if isinstance(owner, str) and owner in self.declared:
                continue
            key = "owner" if "owner" in node else "number"
            named = isinstance(owner, str)
            self.report.error(value_source(f, node, key), "E108",
                              f"card {card.number} starts in its owner's zone (its kind, "
                              f"{card.kind}, starts in a zone per player), but "
                              + (f"its owner '{owner:.40}' is not a player" if named
                                 else "it names no owner"),
                              (did_you_mean(owner, self.declared) if named else "")
                              or f"give it `owner:` one of {', '.join(self.declared)}")

    def initial(self, manifest, board, locations, card_table) -> dict[str, Any]:
        players = manifest.players
        counters = {n: {p: c.start for p in players} for n, c in manifest.counters.items()}
        for n, track in manifest.tracks.items():
            if isinstance(track, NumericTrack):
                start = track.min if track.start is None else track.start
                counters[n] = {p: start for p in players}
        pools: dict[str, dict[str, Any]] = {n: {} for n in manifest.pools}
        default_pool = {}
        for n, p in manifest.pools.items():
            default_pool.setdefault(p.kind, n)
        for kind, items in board.locations.items():
            for loc in items:
                if loc.support is not None and kind in default_pool \
                        and loc.support.owner in players:
                    pool = default_pool[kind]
                    owner, count = loc.support.owner, loc.support.count
                    stacking = manifest.pools[pool].stacking
                    pools[pool][loc.id] = {owner: count} if stacking else [owner, count]
                    pieces = manifest.pools[pool].pieces
                    if pieces:
                        counters[pieces][owner] -= count
        bag = {p: 0 for p in players}
        if manifest.bag is not None:
            for p, n in manifest.bag.start.items():
                if p not in bag:
                    continue  # a player an option left out of this game
                bag[p] = n
                counters[manifest.bag.pieces][p] -= n
        zones: dict[str, list[int]] = {}
        for n, z in manifest.zones.items():
            keys = [f"{n}:{p}" for p in players] if z.per_player else [n]
            for key in keys:
                zones[key] = []
            if z.start:
                for number in sorted(card_table):
                    info = card_table[number]
                    if info["kind"] != z.start:
                        continue
                    owner = info.get("owner")
                    key = f"{n}:{owner}" if z.per_player else n
                    if key in zones:
                        zones[key].append(number)
        return {
            "counters": counters,
            "pools": pools,
            "tokens": {p: w for p, w in board.tokens.items() if p in players},
            "bag": bag,
            "zones": zones,
            "bag_pieces": manifest.bag.pieces if manifest.bag else None,
            "signed": sorted(n for n, c in manifest.counters.items() if c.signed),
        }


def pool_name(manifest: PackManifest, pool: str) -> str:
    """What a person reads for a pool's pieces: its `name:`, else the pack's name for its id,
    else the id with spaces (the engine adds no noun of its own: a pack names its pieces)."""
    declared = manifest.pools[pool].name or manifest.names.get(pool)
    return declared or pool.replace("_", " ")


def display_names(manifest: PackManifest, locations: dict[str, dict]) -> dict[str, str]:
    """Each id's display name: the pack's `names:`, places' names, players' view names."""
    names = {n: text for n, text in manifest.names.items()}
    for where, info in locations.items():
        if isinstance(info.get("name"), str):
            names[where] = info["name"]
    for who, look in manifest.view.players.items():
        if look.name:
            names[who] = look.name
    return names


def board_tables(board) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """Each place's properties by id (its own fields, its kind, name and id), and the ids
    of each kind of place in board order."""
    locations: dict[str, dict[str, Any]] = {}
    kinds: dict[str, list[str]] = {}
    for kind, items in board.locations.items():
        kinds[kind] = []
        for loc in items:
            attrs = dict(loc.model_extra or {})
            attrs.update({"kind": kind, "name": loc.name or loc.id, "id": loc.id})
            locations[loc.id] = attrs
            kinds[kind].append(loc.id)
    return locations, kinds


def copies_of(card: Card) -> list[Card]:
    """The cards a card file makes: itself, then a copy numbered one up for each further
    copy (`copies: 3` on card 5 makes 5, 6 and 7), identical but for the number. Deep
    copies: no list or mapping of a field is shared between two cards."""
    return [card, *(card.model_copy(update={"number": card.number + k}, deep=True)
                    for k in range(1, card.copies))]


def copy_words(number: int, first: int, copies: int) -> str:
    """How a message names one of a card's copies (nothing for a card of one copy)."""
    if copies == 1:
        return ""
    return f", copy {number - first + 1} of {copies} of card {first}"


def card_attributes(cards: list) -> dict[int, dict[str, Any]]:
    """Each card's properties by number: its own fields, number, title, kind and text
    (the printed text on one line)."""
    table: dict[int, dict[str, Any]] = {}
    for card, _, _ in cards:
        attrs = dict(card.model_extra or {})
        attrs.update({"number": card.number, "title": card.title, "kind": card.kind,
                      "text": " ".join(card.text.split())})
        table[card.number] = attrs
    return table


def value_source(f: YamlFile, node: Any, key: str) -> Source:
    """Position of the value of `key` inside the mapping `node` of file `f`."""
    line, col = node.lc.value(key)
    return Source(f.display, line + 1, col + 1)


def counter_bounds(manifest: PackManifest) -> dict[str, list]:
    """[least, greatest] of every counter and numbered track (None where unbounded)."""
    bounds = {}
    for name, c in manifest.counters.items():
        low = c.min if c.min is not None else (None if c.signed else 0)
        bounds[name] = [low, c.max]
    for name, track in manifest.tracks.items():
        if isinstance(track, NumericTrack):
            bounds[name] = [track.min, track.max]
    return bounds


def raw_numbers(data: Any) -> set[int]:
    """Card numbers in the raw YAML of a card file (a list file or a one-card file), the
    numbers of its copies too."""
    items = data.get("cards") if isinstance(data, dict) and "cards" in data else [data]
    if not isinstance(items, list):
        return set()
    numbers: set[int] = set()
    for c in items:
        if isinstance(c, dict) and type(c.get("number")) is int:
            copies = c.get("copies")
            count = copies if type(copies) is int and 1 <= copies <= MAX_COPIES else 1
            numbers.update(range(c["number"], c["number"] + count))
    return numbers


def raw_params(data: Any, section: str) -> dict[str, list[str]]:
    """Names and parameters of the procedures or functions in a rules file's raw YAML."""
    entries = data.get(section) if isinstance(data, dict) else None
    out = {}
    for name, entry in entries.items() if isinstance(entries, dict) else []:
        params = entry.get("params", []) if isinstance(entry, dict) else None
        if isinstance(name, str) and isinstance(params, list) \
                and all(isinstance(p, str) for p in params):
            out[name] = list(params)
    return out


def property_kinds(table: dict[Any, dict[str, Any]], locations: dict[str, dict],
                   ) -> dict[str, str]:
    """Each property of a table (places or cards): the kind of place every value of it
    names (none aside), such as a `region` naming a place of the kind `regions`; "" when
    the values are not all places of one kind."""
    found: dict[str, str] = {}
    for attrs in table.values():
        for prop, value in attrs.items():
            if value is None or prop in ("id", "kind", "name"):
                continue
            loc = locations.get(value) if isinstance(value, str) else None
            kind = str(loc["kind"]) if loc is not None else ""
            found[prop] = kind if found.get(prop, kind) == kind else ""
    return found
