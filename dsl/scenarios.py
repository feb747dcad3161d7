"""Runs scenario files: set up a position, force chance, take actions by label, assert.

A scenario starts from the pack's initial state, applies `setup`, then runs a
procedure (or the whole game) lazily at the first step that needs it, so
`force` and `cards` steps can line up chance before anything is drawn.

Mods: a Runner applies the mods it is given (`hustings scenario --mod M`) to
every scenario; `run_paths` also applies, after those, the mod a scenario file
sits in (the nearest enclosing folder with a mod.yaml, not beyond a pack), so a
mod's own scenarios run with the mod without being told. Likewise, without a pack
given (`--pack`), a scenario file inside a pack's folder runs on that pack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..interpreter.errors import IllegalAction, RuleError
from ..interpreter.game import Game, initial_state, ops_for
from ..interpreter.machine import Machine
from ..interpreter.narration import CAUSE
from ..interpreter.program import Program
from ..interpreter.state import Frame
from ..interpreter.support import holdings
from ..interpreter.teams import mates_table
from ..schemas.scenario import Expect, Scenario, ScenarioFile, Setup
from .diagnostics import ContentError, Diagnostic, Report, Source
from .loading import load_pack
from .mods import find_mod_root, find_pack_root
from .scenario_names import check_names
from .validation import validate
from .yamlsource import YamlFile, read_yaml


@dataclass
class Outcome:
    name: str
    path: str
    failures: list[str] = field(default_factory=list)
    game: Game | None = None
    # Each failure as a diagnostic: where it is written, its code (if it has one), its hint.
    problems: list[Diagnostic] = field(default_factory=list)
    # Not run: the scenario (or its whole file) could not be read. It counts as failed.
    skipped: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, message: str, at: Source | None = None, code: str = "",
             hint: str = "") -> None:
        where = at or parse_source(self.path)
        d = Diagnostic(where, code, message, hint)
        self.problems.append(d)
        if code:
            message = f"{where}: error[{code}]: {message}" + (f" ({hint})" if hint else "")
        self.failures.append(message)


def parse_source(where: str) -> Source:
    """`path:line:col` back to a Source (the path alone if it has no position)."""
    path, _, rest = where.rpartition(":")
    head, _, line = path.rpartition(":")
    if head and line.isdigit() and rest.isdigit():
        return Source(head, int(line), int(rest))
    return Source(where)


def load_scenarios(path: Path, report: Report) -> list[tuple[Scenario, str]]:
    """The scenarios of a file that can be read (see `read_scenarios`)."""
    return read_scenarios(path, report)[0]


def read_scenarios(path: Path, report: Report) -> tuple[list[tuple[Scenario, str]],
                                                         list[Outcome]]:
    """The scenarios of a file, with where each is written; and an Outcome, `skipped`,
    for each that cannot be read (or one for the whole file): a scenario with one
    invalid key is reported and counted as failed, and the others of its file run."""
    f = read_yaml(path, str(path), report)
    if f is None:
        return [], [_skipped(str(path), str(path), "the file cannot be read")]
    parsed = validate(ScenarioFile, f, Report())
    if parsed is not None:
        return [(sc, str(f.key_source("scenarios", i)))
                for i, sc in enumerate(parsed.scenarios)], []
    items = f.node("scenarios")
    if not isinstance(items, list) or not isinstance(f.data, dict) or len(f.data) != 1:
        validate(ScenarioFile, f, report)  # says what is wrong with the file's shape
        return [], [_skipped(str(path), str(path), "the file is not a list of `scenarios:`")]
    good, bad = [], []
    for i, item in enumerate(items):
        where = str(f.key_source("scenarios", i))
        sc = validate(Scenario, f, report, item, ("scenarios", i))
        if sc is not None:
            good.append((sc, where))
            continue
        name = item.get("name") if isinstance(item, dict) else None
        shown = name if isinstance(name, str) else f"scenario {i + 1} of {path.name}"
        bad.append(_skipped(shown, where, "the scenario does not fit the scenario schema"))
    return good, bad


def _skipped(name: str, where: str, why: str) -> Outcome:
    out = Outcome(name, where, skipped=True)
    out.fail(f"not run: {why} (see the diagnostics above)")
    return out


def scenario_files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(p.rglob("*.yaml")) if p.is_dir() else [p])
    return out


class Runner:
    """Runs scenarios against one pack (and mods), compiling it once per options and mods."""

    def __init__(self, pack: Path | None = None, mods: list[Path] | tuple = (),
                 options: dict[str, bool] | None = None, players: int | None = None) -> None:
        self.pack = pack
        self.players = players  # under every scenario's own `players:`
        self.mods = tuple(Path(m) for m in mods)
        self.options = dict(options or {})  # under every scenario's own `options:`
        self._programs: dict[tuple, Program] = {}
        self._files: dict[str, YamlFile | None] = {}

    def program(self, options: dict[str, bool], mods: tuple[Path, ...] | None = None,
                pack: Path | None = None, players: int | None = None) -> Program:
        mods = self.mods if mods is None else tuple(mods)
        pack = pack or self.pack
        key = (tuple(sorted(options.items())), tuple(str(m.resolve()) for m in mods),
               str(pack.resolve()) if pack else "", players)
        if key not in self._programs:
            self._programs[key] = load_pack(pack, options, mods, players)
        return self._programs[key]

    def pack_for(self, path: Path) -> Path | None:
        """The runner's pack; without one, the pack whose folder holds the scenario file."""
        return self.pack if self.pack is not None else find_pack_root(path)

    def mods_for(self, path: Path) -> tuple[Path, ...]:
        """The runner's mods, then the mod the scenario file sits in (if not given already)."""
        own = find_mod_root(path)
        given = {m.resolve() for m in self.mods}
        if own is None or own.resolve() in given:
            return self.mods
        return (*self.mods, own)

    def located(self, where: str) -> tuple[YamlFile, int] | None:
        """The scenario file and the index of the scenario that starts at `where`."""
        path = parse_source(where).path
        if path not in self._files:
            self._files[path] = read_yaml(Path(path), path, Report())
        f = self._files[path]
        items = f.node("scenarios") if f is not None else None
        for i in range(len(items) if isinstance(items, list) else 0):
            if str(f.key_source("scenarios", i)) == where:
                return f, i
        return None

    def run(self, sc: Scenario, where: str, mods: tuple[Path, ...] | None = None,
            pack: Path | None = None) -> Outcome:
        out = Outcome(sc.name, where)
        try:
            players = sc.players if sc.players is not None else self.players
            program = self.program({**self.options, **sc.options}, mods, pack, players)
        except ContentError as e:
            out.failures.append(f"the pack does not compile:\n{e}")
            out.problems.extend(e.report.errors)  # each at its own file and line
            return out
        spot = self.located(where)
        if spot is not None:
            for d in check_names(program, *spot):
                out.fail(d.message, d.source, d.code, d.hint)
            if not out.ok:
                return out  # a setup or an expectation would act on nothing
        state = initial_state(program, sc.seed)
        try:
            apply_setup(program, state, sc.setup)
        except (KeyError, ValueError) as e:
            out.fail(f"setup: {e}", self.spot(spot, "setup"))
            return out
        game = Game(program, state)
        out.game = game
        proc = sc.run.procedure or program.entry
        if proc not in program.procedures:
            out.fail(f"run: no procedure '{proc}'", self.spot(spot, "run"))
            return out
        started = False
        for i, step in enumerate(sc.steps, 1):
            if step.force is not None:
                force(state, step.force)
                continue
            if step.cards is not None:
                state.forced_cards.extend(step.cards)
                continue
            if step.note is not None and step.do is None and step.expect is None:
                continue
            try:
                if not started:
                    spec = program.procedures[proc]
                    game.machine.push(spec.block, {**spec.defaults, **sc.run.args}, True)
                    game.start()
                    answer_formalities(game)
                    started = True
                problem = self.step(game, step)
            except RuleError as e:
                problem = f"rules error: {e}"
            if problem:
                out.fail(f"step {i}: {problem}", self.spot(spot, "steps", i - 1))
                break
        return out

    @staticmethod
    def spot(found: tuple[YamlFile, int] | None, *keys) -> Source | None:
        """Where a part of a located scenario is written."""
        if found is None:
            return None
        f, i = found
        return f.key_source("scenarios", i, *keys)

    def step(self, game: Game, step) -> str | None:
        if step.do is not None:
            for label in [step.do] if isinstance(step.do, str) else step.do:
                try:
                    game.apply_action(label)
                    answer_formalities(game)
                except IllegalAction as e:
                    if game.is_terminal():
                        return str(e)
                    return (f"{e} (a decision that offers one option is taken without "
                            "asking: no `do` names it, the next `do` answers the next question)")
            return None
        if step.refuse is not None:
            before = game.save()
            try:
                game.apply_action(step.refuse)
            except IllegalAction:
                return None if game.save() == before else "refused, but the state changed"
            return f"{step.refuse!r} was accepted but should have been refused"
        if step.expect is not None:
            problems = check(game, step.expect)
            return "; ".join(problems) if problems else None
        return None


