"""Pydantic models of the content files: pack manifest, board, cards, rules.

These are shared ground: the loader validates YAML against them, and
`hustings schema` exports them as JSON Schema for editors.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CounterDef(Strict):
    start: int = 0
    signed: bool = Field(False, description="may go below zero (the count is not a limit)")
    min: int | None = Field(
        None, description="the least value (default 0, or none for a signed counter); "
        "a loss stops there",
    )
    max: int | None = Field(None, description="the greatest value; a gain stops there")
    per_team: bool = Field(
        False, description="one value per team (`teams:`), shared by its members: a gain, "
        "loss or payment by either changes it and `NAME of P` reads it; a player in no team "
        "is a team of one",
    )
    doc: str = ""


class SharedEnds(Strict):
    """The two ends of a shared track: whose end each is, and whether reaching one ends
    the game (a tug of war: each side's gains pull the one marker toward its own end)."""

    max: str = Field(description="the player whose gains move the marker up, toward max")
    min: str = Field(description="the player whose gains move the marker down, toward min")
    ends_game: bool = Field(
        False, description="the marker reaching an end finishes the game at once, that "
        "end's player recorded as the result's `winner`",
    )


class NumericTrack(Strict):
    """A track of numbered spaces with a marker per player (e.g. 0 to 5), or one marker
    for the whole table (`shared`)."""

    min: int = Field(0, description="the first space")
    max: int = Field(description="the last space")
    start: int | None = Field(None, description="where every marker starts (default: min)")
    shared: SharedEnds | None = Field(
        None, description="one marker for the whole table, pulled by two players: "
        "`{max: P, min: Q}`; every player reads the same position",
    )
    doc: str = ""


class AnnouncementDef(Strict):
    """Something the rules announce as it happens (`announce NAME(...)`), that content
    reacts to with `whenever NAME`."""

    params: list[str] = Field(default_factory=list, description="what is announced with it")
    doc: str = ""


class TextDef(Strict):
    """A named text the rules say, kept in one place so a mod can reword it."""

    params: list[str] = Field(default_factory=list)
    text: str = Field(description="the text; {expr} parts are filled in when it is said")
    doc: str = ""


class PoolDef(Strict):
    kind: str = Field(description="the kind of location holding this support")
    pieces: str | None = Field(None, description="counter the pieces come from (none: markers)")
    stacking: bool = Field(
        False, description="every player's pieces sit side by side in a place (the leader is "
        "whoever has strictly the most); false: one owner per place, and placing an opponent's "
        "support first removes the owner's pieces one for one",
    )
    name: str | None = Field(
        None, description="what a person reads for this pool's pieces in the narration and in "
        "errors (1960: `state support`); left out, the pack's `names:` entry for the pool, or "
        "its id with spaces for underscores",
    )
    doc: str = ""


class BagDef(Strict):
    pieces: str = Field(description="counter that drawn cubes return to")
    start: dict[str, int] = Field(default_factory=dict)


class ZoneDef(Strict):
    per_player: bool = False
    hidden: bool = False
    ordered_secret: bool = False
    refill_from: str | None = None
    start: str | None = Field(None, description="card kind whose cards start here")
    shown_to_team: bool = Field(
        False, description="a hidden per-player zone its owner's teammates (`teams:`) see "
        "too; players of other teams still see only its size",
    )
    doc: str = ""


class FieldDef(Strict):
    """A declared field of a card or a location: its type and the values it may take."""

    type: Literal["int", "str", "name", "list"] = Field(
        "str", description="int, str, name (letters, digits, '_'), or list (of `items`)"
    )
    items: Literal["int", "str", "name"] | None = Field(
        None, description="the type of each element of a list field (default: str)"
    )
    values: list[int | str] | None = Field(
        None, description="the allowed values (of each element, for a list field)"
    )
    kind_of: str | None = Field(
        None, description="a kind of location: the value (or each element) is the id of a "
        "location of that kind; `values` then adds further allowed values",
    )
    optional: bool = True
    doc: str = ""


class CardFieldDef(FieldDef):
    kinds: list[str] | None = Field(
        None, description="the card kinds that have this field (default: every kind)"
    )


class EffectDef(Strict):
    doc: str = ""
    values: Literal["number", "names"] = Field(
        "number", description="number: `EFFECT of P` adds up the values in force; "
        "names: it lists them (e.g. regions where campaigning is banned)",
    )


class CardKindDef(Strict):
    """A kind of card, with what `hustings check` expects of its cards."""

    doc: str = ""
    events: bool = Field(
        False, description="every card of this kind is meant to have an event: `check` counts "
        "them and lists those still without one",
    )


class OptionDef(Strict):
    default: bool = False
    doc: str = ""
    players: list[str] = Field(
        default_factory=list, description="players of the pack who take part only when this "
        "option is on (e.g. a third party); with it off they have no seat, counters or zones",
    )


class PlayerCount(Strict):
    """How many players a game seats (`--players N`): the first N of `players:` take part."""

    min: int = Field(description="the fewest players a game seats (at least 2)")
    max: int = Field(description="the most (at most the players `players:` lists)")
    default: int | None = Field(None, description="the count without --players (default: max)")


class PlayerLook(Strict):
    name: str = Field("", description="the player's name on screen (default: the player's id)")
    colour: str = Field("default", description="a colour name (e.g. blue, red, green, magenta)")
    short: str = Field(
        "", max_length=3, description="the player's mark where room is short (beside a count on "
        "a place, on the terminal and the web board): 1 to 3 characters, distinct among the "
        "players; default: the shortest distinct start of their names",
    )


class ShownValue(Strict):
    """One value on the board: set exactly one of variable, counter, function, token, face_of,
    zone."""

    label: str
    variable: str | None = Field(None, description="a variable of the pack (status line)")
    counter: str | None = Field(None, description="a counter, shown for each player")
    function: str | None = Field(
        None, description="a pack function of one player (status line: of no argument)"
    )
    token: bool = Field(False, description="where the player's token stands")
    face_of: str | None = Field(
        None, description="a per-player zone: the face of the card in it (fresh or flipped)"
    )
    zone: str | None = Field(
        None, description="a zone: the titles of its cards (a count if hidden); per player if"
        " the zone is per-player")
    faces: dict[str, str] = Field(
        default_factory=dict, description="words shown for faces, e.g. {front: fresh}"
    )


class LocationGroup(Strict):
    """A section of the board: the locations of one kind and who has support there."""

    title: str
    pool: str = Field(description="the support pool shown")
    kind: str | None = Field(None, description="the locations listed (default: the pool's kind)")
    order: str | None = Field(None, description="a track giving the order of the locations")
    by: str | None = Field(
        None, description="a location property grouping them (a location id: its name is shown)"
    )
    value: str | None = Field(None, description="a location property shown beside each one")
    names: Literal["id", "name"] = Field("id", description="name each location by id or name")
    map: str | None = Field(
        None, description="a JSON file in the pack folder with an SVG shape per location"
        " ({width, height, credit, shapes: {id: {path, label: [x, y]}}}), drawn by the web board"
    )


class ViewDef(Strict):
    """What a board shows of a game; read by the terminal (and any other board)."""

    players: dict[str, PlayerLook] = Field(default_factory=dict)
    status: list[ShownValue] = Field(default_factory=list, description="the top line")
    player_rows: list[ShownValue] = Field(
        default_factory=list, description="one line per value, with each player's"
    )
    groups: list[LocationGroup] = Field(default_factory=list)
    hands: list[str] = Field(
        default_factory=list, description="per-player zones whose cards their owner sees listed"
    )
    card_columns: list[str] = Field(
        default_factory=lambda: ["number", "title", "text"],
        description="card fields shown in card lists (number, title, text or a card field)",
    )
    choices_by: str | None = Field(
        None, description="a location property grouping long lists of options that name a place"
    )


class AgentsDef(Strict):
    """What agents and simulations read from a pack, so the tools name no game."""

    value: str | None = Field(
        None, description="a pack function of one player: how good the position is for them "
        "(positive: ahead); the agents' evaluation",
    )
    scale: float = Field(
        100.0, gt=0, description="a value difference that means a clear lead (value / scale "
        "is turned into a winning chance)",
    )
    margin: str | None = Field(
        None, description="the result entry (recorded per player) whose difference between the "
        "winner and the runner-up is the margin of a game",
    )
    places: str | None = Field(
        None, description="a pack function of one player listing the locations they won; "
        "simulations count how often each location goes to each player",
    )
    max_actions: int | None = Field(
        None, ge=2, description="the most legal actions a decision can offer: the fixed action "
        "space of the OpenSpiel and PettingZoo adapters (default: found by random games)",
    )
    card_uses: dict[str, str] = Field(
        default_factory=dict, description="how a card is used, by the label of the action that "
        "uses it, with {title} for the card's title and {number} for its number (e.g. "
        "event: '{title}: event')",
    )


class TeamsByCount(Strict):
    """Teams that depend on how many players are seated: {count: {team: [players]}}; a
    count not listed seats everyone alone."""

    by_count: dict[int, dict[str, list[str]]] = Field(
        description="for each number of seated players, its teams (team name: its players)"
    )


TEAMS_DOC = (
    "teams of players who win or lose together: {team: [players]}, or "
    "{by_count: {N: {team: [players]}}} when they depend on how many players are seated; "
    "a player in no team plays alone (docs/dsl.md, Teams)"
)


LANGUAGE_DOC = (
    "the version of the content language the files are written in (a whole number; "
    "without it, 1). docs/language-changes.md lists what each version changed; "
    "`hustings upgrade PATH` rewrites content to the current one"
)


class NounForms(Strict):
    """A noun's form for each plural category of the language (CLDR: zero, one, two, few,
    many, other); English needs one and other."""

    one: str
    other: str
    zero: str | None = None
    two: str | None = None
    few: str | None = None
    many: str | None = None


class PackManifest(Strict):
    name: str
    title: str
    version: str
    language: int = Field(1, ge=1, strict=True, description=LANGUAGE_DOC)
    players: list[str] = Field(min_length=2)
    counters: dict[str, CounterDef] = Field(default_factory=dict)
    variables: dict[str, Any] = Field(default_factory=dict)
    pools: dict[str, PoolDef] = Field(default_factory=dict)
    bag: BagDef | None = None
    zones: dict[str, ZoneDef] = Field(default_factory=dict)
    tracks: dict[str, list[str] | NumericTrack] = Field(
        default_factory=dict, description="an order of names (first to last), or a numbered "
        "track {min, max, start} with a marker per player",
    )
    effects: dict[str, str | EffectDef] = Field(
        default_factory=dict, description="lasting effects: a description, or {doc, values}"
    )
    durations: dict[str, str] = Field(
        default_factory=dict, description="how long lasting effects may last, besides `game`: "
        "each ends when the rules say `expire NAME effects` (e.g. turn, phase)",
    )
    announcements: dict[str, AnnouncementDef] = Field(
        default_factory=dict, description="what the rules announce (`announce NAME(...)`) "
        "for content to react to (`whenever NAME`)",
    )
    texts: dict[str, str | TextDef] = Field(
        default_factory=dict, description="named texts the rules say (`say NAME(...)`), so a "
        "mod can reword them in one place",
    )
    names: dict[str, str] = Field(
        default_factory=dict, description="what a person reads for the pack's ids that have "
        "no name of their own (effects, counters, pools, zones, tracks, phases...): {id: "
        "text}; players take theirs from view.players, places from the board",
    )
    nouns: dict[str, NounForms] = Field(
        default_factory=dict, description="the forms of the nouns shown with a count "
        "(`counted(n, \"card\")`), by plural category: {card: {one: card, other: cards}}",
    )
    card_fields: dict[str, CardFieldDef] = Field(default_factory=dict)
    card_kinds: dict[str, str | CardKindDef] = Field(
        default_factory=dict, description="the kinds of card (name: description, or {doc, "
        "events}); once declared, a card's `kind` and a zone's `start` must be one of them",
    )
    board_fields: dict[str, dict[str, FieldDef]] = Field(
        default_factory=dict, description="per kind of location, the fields its locations may "
        "have besides id, name and support: {KIND: {FIELD: {type, ...}}}; a kind not listed "
        "may have any fields",
    )
    options: dict[str, OptionDef] = Field(default_factory=dict)
    player_count: PlayerCount | None = Field(
        None, description="seat a number of players chosen per game: {min, max, default}; "
        "a game of N seats the first N players no option names (docs/dsl.md)",
    )
    entry: str = "game"
    board: str = "board.yaml"
    cards: list[str] = Field(default_factory=lambda: ["cards"])
    rules: str = "rules"
    view: ViewDef = Field(default_factory=ViewDef, description="what a board shows (docs/view.md)")
    agents: AgentsDef = Field(default_factory=AgentsDef)
    teams: TeamsByCount | dict[str, list[str]] = Field(
        default_factory=dict, description=TEAMS_DOC)


class SupportStart(Strict):
    owner: str
    count: int = Field(ge=1)


class Location(BaseModel):
    """A place on the board; any extra fields become its properties."""

    model_config = ConfigDict(extra="allow")
    id: str
    name: str = ""
    support: SupportStart | None = None


class TravelDef(Strict):
    kind: str = Field(description="the kind of location tokens stand on")
    area: str = Field("area", description="the property naming each location's travel area")
    links: list[tuple[str, str]]


class MapDef(Strict):
    """Which locations border which: links are two-way (docs/dsl.md, section 2.2)."""

    kind: str = Field(description="the kind of location the map joins")
    links: list[tuple[str, str]] = Field(
        default_factory=list, description="two-way links, each a pair [A, B]"
    )
    neighbours: dict[str, list[str]] = Field(
        default_factory=dict, description="each location's neighbours, in any order; a link "
        "is listed at both of its ends (with `links`, or instead of them)",
    )
    connected: bool = Field(
        True, description="false: the map may be in separate parts on purpose (else a map in "
        "parts is an error)",
    )


class Board(Strict):
    locations: dict[str, list[Location]]
    travel: TravelDef | None = None
    map: MapDef | None = Field(None, description="which locations border which: `adjacent`, "
                               "`neighbours`, `distance` and `path` read it")
    tokens: dict[str, str] = Field(default_factory=dict)


# A card file may stand for up to MAX_COPIES identical cards (`copies:`), and a game's
# cards, copies counted, are at most MAX_CARDS: each is an entry in zones, saves and every
# observation, so a few lines must not make a deck of millions. The shipped packs have at
# most a few hundred cards.
MAX_COPIES = 100
MAX_CARDS = 10_000


class Card(BaseModel):
    """One card: identity, printed text and its event in the effect language."""

    model_config = ConfigDict(extra="allow")
    number: int = Field(ge=1)
    title: str
    copies: int = Field(
        1, ge=1, le=MAX_COPIES, strict=True,
        description=f"how many identical cards this file makes (1 to {MAX_COPIES}): they are "
        "numbered from `number` up (number: 5, copies: 3 makes cards 5, 6 and 7), each a card "
        "of its own in zones, saves and scenarios",
    )
    kind: str = "campaign"
    text: str = ""
    event: str | None = None
    option: str | None = Field(None, description="only in the deck when this option is on")


class CardList(Strict):
    cards: list[Card]


class Procedure(Strict):
    params: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(
        default_factory=dict, description="values of parameters a call may leave out"
    )
    doc: str = ""
    body: str


class Function(Strict):
    params: list[str] = Field(default_factory=list)
    doc: str = ""
    expr: str = Field(description="an expression over the parameters; it changes nothing")


class Reaction(Strict):
    """A rule that reacts to an announcement for the whole game."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    whenever: str = Field(description="the announcement reacted to")
    condition: str | None = Field(
        None, alias="if", description="reacts only when this holds (the announcement's "
        "parameters are names here)",
    )
    doc: str = ""
    body: str


class RulesFile(Strict):
    procedures: dict[str, Procedure] = Field(default_factory=dict)
    functions: dict[str, Function] = Field(default_factory=dict)
    reactions: dict[str, Reaction] = Field(default_factory=dict)
