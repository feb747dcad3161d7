"""The instruction set. Each instruction tuple from a Program becomes one of
these small objects; `run(machine, frame)` carries it out.

Control-flow instructions push frames; decisions set `state.pending` and the
machine stops until a player answers.
"""

from __future__ import annotations

from . import narration as tell
from .budget import list_size, too_big
from .codegen import variables_read
from .errors import RuleError
from .narration import CAUSE
from .state import copy_value
from .teams import credit_team, share
from .unit import active, build, build_items, build_offer, current_unit, pure

REACT = "@react"  # the dispatch loop's variable: [block, variables] of the reaction it runs
REACTION_ID = "@reaction"  # in a lasting reaction's variables: its id (to spend its uses)
CHOSEN_FROM = "what is chosen from"  # what a `chooses x from` list is called in errors


def not_text(value, what: str):
    """A card (or none): a text there would be kept as if it were a card."""
    if value.__class__ is str:
        raise RuleError(f"{what} must be a card or a list of cards, not the text {value[:60]!r}")
    return value


def card_of(m, value, what: str) -> int:
    """`value`, if it is a card of the pack; a rule error saying `what` otherwise."""
    if value.__class__ is not int or value not in m.p.cards:
        raise RuleError(f"{what}, and {value!r:.80} is no card of the pack")
    return value


def not_counted(counter: str, who) -> RuleError:
    """The error of a counter read for someone who is not a player."""
    return RuleError(f"{counter} is counted for players, and {who!r:.80} is not one")


def player_of(m, value, what: str) -> str:
    """`value`, if it is a player; a rule error saying `what` otherwise."""
    if value.__class__ is not str or value not in m.players:
        raise RuleError(f"{what}, and {value!r:.80} is not a player")
    return value


class Op:
    """An instruction. One whose `run` works out its operands first, in a fixed order,
    and only then acts also has `apply(m, env, *values)` and names in OPERANDS where
    those operands are among its instruction's fields, in that order: compiled blocks
    work them out inline and call `apply`."""

    __slots__ = ()
    OPERANDS: tuple[int, ...] | None = None
    # Its first operand is a count: unless it is above 0, nothing happens and no other
    # operand is worked out.
    COUNTED = False

    def run(self, m, f) -> None:  # pragma: no cover - every op overrides
        raise NotImplementedError


class Let(Op):
    __slots__ = ("name", "e")

    def __init__(self, name, e):
        self.name, self.e = name, build(e)

    def run(self, m, f):
        f.env[self.name] = self.e(m, f.env)


class SetGlobal(Op):
    __slots__ = ("name", "e")

    def __init__(self, name, e):
        self.name, self.e = name, build(e)

    def run(self, m, f):
        m.s.vars[self.name] = self.e(m, f.env)


class Call(Op):
    __slots__ = ("proc", "args")

    def __init__(self, proc, args):
        self.proc = proc
        self.args = [(name, build(e)) for name, e in args]

    def run(self, m, f):
        proc = m.p.procedures[self.proc]
        env = dict(proc.defaults)
        for name, e in self.args:
            env[name] = e(m, f.env)
        if CAUSE in f.env:  # a procedure an event calls tells its changes too
            env[CAUSE] = f.env[CAUSE]
        m.push(proc.block, env, call=True)


class Stop(Op):
    __slots__ = ()

    def run(self, m, f):
        m.stop()


class Say(Op):
    __slots__ = ("e",)

    def __init__(self, e):
        self.e = build(e)

    def run(self, m, f):
        text = self.e(m, f.env)
        shown = m.show(text)
        m.say(m.texts.get(shown, shown))


class Record(Op):
    """Write a result entry; with an owner, entries group under the key by player."""

    __slots__ = ("key", "owner", "e")

    def __init__(self, key, owner, e):
        self.key, self.e = key, build(e)
        self.owner = build(owner) if owner is not None else None

    def run(self, m, f):
        if m.s.result is None:
            m.s.result = {}
        value = self.e(m, f.env)
        if self.owner is None:
            m.s.result[self.key] = value
            if self.key == "winner" and m.p.teams:  # a team's members win together
                credit_team(m)
                _tell_team(m, f.env)
        else:
            m.s.result.setdefault(self.key, {})[self.owner(m, f.env)] = value