# One-option questions answered in a row at most (a bound, as every loop has).
MAX_FORMALITIES = 100


def answer_formalities(game: Game) -> None:
    """Answer every question that offers one option only, as the engine takes any other
    one-option decision without asking: such a question is written `always` so that being
    asked tells the others nothing, and for a scenario it is a formality (scenarios name
    the choices that matter; tests/test_always_asking.py proves the asking itself)."""
    for _ in range(MAX_FORMALITIES):
        if game.is_terminal() or game.num_actions() != 1:
            return
        game.apply_action(0)


def force(state, forced) -> None:
    """Line up chance: cube colours (a plain list), or cubes, dice rolls and random picks."""
    if isinstance(forced, list):
        state.forced_cubes.extend(forced)
        return
    state.forced_cubes.extend(forced.cubes)
    state.forced_rolls.extend(forced.dice)
    state.forced_picks.extend(forced.picks)


def apply_setup(program: Program, state, setup: Setup) -> None:
    state.vars.update(setup.vars)
    pieces = state.counters.get(program.initial.get("bag_pieces") or "", None)
    for pool in setup.clear:
        _clear_pool(program, state, pool)
    for pool, places in setup.support.items():
        for where, held in places.items():
            if where not in program.locations:
                raise KeyError(f"unknown place {where!r}")
            _set_support(program, state, pool, where, held)
    for name, values in setup.counters.items():
        state.counters[name].update(values)
        if name in program.team_counters:  # a team's one value: every member holds it
            for who in values:
                for mate in mates_table(program).get(who, ()):
                    state.counters[name][mate] = values[who]
    state.tokens.update(setup.tokens)
    for zone, cards in setup.zones.items():
        if zone not in state.zones:
            raise KeyError(f"unknown zone {zone!r}")
        for card in cards:
            for z in state.zones.values():
                if card in z:
                    z.remove(card)
            state.zones[zone].append(card)
    for track, items in setup.tracks.items():
        state.tracks[track] = list(items)
    state.effects.extend([list(e) for e in setup.effects])
    for card, who in setup.reactions:
        start_reactions(program, state, card, who)
    state.prevented.extend(setup.prevented)
    state.faces.update({str(k): v for k, v in setup.faces.items()})
    if setup.bag is not None:
        for who, n in setup.bag.items():
            if pieces is not None:
                pieces[who] += state.bag.get(who, 0) - n
            state.bag[who] = n


