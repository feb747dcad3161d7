"""Narration: every change the rules make and every decision a player takes, told once in
the public log, worked out of the pack's display names.

A change is told as it happens ("Ann loses 2 gold"); while a card's event resolves, its
frames (and the procedures it calls) carry the card in their environment under CAUSE, and
the line names it ("Ann loses 2 gold — The Tax Collector"). Outside an event the change is
the rules' own, told under the turn and phase headings the pack says. A decision is told
as the player's name and the label of the option taken; one that picks a card from a hidden
zone is told to everyone as a choice made in secret (and in full to its player alone) until
the card is seen again.

Every English line the engine writes is one format string of LINES, filled with named
values, so the wording lives in one place; a game in another language takes each from
its catalog (interpreter/locale/<language>.po, msgid the English format string).
"""

from __future__ import annotations

from typing import Any

from .plurals import counted
from .support import holdings

CAUSE = "@cause"  # not a name the effect language can write, so no rule can clash with it

LINES = {
    "change": "  {text}{cause}",
    "cause": " — {title}",
    "gains": "{player} gains {amount}",
    "loses": "{player} loses {amount}",
    "support": "{pool} in {place}: {before} → {after}",
    "moved": "{card} goes from {source} to {target}",
    "moved_many": "{card} go from {source} to {target}",
    "moved_in": "{card} goes to {target}",
    "moved_many_in": "{card} go to {target}",
    "and": "{head} and {last}",
    "comma": ", ",  # between the items of a list (a language may write another mark)
    "a_card": "a card",
    "dealt": "{amount} dealt from {source} to {target}",
    "effect": "{player} has {effect}{value} {lasting}",
    "for_next": "for the next {count} × {name}",
    "until_end": "until the end of {name}",
    "cancelled": "{player} no longer has {effect}",
    "ended": "{player}'s {effect} ends",
    "token": "{player} moves to {place}",
    "track": "{track}: {order}",
    "track_end": "{track} reaches {position}: {player} wins",
    "out": "{player} is out",
    "team_wins": "{team} win together: {members}",
    "zone_of": "{player}'s {zone}",
    "none": "none",
    "holding": "{player} {count}",
    "decision": "{player}: {choice}{cause}",
    "secret": "{player} chooses in secret{cause}",
    "shuffled": "  ({source} shuffled into {target})",
    "ask_card": "{player}, which card?",
    "ask_player": "{player}, which player?",
    "ask_place": "{player}, which of the {kind}?",
    "ask_number": "{player}, how many?",
    "ask_one": "{player}, which one?",
    "ask_menu": "{player} to choose",
}


def line(m, key: str, **values: Any) -> str:
    """LINES[key] (in the game's language, if its catalog words it) filled with `values`."""
    template = LINES[key]
    catalog = m.p.catalog
    if catalog is not None:
        template = catalog.plain.get(template, template)
    return template.format(**values)


def name(m, value: Any) -> str:
    """What a person reads for an id: the pack's display name (a player's or a place's
    name, or one from the pack's `names:`), else the id with spaces for underscores."""
    if isinstance(value, str):
        shown = m.names.get(value)
        return shown if shown is not None else value.replace("_", " ")
    return m.show(value)


def player(m, who: Any) -> str:
    return name(m, who)


def place(m, where: Any) -> str:
    return name(m, where)


def words(key: str) -> str:
    """An id as words, for a machine without display names (the key labels)."""
    return key.replace("_", " ")


def cause(m, env: dict) -> str:
    """" — Card title" while a card's event resolves; nothing for the rules' own changes."""
    if CAUSE not in env:
        return ""
    card = m.p.cards.get(env[CAUSE])
    return line(m, "cause", title=card["title"] if card else env[CAUSE])


def tell(m, env: dict, text: str) -> None:
    m.say(line(m, "change", text=text, cause=cause(m, env)))


def counter(m, env: dict, who: str, counter_name: str, change: int) -> None:
    if not m.narrating:  # a game nobody reads (search, simulation): nothing to tell
        return
    if change:
        amount = counted(m, abs(change), counter_name)
        tell(m, env, line(m, "gains" if change > 0 else "loses", player=player(m, who),
                          amount=amount))