def _tell_team(m, env) -> None:
    """Narrate a team's win (the result's `team` and `winners`, if the winner has a team)."""
    result = m.s.result
    if "team" in result:
        tell.team_wins(m, env, result["team"], result["winners"])


class Finish(Op):
    __slots__ = ()

    def run(self, m, f):
        m.s.stack.clear()
        if m.s.result is None:
            m.s.result = {}


class Eliminate(Op):
    """`eliminate P`: P is out of the game from now on (kept in seat order); a player
    already out stays so, and nothing is told again."""

    __slots__ = ("who",)

    def __init__(self, who):
        self.who = build(who)

    def run(self, m, f):
        who = player_of(m, self.who(m, f.env), "only a player is put out of the game")
        out = m.s.out
        if who in out:
            return
        out.append(who)
        out.sort(key=m.p.players.index)
        tell.eliminated(m, f.env, who)


class Gain(Op):
    __slots__ = ("who", "n", "counter")

    def __init__(self, who, n, counter):
        self.who, self.n, self.counter = build(who), build(n), counter

    OPERANDS = (1, 0)  # n, who
    COUNTED = True

    def run(self, m, f):
        env = f.env
        n = self.n(m, env)
        if n > 0:
            self.apply(m, env, n, self.who(m, env))

    def apply(self, m, env, n, who):
        if self.counter in m.shared:
            return pull(m, env, self.counter, who, n)
        table = m.s.counters[self.counter]
        try:
            before = table[who]
        except (KeyError, TypeError):
            raise not_counted(self.counter, who) from None
        table[who] += n
        if too_big(table[who]):
            raise RuleError(f"{self.counter} of {who} would pass the 64-bit limit")
        high = m.highs.get(self.counter)
        if high is not None and table[who] > high:  # a gain stops at the maximum
            table[who] = max(high, before)
        if m.p.team_counters:  # a per-team counter: the whole team holds the value
            share(m, self.counter, who)
        tell.counter(m, env, who, self.counter, table[who] - before)


class _Spend(Op):
    """An op taking n of a counter from a player (Lose, Pay): `apply` says how."""

    __slots__ = ("who", "n", "counter")

    def __init__(self, who, n, counter):
        self.who, self.n, self.counter = build(who), build(n), counter

    OPERANDS = (0, 1)

    def run(self, m, f):
        env = f.env
        self.apply(m, env, self.who(m, env), self.n(m, env))


class Lose(_Spend):
    """Lose up to n of a counter; a counter never goes below zero."""

    __slots__ = ()

    def apply(self, m, env, who, n):
        if self.counter in m.shared:
            return pull(m, env, self.counter, who, -max(0, n))
        table = m.s.counters[self.counter]
        try:
            before = table[who]
        except (KeyError, TypeError):
            raise not_counted(self.counter, who) from None
        left = before - max(0, n)
        if too_big(left):
            raise RuleError(f"{self.counter} of {who} would pass the 64-bit limit")
        low = m.lows.get(self.counter)
        table[who] = left if low is None else max(min(low, before), left)
        if m.p.team_counters:  # a per-team counter: the whole team holds the value
            share(m, self.counter, who)
        tell.counter(m, env, who, self.counter, table[who] - before)


class Pay(_Spend):
    """Spend exactly n of a counter; the rules must only offer what can be paid."""

    __slots__ = ()

    def apply(self, m, env, who, n):
        if self.counter in m.shared:
            return pull(m, env, self.counter, who, -n, exact=True)
        table = m.s.counters[self.counter]
        low = m.lows.get(self.counter)
        try:
            have = table[who]
        except (KeyError, TypeError):
            raise not_counted(self.counter, who) from None
        if have < n or (low is not None and have - n < min(low, have)):
            raise RuleError(f"{who} cannot pay {n} {self.counter} (has {have})")
        if too_big(have - n):
            raise RuleError(f"{self.counter} of {who} would pass the 64-bit limit")
        table[who] = have - n
        if m.p.team_counters:  # a per-team counter: the whole team holds the value
            share(m, self.counter, who)
        tell.counter(m, env, who, self.counter, -n)