def start_reactions(program: Program, state, card: int, who: str) -> None:
    """Start the lasting reactions card `card`'s event starts, as if `who` had played it."""
    block = program.events.get(card)
    if block is None:
        raise KeyError(f"card {card} has no event")
    machine = Machine(program, state, ops_for(program))
    env = {"player": who, "opponent": machine.opponents[who], "card": card, CAUSE: card}
    frame = Frame(block, env, call=True)
    started = [op for ins, op in zip(program.blocks[block], machine.ops[block], strict=True)
               if ins[0] == "whenever"]
    if not started:
        raise KeyError(f"card {card}'s event starts no lasting reaction")
    for op in started:
        op.run(machine, frame)


def _set_support(program: Program, state, pool: str, where: str, held: Any) -> None:
    """Put exactly `held` at `where` ([owner, n] or, in a stacking pool, {player: n}),
    returning the pieces there before to their players and taking the new ones."""
    spec = program.pools[pool]
    counts = _wanted(spec, pool, where, held)
    old = state.pools[pool].pop(where, None)
    if spec.pieces:
        for who, n in holdings(old).items():
            state.counters[spec.pieces][who] += n
        for who, n in counts.items():
            state.counters[spec.pieces][who] -= n
    if counts:
        state.pools[pool][where] = counts if spec.stacking else [held[0], held[1]]