def track_end(m, env: dict, track: str, position: int, winner: str) -> None:
    """`victory points reaches 20: Ann wins`."""
    if not m.narrating:
        return
    m.say(line(m, "change", text=line(m, "track_end", track=name(m, track), position=position,
                                     player=player(m, winner)), cause=cause(m, env)))


def eliminated(m, env: dict, who: str) -> None:
    """`Ann is out` (`eliminate P`)."""
    if m.narrating:
        tell(m, env, line(m, "out", player=player(m, who)))


def team_wins(m, env: dict, team: str, members: list[str]) -> None:
    """`Blues win together: Ann and Bo`, when the winner recorded is in a team."""
    if not m.narrating:
        return
    m.say(line(m, "change", text=line(m, "team_wins", team=name(m, team),
                                     members=listed(m, [player(m, w) for w in members])),
               cause=cause(m, env)))


def support(m, env: dict, pool: str, where: str, before: Any) -> None:
    """`state support in Ohio: none → Ann 1`; a run of cubes placed one by one in the same
    place (with nothing told between) is one line, from the first before to the last after."""
    if not m.narrating:
        return
    after = m.s.pools[pool].get(where)
    if before == after:
        return
    log = m.s.log
    key = (pool, where, env.get(CAUSE))
    run = m.support_run
    joined = run is not None and run[0] == len(log) and run[1] == key
    first = run[2] if joined else holding(m, before)
    now = holding(m, after)
    pieces = m.p.pools[pool].name  # the pack's word for them: the engine adds none
    told = line(m, "change", text=line(m, "support", pool=pieces, place=place(m, where),
                                     before=first, after=now), cause=cause(m, env))
    if first == now:  # the run came back to where it began: nothing to tell
        if joined:
            log.pop()
        m.support_run = None
        return
    if joined:
        m.resay(told)
    else:
        m.say(told)
    m.support_run = (len(log), key, first)


def holding(m, entry: Any) -> str:
    """`Ann 2`, or for a stacking pool every player's pieces: `Ann 2, Bob 1`."""
    if not entry:
        return line(m, "none")
    if entry.__class__ is list:  # an exclusive pool's [owner, count]: the common case
        return line(m, "holding", player=player(m, entry[0]), count=entry[1])
    counts = holdings(entry)
    seats = m.p.players
    order = [p for p in seats if p in counts] + [p for p in counts if p not in seats]
    return line(m, "comma").join(line(m, "holding", player=player(m, p), count=counts[p])
                                 for p in order)


def zone(m, key: str) -> str:
    zone_name, _, owner = key.partition(":")
    shown = name(m, zone_name)
    return line(m, "zone_of", player=player(m, owner), zone=shown) if owner else shown


def cards_moved(m, env: dict, moves: list[tuple[int, str | None]], target: str) -> None:
    """Cards moved to `target`, one line for each zone they came from (in order): "A and B
    go from X to Y"; a card moving between two hidden zones is "a card"."""
    if not m.narrating:
        return
    runs: list[tuple[str | None, list[int]]] = []
    for card, source in moves:
        if source == target:
            continue
        if runs and runs[-1][0] == source:
            runs[-1][1].append(card)
        else:
            runs.append((source, [card]))
    for source, cards in runs:
        secret = all(z is None or hidden(m, z) for z in (source, target))
        if secret:
            what = counted(m, len(cards), "card") if len(cards) > 1 else line(m, "a_card")
        else:
            what = listed(m, [m.p.cards.get(c, {}).get("title", str(c)) for c in cards])
        key = "moved" if len(cards) == 1 else "moved_many"
        if source:
            tell(m, env, line(m, key, card=what, source=zone(m, source), target=zone(m, target)))
        else:
            tell(m, env, line(m, key + "_in", card=what, target=zone(m, target)))


