"""Pydantic model of a saved game's shape (the JSON `Game.save()` writes).

The model checks types and sizes only: `true` is not a number, floats are not
numbers of a game, strings, lists and integers are bounded. What the values
mean (cards that exist, pieces conserved, a paused program that makes sense) is
checked against the pack by `interpreter/invariants.py`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from typing_extensions import TypeAliasType

# 2: `history` holds the index of the option taken at each decision (1: its label).
FORMAT_VERSION = 2

MAX_INT = 2**63 - 1  # integers of a game are 64-bit at most
MAX_TEXT = 4_000  # characters of one string (a log line, a label, a name)
MAX_ITEMS = 100_000  # entries of one list or table
MAX_SAVE_CHARS = 32_000_000  # the whole save

Int = Annotated[StrictInt, Field(ge=-MAX_INT, le=MAX_INT)]
Count = Annotated[StrictInt, Field(ge=0, le=MAX_INT)]
Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]

# Any value the rules can hold in a variable: integers, texts, yes/no, nothing,
# and lists or tables of those. No floats: the rules never make one.
Value = TypeAliasType(
    "Value",
    "Int | StrictBool | Text | None | "
    "Annotated[list[Value], Field(max_length=MAX_ITEMS)] | "
    "Annotated[dict[Text, Value], Field(max_length=MAX_ITEMS)]",
)


def Items(item: Any) -> Any:  # noqa: N802 - reads as a type
    return Annotated[list[item], Field(max_length=MAX_ITEMS)]


def Table(value: Any) -> Any:  # noqa: N802 - reads as a type
    return Annotated[dict[Text, value], Field(max_length=MAX_ITEMS)]


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PackId(Shape):
    name: Text
    version: Text | None = None


class Pending(Shape):
    player: Text
    prompt: Text
    options: Items(Text)
    payloads: Items(Items(Value))


# A frame: block, pc, env index, call, loop variable, loop items, loop index,
# the while loop's owning instruction [block, pc], loop bound.
Frame = tuple[
    Count, Int, Count, StrictBool, Text | None, Items(Value) | None, Int,
    tuple[Count, Count] | None, Int,
]


class SaveFile(Shape):
    format_version: StrictInt
    pack: PackId
    rng: Annotated[StrictInt, Field(ge=0, le=2**64 - 1)]
    vars: Table(Value)
    counters: Table(Table(Int))
    pools: Table(Table(tuple[Text, Int] | Table(Int)))  # exclusive [owner, n]; stacking {p: n}
    tokens: Table(Text)
    bag: Table(Int)
    zones: Table(Items(Int))
    tracks: Table(Items(Text))
    effects: Items(tuple[Text, Value, Value, Text | tuple[Text, Count]])
    prevented: Items(Int)
    faces: Table(Text)
    revealed: Table(Items(Text))
    # player -> {card id: the zone key it was in when shown to them}
    shown: Table(Table(Text | None)) = {}
    # [position in the public log, player, text] of each line told to one player
    told: Items(tuple[Count, Text, Annotated[StrictStr, Field(max_length=100_000)]]) = ()
    envs: Items(Table(Value))
    stack: Items(Frame)
    pending: Pending | None
    log: Items(Annotated[StrictStr, Field(max_length=100_000)])
    history: Items(Count)  # the option taken at each decision, by its index
    result: Table(Value) | None
    forced_cubes: Items(Text)
    forced_cards: Items(Int)
    forced_rolls: Items(Int) = ()
    forced_picks: Items(Value) = ()
    # [id, announcement, block, env, duration, uses left or null, names]
    reactions: Items(tuple[Count, Text, Count, Table(Value), Text | tuple[Text, Count],
                           Count | None, Items(Text)]) = ()
    serial: Count = 0
    steps: Count
    out: Items(Text) = ()  # the players out of the game, in seat order (absent: nobody)