def pull(m, env, track: str, who, n: int, exact: bool = False) -> None:
    """`who` pulls a shared track's one marker n spaces toward their own end (away from it
    for a negative n), stopping at the ends; `exact` (a payment): the whole way or not at
    all. Every player's entry holds the same position. Reaching an end of a track that
    `ends_game` finishes the game with that end's player as the winner."""
    ends = m.shared[track]
    if who == ends["max"]:
        sign = 1
    elif who == ends["min"]:
        sign = -1
    else:
        raise RuleError(f"{track} is pulled by {ends['max']} and {ends['min']} only, "
                        f"not {str(who)[:80]!r}")
    table = m.s.counters[track]
    before = table[who]
    low, high = m.lows[track], m.highs[track]
    wanted = before + sign * n
    if too_big(wanted):
        raise RuleError(f"{track} would pass the 64-bit limit")
    if exact and not low <= wanted <= high:
        raise RuleError(f"{who} cannot pay {-n} {track} (the marker is at {before})")
    after = min(high, max(low, wanted))
    for player in table:
        table[player] = after
    tell.counter(m, env, who, track, sign * (after - before))
    if ends["ends_game"] and after != before and after in (low, high):
        winner = ends["max"] if after == high else ends["min"]
        m.s.result = {**(m.s.result or {}), "winner": winner}
        credit_team(m)
        tell.track_end(m, env, track, after, winner)
        _tell_team(m, env)
        m.s.stack.clear()


def _copy(here):
    """A place's support before a change (either pool shape), for narration."""
    return here.copy() if here else None


class Place(Op):
    """Add support to a place (Remove: take it away); `change` is the machine's."""

    __slots__ = ("n", "pool", "who", "loc")

    def __init__(self, n, pool, who, loc):
        self.n, self.pool, self.who, self.loc = build(n), build(pool), build(who), build(loc)

    OPERANDS = (1, 3, 2, 0)  # pool, where, who, n

    def run(self, m, f):
        env = f.env
        self.apply(m, env, self.pool(m, env), self.loc(m, env), self.who(m, env),
                   self.n(m, env))

    def apply(self, m, env, pool, where, who, n):
        if where not in m.ranks[pool] or who not in m.players:
            _not_support(m, pool, where, who)
        before = _copy(m.s.pools[pool].get(where))  # for the narration
        self.change(m, pool, who, where, n)
        tell.support(m, env, pool, where, before)

    @staticmethod
    def change(m, pool, who, where, n):
        m.place(pool, who, where, n)


def _not_support(m, pool: str, where, who) -> None:
    shown = m.p.pools[pool].name
    player_of(m, who, f"{shown} is a player's")
    raise RuleError(f"{shown} goes on a place of kind {m.p.pools[pool].kind}, and "
                    f"{where!r:.80} is none")


class Remove(Place):
    __slots__ = ()

    @staticmethod
    def change(m, pool, who, where, n):
        m.remove(pool, who, where, n)


class BagPut(Op):
    __slots__ = ("n", "who")

    def __init__(self, n, who):
        self.n, self.who = build(n), build(who)

    def run(self, m, f):
        n, who = self.n(m, f.env), self.who(m, f.env)
        if n <= 0:
            return
        player_of(m, who, "the bag holds players' pieces")
        if too_big(m.s.bag.get(who, 0) + n):
            raise RuleError("the bag would hold more than the 64-bit limit")
        m.s.bag[who] = m.s.bag.get(who, 0) + n
        if m.pieces:
            m.s.counters[m.pieces][who] -= n


class BagEmpty(Op):
    __slots__ = ()

    def run(self, m, f):
        for who, n in m.s.bag.items():
            if m.pieces:
                m.s.counters[m.pieces][who] += n
            m.s.bag[who] = 0


class MoveToken(Op):
    __slots__ = ("who", "loc")

    def __init__(self, who, loc):
        self.who, self.loc = build(who), build(loc)

    OPERANDS = (0, 1)

    def run(self, m, f):
        env = f.env
        self.apply(m, env, self.who(m, env), self.loc(m, env))

    def apply(self, m, env, who, where):
        if who.__class__ is not str or who not in m.s.tokens:
            raise RuleError(f"{who!r:.80} has no token to move (the board's `tokens:` "
                            "gives each player theirs)")
        if where.__class__ is not str or where not in m.p.locations:
            raise RuleError(f"a token stands on a place, and {where!r:.80} is no place of "
                            "the board")
        if m.s.tokens.get(who) != where:
            tell.token(m, env, who, where)
        m.s.tokens[who] = where


