"""The compiled form of a pack: static tables plus blocks of instructions.

A Program is plain data (tuples, lists, dicts of strings and numbers). The
interpreter turns it into executable operations once, in `machine.load`.
Nothing here names a game: players, places, cards and rules all come in as data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# An instruction is a tuple whose first element is its opcode (see machine.OPS);
# an expression is a tuple whose first element is its kind (see codegen.GENERATORS).
Instruction = tuple
Expression = tuple


@dataclass
class PoolSpec:
    """Locations of one kind holding support: exclusive (one owner at a time, held in the
    state as `[owner, count]`) or stacking (every player's pieces side by side, held as
    `{player: count}` with only players who have pieces there)."""

    kind: str
    pieces: str | None = None  # counter the pieces come from and return to (None: markers)
    stacking: bool = False
    name: str = ""  # what a person reads for the pieces (the pack's word: "state support")


@dataclass
class ZoneSpec:
    per_player: bool = False
    hidden: bool = False  # per-player zones: hidden from the other players
    ordered_secret: bool = False  # shared zones whose order nobody sees (a deck)
    refill_from: str | None = None  # when empty on a deal, shuffle this zone in
    shown_to_team: bool = False  # a hidden per-player zone its owner's teammates see too


@dataclass
class ProcedureSpec:
    block: int
    params: list[str] = field(default_factory=list)
    source: str = ""
    defaults: dict[str, Any] = field(default_factory=dict)


_MADE = "_made"  # the attribute of what Program.once made: not a field, never compared


@dataclass
class Program:
    name: str
    players: list[str]
    counters: list[str]
    variables: dict[str, Any]
    pools: dict[str, PoolSpec]
    locations: dict[str, dict[str, Any]]
    kinds: dict[str, list[str]]
    travel_area: dict[str, str]
    travel_cost: dict[str, dict[str, int]]
    zones: dict[str, ZoneSpec]
    tracks: dict[str, list[str]]
    cards: dict[int, dict[str, Any]]
    events: dict[int, int]
    procedures: dict[str, ProcedureSpec]
    blocks: list[list[Instruction]]
    positions: list[list[str]]
    effects: dict[str, str]
    entry: str
    initial: dict[str, Any]
    options: dict[str, bool] = field(default_factory=dict)
    functions: dict[str, tuple[list[str], Expression]] = field(default_factory=dict)
    view: dict[str, Any] = field(default_factory=dict)  # what a board shows (tools read it)
    # What agents and simulations read (value function, margin, places, card uses).
    agents: dict[str, Any] = field(default_factory=dict)
    # Counter (a numbered track is one too) -> [least, greatest] (None: no bound).
    bounds: dict[str, list] = field(default_factory=dict)
    # Shared tracks: name -> {"max": player, "min": player, "ends_game": bool}
    shared_tracks: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Announcement -> its parameters; the rules' reactions to each, in load order.
    announcements: dict[str, list[str]] = field(default_factory=dict)
    reactions: dict[str, list[int]] = field(default_factory=dict)
    # Every block a reaction runs (the rules' and lasting ones), and the one block that
    # runs the reactions to an announcement one after another.
    reaction_blocks: list[int] = field(default_factory=list)
    dispatch_block: int = -1
    durations: list[str] = field(default_factory=lambda: ["game"])
    version: str = "0"  # the pack's version (pack.yaml), as saves and logs name it
    # What a person reads for an id (players, places, and the pack's `names:`), and the
    # forms of the nouns shown with a count (`nouns:`, {noun: {one: ..., other: ...}}).
    names: dict[str, str] = field(default_factory=dict)
    nouns: dict[str, dict[str, str]] = field(default_factory=dict)
    # The language texts are shown in, and its message catalog (interpreter/catalog.py;
    # None: the pack's own words). See interpreter/translation.py.
    language: str = "en"
    catalog: Any = None
    # The board's map (board.yaml `map:`): the kind of place it joins (None: no map) and
    # each of those places' neighbours, in board order (interpreter/maps.py reads them).
    map_kind: str | None = None
    map_links: dict[str, list[str]] = field(default_factory=dict)
    # How many players this game seats when the pack declares `player_count:` (the
    # `--players N` of the game; saves and logs record it), else None.
    player_count: int | None = None
    # Teams of this game's seated players (pack.yaml `teams:`, for this many players):
    # team -> its members in seat order (interpreter/teams.py), and the counters that hold
    # one value per team (every member's entry holds it).
    teams: dict[str, list[str]] = field(default_factory=dict)
    team_counters: list[str] = field(default_factory=list)

    def once(self, what: str, make: Callable[[Program], Any]) -> Any:
        """`make(self)`, made once and kept on the program itself, so it goes with the
        program. (A table of programs kept elsewhere kept every program alive, since what
        is made, compiled code and segments, refers back to its program: the content
        fuzzer grew by a megabyte a mutant.)"""
        made = self.__dict__.setdefault(_MADE, {})
        if what not in made:
            made[what] = make(self)
        return made[what]

    def __getstate__(self) -> dict[str, Any]:
        """A copy for another process (Ray pickles the program) carries the program, not
        what this process compiled from it."""
        state = dict(self.__dict__)
        state.pop(_MADE, None)
        return state

    def stacking_pools(self) -> frozenset[str]:
        """Pools whose places hold every player's pieces ({player: count}); the others
        are exclusive ([owner, count])."""
        return frozenset(name for name, spec in self.pools.items() if spec.stacking)

    def default_pool(self, kind: str) -> str | None:
        for name, spec in self.pools.items():
            if spec.kind == kind:
                return name
        return None
