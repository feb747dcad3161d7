"""What holds in every state a pack's rules can reach, whatever the pack.

One definition serves three users: `Game.load` refuses a save that breaks any of
these, `hustings soak` checks them after every action of random games, and the
engine's property tests check them too. Everything is derived from the Program:
the players, places, zones, cards, counters and pools it declares, and the
instructions of its blocks (a paused frame must sit just after the instruction
that pushed the frame above it; a pending decision must be the one its
instruction offers when run again).

`violations(program, state)` yields a message per problem; `first_violation`
returns the first one (or None). They expect a state of the right shape (the
save schema guarantees it for loaded saves).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from .machine import counter_limits
from .program import Program
from .state import Frame, GameState, copy_value
from .teams import winners

PUSHERS = ("call", "event", "if", "for", "repeat", "while", "menu", "announce", "react")
DECISIONS = ("choose", "menu")


def first_violation(program: Program, state: GameState, ops: list | None = None) -> str | None:
    for problem in violations(program, state, ops):
        return problem
    return None


def violations(program: Program, state: GameState, ops: list | None = None) -> Iterator[str]:
    """The broken invariants of `state`. With `ops` (the built instructions), the
    pending decision is also re-derived by running its instruction on a copy.

    The checks run in order, each relying on those before it (the pieces are counted
    only in tables that exist, the decision is run again only in a sound frame), so
    the problems yielded are those of the first group that finds any."""
    checks = (tables, counters, pools, pieces, cards, tracks, marks, out, control)
    for check in checks:
        found = False
        for problem in check(program, state):
            found = True
            yield problem
        if found:
            return
    if ops is not None and state.pending is not None and state.stack:
        problem = rederive_pending(program, state, ops)
        if problem:
            yield problem


# ---- the tables the pack declares -------------------------------------------


def zone_keys(program: Program) -> frozenset[str]:
    """Every zone of the state ("hand:P" for each player P of a per-player zone)."""
    return program.once("zone keys", _zone_keys)


def _zone_keys(program: Program) -> frozenset[str]:
    keys = []
    for name, spec in program.zones.items():
        keys += [f"{name}:{p}" for p in program.players] if spec.per_player else [name]
    return frozenset(keys)


def _same_keys(what: str, got: dict, expected: Any) -> str | None:
    if len(got) == len(expected) and all(k in got for k in expected):
        return None
    missing = [k for k in expected if k not in got]
    extra = [k for k in got if k not in expected]
    if missing:
        return f"{what}: {missing[0]!r} is missing"
    if extra:
        return f"{what}: {extra[0]!r} is not declared by the pack"
    return None


def tables(program: Program, s: GameState) -> Iterator[str]:
    players = program.players
    for what, got, expected in (
        ("vars", s.vars, program.variables),
        ("counters", s.counters, program.counters),
        ("pools", s.pools, program.pools),
        ("zones", s.zones, zone_keys(program)),
        ("tracks", s.tracks, program.tracks),
        ("bag", s.bag, players),
        ("tokens", s.tokens, program.initial["tokens"]),
    ):
        problem = _same_keys(what, got, expected)
        if problem:
            yield problem
            return
    for who, where in s.tokens.items():
        if where not in program.locations:
            yield f"tokens: {who} stands on {where!r}, which is no place of the board"


def counters(program: Program, s: GameState) -> Iterator[str]:
    lows, highs = counter_limits(program)
    for name, table in s.counters.items():
        problem = _same_keys(f"counters.{name}", table, program.players)
        if problem:
            yield problem
            continue
        if name in program.shared_tracks and len(set(table.values())) > 1:
            yield f"counters.{name} is one shared marker, but its players read {table}"
        if name in program.team_counters:
            yield from _team_values(program, name, table)
        low, high = lows.get(name), highs.get(name)
        for who, n in table.items():
            if low is not None and n < low:
                yield f"counters.{name}.{who} is {n}; this counter never goes below {low}"
            elif high is not None and n > high:
                yield f"counters.{name}.{who} is {n}; this counter never goes above {high}"
    for who, n in s.bag.items():
        if n < 0:
            yield f"bag.{who} is {n}; the bag never holds fewer than 0"


def _team_values(program: Program, name: str, table: dict) -> Iterator[str]:
    """A per-team counter holds one value per team: every member's entry the same."""
    for team, members in program.teams.items():
        values = {who: table[who] for who in members}
        if len(set(values.values())) > 1:
            yield f"counters.{name} is one value per team, but team {team} reads {values}"