class Transfer(Op):
    __slots__ = ("card", "zone")

    def __init__(self, card, zone):
        self.card, self.zone = build(card), build(zone)

    OPERANDS = (0, 1)

    def run(self, m, f):
        env = f.env
        self.apply(m, env, self.card(m, env), self.zone(m, env))

    def apply(self, m, env, cards, zone):
        # each card is looked for in every zone: that is the work charged
        if cards.__class__ is int and cards in m.p.cards:  # one card: the common case
            cards = (cards,)
            m.charge(len(m.s.zones))
        else:
            cards = cards if isinstance(cards, list) else [not_text(cards, "what is transferred")]
            m.charge(len(cards) * len(m.s.zones))
            for c in cards:  # all checked before any moves: anything else would be a new card
                card_of(m, c, "only cards are transferred")
        moves = []
        for c in cards:
            source = m.zone_of(c)
            m.transfer(c, zone, source)
            moves.append((c, source))
        tell.cards_moved(m, env, moves, zone)


class Deal(Op):
    __slots__ = ("n", "source", "target")

    def __init__(self, n, source, target):
        self.n, self.source, self.target = build(n), build(source), build(target)

    def run(self, m, f):
        source, target = self.source(m, f.env), self.target(m, f.env)
        n = m.deal(self.n(m, f.env), source, target)
        tell.dealt(m, f.env, n, source, target)


class Shuffle(Op):
    __slots__ = ("zone",)

    def __init__(self, zone):
        self.zone = build(zone)

    def run(self, m, f):
        m.shuffle(m.s.zones[self.zone(m, f.env)])


def on_track(items: list, item, track: str) -> int:
    """Where `item` is on the track: a track holds its own items, always all of them."""
    if item.__class__ is str:
        for i, there in enumerate(items):
            if there == item:
                return i
    raise RuleError(f"{item!r:.80} is not on the track {track}")


class TrackMove(Op):
    """Move an item towards the front (up, negative delta) or back of a track."""

    __slots__ = ("item", "delta", "track")

    def __init__(self, item, delta, track):
        self.item, self.delta, self.track = build(item), build(delta), track

    def run(self, m, f):
        before = list(m.s.tracks[self.track])
        items = m.s.tracks[self.track]
        item = self.item(m, f.env)
        i = on_track(items, item, self.track)
        j = max(0, min(len(items) - 1, i + self.delta(m, f.env)))
        items.pop(i)
        items.insert(j, item)
        tell.track(m, f.env, self.track, before)


class TrackSwap(Op):
    __slots__ = ("a", "b", "track")

    def __init__(self, a, b, track):
        self.a, self.b, self.track = build(a), build(b), track

    def run(self, m, f):
        before = list(m.s.tracks[self.track])
        items = m.s.tracks[self.track]
        i = on_track(items, self.a(m, f.env), self.track)
        j = on_track(items, self.b(m, f.env), self.track)
        items[i], items[j] = items[j], items[i]
        tell.track(m, f.env, self.track, before)


class TrackPlace(Op):
    """Put an item at a 1-based position, shifting the others."""

    __slots__ = ("item", "pos", "track")

    def __init__(self, item, pos, track):
        self.item, self.pos, self.track = build(item), build(pos), track

    def run(self, m, f):
        before = list(m.s.tracks[self.track])
        items = m.s.tracks[self.track]
        item = self.item(m, f.env)
        i = on_track(items, item, self.track)
        pos = max(1, min(len(items), self.pos(m, f.env)))  # a place among the others and it
        items.pop(i)
        items.insert(pos - 1, item)
        tell.track(m, f.env, self.track, before)


class Duration:
    """How long a lasting effect or reaction lasts: a declared duration's name (ended by
    `expire`), or a count of announcements (["NAME", n], counted down as they are made)."""

    __slots__ = ("name", "count")

    def __init__(self, spec):
        if isinstance(spec, str):
            self.name, self.count = spec, None
        else:  # ("count", announcement, n)
            self.name, self.count = spec[1], build(spec[2])

    def value(self, m, env):
        if self.count is None:
            return self.name
        n = self.count(m, env)
        if n.__class__ is not int or n < 1:
            raise RuleError(f"a lasting effect must last at least 1 {self.name}, not {n!r}")
        return [self.name, n]


