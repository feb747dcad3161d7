"""A board's map as the builtins read it: `adjacent`, `neighbours`, `distance`, `path`.

The program carries the map as plain data (`Program.map_kind`, the kind of place it joins,
and `Program.map_links`, each place's neighbours in board order; dsl/maps.py checks it).
What is worked out from it is made once per program (`Program.once`) and row by row: the
distances from a place are one breadth-first walk, done the first time a rule asks about
that place, so a game pays only for the places its rules ask about. A map has at most
MAX_MAP_PLACES places and MAX_MAP_LINKS links (the check refuses a larger one), so a row
costs at most places + 2 * links steps and all the rows at most places times that.
"""

from __future__ import annotations

from typing import Any

from .errors import RuleError

MAX_MAP_PLACES = 1_000
MAX_MAP_LINKS = 5_000


def _not_on_map(what: str, value: Any, kind: str | None) -> RuleError:
    if kind is None:
        return RuleError(f"{what}: the board declares no map")
    return RuleError(f"{what}: {value!r:.80} is not on the map (the map joins the {kind})")


class _Row(dict):
    """One place's values towards every place of the map; another key is a RuleError."""

    def __init__(self, values: dict, what: str, kind: str | None) -> None:
        super().__init__(values)
        self.what, self.kind = what, kind

    def __missing__(self, key):
        raise _not_on_map(self.what, key, self.kind)


class _Rows(dict):
    """Place -> its _Row, made when first looked up (compiled code indexes `rows[a][b]`)."""

    def __init__(self, graph: MapGraph, make, what: str) -> None:
        super().__init__()
        self.graph, self.make, self.what = graph, make, what

    def __missing__(self, key):
        graph = self.graph
        if key.__class__ is not str or key not in graph.near:
            raise _not_on_map(self.what, key, graph.kind)
        row = self[key] = _Row(self.make(key), self.what, graph.kind)
        return row


class MapGraph:
    """The map of one program, with its rows of distances and of adjacency."""

    def __init__(self, kind: str | None, links: dict[str, list[str]]) -> None:
        self.kind = kind
        self.near = links  # place -> its neighbours, in board order
        self.places = list(links)
        at = {p: i for i, p in enumerate(self.places)}
        self.near_at = [[at[o] for o in links[p]] for p in self.places]  # the same, by index
        self.at = at
        self.distances = _Rows(self, self._walk, "distance")
        self.adjacency = _Rows(self, self._adjacent, "adjacent")

    def _walk(self, source: str) -> dict[str, int | None]:
        """Fewest links from `source` to every place (None: not reachable), breadth first
        over the places' indexes (half the time of a walk over their names)."""
        near = self.near_at
        dist: list[int | None] = [None] * len(near)
        start = self.at[source]
        dist[start] = 0
        frontier, level = [start], 0
        while frontier:
            level += 1
            nxt = []
            for place in frontier:
                for other in near[place]:
                    if dist[other] is None:
                        dist[other] = level
                        nxt.append(other)
            frontier = nxt
        return dict(zip(self.places, dist, strict=True))

    def _adjacent(self, source: str) -> dict[str, bool]:
        out = dict.fromkeys(self.near, False)
        for other in self.near[source]:
            out[other] = True
        return out

    def neighbours(self, place: Any) -> list[str]:
        if place.__class__ is not str or place not in self.near:
            raise _not_on_map("neighbours", place, self.kind)
        return list(self.near[place])  # a copy: the rules may change the list they get

    def path(self, a: Any, b: Any) -> list[str]:
        """The places of a shortest path from a to b, both included ([] if none joins them):
        of the shortest, the one whose first step comes first in board order, then its
        second step, and so on (each step is the first neighbour one link nearer to b)."""
        for end in (a, b):
            if end.__class__ is not str or end not in self.near:
                raise _not_on_map("path", end, self.kind)
        to_b = self.distances[b]
        if to_b[a] is None:
            return []
        out, here = [a], a
        while here != b:
            left = to_b[here] - 1
            here = next(n for n in self.near[here] if to_b[n] == left)
            out.append(here)
        return out


def map_graph(program) -> MapGraph:
    """The program's map, made once and kept on the program."""
    return program.once("map", lambda p: MapGraph(p.map_kind, p.map_links))


def distance_table(program) -> _Rows:
    return map_graph(program).distances


def adjacent_table(program) -> _Rows:
    return map_graph(program).adjacency