def pools(program: Program, s: GameState) -> Iterator[str]:
    """Each entry has its pool's shape ([owner, count] or {player: count}), stands on a
    place of the pool's kind, and holds at least one piece of each player named."""
    players = set(program.players)
    for name, held in s.pools.items():
        spec = program.pools[name]
        places = set(program.kinds.get(spec.kind, ()))
        for where, entry in held.items():
            if where not in places:
                yield f"pools.{name}: {where!r} is not a place of kind {spec.kind}"
            elif (entry.__class__ is dict) != spec.stacking:
                form = "{player: count}" if spec.stacking else "[owner, count]"
                yield f"pools.{name}.{where}: this pool holds {form}, not {entry!r}"
            elif spec.stacking and not entry:
                yield f"pools.{name}.{where}: an empty entry (a place without pieces is left out)"
            else:
                pairs = entry.items() if spec.stacking else (entry,)
                yield from _holding(name, where, pairs, players)


def _holding(name: str, where: str, pairs: Iterable, players: set[str]) -> Iterator[str]:
    for owner, count in pairs:
        if owner not in players:
            yield f"pools.{name}.{where}: owner {owner!r} is not a player"
        elif count < 1:
            yield f"pools.{name}.{where}: {count} pieces of {owner} (an entry holds at least 1)"


# ---- pieces -------------------------------------------------------------------


def piece_counters(program: Program) -> list[str] | None:
    """The counters that hold a player's pieces, or None if the pack does not conserve them.

    The machine conserves pieces among a pool's `pieces` counter, the bag and the
    board (`place`, `remove`, bag draws and puts move them one for one). The rules
    may move pieces to another counter only by a `lose` immediately followed by a
    `gain` of the same amount for the same player: those counters join the set.
    Any other gain, loss or payment of such a counter creates or destroys pieces,
    and then no conservation law holds for the pack.
    """
    roots = {spec.pieces for spec in program.pools.values() if spec.pieces}
    if program.initial.get("bag_pieces"):
        roots.add(program.initial["bag_pieces"])
    if not roots:
        return None
    links: list[tuple[str, str]] = []
    changes: list[tuple[str, bool]] = []  # (counter, paired)
    for block in program.blocks:
        for i, ins in enumerate(block):
            if ins[0] not in ("gain", "lose", "pay"):
                continue
            nxt = block[i + 1] if i + 1 < len(block) else None
            prev = block[i - 1] if i > 0 else None
            if ins[0] == "lose" and nxt and nxt[0] == "gain" and nxt[1:3] == ins[1:3]:
                links.append((ins[3], nxt[3]))
                changes.append((ins[3], True))
            elif ins[0] == "gain" and prev and prev[0] == "lose" and prev[1:3] == ins[1:3]:
                changes.append((ins[3], True))
            else:
                changes.append((ins[3], False))
    holders = set(roots)
    grown = True
    while grown:
        grown = False
        for a, b in links:
            if (a in holders) != (b in holders):
                holders |= {a, b}
                grown = True
    if any(c in holders and not paired for c, paired in changes):
        return None
    return sorted(holders)


def piece_totals(program: Program, s: GameState, holders: list[str]) -> dict[str, int]:
    totals = {p: s.bag.get(p, 0) for p in program.players}
    for name in holders:
        for p in program.players:
            totals[p] += s.counters[name][p]
    for name, spec in program.pools.items():
        if spec.pieces:
            for entry in s.pools[name].values():
                for owner, count in entry.items() if spec.stacking else (entry,):
                    totals[owner] += count
    return totals


def initial_piece_totals(program: Program, holders: list[str]) -> dict[str, int]:
    init = program.initial
    start = GameState()
    start.counters, start.pools, start.bag = init["counters"], init["pools"], init["bag"]
    return piece_totals(program, start, holders)


def piece_law(program: Program) -> tuple[list[str] | None, dict[str, int]]:
    """The pack's piece counters and each player's total, computed once per program."""
    return program.once("piece law", _piece_law)


def _piece_law(program: Program) -> tuple[list[str] | None, dict[str, int]]:
    holders = piece_counters(program)
    return holders, initial_piece_totals(program, holders) if holders else {}