class Effect(Op):
    __slots__ = ("who", "name", "value", "duration")

    def __init__(self, who, name, value, duration):
        self.who, self.name, self.duration = build(who), name, Duration(duration)
        self.value = build(value) if value is not None else None

    def run(self, m, f):
        value = self.value(m, f.env) if self.value is not None else 1
        if value.__class__ is list:  # it stays in the state: it costs its size
            m.charge(list_size(value))
        who = player_of(m, self.who(m, f.env), "a lasting effect is a player's")
        duration = self.duration.value(m, f.env)
        m.s.effects.append([self.name, who, value, duration])
        tell.effect(m, f.env, who, self.name, value, duration)


class Expire(Op):
    __slots__ = ("duration",)

    def __init__(self, duration):
        self.duration = duration

    def run(self, m, f):
        s = m.s
        for e in s.effects:
            if e[3] == self.duration:
                tell.ended(m, f.env, e[1], e[0])
        s.effects = [e for e in s.effects if e[3] != self.duration]
        if s.reactions:
            s.reactions = [r for r in s.reactions if r[4] != self.duration]
        s.revealed.clear()


class Cancel(Op):
    """End the latest lasting effect of one name on one player, whatever its duration."""

    __slots__ = ("name", "who")

    def __init__(self, name, who):
        self.name, self.who = name, build(who)

    def run(self, m, f):
        who = self.who(m, f.env)
        effects = m.s.effects
        for i in range(len(effects) - 1, -1, -1):
            if effects[i][0] == self.name and effects[i][1] == who:
                del effects[i]
                tell.cancelled(m, f.env, who, self.name)
                return


class Announce(Op):
    """Announce what happens; the reactions to it then run, one after another."""

    __slots__ = ("name", "args")

    def __init__(self, name, args):
        self.name = name
        self.args = [(param, build(e)) for param, e in args]

    def run(self, m, f):
        values = {param: e(m, f.env) for param, e in self.args}
        m.announce(self.name, values, f)


class Whenever(Op):
    """Start a lasting reaction: it keeps a copy of the variables where it starts."""

    __slots__ = ("name", "block", "names", "duration", "uses")

    def __init__(self, name, block, names, duration, uses):
        self.name, self.block, self.names = name, block, list(names)
        self.duration = Duration(duration)
        self.uses = build(uses) if uses is not None else None

    def run(self, m, f):
        s = m.s
        uses = self.uses(m, f.env) if self.uses is not None else None
        if uses is not None and (uses.__class__ is not int or uses < 1):
            raise RuleError(f"a reaction must be usable at least once, not {uses!r} times")
        env = {k: v for k, v in f.env.items() if k != REACT}
        m.charge(len(env))
        s.serial += 1
        s.reactions.append([s.serial, self.name, self.block, copy_value(env),
                            self.duration.value(m, f.env), uses, self.names])


class React(Op):
    """The dispatch block's one instruction: run the reaction the loop is at."""

    __slots__ = ()

    def run(self, m, f):
        block, env = f.env[REACT]
        m.push(block, copy_value(env), call=True)


class Guard(Op):
    """First instruction of a reaction: its condition, and (for a reaction that is used
    up) one use spent; a reaction used up or ended before its turn does nothing."""

    __slots__ = ("cond", "spends")

    def __init__(self, cond, spends):
        self.cond = build(cond) if cond is not None else None
        self.spends = spends

    def run(self, m, f):
        if self.cond is not None and not self.cond(m, f.env):
            m.stop()
            return
        if not self.spends:
            return
        reactions = m.s.reactions
        rid = f.env.get(REACTION_ID)
        for i, r in enumerate(reactions):
            if r[0] == rid:
                r[5] -= 1
                if r[5] <= 0:
                    del reactions[i]
                return
        m.stop()


class Event(Op):
    __slots__ = ("card", "who")

    def __init__(self, card, who):
        self.card, self.who = build(card), build(who)

    def run(self, m, f):
        card, who = self.card(m, f.env), self.who(m, f.env)
        block = m.p.events.get(card)
        if block is None:
            m.say(f"  ({m.card_name(card)} has no event written yet)")
            return
        env = {"player": who, "opponent": m.opponents[who], "card": card, CAUSE: card}
        m.push(block, env, call=True)