def _wanted(spec, pool: str, where: str, held: Any) -> dict[str, int]:
    """The pieces a setup or expectation gives a place, by player; a shape that does not
    fit the pool's kind is refused (ValueError)."""
    if not held:
        return {}
    if spec.stacking != isinstance(held, dict):
        form = "{player: count}" if spec.stacking else "[owner, count]"
        kind = "a stacking" if spec.stacking else "an exclusive"
        raise ValueError(f"{pool} support in {where}: {pool} is {kind} pool, "
                         f"so write {form}, not {held!r}")
    return {p: n for p, n in held.items() if n} if spec.stacking else {held[0]: held[1]}


def _clear_pool(program: Program, state, pool: str) -> None:
    spec = program.pools[pool]
    for entry in state.pools[pool].values():
        if spec.pieces:
            for owner, n in holdings(entry).items():
                state.counters[spec.pieces][owner] += n
    state.pools[pool].clear()


def check(game: Game, exp: Expect) -> list[str]:
    s = game.state
    bad: list[str] = []

    def same(what: str, got: Any, want: Any) -> None:
        if got != want:
            bad.append(f"{what}: expected {want!r}, got {got!r}")

    for pool, places in exp.support.items():
        spec = game.program.pools[pool]
        for where, want in places.items():
            held = s.pools[pool].get(where)
            try:
                counts = _wanted(spec, pool, where, want)
            except ValueError as e:
                bad.append(str(e))
                continue
            if spec.stacking:
                same(f"{pool} support in {where}", holdings(held), counts)
            else:
                same(f"{pool} support in {where}", held, list(want) if want else None)
    for name, values in exp.counters.items():
        for who, want in values.items():
            same(f"{name} of {who}", s.counters[name][who], want)
    for who, want in exp.tokens.items():
        same(f"token of {who}", s.tokens.get(who), want)
    for name, want in exp.vars.items():
        same(f"variable {name}", s.vars.get(name), want)
    for name, want in exp.tracks.items():
        same(f"track {name}", s.tracks[name], want)
    for zone, want in exp.zones.items():
        same(f"zone {zone}", sorted(s.zones[zone]), sorted(want))
    for zone, cards in exp.zone_contains.items():
        missing = [c for c in cards if c not in s.zones[zone]]
        if missing:
            bad.append(f"zone {zone} lacks {missing}")
    for zone, cards in exp.zone_lacks.items():
        present = [c for c in cards if c in s.zones[zone]]
        if present:
            bad.append(f"zone {zone} holds {present}")
    for who, want in exp.bag.items():
        same(f"bag cubes of {who}", s.bag.get(who, 0), want)
    effects = {(e[0], e[1]) for e in s.effects}
    in_force(bad, effects, exp.effects, exp.no_effects, "effect {0} on {1}")
    lasting = {(r[1], r[3].get(CAUSE)) for r in s.reactions}
    in_force(bad, lasting, exp.reactions, exp.no_reactions, "a reaction to {0} from card {1}")
    for card in exp.prevented:
        if card not in s.prevented:
            bad.append(f"card {card} is not prevented")
    for card, face in exp.faces.items():
        same(f"face of card {card}", s.faces.get(str(card), "front"), face)
    for zone, players in exp.revealed.items():
        same(f"{zone} revealed to", sorted(s.revealed.get(zone, [])), sorted(players))
    private(game, exp, bad)
    if exp.player is not None:
        same("player to act", game.current_player(), exp.player)
    legal = game.legal_actions()
    keys = game.action_keys() if exp.legal or exp.illegal else []  # ids for names
    for label in exp.legal:
        if label not in legal and label not in keys:
            bad.append(f"{label!r} is not offered (offered: {legal[:12]})")
    for label in exp.illegal:
        if label in legal or label in keys:
            bad.append(f"{label!r} is offered but should not be")
    text = "\n".join(s.log)
    keyed = keyed_text(text, game.program.names) if exp.log else ""
    missing = [needle for needle in exp.log if needle not in text and needle not in keyed]
    for needle in missing:
        bad.append(f"the log lacks {needle!r}")
    if missing:
        bad.append(log_tail(s.log))
    for key, want in exp.result.items():
        same(f"result {key}", (s.result or {}).get(key), want)
    if exp.terminal is not None:
        same("game over", game.is_terminal(), exp.terminal)
    if exp.out is not None:
        same("players out", sorted(s.out), sorted(exp.out))
    return bad