def pieces(program: Program, s: GameState) -> Iterator[str]:
    holders, expected = piece_law(program)
    if holders is None:
        return
    got = piece_totals(program, s, holders)
    for p in program.players:
        if got[p] != expected[p]:
            where = " + ".join([*holders, "bag", "board"])
            yield f"pieces of {p} are not conserved: {where} hold {got[p]}, not {expected[p]}"


# ---- cards, tracks and marks ---------------------------------------------------


def cards(program: Program, s: GameState) -> Iterator[str]:
    zoned = [card for held in s.zones.values() for card in held]
    if len(zoned) == len(program.cards) and set(zoned) == program.cards.keys():
        return
    seen: Counter = Counter()
    where: dict[int, str] = {}
    for zone, held in s.zones.items():
        for card in held:
            if card.__class__ is not int:  # the rules only ever move cards; a save may not
                yield f"{card!r:.80} in {zone} is not a card of the pack"
                return
            seen[card] += 1
            if card in where and where[card] != zone:
                yield f"card {card} is in two zones: {where[card]} and {zone}"
                return
            where[card] = zone
    for card, n in seen.items():
        if n > 1:
            yield f"card {card} is {n} times in {where[card]}"
            return
        if card not in program.cards:
            yield f"card {card} in {where[card]} is not a card of the pack"
            return
    for card in program.cards:
        if card not in where:
            yield f"card {card} is in no zone"
            return


def tracks(program: Program, s: GameState) -> Iterator[str]:
    for name, items in s.tracks.items():
        texts = all(i.__class__ is str for i in items)  # else they would not even sort
        if not texts or sorted(items) != sorted(program.tracks[name]):
            yield f"tracks.{name} is {items}, not an order of {program.tracks[name]}"


def marks(program: Program, s: GameState) -> Iterator[str]:
    players = set(program.players)
    keys = zone_keys(program)
    for card in s.prevented:
        if card not in program.cards:
            yield f"prevented: {card} is not a card of the pack"
    numbers = {str(card) for card in program.cards}
    for card in s.faces:
        if card not in numbers:
            yield f"faces: {card!r} is not a card of the pack"
    for zone, seen in s.revealed.items():
        if zone not in keys:
            yield f"revealed: {zone!r} is not a zone"
        for who in seen:
            if who not in players:
                yield f"revealed.{zone}: {who!r} is not a player"
    yield from private(program, s, players, keys)
    for name, who, _, duration in s.effects:
        if name not in program.effects:
            yield f"effects: {name!r} is not an effect the pack declares"
        elif who.__class__ is not str or who not in players:  # a save may hold any value
            yield f"effects: {name} is held by {who!r}, who is not a player"
        else:
            problem = _duration(program, duration)
            if problem:
                yield f"effects: {name} of {who} {problem}"
    yield from reactions(program, s)
    for colour in s.forced_cubes:
        if colour not in players:
            yield f"forced_cubes: {colour!r} is not a player's colour"
    for card in s.forced_cards:
        if card not in program.cards:
            yield f"forced_cards: {card} is not a card of the pack"


def private(program: Program, s: GameState, players: set[str],
            keys: frozenset[str]) -> Iterator[str]:
    """What players were shown and told names players, cards and zones that exist, and
    each told line stands within the public log, in order."""
    numbers = {str(card) for card in program.cards}
    for who, cards in s.shown.items():
        if who not in players:
            yield f"shown: {who!r} is not a player"
        for card, zone in cards.items():
            if card not in numbers:
                yield f"shown.{who}: {card!r} is not a card of the pack"
            elif zone is not None and zone not in keys:
                yield f"shown.{who}.{card}: {zone!r} is not a zone"
    at = 0
    for i, (position, who, _) in enumerate(s.told):
        if who not in players:
            yield f"told[{i}]: {who!r} is not a player"
        if not at <= position <= len(s.log):
            yield (f"told[{i}] stands at line {position} of the log, not between {at} and "
                   f"{len(s.log)}")
        at = max(at, position)


def _duration(program: Program, duration: Any) -> str | None:
    if isinstance(duration, str):
        if duration in program.durations:
            return None
        return f"lasts until the end of {duration!r}, which is no duration of the pack"
    name, n = duration
    if name not in program.announcements:
        return f"counts {name!r}, which the pack does not announce"
    return None if n >= 1 else f"has {n} announcements left (at least 1 while it lasts)"