class Flip(Op):
    __slots__ = ("card", "face")

    def __init__(self, card, face):
        self.card, self.face = build(card), face

    def run(self, m, f):
        m.s.faces[str(card_of(m, self.card(m, f.env), "only a card is flipped"))] = self.face


class Reveal(Op):
    __slots__ = ("zone", "who")

    def __init__(self, zone, who):
        self.zone, self.who = build(zone), build(who)

    def run(self, m, f):
        zone = self.zone(m, f.env)
        if zone.__class__ is not str or zone not in m.s.zones:
            raise RuleError(f"only a zone is revealed, and {zone!r:.80} is none")
        who = player_of(m, self.who(m, f.env), "a zone is revealed to a player")
        seen = m.s.revealed.setdefault(zone, [])
        if who not in seen:
            seen.append(who)


class Show(Op):
    """`show CARDS to P`: P learns those cards as they are now, and where each is. The
    record is not live: a card that moves later is not followed (see GameState.shown)."""

    __slots__ = ("cards", "who")

    def __init__(self, cards, who):
        self.cards, self.who = build(cards), build(who)

    def run(self, m, f):
        value = self.cards(m, f.env)
        who = player_of(m, self.who(m, f.env), "cards are shown to a player")
        zones = m.s.zones
        if value.__class__ is str:  # a zone: the cards in it now
            if value not in zones:
                raise RuleError(f"only cards or a zone of cards are shown, and {value!r:.80} "
                                "is neither")
            places = {card: value for card in zones[value]}
        else:
            cards = value if value.__class__ is list else [not_text(value, "what is shown")]
            for c in cards:
                card_of(m, c, "only cards are shown")
            places = where_cards(zones, cards)
        m.charge(len(places))
        if places:
            seen = m.s.shown.setdefault(who, {})
            for card, zone in places.items():
                seen[str(card)] = zone


def where_cards(zones: dict[str, list[int]], cards: list[int]) -> dict[int, str | None]:
    """The zone key each of `cards` is in (every card is in one zone: the invariants)."""
    places: dict[int, str | None] = dict.fromkeys(cards)
    wanted = set(cards)
    for key, held in zones.items():
        for card in wanted.intersection(held):
            places[card] = key
    return places


class Tell(Op):
    """`tell P "..."`: a line of narration for one player only."""

    __slots__ = ("who", "e")

    def __init__(self, who, e):
        self.who, self.e = build(who), build(e)

    def run(self, m, f):
        who = player_of(m, self.who(m, f.env), "a line is told to a player")
        text = self.e(m, f.env)
        m.tell(who, m.show(text))


class Prevent(Op):
    __slots__ = ("cards",)

    def __init__(self, cards):
        self.cards = build(cards)

    def run(self, m, f):
        cards = self.cards(m, f.env)
        cards = cards if isinstance(cards, list) else [not_text(cards, "what is prevented")]
        for c in cards:
            card_of(m, c, "only cards are prevented")
        for c in cards:
            if c not in m.s.prevented:
                m.s.prevented.append(c)


class If(Op):
    __slots__ = ("branches", "otherwise")

    def __init__(self, branches, otherwise):
        self.branches = [(build(c), b) for c, b in branches]
        self.otherwise = otherwise

    def run(self, m, f):
        for cond, block in self.branches:
            if cond(m, f.env):
                m.push(block, f.env)
                return
        if self.otherwise is not None:
            m.push(self.otherwise, f.env)


class For(Op):
    __slots__ = ("var", "items", "block")

    def __init__(self, var, items, block):
        self.var, self.items, self.block = var, build_items(items, "what `for` runs over"), block

    def run(self, m, f):
        items = self.items(m, f.env)
        if not items:
            return
        m.work += len(items)
        fr = m.push(self.block, f.env)
        fr.var, fr.items = self.var, list(items)
        f.env[self.var] = fr.items[0]


class Repeat(Op):
    __slots__ = ("n", "block")

    def __init__(self, n, block):
        self.n, self.block = build(n), block

    def run(self, m, f):
        n = self.n(m, f.env)
        if n > 0:
            m.push(self.block, f.env).bound = n