LOG_TAIL = 12  # the log lines a failed `log` expectation shows


def log_tail(log: list[str]) -> str:
    """The end of the log, for an author to see what it says instead."""
    if not log:
        return "the log is empty"
    shown = log[-LOG_TAIL:]
    head = (f"the log's last {len(shown)} of {len(log)} lines:" if len(log) > len(shown)
            else f"the log ({len(log)} lines):")
    return "\n".join([head, *(f"  | {line}" for line in shown)])


def keyed_text(text: str, names: dict[str, str]) -> str:
    """The log with ids where it shows display names ("ann moves to n_e" for "Ann moves to
    the North-East"): a `log` expectation may name ids, as scenarios written before the
    log used the pack's names do, just as a `do` may name an option by its key."""
    shown = {name: key for key, name in names.items() if name != key}
    if not shown:
        return text
    pattern = re.compile(r"\b(" + "|".join(
        re.escape(name) for name in sorted(shown, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: shown[m.group(1)], text)


def private(game: Game, exp: Expect, bad: list[str]) -> None:
    """What one player sees and reads, from that player's observation only."""
    for entry, must in [(e, True) for e in _each(exp.sees)] + \
            [(e, False) for e in _each(exp.not_sees)]:
        known = _known(game.observation(entry.player))
        for card in entry.cards:
            where = known.get(card, "")
            seen = card in known and entry.zone in (None, where)
            if must and not seen:
                bad.append(f"{entry.player} does not see card {card}"
                           + (f" in {entry.zone}" if entry.zone else "")
                           + (f" (seen in {where})" if where else ""))
            elif not must and seen:
                bad.append(f"{entry.player} sees card {card} (in {where})")
    for entry, must in [(e, True) for e in _each(exp.told)] + \
            [(e, False) for e in _each(exp.not_told)]:
        read = entry.text in "\n".join(game.narration(entry.player))
        if read != must:
            bad.append(f"{entry.player} was {'not ' if must else ''}told {entry.text!r}")


def _each(entries: Any) -> list:
    return entries if isinstance(entries, list) else [entries]


def _known(observation: dict[str, Any]) -> dict[int, str]:
    """card -> zone key, for every card an observation shows: the zones it sees now, then
    what it was shown (where a card was when shown, unless it is seen now)."""
    known = {int(card): zone for card, zone in observation["shown"].items()}
    for key, cards in observation["zones"].items():
        if isinstance(cards, list):
            known.update(dict.fromkeys(cards, key))
    return known


def in_force(bad: list[str], present: set, wanted: list, unwanted: list, what: str) -> None:
    """Pairs that must be in force, and pairs that must not be."""
    bad += [what.format(*pair) + " is not in force" for pair in wanted
            if tuple(pair) not in present]
    bad += [what.format(*pair) + " is still in force" for pair in unwanted
            if tuple(pair) in present]


def run_paths(paths: list[Path], pack: Path | None = None, mods: list[Path] | tuple = (),
              options: dict[str, bool] | None = None,
              players: int | None = None) -> tuple[list[Outcome], Report]:
    """Run every scenario in `paths`. `options` (`hustings scenario --option`) apply to all
    scenarios; a scenario's own `options:` win over them. A scenario or file that cannot be
    read is an outcome too: failed, `skipped`, its diagnostics in the report."""
    report = Report()
    runner = Runner(pack, mods, options, players)
    outcomes = []
    for path in scenario_files(paths):
        file_mods = runner.mods_for(path)
        file_pack = runner.pack_for(path)
        scenarios, skipped = read_scenarios(path, report)
        for sc, where in scenarios:
            outcomes.append(runner.run(sc, where, file_mods, file_pack))
        outcomes.extend(skipped)  # each counts as failed
    if not scenario_files(paths):
        report.error(Source(str(paths[0]) if paths else "."), "E501", "no scenario files found")
    return outcomes, report