def reactions(program: Program, s: GameState) -> Iterator[str]:
    seen = set()
    blocks = set(program.reaction_blocks)
    for rid, said, block, _, duration, uses, names in s.reactions:
        at = f"reactions[{rid}]"
        if rid in seen or not 1 <= rid <= s.serial:
            yield f"{at}: the id is repeated or was never given out"
        elif said not in program.announcements:
            yield f"{at}: {said!r} is not an announcement of the pack"
        elif block not in blocks:
            yield f"{at}: block {block} is no reaction's"
        elif len(names) != len(program.announcements[said]):
            yield f"{at}: {len(names)} names for the {said} announcement's values"
        elif uses is not None and uses < 1:
            yield f"{at}: {uses} uses left (at least 1 while it lasts)"
        else:
            problem = _duration(program, duration)
            if problem:
                yield f"{at} {problem}"
        seen.add(rid)
    for roll in s.forced_rolls:
        if roll < 1:
            yield f"forced_rolls: {roll} is no side of a die"


# ---- who is out ------------------------------------------------------------------


def out(program: Program, s: GameState) -> Iterator[str]:
    """The players out of the game (`eliminate P`): seated players, each once, in seat
    order (as the rules keep them); none of them is asked a decision."""
    gone = s.out
    if gone.__class__ is not list:
        yield f"out: {gone!r:.80} is not a list of players"
        return
    strangers = [p for p in gone if p not in program.players]
    if strangers:
        yield f"out: {strangers[0]!r:.80} is not a player seated in this game"
        return
    if gone != sorted(set(gone), key=program.players.index):
        yield f"out: {gone} is not in seat order, or names a player twice"
        return
    if s.pending is not None and s.pending.get("player") in gone:
        yield f"pending: {s.pending['player']} is out of the game and decides nothing"


def team_result(program: Program, result: Any) -> Iterator[str]:
    """In a pack with teams, a finished game's `team` and `winners` are those of its
    `winner` (interpreter/teams.py): every tool counts the winners from them."""
    if not program.teams or not isinstance(result, dict):
        return
    said = {k: result[k] for k in ("team", "winners") if k in result}
    if said != winners(program, result):
        yield (f"result: winner {str(result.get('winner'))[:80]!r} has the team entries "
               f"{winners(program, result)}, not {str(said)[:120]}")


# ---- where the program is paused -------------------------------------------------


def control(program: Program, s: GameState) -> Iterator[str]:
    pending = s.pending
    if not s.stack:
        if pending is not None:
            yield "a decision is pending but the rules have ended (the stack is empty)"
        yield from team_result(program, s.result)
        return
    if s.result is not None:
        yield "result is set while the game is still going"
        return
    if pending is None:
        yield "the rules are paused without a pending decision"
        return
    if pending["player"] not in program.players:
        yield f"pending: {pending['player']!r} is not a player"
        return
    options, payloads = pending["options"], pending["payloads"]  # options: None until asked
    labels = len(payloads) if options is None else len(options)
    if labels < fewest_options(program, s) or labels != len(payloads):
        yield f"pending: {labels} options and {len(payloads)} payloads"
        return
    yield from frames(program, s)


def fewest_options(program: Program, s: GameState) -> int:
    """How few options the paused decision may offer: two, for one option is taken without
    asking, unless it is written `always` (asked even then). The instruction is read
    defensively: where the stack points is checked after this (frames)."""
    top = s.stack[-1]
    block = program.blocks[top.block] if 0 <= top.block < len(program.blocks) else []
    ins = block[top.pc - 1] if 1 <= top.pc <= len(block) else ("none",)
    flag = {"menu": 5, "choose": 6}.get(ins[0])  # where the compiler puts `always`
    return 1 if flag is not None and len(ins) > flag and ins[flag] is True else 2


