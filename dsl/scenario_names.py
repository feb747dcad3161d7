"""The names a scenario uses, checked against the compiled pack (E502-E510).

A scenario's setup and expectations name places, cards, players, counters,
pools, zones, tracks, variables and effects. A misspelt one would make a setup
change nothing and an expectation test nothing (or fail for the wrong reason),
so each is an error at its file, line and column before the scenario runs.
The raw YAML is walked (not the validated model) so every name keeps its spot.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..interpreter.program import Program
from .diagnostics import Diagnostic, Source, did_you_mean
from .yamlsource import YamlFile

# code: what the code's names are, for messages.
WHAT = {"E502": "place", "E503": "card", "E504": "player", "E505": "counter",
        "E506": "kind of support", "E507": "zone", "E508": "track", "E509": "variable",
        "E510": "effect"}


def check_names(program: Program, f: YamlFile, index: int) -> list[Diagnostic]:
    """Every unknown name in scenario `index` of the file, at its spot."""
    return _Names(program, f, ("scenarios", index)).run()


class _Names:
    def __init__(self, program: Program, f: YamlFile, base: tuple) -> None:
        self.p, self.f, self.base = program, f, base
        self.found: list[Diagnostic] = []
        self.known: dict[str, Any] = {
            "E502": program.locations, "E503": program.cards, "E504": program.players,
            "E505": program.counters, "E506": program.pools,
            "E507": program.initial.get("zones", {}), "E508": program.tracks,
            "E509": program.variables, "E510": program.effects,
        }

    def run(self) -> list[Diagnostic]:
        sc = self.f.node(*self.base)
        if not isinstance(sc, dict):
            return []
        self.state(("setup",), _map(sc.get("setup")), setup=True)
        for k, step in enumerate(sc.get("steps") or []):
            if not isinstance(step, dict):
                continue
            self.items(("steps", k, "cards"), step.get("cards"), "E503")
            self.items(("steps", k, "force"), step.get("force"), "E504")
            self.state(("steps", k, "expect"), _map(step.get("expect")), setup=False)
        return sorted(self.found, key=lambda d: (d.source.line, d.source.column))

    # ---- one name -------------------------------------------------------------
    def name(self, path: tuple, value: Any, code: str, at_key: bool = False) -> bool:
        """Is `value` a known name of its code? If not, report it at its key or value."""
        known = self.known[code]
        if code == "E503":
            if _number(value) in known:
                return True
        elif _hashable(value) and value in known:
            return True
        where = self.f.key_source(*self.base, *path) if at_key \
            else self.f.value_source(*self.base, *path)
        hint = _hint(value, known) if code != "E503" else (
            did_you_mean(str(value), known)
            or "no card of the pack has this number, with the scenario's options and mods")
        self.error(where, code, f"unknown {WHAT[code]} {value!r}", hint)
        return False

    def error(self, where: Source, code: str, message: str, hint: str) -> None:
        self.found.append(Diagnostic(where, code, message, hint))

    def keys(self, path: tuple, mapping: Any, code: str) -> Iterable[tuple[Any, Any]]:
        """The entries of a mapping whose key is a known name (the others are reported)."""
        for key, value in _map(mapping).items():
            if self.name((*path, key), key, code, at_key=True):
                yield key, value

    def items(self, path: tuple, items: Any, code: str) -> None:
        for i, item in enumerate(items if isinstance(items, list) else []):
            self.name((*path, i), item, code)

    # ---- a setup or an expectation ------------------------------------------------
    def state(self, path: tuple, data: dict, setup: bool) -> None:
        list(self.keys((*path, "vars"), data.get("vars"), "E509"))
        self.items((*path, "clear"), data.get("clear"), "E506")
        self.support((*path, "support"), data.get("support"))
        for name, values in self.keys((*path, "counters"), data.get("counters"), "E505"):
            list(self.keys((*path, "counters", name), values, "E504"))
        for who, where in self.keys((*path, "tokens"), data.get("tokens"), "E504"):
            self.name((*path, "tokens", who), where, "E502")
        zones = ("zones",) if setup else ("zones", "zone_contains", "zone_lacks")
        for section in zones:
            for zone, cards in self.keys((*path, section), data.get(section), "E507"):
                self.items((*path, section, zone), cards, "E503")
        for track, items in self.keys((*path, "tracks"), data.get("tracks"), "E508"):
            self.track_items((*path, "tracks", track), track, items)
        for section in ("effects",) if setup else ("effects", "no_effects"):
            for i, entry in enumerate(_list(data.get(section))):
                if isinstance(entry, list) and len(entry) >= 2:
                    self.name((*path, section, i, 0), entry[0], "E510")
                    self.name((*path, section, i, 1), entry[1], "E504")
        self.items((*path, "prevented"), data.get("prevented"), "E503")
        list(self.keys((*path, "faces"), data.get("faces"), "E503"))
        list(self.keys((*path, "bag"), data.get("bag"), "E504"))
        for zone, players in self.keys((*path, "revealed"), data.get("revealed"), "E507"):
            self.items((*path, "revealed", zone), players, "E504")
        for section in () if setup else ("sees", "not_sees", "told", "not_told"):
            entries = data.get(section)
            for i, entry in enumerate(entries if isinstance(entries, list) else [entries]):
                at = (*path, section, i) if isinstance(entries, list) else (*path, section)
                if isinstance(entry, dict) and "player" in entry:
                    self.name((*at, "player"), entry["player"], "E504")
                    self.items((*at, "cards"), entry.get("cards"), "E503")
                    if entry.get("zone") is not None:
                        self.name((*at, "zone"), entry["zone"], "E507")
        if data.get("player") is not None:
            self.name((*path, "player"), data["player"], "E504")
        if not setup:
            self.items((*path, "out"), data.get("out"), "E504")

    def support(self, path: tuple, data: Any) -> None:
        """`{pool: {place: [owner, count] or null}}`: the place must be of the pool's kind."""
        for pool, places in self.keys(path, data, "E506"):
            kind = self.p.pools[pool].kind
            for where, held in self.keys((*path, pool), places, "E502"):
                if self.p.locations[where].get("kind") != kind:
                    members = self.p.kinds.get(kind, [])
                    self.error(self.f.key_source(*self.base, *path, pool, where), "E502",
                               f"{where!r} is not one of the {kind}, where {pool} support is",
                               did_you_mean(where, members)
                               or f"one of the {kind}, such as `{members[0]}`" if members
                               else "")
                if isinstance(held, list) and held:
                    self.name((*path, pool, where, 0), held[0], "E504")

    def track_items(self, path: tuple, track: str, items: Any) -> None:
        on_track = self.p.tracks[track]
        for i, item in enumerate(_list(items)):
            if item not in on_track:
                self.error(self.f.value_source(*self.base, *path, i), "E508",
                           f"{item!r} is not on the track '{track}'",
                           did_you_mean(str(item), on_track)
                           or f"its items: {', '.join(map(str, on_track))}")


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _number(value: Any) -> int | None:
    """A card number as the schema reads it: 7 or "7"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.strip().isdigit() else None


def _hint(value: Any, known: Any) -> str:
    names = [str(k) for k in known]
    near = did_you_mean(str(value), names)
    if near or not names:
        return near
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return f"known: {shown}"
