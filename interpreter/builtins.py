"""Functions callable from expressions. Each takes the machine first.

Only `draw_cube`, `roll` and `random_pick` touch chance; every other function only
reads the state.
"""

from __future__ import annotations

from typing import Any

from .budget import MAX_INT
from .errors import RuleError
from .maps import adjacent_table, distance_table, map_graph
from .plurals import counted
from .seats import is_out, next_among, next_player, players_from, players_in, seat, sort_by
from .support import leader
from .teams import team_members, team_of, teammates


def _int(value):
    """A sum within the 64-bit limit."""
    if value.__class__ is int and not -MAX_INT <= value <= MAX_INT:
        raise RuleError("a sum went past the 64-bit limit (2**63)")
    return value


def _count(m, items) -> int:
    return len(items) if items is not None else 0


def _total(m, items) -> int:
    items = items or []
    m.charge(len(items))
    return _int(sum(items))


def _extreme(pick):
    def f(m, *args):
        if len(args) == 2 and args[0] is not None and args[1] is not None:
            return pick(args)  # as below: two values, neither of them none
        values = args[0] if len(args) == 1 and isinstance(args[0], list) else args
        values = [v for v in values if v is not None]
        return pick(values) if values else 0

    return f


def _travel(m, a, b) -> int:
    p = m.p
    return p.travel_cost[p.travel_area[a]][p.travel_area[b]]


def travel_table(program) -> dict[str, dict[str, int]]:
    """travel(a, b) for every pair of places that have a travel area: compiled code looks
    the cost up here instead of calling `_travel` (a menu asks it once per place)."""
    area, cost = program.travel_area, program.travel_cost
    table: dict[str, dict[str, int]] = {}
    for a, from_area in area.items():
        row = cost.get(from_area) if from_area.__class__ is str else None
        if row is not None:
            table[a] = {b: row[to] for b, to in area.items() if to in row}
    return table


def _adjacent(m, a, b) -> bool:
    return map_graph(m.p).adjacency[a][b]


def _distance(m, a, b) -> int | None:
    return map_graph(m.p).distances[a][b]


def _neighbours(m, place) -> list[str]:
    return map_graph(m.p).neighbours(place)


def _path(m, a, b) -> list[str]:
    found = map_graph(m.p).path(a, b)
    m.charge(len(found))
    return found


def _position(m, item, track) -> int:
    return track.index(item) + 1 if item in track else 0


def _bag_size(m) -> int:
    return sum(m.s.bag.values())


def _draw_cube(m) -> str | None:
    """Draw one cube; it goes to its owner's supply at once. None if the bag is empty."""
    return m.draw_cube()


def _prevented(m, card) -> bool:
    return card in m.s.prevented


def _face(m, card) -> str:
    return m.s.faces.get(str(card), "front")


def _support_total(m, pool, who) -> int:
    """`who`'s pieces of a pool over the whole board."""
    if pool in m.stacking:
        return _int(sum(here.get(who, 0) for here in m.s.pools[pool].values()))
    return sum(c for o, c in m.s.pools[pool].values() if o == who)


def _held(m, pool, who) -> list[str]:
    """Locations of a pool that `who` leads (exclusive: has support), in board order."""
    held = m.s.pools[pool]
    if pool in m.stacking:
        kind = m.p.pools[pool].kind
        return [loc for loc in m.p.kinds[kind] if loc in held and leader(held[loc]) == who]
    rank = m.ranks[pool]  # the entries are fewer than the places: sort those that match
    found = [loc for loc, h in held.items() if h[0] == who and loc in rank]
    if len(found) > 1:
        found.sort(key=rank.__getitem__)
    return found


def _empty(m, pool) -> list[str]:
    held = m.s.pools[pool]
    return [loc for loc in m.p.kinds[m.p.pools[pool].kind] if loc not in held]


def _pieces(m, who) -> int:
    return m.s.bag.get(who, 0)


def _unique(m, items) -> list:
    out: list[Any] = []
    m.charge(len(items))
    try:
        seen = set()
        for i in items:
            if i not in seen:
                seen.add(i)
                out.append(i)
    except TypeError:  # a list of lists: compare each with those kept (costs n * kept)
        out = []
        for i in items:
            m.charge(len(out))
            if i not in out:
                out.append(i)
    return out


def _first(m, items):
    return items[0] if items else None


MAX_RANGE = 10_000  # content is untrusted: no list may swallow the machine


def _range(m, a, b) -> list[int]:
    if b - a >= MAX_RANGE:
        raise RuleError(f"range({a}, {b}) is longer than {MAX_RANGE} numbers")
    m.charge(max(0, b - a + 1))
    return list(range(a, b + 1))


def _zone_size(m, zone) -> int:
    return len(m.s.zones[zone])


def _is_card(m, value) -> bool:
    return isinstance(value, int) and value in m.p.cards


def _tally(m, items, item) -> int:
    if not items:
        return 0
    m.work += len(items)  # as m.charge, without the call: a menu tallies once per option
    if m.work > m.work_limit:
        m.charge(0)
    return items.count(item)


def _at(m, items, index):
    return items[index - 1] if items and 1 <= index <= len(items) else None


def _last(m, items):
    return items[-1] if items else None


def _owner(m, pool, where):
    """The leader at `where`: the owner, or in a stacking pool whoever has strictly most."""
    held = m.s.pools[pool].get(where)
    if pool in m.stacking:
        return leader(held) if held else None
    return held[0] if held else None


def _support(m, pool, where) -> int:
    """All the pieces at `where`, whoever's they are."""
    held = m.s.pools[pool].get(where)
    if pool in m.stacking:
        return _int(sum(held.values())) if held else 0
    return held[1] if held else 0


