"""Turn order in the language: seats in the order `players:` gives them, any number of
them, and orders by a value. Builtins (builtins.py): each takes the machine first."""

from __future__ import annotations

from typing import Any

from .errors import RuleError


def _seat_of(m, who: Any) -> int:
    try:
        return m.p.players.index(who)
    except ValueError:
        raise RuleError(f"{str(who)[:80]!r} is not a player seated in this game") from None


def seat(m, who) -> int:
    """`seat(p)`: p's seat, 1 for the first player of `players:`."""
    return _seat_of(m, who) + 1


def players_from(m, who) -> list[str]:
    """`players_from(p)`: every seated player in seat order, starting with p (clockwise)."""
    players = m.p.players
    i = _seat_of(m, who)
    return players[i:] + players[:i]


def next_player(m, who) -> str:
    """`next_player(p)`: the player in the seat after p's (the first after the last)."""
    players = m.p.players
    return players[(_seat_of(m, who) + 1) % len(players)]


def next_among(m, who, among) -> str | None:
    """`next_among(p, still_in)`: the first player after p, in seat order, who is in the
    list (p itself when p is the only one); none when the list holds no seated player."""
    if among.__class__ is not list:
        raise RuleError(f"next_among() needs a list of players, not {m.show(among)!r:.80}")
    m.charge(len(among))
    for player in players_from(m, who)[1:] + [who]:
        if player in among:
            return player
    return None


def players_in(m) -> list[str]:
    """`players_in()`: the seated players not out of the game (`eliminate P`), in seat
    order."""
    out = m.s.out
    return [p for p in m.p.players if p not in out] if out else list(m.p.players)


def is_out(m, who) -> bool:
    """`is_out(p)`: whether p, a seated player, has been put out of the game."""
    _seat_of(m, who)
    return who in m.s.out


def sort_by(m, items, keys) -> list:
    """`sort_by(ps, [vp of p for p in ps])`: the items in the order of their keys, smallest
    first; items with equal keys keep their order. A key is a number or a text, all alike."""
    if items.__class__ is not list or keys.__class__ is not list:
        raise RuleError("sort_by() needs two lists: the items and their keys")
    if len(items) != len(keys):
        raise RuleError(f"sort_by() has {len(items)} items but {len(keys)} keys")
    m.charge(len(items))
    kinds = {k.__class__ for k in keys}
    if not kinds <= {int} and not kinds <= {str}:
        raise RuleError("sort_by() keys are all numbers or all texts")
    order = sorted(range(len(items)), key=keys.__getitem__)
    return [items[i] for i in order]