class While(Op):
    __slots__ = ("cond", "bound", "block")

    def __init__(self, cond, bound, block):
        self.cond, self.bound, self.block = build(cond), bound, block

    def run(self, m, f):
        if self.cond(m, f.env):
            fr = m.push(self.block, f.env)
            fr.cond = [f.block, f.pc - 1]
            fr.bound = self.bound


class Choose(Op):
    """`P chooses x from LIST`: one option per element (one element: taken at once).

    Its labels are made when they are asked for (`labels`), unless working them out
    could draw chance: then they are made as the options are offered, as written."""

    __slots__ = ("who", "var", "items", "label", "lazy", "question", "single")

    def __init__(self, who, var, items, label, question=None, always=False):
        self.who, self.var = build(who), var
        # how many items are taken without asking: one, unless `always` asks even then
        self.single = 0 if always else 1
        self.items = build_items(items, CHOSEN_FROM)
        self.label = build(label) if label is not None else None
        self.lazy = all(pure(e) for e in (who, items, label) if e is not None)
        # the prompt: `asking "..."`, worked out as the decision starts; else the name
        self.question = build(question) if question is not None else None

    def run(self, m, f):
        items = self.items(m, f.env)
        if not items:
            f.env[self.var] = None
            return
        if len(items) == self.single:
            f.env[self.var] = items[0]
            return
        env = f.env
        var = self.var
        prompt = self.question(m, env) if self.question is not None else None
        payloads = [["bind", var, item] for item in items]
        if self.lazy:
            env[var] = items[-1]  # where offering them one by one leaves it
            who = self.who(m, env)
            m.decide(who, prompt or tell.default_question(m, who, items), payloads)
            return
        labels = []
        for item in items:
            env[var] = item
            labels.append(self.label(m, env) if self.label else m.show(item))
        who = self.who(m, env)
        m.decide(who, prompt or tell.default_question(m, who, items), payloads, labels)

    def labels(self, m, env: dict, payloads: list) -> list[str]:
        """Each offered item's label, in the paused decision's environment (left as it
        was)."""
        if self.label is None:
            return [m.show(item) for _, _, item in payloads]
        return _each(m, env, [(self.label, var, item) for _, var, item in payloads])


class Menu(Op):
    """`P chooses:` with one block per option; options may repeat over a list.

    Its labels are made when they are asked for (`labels`), from each payload's option
    and item, unless that could give other labels than offering them did (something
    in the menu draws chance, or a label reads a later option's variable)."""

    __slots__ = ("who", "offers", "status", "notes", "lazy", "texts", "question", "single")

    def __init__(self, who, options, remarks=None, question=None, always=False):
        self.who = build(who)
        # how many offers are taken without asking: one, unless `always` asks even then
        self.single = 0 if always else 1
        # the prompt: `asking "..."`, worked out before any option is offered
        self.question = build(question) if question is not None else None
        status, notes = remarks if remarks is not None else (None, [None] * len(options))
        self.status = build(status) if status is not None else None
        # Remarks are worked out only when asked for (remarks()), so play pays nothing.
        self.notes = {opt[4]: build(note) for opt, note in zip(options, notes, strict=True)
                      if note is not None}
        self.lazy = _lazy_menu(who, options)
        # Each option (label, var, items, cond, block) appends what it offers.
        self.offers = [build_offer(option, not self.lazy) for option in options]
        self.texts = {opt[4]: build(opt[0]) for opt in options} if self.lazy else None

    def run(self, m, f):
        env = f.env
        prompt = self.question(m, env) if self.question is not None else None
        offered = []
        for offer in self.offers:
            offer(m, env, offered)
        if not offered:
            return
        if self.lazy:
            if len(offered) == self.single:
                m.apply_payload(offered[0])
                return
            who = self.who(m, env)
            m.decide(who, prompt or tell.menu_question(m, who), offered)
            return
        if len(offered) == self.single:
            m.apply_payload(offered[0][1])
            return
        who = self.who(m, env)
        m.decide(who, prompt or tell.menu_question(m, who), [p for _, p in offered],
                 [label for label, _ in offered])

    def labels(self, m, env: dict, payloads: list) -> list[str]:
        """Each offered option's label, in the paused menu's environment (left exactly
        as it was)."""
        texts = self.texts
        return _each(m, env, [(texts[block], var, item) for _, block, var, item in payloads])

    def remarks(self, m, env: dict, payloads: list) -> tuple:
        """The status and each offered option's note, in the paused menu's environment
        (left exactly as it was). A remark that works out to no text is none, so rules
        may note something only when there is something to say."""
        status = self.status(m, env) if self.status is not None else None
        notes = self.notes
        return status or None, [note or None for note in _each(
            m, env, [(notes.get(block), var, item) for _, block, var, item in payloads])]


