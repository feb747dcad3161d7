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
from ..schemas.content import Board, Card, CardList, NumericTrack, PackManifest, RulesFile, TextDef
from .compiler import Compiler, Symbols
from .diagnostics import ContentError, Report, Source, did_you_mean
from .graph import check_graph, path_lengths
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


class _Loader:
    def __init__(self, root: Path, report: Report, stats: PackStats, options: dict,
                 mods: list[Path] | None = None) -> None:
        self.root = root
        self.report = report
        self.stats = stats
        self.option_values = options
        self.functions: list = []
        self.reactions: list = []
        self.mods = ModStack(self, mods or [])

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
        cards = self.load_cards(manifest, options)
        rules = self.load_rules(manifest)
        if board is None or self.report.errors:
            return None
        return self.compile(manifest, board, cards, rules, options)

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
        self.check_bounds(manifest)
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
        for section, name, start, low, high in items:
            touch = (self.mods.touched.get(("setup", section, name, "start"))
                     or self.mods.touched.get(("setup", section, name)))
            where = touch.source if touch else mf.value_source(section, name)
            if low is not None and high is not None and low > high:
                self.report.error(where, "E609", f"{section[:-1]} '{name}': min {low} is "
                                  f"above max {high}", "swap them")
            elif (low is not None and start < low) or (high is not None and start > high):
                self.report.error(where, "E609", f"{section[:-1]} '{name}' starts at {start}, "
                                  f"outside {low if low is not None else '-∞'}.."
                                  f"{high if high is not None else '∞'}",
                                  "start it inside its bounds, or change min/max")

    def load_cards(self, manifest: PackManifest, options: dict) -> list[tuple[Card, YamlFile, Any]]:
        out = []
        for i, entry in enumerate(manifest.cards):
            target = self.entry(entry, "cards", i)
            if target is None:
                continue
            files = sorted(target.glob("*.yaml")) if target.is_dir() else [target]
            for path in files:
                f = self.read(path)
                if f is not None:
                    out.extend(read_cards(f, CardList, Card, self.report))
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
                continue
            rules = validate(RulesFile, f, self.report)
            if rules is None:
                continue
            for name, proc in rules.procedures.items():
                out.append((name, proc, f, f.data["procedures"][name]))
            for name, fn in rules.functions.items():
                self.functions.append((name, fn, f, f.data["functions"][name]))
            for name, reaction in rules.reactions.items():
                self.reactions.append((name, reaction, f, f.data["reactions"][name]))
        out, self.functions, self.reactions = self.mods.apply_rules(
            out, self.functions, self.reactions)
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
        numeric = {n: v for n, v in manifest.tracks.items() if isinstance(v, NumericTrack)}
        texts = {n: v if isinstance(v, TextDef) else TextDef(text=v)
                 for n, v in manifest.texts.items()}
        procs = {name: proc for name, proc, _, _ in rules}
        symbols = Symbols(
            players=manifest.players,
            counters=set(manifest.counters) | set(numeric),
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: p.kind for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            zones={n: z.per_player for n, z in manifest.zones.items()},
            tracks=set(manifest.tracks) - set(numeric),
            numeric_tracks=set(numeric),
            track_items={i for n, v in manifest.tracks.items() if n not in numeric for i in v},
            announcements={n: list(a.params) for n, a in manifest.announcements.items()},
            durations={"game", *manifest.durations} if manifest.durations else {"turn", "game"},
            effects=set(manifest.effects),
            list_effects={n for n, e in manifest.effects.items()
                          if not isinstance(e, str) and e.values == "names"},
            attributes=attributes,
            procedures={name: self._params(name, procs)[0] for name in procs},
            defaults={name: set(self._params(name, procs)[1]) for name in procs},
            functions={**{name: self._fn_params(name, fn) for name, fn, _, _ in self.functions},
                       **{name: list(text.params) for name, text in texts.items()}},
            cards=set(card_table),
            token_kind=board.travel.kind if board.travel else None,
        )
        comp = Compiler(symbols, self.report)
        functions = {}
        for name, fn, f, node in self.functions:
            comp.original = self.mods.bases.get(id(fn))
            params = symbols.functions[name]
            expr = comp.compile_expression(fn.expr, f.text_source(node, "expr"), "fn " + name,
                                           params)
            if expr is not None:
                functions[name] = (params, expr)
        comp.original = None
        for name, text in texts.items():
            expr = self.compile_text_def(comp, manifest, name, text)
            if expr is not None:
                functions[name] = (list(text.params), expr)
        procedures: dict[str, ProcedureSpec] = {}
        self._extension_specs: dict[str, ProcedureSpec] = {}
        for name, proc, f, node in rules:
            spec = self.compile_procedure(comp, name, proc, f, node, procs)
            if spec is not None:
                procedures[name] = spec
        procedures.update(self._extension_specs)
        reactions = self.compile_reactions(comp, symbols)
        dispatch = comp.new_block()
        comp.blocks[dispatch], comp.positions[dispatch] = [("react",)], ["(reactions)"]
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
        check_graph(comp, manifest.entry, self.report, defined)
        check_view(manifest, self.manifest_file, self.report, symbols.functions,
                   attributes, set(kinds))
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
                                  did_you_mean(reaction.whenever, symbols.announcements)
                                  or "declare it under `announcements:`")
                continue
            cond_src = f.text_source(node, "if") if reaction.condition is not None else None
            block = comp.compile_reaction(reaction.body, f.text_source(node, "body"),
                                          reaction.condition, cond_src, "reaction " + name,
                                          params)
            if block is not None:
                out.setdefault(reaction.whenever, []).append(block)
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
            n: ZoneSpec(z.per_player, z.hidden, z.ordered_secret, z.refill_from)
            for n, z in manifest.zones.items()
        }
        return Program(
            name=manifest.name,
            players=list(manifest.players),
            counters=[*manifest.counters,
                      *(n for n, v in manifest.tracks.items() if isinstance(v, NumericTrack))],
            variables={**manifest.variables, **{f"option_{k}": v for k, v in options.items()}},
            pools={n: PoolSpec(p.kind, p.pieces) for n, p in manifest.pools.items()},
            locations=locations,
            kinds=kinds,
            travel_area=travel_area,
            travel_cost=travel_cost,
            zones=zones,
            tracks={n: list(v) for n, v in manifest.tracks.items()
                    if not isinstance(v, NumericTrack)},
            bounds=counter_bounds(manifest),
            numeric_tracks={n: [v.min, v.max] for n, v in manifest.tracks.items()
                            if isinstance(v, NumericTrack)},
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
        for n, track in manifest.tracks.items():
            if isinstance(track, NumericTrack):
                start = track.min if track.start is None else track.start
                counters[n] = {p: start for p in players}
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