def _support_of(m, pool, who, where) -> int:
    held = m.s.pools[pool].get(where)
    if pool in m.stacking:
        return held.get(who, 0) if held else 0
    return held[1] if held and held[0] == who else 0


def _sum_of(m, items, name) -> int:
    """Sum one property over a list of cards or places (missing values count 0)."""
    total = 0
    cards, places = m.p.cards, m.p.locations
    items = items or []
    m.charge(len(items))
    for item in items:
        table = cards if isinstance(item, int) else places
        total += table[item].get(name) or 0
    return _int(total)


def _most_places(m, pool, places):
    """The player leading more of `places` in `pool`; none on a tie."""
    held = m.s.pools[pool]
    scores = {p: 0 for p in m.p.players}
    stacking = pool in m.stacking
    for where in places or []:
        here = held.get(where)
        if here is not None:
            first = leader(here) if stacking else here[0]
            if first is not None:
                scores[first] += 1
    return _single_best(scores)


def _most_support(m, pool, places):
    """The player with more of their own support in `pool` across `places`; none on a tie."""
    held = m.s.pools[pool]
    scores = {p: 0 for p in m.p.players}
    stacking = pool in m.stacking
    for where in places or []:
        here = held.get(where)
        if here is None:
            continue
        if stacking:
            for who, n in here.items():
                scores[who] += n
        else:
            scores[here[0]] += here[1]
    return _single_best(scores)


def _single_best(scores: dict[str, int]):
    best = max(scores.values())
    leaders = [p for p, v in scores.items() if v == best]
    return leaders[0] if len(leaders) == 1 else None


def _roll(m, sides):
    return m.roll(sides)


def _random_pick(m, items):
    if items.__class__ is not list:
        raise RuleError(f"random_pick needs a list, not {m.show(items)!r}")
    return m.pick(items)


def _counted(m, n, noun):
    """`counted(3, "card")`: "3 cards", the noun's form chosen by the plural rule."""
    if noun.__class__ is not str:
        raise RuleError(f"counted() names a noun, not {m.show(noun)!r:.80}")
    return counted(m, n, noun)


def _fail(m, message):
    raise RuleError(str(message))


BUILTINS = {
    "count": _count,
    "total": _total,
    "min": _extreme(min),
    "max": _extreme(max),
    "travel": _travel,
    "adjacent": _adjacent,
    "neighbours": _neighbours,
    "distance": _distance,
    "path": _path,
    "position": _position,
    "bag_size": _bag_size,
    "bag_cubes": _pieces,
    "draw_cube": _draw_cube,
    "prevented": _prevented,
    "face": _face,
    "support_total": _support_total,
    "held": _held,
    "empty": _empty,
    "unique": _unique,
    "first": _first,
    "range": _range,
    "zone_size": _zone_size,
    "is_card": _is_card,
    "tally": _tally,
    "at": _at,
    "last": _last,
    "owner": _owner,
    "support": _support,
    "support_of": _support_of,
    "sum_of": _sum_of,
    "most_places": _most_places,
    "most_support": _most_support,
    "fail": _fail,
    "counted": _counted,
    "roll": _roll,
    "random_pick": _random_pick,
    "seat": seat,
    "players_from": players_from,
    "next_player": next_player,
    "next_among": next_among,
    "sort_by": sort_by,
    "players_in": players_in,
    "is_out": is_out,
    "team_of": team_of,
    "teammates": teammates,
    "team_members": team_members,
}

# Builtins whose value is a lookup in a table made once per program from its data alone:
# compiled code indexes the table by the arguments, in order, without a call.
TABLES = {"travel": travel_table, "adjacent": adjacent_table, "distance": distance_table}

# Builtins that read the board's map: a pack whose board declares no map has none of them,
# and may name a function of its own so (dsl/pack.py, E608).
MAP_BUILTINS = frozenset({"adjacent", "neighbours", "distance", "path"})

# Builtins that draw chance or change the state: their value is never reused, and an
# expression calling one is not pure (see codegen.py's shared subexpressions and lazy labels).
EFFECTS = frozenset({"draw_cube", "roll", "random_pick"})

# How many arguments each builtin takes (None: any number); checked by the compiler.
ARITY = {
    "count": 1, "total": 1, "min": None, "max": None, "travel": 2, "position": 2,
    "bag_size": 0, "bag_cubes": 1, "draw_cube": 0, "prevented": 1, "face": 1,
    "support_total": 2, "held": 2, "empty": 1, "unique": 1, "first": 1, "range": 2,
    "zone_size": 1, "is_card": 1, "fail": 1, "tally": 2, "at": 2, "last": 1, "owner": 2,
    "support": 2, "support_of": 3, "sum_of": 2,
    "most_places": 2, "most_support": 2, "roll": 1, "random_pick": 1, "counted": 2,
    "seat": 1, "players_from": 1, "next_player": 1, "next_among": 2, "sort_by": 2,
    "players_in": 0, "is_out": 1,
    "adjacent": 2, "neighbours": 1, "distance": 2, "path": 2,
    "team_of": 1, "teammates": 1, "team_members": 1,
}

# The argument (by position) that names a support pool (checked when content is compiled).
POOL_ARGUMENTS = {
    "support_total": 0, "held": 0, "empty": 0, "owner": 0, "support": 0, "support_of": 0,
    "most_places": 0, "most_support": 0,
}

# The argument (by position) that is a list to go through; a text there is a RuleError.
LIST_ARGUMENTS = {
    "count": 0, "total": 0, "unique": 0, "first": 0, "last": 0, "at": 0, "tally": 0,
    "sum_of": 0, "most_places": 1, "most_support": 1,
}