def listed(m, items: list[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    if len(items) <= 1:
        return "".join(items)
    return line(m, "and", head=line(m, "comma").join(items[:-1]), last=items[-1])


def dealt(m, env: dict, n: int, source: str, target: str) -> None:
    """Cards dealt are counted, never named: a deal comes from a deck nobody sees."""
    if not m.narrating:
        return
    if n:
        tell(m, env, line(m, "dealt", amount=counted(m, n, "card"), source=zone(m, source),
                          target=zone(m, target)))


def hidden(m, key: str) -> bool:
    spec = m.p.zones.get(key.partition(":")[0])
    return spec is not None and (spec.hidden or spec.ordered_secret)


def effect(m, env: dict, who: str, effect_name: str, value: Any, duration: Any) -> None:
    if not m.narrating:
        return
    amount = "" if value is True or value == 1 and value.__class__ is int else \
        f" {name(m, value)}"
    tell(m, env, line(m, "effect", player=player(m, who), effect=name(m, effect_name),
                      value=amount, lasting=lasting(m, duration)))


def lasting(m, duration: Any) -> str:
    if isinstance(duration, list):
        what, n = duration
        return line(m, "for_next", count=n, name=name(m, what))
    return line(m, "until_end", name=name(m, duration))


def cancelled(m, env: dict, who: str, effect_name: str) -> None:
    if not m.narrating:
        return
    tell(m, env, line(m, "cancelled", player=player(m, who), effect=name(m, effect_name)))


def ended(m, env: dict, who: str, effect_name: str) -> None:
    if not m.narrating:
        return
    tell(m, env, line(m, "ended", player=player(m, who), effect=name(m, effect_name)))


def token(m, env: dict, who: str, where: str) -> None:
    if not m.narrating:
        return
    tell(m, env, line(m, "token", player=player(m, who), place=place(m, where)))


def track(m, env: dict, track_name: str, before: list) -> None:
    if not m.narrating:
        return
    after = m.s.tracks[track_name]
    if after != before:
        tell(m, env, line(m, "track", track=name(m, track_name),
                          order=line(m, "comma").join(place(m, i) for i in after)))


def shuffled(m, source: str, target: str) -> str:
    return line(m, "shuffled", source=zone(m, source), target=zone(m, target))


# ---- decisions -------------------------------------------------------------------
def chosen_cards(m, value: Any) -> list[int]:
    """The cards of the pack a chosen value is or holds."""
    items = value if isinstance(value, list) else [value]
    return [c for c in items if c.__class__ is int and c in m.p.cards]


def secret_choice(m, value: Any) -> list[int]:
    """The cards a choice would give away: those chosen from a hidden zone (a hand, a
    face-down stack, a deck)."""
    found = []
    for card in chosen_cards(m, value):
        where = m.zone_of(card)
        if where is not None and hidden(m, where):
            found.append(card)
    return found


def decision(m, who: str, label: str, env: dict, value: Any) -> list | None:
    """Tell the decision `who` took (the option's label). A choice of hidden cards is told
    to the others as made in secret and in full to `who`: the secret, to be revealed once
    the cards are all seen (`reveal`), or None."""
    full = line(m, "decision", player=player(m, who), choice=label, cause=cause(m, env))
    cards = secret_choice(m, value)
    if not cards:
        m.say(full)
        return None
    m.say(line(m, "secret", player=player(m, who), cause=cause(m, env)))
    m.tell(who, full, at=len(m.s.log) - 1)
    return [len(m.s.log) - 1, len(m.s.told) - 1, full, cards]


def reveal(m, secret: list) -> None:
    """A secret choice's cards, all out of hidden zones now: the public line says it in
    full, and its player's own copy goes."""
    at, told_at, full, cards = secret
    log, told = m.s.log, m.s.told
    for card in cards:
        where = m.zone_of(card)
        if where is None or hidden(m, where):
            return
    if at < len(log) and told_at < len(told) and told[told_at][2] == full:
        log[at] = full
        del told[told_at]


def default_question(m, who: str, items: list) -> str:
    """What a decision without `asking` asks, from what it offers: never a variable's name."""
    first = items[0] if items else None
    shown = player(m, who)
    if first.__class__ is int and first in m.p.cards:
        return line(m, "ask_card", player=shown)
    if first.__class__ is str and first in m.players:
        return line(m, "ask_player", player=shown)
    if first.__class__ is str and first in m.p.locations:
        kind = m.p.locations[first].get("kind", "")
        return line(m, "ask_place", player=shown, kind=name(m, kind))
    if first.__class__ is int:
        return line(m, "ask_number", player=shown)
    return line(m, "ask_one", player=shown)


def menu_question(m, who: str) -> str:
    """What a menu without `asking` asks."""
    return line(m, "ask_menu", player=player(m, who))
