"""Loads a content pack folder and compiles it into an interpreter Program.

Pipeline: YAML (positions kept) -> schema models -> effect text parsed and
compiled -> effect graph checks -> Program.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..interpreter.builtins import ARITY
from ..interpreter.program import PoolSpec, ProcedureSpec, Program, ZoneSpec
from ..schemas.content import Board, Card, CardList, PackManifest, RulesFile
from .compiler import Compiler, Symbols
from .diagnostics import ContentError, Report, Source, did_you_mean
from .graph import check_graph
from .mods import ModStack
from .validation import check_card_fields, read_cards, validate
from .view import check_view
from .yamlsource import YamlFile, confined_entry, read_yaml

BUILTIN_PACKS = Path(__file__).resolve().parent.parent / "content"


def builtin_pack(name: str = "1960") -> Path:
    return BUILTIN_PACKS / name


@dataclass
class PackStats:
    cards: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    without_event: list[int] = field(default_factory=list)
    procedures: int = 0


@dataclass
class Loaded:
    program: Program | None
    report: Report
    stats: PackStats


ModPaths = Iterable[Path | str]


def load_pack(path: Path | str | None = None, options: dict[str, bool] | None = None,
              mods: ModPaths = ()) -> Program:
    """Compile a pack, with mods applied in order; raise ContentError listing every problem."""
    loaded = check_pack(path, options, mods)
    if loaded.program is None:
        raise ContentError(loaded.report)
    return loaded.program


def check_pack(path: Path | str | None = None, options: dict[str, bool] | None = None,
               mods: ModPaths = ()) -> Loaded:
    """Load and compile a pack (default: the built-in 1960) with mod folders applied in order.

    The files on disk are only read: mods change the pack as it is loaded.
    """
    root = Path(path) if path is not None else builtin_pack()
    report = Report()
    stats = PackStats()
    program = _Loader(root, report, stats, options or {}, [Path(m) for m in mods]).load()
    if report.errors:
        program = None
    return Loaded(program, report, stats)


def pack_cards(path: Path | str | None = None, mods: ModPaths = ()) -> dict[int, tuple[str, str]]:
    """Every card of a pack with mods applied, whatever the options: number -> (title,
    file). Files with problems are left out (`check` reports them)."""
    root = Path(path) if path is not None else builtin_pack()
    loader = _Loader(root, Report(), PackStats(), {}, [Path(m) for m in mods])
    return {card.number: (card.title, f.display) for card, f, _ in loader.all_cards()}


class _Loader:
    def __init__(self, root: Path, report: Report, stats: PackStats, options: dict,
                 mods: list[Path] | None = None) -> None:
        self.root = root
        self.report = report
        self.stats = stats
        self.option_values = options
        self.functions: list = []
        self.mods = ModStack(self, mods or [])
        # What files that failed their schema would have defined, read from their raw
        # YAML: other files' effect text may name them without a cascade of errors.
        self.broken_numbers: set[int] = set()
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
        manifest = self.mods.apply_manifest(manifest, manifest_file)
        if manifest is None:
            return None
        options = {k: v.default for k, v in manifest.options.items()}
        for k, v in self.option_values.items():
            if k not in options:
                self.report.error(Source(manifest_file.display), "E105",
                                  f"unknown option '{k}'", f"options: {', '.join(options)}")
            options[k] = v
        board = self.load_board(manifest)
        if board is not None:
            self.check_setup(manifest, board)
        declarations_ok = board is not None and not self.report.errors
        cards = self.load_cards(manifest, options)
        rules = self.load_rules(manifest)
        if not declarations_ok:
            return None  # pack.yaml and the board define every name effect text uses
        # Effect text is compiled even when card or rules files failed: those are left
        # out, so one bad file does not hide the problems of every other.
        return self.compile(manifest, board, cards, rules, options)

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
        path = self.entry(manifest.board, "board")
        f = self.read(path) if path else None
        if f is None:
            return None
        self.board_file = f
        board = validate(Board, f, self.report)
        return self.mods.apply_board(board, manifest) if board is not None else None

    def check_setup(self, manifest: PackManifest, board: Board) -> None:
        """Names the setup uses must exist, and counters must start as declared."""
        mf, report = self.manifest_file, self.report
        counters, players = manifest.counters, manifest.players
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
        for name, counter in counters.items():
            if counter.start < 0 and not counter.signed:
                touch = (self.mods.touched.get(("setup", "counters", name, "start"))
                         or self.mods.touched.get(("setup", "counters", name)))
                where = touch.source if touch else mf.value_source("counters", name, "start")
                report.error(where, "E609", f"counter '{name}' starts at {counter.start}, but "
                             "it is not signed, so it never goes below 0",
                             "start it at 0 or more, or declare it `signed: true`")

    def load_cards(self, manifest: PackManifest, options: dict) -> list[tuple[Card, YamlFile, Any]]:
        out = []
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
        check_card_fields(manifest.card_fields, out, self.report)
        kept = []
        seen: dict[int, str] = {}
        for card, f, node in out:
            if card.option and not options.get(card.option, False):
                continue
            if card.number in seen:
                line, col = node.lc.key("number")
                self.report.error(Source(f.display, line + 1, col + 1), "E106",
                                  f"card number {card.number} is used twice",
                                  f"also in {seen[card.number]}")
                continue
            seen[card.number] = f.display
            kept.append((card, f, node))
        return kept

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
        out, self.functions = self.mods.apply_rules(out, self.functions)
        self.functions = [fn for fn in self.functions if self.may_define(fn)]
        return out

    def may_define(self, fn: tuple) -> bool:
        """A pack or mod function may not take the name of a builtin (E608)."""
        name, _, f, _ = fn
        if name not in ARITY and name != "cards":
            return True
        self.report.error(f.key_source("functions", name), "E608",
                          f"'{name}' is a builtin function: it cannot be defined or replaced",
                          f"choose another name, such as `{name}_of`")
        return False

    # ---- symbols and compilation ----------------------------------------
    def compile(self, manifest, board, cards, rules, options) -> Program | None:
        locations: dict[str, dict[str, Any]] = {}
        kinds: dict[str, list[str]] = {}
        for kind, items in board.locations.items():
            kinds[kind] = []
            for loc in items:
                attrs = dict(loc.model_extra or {})
                attrs.update({"kind": kind, "name": loc.name or loc.id, "id": loc.id})
                locations[loc.id] = attrs
                kinds[kind].append(loc.id)
        card_table: dict[int, dict[str, Any]] = {}
        for card, _, _ in cards:
            attrs = dict(card.model_extra or {})
            attrs.update({"number": card.number, "title": card.title, "kind": card.kind,
                          "text": " ".join(card.text.split())})
            card_table[card.number] = attrs
        attributes = set()
        for table in (locations, card_table):
            for attrs in table.values():
                attributes.update(attrs)
        broken = self.broken_procedures
        symbols = Symbols(
            players=manifest.players,
            counters=set(manifest.counters),
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: p.kind for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            zones={n: z.per_player for n, z in manifest.zones.items()},
            tracks=set(manifest.tracks),
            effects=set(manifest.effects),
            list_effects={n for n, e in manifest.effects.items()
                          if not isinstance(e, str) and e.values == "names"},
            attributes=attributes,
            # A procedure of a file that failed may be called with any of its parameters.
            procedures={**broken, **{name: list(proc.params) for name, proc, _, _ in rules}},
            defaults={**{n: set(ps) for n, ps in broken.items()},
                      **{name: set(proc.defaults) for name, proc, _, _ in rules}},
            functions={**self.broken_functions,
                       **{name: list(fn.params) for name, fn, _, _ in self.functions}},
            # A card file that could not be read hides its numbers: none is checked then.
            cards=None if self.unread_cards else set(card_table) | self.broken_numbers,
            token_kind=board.travel.kind if board.travel else None,
            place_properties=property_kinds(locations, locations),
            card_properties=property_kinds(card_table, locations),
        )
        comp = Compiler(symbols, self.report)
        functions = {}
        for name, fn, f, node in self.functions:
            expr = comp.compile_expression(fn.expr, f.text_source(node, "expr"), "fn " + name,
                                           fn.params)
            if expr is not None:
                functions[name] = (list(fn.params), expr)
        procedures: dict[str, ProcedureSpec] = {}
        for name, proc, f, node in rules:
            src = f.text_source(node, "body")
            block = comp.compile_text(proc.body, src, name, proc.params)
            if block is not None:
                procedures[name] = ProcedureSpec(
                    block, list(proc.params), str(src), dict(proc.defaults)
                )
        events: dict[int, int] = {}
        self.stats.cards = len(cards)
        for card, f, node in cards:
            self.stats.kinds[card.kind] = self.stats.kinds.get(card.kind, 0) + 1
            if not card.event:
                if card.kind == "campaign":
                    self.stats.without_event.append(card.number)
                continue
            src = f.text_source(node, "event")
            block = comp.compile_text(card.event, src, f"card {card.number}",
                                      ["player", "opponent", "card"])
            if block is not None:
                events[card.number] = block
        self.stats.procedures = len(procedures)
        if manifest.entry not in procedures and not self.report.errors:
            self.report.error(self.manifest_file.key_source("entry"), "E107",
                              f"the entry procedure '{manifest.entry}' is not defined")
        defined = {name: f.key_source("procedures", name) for name, _, f, _ in rules}
        # A file left out, or a text that could not be parsed, may hold the only call of a
        # procedure: no "never called" then.
        complete = not self.left_out and not any(d.code in ("E201", "E205")
                                                 for d in self.report.errors)
        check_graph(comp, manifest.entry, self.report, defined, warn_unused=complete)
        check_view(manifest, self.manifest_file, self.report, symbols.functions,
                   attributes, set(kinds))
        if self.report.errors:
            return None
        program = self.program(manifest, board, locations, kinds, card_table, comp,
                               procedures, events, options)
        program.functions = functions
        program.agents = self.agents(manifest, functions)
        return program

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
            import networkx as nx

            g = nx.Graph()
            g.add_edges_from(board.travel.links)
            for loc in kinds.get(board.travel.kind, []):
                travel_area[loc] = locations[loc].get(board.travel.area)
            travel_cost = {a: dict(d) for a, d in nx.all_pairs_shortest_path_length(g)}
        zones = {
            n: ZoneSpec(z.per_player, z.hidden, z.ordered_secret, z.refill_from)
            for n, z in manifest.zones.items()
        }
        return Program(
            name=manifest.name,
            players=list(manifest.players),
            counters=list(manifest.counters),
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: PoolSpec(p.kind, p.pieces) for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            travel_area=travel_area,
            travel_cost=travel_cost,
            zones=zones,
            tracks={n: list(v) for n, v in manifest.tracks.items()},
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
        )

    def initial(self, manifest, board, locations, card_table) -> dict[str, Any]:
        players = manifest.players
        counters = {n: {p: c.start for p in players} for n, c in manifest.counters.items()}
        pools: dict[str, dict[str, list]] = {n: {} for n in manifest.pools}
        default_pool = {}
        for n, p in manifest.pools.items():
            default_pool.setdefault(p.kind, n)
        for kind, items in board.locations.items():
            for loc in items:
                if loc.support is not None and kind in default_pool:
                    pool = default_pool[kind]
                    pools[pool][loc.id] = [loc.support.owner, loc.support.count]
                    pieces = manifest.pools[pool].pieces
                    if pieces:
                        counters[pieces][loc.support.owner] -= loc.support.count
        bag = {p: 0 for p in players}
        if manifest.bag is not None:
            for p, n in manifest.bag.start.items():
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
            "tokens": dict(board.tokens),
            "bag": bag,
            "zones": zones,
            "bag_pieces": manifest.bag.pieces if manifest.bag else None,
            "signed": sorted(n for n, c in manifest.counters.items() if c.signed),
        }


def raw_numbers(data: Any) -> set[int]:
    """Card numbers in the raw YAML of a card file (a list file or a one-card file)."""
    items = data.get("cards") if isinstance(data, dict) and "cards" in data else [data]
    if not isinstance(items, list):
        return set()
    return {c["number"] for c in items if isinstance(c, dict) and type(c.get("number")) is int}


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