def frames(program: Program, s: GameState) -> Iterator[str]:
    blocks = program.blocks
    entry = program.procedures[program.entry].block
    envs_below: set[int] = set()
    below = None
    for depth, f in enumerate(s.stack):
        at = f"stack[{depth}]"
        if not 0 <= f.block < len(blocks):
            yield f"{at}: block {f.block} does not exist"
            return
        if not 0 <= f.pc <= len(blocks[f.block]):
            yield f"{at}: position {f.pc} is outside its block (0..{len(blocks[f.block])})"
            return
        if below is None:
            if f.block != entry or not f.call:
                yield f"{at}: the first frame is not the call of the entry procedure"
                return
        else:
            problem = pushed_by(program, below, f)
            if problem:
                yield f"{at}: {problem}"
                return
            if f.call and id(f.env) in envs_below:
                yield f"{at}: a procedure call shares the variables of a caller"
                return
            if not f.call and f.env is not below.env:
                yield f"{at}: a block inside a procedure has variables of its own"
                return
        problem = loop_state(f)
        if problem:
            yield f"{at}: {problem}"
            return
        envs_below.add(id(f.env))
        below = f
    top = s.stack[-1]
    ins = blocks[top.block][top.pc - 1] if top.pc >= 1 else None
    if ins is None or ins[0] not in DECISIONS:
        yield "the pending decision does not follow a decision instruction"


def pushed_by(program: Program, below, f) -> str | None:
    """Why the instruction before `below.pc` could not have pushed frame `f` (or None)."""
    if below.pc < 1:
        return "its caller has not started"
    ins = program.blocks[below.block][below.pc - 1]
    op = ins[0]
    if op not in PUSHERS:
        return f"block {f.block} follows a {op!r} instruction, which starts no block"
    if op in ("call", "event"):
        targets = ([program.procedures[ins[1]].block] if op == "call"
                   else list(program.events.values()))
        ok = f.call and f.block in targets
    elif op == "announce":
        ok = (not f.call and f.block == program.dispatch_block and f.items is not None
              and f.var == "@react")
    elif op == "react":
        ok = f.call and f.block in program.reaction_blocks
    elif op == "if":
        targets = [b for _, b in ins[1]] + ([ins[2]] if ins[2] is not None else [])
        ok = not f.call and f.block in targets and f.items is None and f.cond is None
    elif op == "menu":
        ok = not f.call and f.block in [o[4] for o in ins[2]] and f.items is None
    elif op == "for":
        ok = f.block == ins[3] and f.items is not None and f.var == ins[1]
    elif op == "repeat":
        ok = f.block == ins[2] and f.items is None and f.cond is None and f.bound > 0
    else:  # while
        ok = (f.block == ins[3] and f.cond == [below.block, below.pc - 1]
              and f.bound == ins[2])
    if ok and op in ("for", "repeat", "while") and f.call:
        ok = False
    return None if ok else f"block {f.block} is not what the {op!r} before it starts"


def loop_state(f) -> str | None:
    if f.items is not None:
        if not isinstance(f.var, str) or not 0 <= f.index < len(f.items):
            return f"loop index {f.index} outside its {len(f.items)} items"
    elif f.cond is not None or f.bound:
        if not 0 <= f.index < max(f.bound, 1):
            return f"loop count {f.index} outside its bound {f.bound}"
    elif f.index != 0 or f.var is not None:
        return "loop fields on a frame that is no loop"
    return None


def rederive_pending(program: Program, s: GameState, ops: list) -> str | None:
    """Run the decision instruction again on a copy positioned just before it; the
    decision it offers, and the variables it leaves, must be the saved ones.

    Decision instructions only read the state and write their frame's variables and
    `pending`, so the copy shares the state's tables and has its own top frame.
    """
    from .machine import Machine

    saved = s.stack[-1]
    top = Frame(saved.block, copy_value(saved.env), saved.call)
    top.pc, top.var, top.items = saved.pc, saved.var, saved.items
    top.index, top.cond, top.bound = saved.index, saved.cond, saved.bound
    trial = copy.copy(s)
    trial.pending = None
    trial.stack = [*s.stack[:-1], top]
    op = ops[top.block][top.pc - 1]
    try:
        op.run(Machine(program, trial, ops), top)
        trial.labels()
        s.labels()
    except Exception as e:  # noqa: BLE001 - any failure means the decision is not real
        return f"the pending decision cannot be offered here ({type(e).__name__}: {e})"
    if trial.pending != s.pending:
        return "the pending decision is not the one the rules offer at this point"
    if top.env != saved.env:
        return "the variables around the pending decision are not the ones it leaves"
    return None