def _each(m, env: dict, jobs: list) -> list:
    """Each job's value: (function or None, variable or None, value), the function called
    with the variable bound to the value; the variable is then put back as it was, even
    when the function fails."""
    out = []
    for fn, var, value in jobs:
        if fn is None:
            out.append(None)
        elif var is None:
            out.append(fn(m, env))
        else:
            old = env.get(var, _ABSENT)
            env[var] = value
            try:
                out.append(fn(m, env))
            finally:
                if old is _ABSENT:
                    del env[var]
                else:
                    env[var] = old
    return out


_ABSENT = object()


def _lazy_menu(who, options) -> bool:
    """Labels made later are the labels offered: nothing in the menu draws chance or
    changes the state, each option has a block of its own (a payload names its option
    by it), and no label reads the variable of a later option (offering, that had the
    value it had before the menu; later, the last item of that option)."""
    exprs = [who, *(e for opt in options for e in (opt[0], opt[2], opt[3]) if e is not None)]
    if not all(pure(e) for e in exprs):
        return False
    blocks = [opt[4] for opt in options]
    if len(set(blocks)) != len(blocks):
        return False
    bound: set = set()
    for k, opt in enumerate(options):
        if opt[1] is not None:
            bound.add(opt[1])
        later = {o[1] for o in options[k + 1:] if o[1] is not None} - bound
        if later & variables_read(opt[0]):
            return False
    return True


class Deferred(Op):
    """An instruction that blocks.py writes inline wherever it cannot pause: its op, and
    the functions of its expressions, are built only when something runs it as an op
    (an `if` holding a decision, say), so loading a program compiles none of them."""

    __slots__ = ("ins", "unit", "op")

    def __init__(self, ins: tuple, unit) -> None:
        self.ins, self.unit, self.op = ins, unit, None

    def built(self) -> Op:
        if self.op is None:
            with self.unit.lock, active(self.unit):
                if self.op is None:
                    self.op = _OPS[self.ins[0]](*self.ins[1:])
        return self.op

    def run(self, m, f):
        self.built().run(m, f)


def built(ops: list, block: int, pc: int):
    """The op of an instruction, a Deferred one built (and kept in its place)."""
    op = ops[block][pc]
    if op.__class__ is Deferred:
        op = ops[block][pc] = op.built()
    return op


# Instructions written inline by blocks.py wherever they cannot pause (see Deferred).
INLINE = frozenset({"let", "set", "say", "stop", "if", "for", "repeat", "while", "call"})

_OPS = {
    "let": Let, "set": SetGlobal, "call": Call, "stop": Stop, "say": Say,
    "record": Record, "finish": Finish, "eliminate": Eliminate, "gain": Gain, "lose": Lose,
    "pay": Pay,
    "place": Place, "remove": Remove, "bag_put": BagPut, "bag_empty": BagEmpty,
    "move_token": MoveToken, "transfer": Transfer, "deal": Deal, "shuffle": Shuffle,
    "track_move": TrackMove, "track_swap": TrackSwap, "track_place": TrackPlace,
    "effect": Effect, "expire": Expire, "event": Event, "flip": Flip, "reveal": Reveal,
    "show": Show, "tell": Tell, "prevent": Prevent, "cancel": Cancel, "announce": Announce,
    "whenever": Whenever,
    "react": React, "guard": Guard, "if": If, "for": For, "repeat": Repeat, "while": While,
    "choose": Choose, "menu": Menu,
}

def make_op(ins: tuple, deferred: bool = False) -> Op:
    """The op of an instruction; `deferred`, one that blocks.py writes inline is built
    only when first run as an op."""
    cls = _OPS.get(ins[0])
    if cls is None:
        raise RuleError(f"unknown instruction {ins[0]!r}")
    if deferred and ins[0] in INLINE:
        return Deferred(ins, current_unit())
    return cls(*ins[1:])
