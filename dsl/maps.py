"""The checks of a board's map (board.yaml `map:`), and the neighbour lists it compiles to.

A map joins the locations of one kind with two-way links, written as pairs (`links:`),
as each location's neighbours (`neighbours:`), or both. The checks, each at the value
that is wrong (docs/diagnostics.md):
- E160 `map.kind` is not a kind of location;
- E161 a link names something that is not a location of that kind;
- E162 a location linked to itself;
- W160 a link given twice (harmless, but often a typo for another link);
- E163 a neighbour list the other end does not return (links are two-way);
- E164 a map in separate parts, unless it says `connected: false`;
- E165 a map larger than the builtins' tables are bounded for.
"""

from __future__ import annotations

from ..interpreter.maps import MAX_MAP_LINKS, MAX_MAP_PLACES
from ..schemas.content import Board, MapDef
from .diagnostics import Report, Source, did_you_mean
from .yamlsource import YamlFile

PART_NAMES = 8  # the places of a separate part named in E164; the rest are counted


class _MapCheck:
    def __init__(self, board: Board, f: YamlFile, report: Report) -> None:
        self.map: MapDef = board.map
        self.board, self.f, self.report = board, f, report
        self.kind_of = {loc.id: kind for kind, items in board.locations.items()
                        for loc in items}
        self.places = [loc.id for loc in board.locations.get(self.map.kind, [])]
        self.order = {p: i for i, p in enumerate(self.places)}
        self.ok = True
        self.linked: dict[frozenset, Source] = {}  # each pair of `links:`, where it is given
        self.given: set[frozenset] = set()  # each link the neighbour lists give

    def error(self, where: Source, code: str, message: str, hint: str) -> None:
        self.ok = False
        self.report.error(where, code, message, hint)

    def run(self) -> dict[str, list[str]] | None:
        """Each place's neighbours in board order, or None when the map is wrong."""
        kinds = self.board.locations
        if self.map.kind not in kinds:
            self.error(self.f.value_source("map", "kind"), "E160",
                       f"map: '{self.map.kind}' is not a kind of location",
                       did_you_mean(self.map.kind, kinds)
                       or f"kinds on the board: {', '.join(kinds)}")
            return None
        if not self.within_bounds():
            return None
        for i, (a, b) in enumerate(self.map.links):
            self.link(a, b, ("links", i))
        for a, listed in self.map.neighbours.items():
            if self.place(a, self.f.key_source("map", "neighbours", a)):
                for k, b in enumerate(listed):
                    self.listed(a, b, k)
        if not self.ok:
            return None
        near = self.neighbour_lists()
        if self.map.connected:
            self.check_connected(near)
        return near if self.ok else None

    def within_bounds(self) -> bool:
        written = len(self.map.links) + sum(len(v) for v in self.map.neighbours.values())
        for count, limit, what in ((len(self.places), MAX_MAP_PLACES, "places"),
                                   (written, MAX_MAP_LINKS, "links")):
            if count > limit:
                self.error(self.f.key_source("map"), "E165",
                           f"the map has {count:,} {what}, more than the {limit:,} a map may "
                           "have", "split the board into smaller maps of its own, or join "
                           "fewer places")
                return False
        return True

    def place(self, name: str, where: Source) -> bool:
        """E161 unless `name` is a location of the map's kind."""
        kind = self.map.kind
        if name in self.order:
            return True
        if name in self.kind_of:
            self.error(where, "E161", f"map: '{name}' is one of the {self.kind_of[name]}, not "
                       f"of the {kind}", f"a map joins locations of one kind (`kind: {kind}`)")
        else:
            self.error(where, "E161", f"map: there is no location '{name}' among the {kind}",
                       did_you_mean(name, self.places)
                       or f"the {kind}: {', '.join(self.places[:PART_NAMES])}"
                       + (" ..." if len(self.places) > PART_NAMES else ""))
        return False

    def link(self, a: str, b: str, at: tuple) -> None:
        """One pair of `links:`."""
        known = [self.place(end, self.f.value_source("map", *at, j))
                 for j, end in enumerate((a, b))]
        if not all(known):
            return
        where = self.f.value_source("map", *at)
        if a == b:
            self.error(where, "E162", f"map: '{a}' is linked to itself",
                       "a link joins two different places: name the other end")
            return
        pair = frozenset((a, b))
        first = self.linked.setdefault(pair, where)
        if first is not where:
            self.report.warn(where, "W160", f"map: the link [{a}, {b}] is given twice (first "
                             f"at line {first.line})", "delete one of them: a link is two-way")

    def listed(self, a: str, b: str, k: int) -> None:
        """The k-th neighbour `b` of `a` under `neighbours:`."""
        where = self.f.value_source("map", "neighbours", a, k)
        if not self.place(b, where):
            return
        if a == b:
            self.error(where, "E162", f"map: '{a}' lists itself as its neighbour",
                       f"take '{a}' out of its own list")
            return
        if b in self.map.neighbours.get(a, [])[:k]:
            self.report.warn(where, "W160", f"map: '{a}' lists '{b}' twice",
                             "delete one of them")
            return
        pair = frozenset((a, b))
        if pair in self.linked:
            self.report.warn(where, "W160", f"map: the link between '{a}' and '{b}' is given "
                             f"twice: in `links:` too (line {self.linked[pair].line})",
                             "delete one of them: a link is two-way")
            return
        if a not in self.map.neighbours.get(b, []):
            back = "has no neighbours list" if b not in self.map.neighbours \
                else f"does not list '{a}'"
            self.error(where, "E163", f"map: '{a}' lists '{b}' as a neighbour, but '{b}' "
                       f"{back}: links are two-way",
                       f"add '{a}' to the neighbours of '{b}', or take '{b}' out of those of "
                       f"'{a}'")
            return
        self.given.add(pair)

    def neighbour_lists(self) -> dict[str, list[str]]:
        near: dict[str, set[str]] = {p: set() for p in self.places}
        for pair in [*self.linked, *self.given]:
            a, b = tuple(pair)
            near[a].add(b)
            near[b].add(a)
        return {p: sorted(near[p], key=self.order.__getitem__) for p in self.places}

    def check_connected(self, near: dict[str, list[str]]) -> None:
        parts: list[list[str]] = []
        found: set[str] = set()
        for start in self.places:
            if start in found:
                continue
            found.add(start)
            part = [start]
            for place in part:  # breadth first: the list grows as it is gone through
                for other in near[place]:
                    if other not in found:
                        found.add(other)
                        part.append(other)
            parts.append(sorted(part, key=self.order.__getitem__))
        if len(parts) > 1:
            shown = ", ".join(_part(p) for p in parts[:PART_NAMES])
            more = f" and {len(parts) - PART_NAMES} more" if len(parts) > PART_NAMES else ""
            self.error(self.f.key_source("map"), "E164",
                       f"the map is in {len(parts)} separate parts: {shown}{more}",
                       "link the parts (`links:`), or write `connected: false` under `map:` "
                       "if they are meant to be apart")


def _part(places: list[str]) -> str:
    """One part of a map as E164 names it: `[a, b, c]`, or `[a, ... h and 4 more]`."""
    names = ", ".join(places[:PART_NAMES])
    more = f" and {len(places) - PART_NAMES} more" if len(places) > PART_NAMES else ""
    return f"[{names}{more}]"


def check_map(board: Board, f: YamlFile | None, report: Report) -> dict[str, list[str]] | None:
    """The map's neighbour lists (every place of its kind, neighbours in board order), or
    None when the board has no map or it is wrong (the report says what)."""
    if board.map is None or f is None:
        return None
    return _MapCheck(board, f, report).run()
