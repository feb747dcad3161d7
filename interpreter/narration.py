"""Narration of what a card's event changes, worded with the pack's display names.

While an event resolves, its frames (and the procedures it calls) carry the card in their
environment under CAUSE; each change an instruction makes there is told in the log as
"Ann loses 2 gold — The Tax Collector". The wording uses only the pack's own names
(the view's player names, places' names), so it is the same for every game and seed.
"""

from __future__ import annotations

from typing import Any

from .support import holdings

CAUSE = "@cause"  # not a name the effect language can write, so no rule can clash with it


def player(m, who: Any) -> str:
    look = m.p.view.get("players", {}).get(who) if isinstance(who, str) else None
    return (look or {}).get("name") or m.show(who)


def place(m, where: Any) -> str:
    info = m.p.locations.get(where) if isinstance(where, str) else None
    return info.get("name", where) if info else m.show(where)


def words(name: str) -> str:
    return name.replace("_", " ")


def tell(m, env: dict, text: str) -> None:
    card = m.p.cards.get(env[CAUSE])
    m.s.log.append(f"  {text} — {card['title'] if card else env[CAUSE]}")


def counter(m, env: dict, who: str, name: str, change: int) -> None:
    if change:
        verb = "gains" if change > 0 else "loses"
        tell(m, env, f"{player(m, who)} {verb} {abs(change)} {words(name)}")


def support(m, env: dict, pool: str, where: str, before: Any) -> None:
    after = m.s.pools[pool].get(where)
    if before == after:
        return
    card = m.p.cards.get(env[CAUSE])
    head = f"  {words(pool)} support in {place(m, where)}: "
    tail = f" — {card['title'] if card else env[CAUSE]}"
    log = m.s.log
    last = log[-1] if log else ""
    if last.startswith(head) and last.endswith(tail):
        first = last[len(head):].split(" → ")[0]  # one line for a run of cubes
        log.pop()
    else:
        first = holding(m, before)
    now = holding(m, after)
    if first != now:
        log.append(f"{head}{first} → {now}{tail}")


def holding(m, entry: Any) -> str:
    """`Ann 2`, or for a stacking pool every player's pieces: `Ann 2, Bob 1`."""
    if not entry:
        return "none"
    if entry.__class__ is list:  # an exclusive pool's [owner, count]: the common case
        return f"{player(m, entry[0])} {entry[1]}"
    counts = holdings(entry)
    seats = m.p.players
    order = [p for p in seats if p in counts] + [p for p in counts if p not in seats]
    return ", ".join(f"{player(m, p)} {counts[p]}" for p in order)


def zone(m, key: str) -> str:
    name, _, owner = key.partition(":")
    return f"{player(m, owner)}'s {words(name)}" if owner else words(name)


def card_moved(m, env: dict, card: int, source: str | None, target: str) -> None:
    if source == target:
        return
    secret = all(z is None or hidden(m, z) for z in (source, target))
    title = "a card" if secret else m.p.cards.get(card, {}).get("title", str(card))
    origin = f" from {zone(m, source)}" if source else ""
    tell(m, env, f"{title} goes{origin} to {zone(m, target)}")


def hidden(m, key: str) -> bool:
    spec = m.p.zones.get(key.partition(":")[0])
    return spec is not None and (spec.hidden or spec.ordered_secret)


def effect(m, env: dict, who: str, name: str, value: Any, duration: Any) -> None:
    amount = "" if value is True else f" {place(m, value)}"
    tell(m, env, f"{player(m, who)} has {words(name)}{amount} {lasting(duration)}")


def lasting(duration: Any) -> str:
    if isinstance(duration, list):
        name, n = duration
        return f"for the next {n} × {words(name)}"
    return f"until the end of {words(duration)}"


def cancelled(m, env: dict, who: str, name: str) -> None:
    tell(m, env, f"{player(m, who)} no longer has {words(name)}")


def token(m, env: dict, who: str, where: str) -> None:
    tell(m, env, f"{player(m, who)} moves to {place(m, where)}")


def track(m, env: dict, name: str, before: list) -> None:
    after = m.s.tracks[name]
    if after != before:
        tell(m, env, f"{words(name)}: {', '.join(place(m, i) for i in after)}")
