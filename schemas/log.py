"""The session file: a game's log, a saved game and a replay are one format.

    {"format": "hustings-log", "format_version": 1,
     "pack": {"name": ..., "version": ...}, "seed": 7, "options": {...}, "players": 3,
     "mods": [{"name": ..., "hash": <sha256 of the mod folder>}],
     "seats": {player: agent}, "actions": [3, 0, ...]}

`players` (the count of a pack with `player_count:`) is written only for such a pack, so
a file of any other pack reads as before; a file without it plays the pack's default count.
The game is the pack + mods + options + count + seed with the actions applied in order, so a
file holds no state to forge: every action is checked against the legal ones when it
is replayed. The shape is checked strictly here (`true` is not an index, no unknown
keys); the meaning (actions legal, none past the end, the same mods) by the play loop.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_serializer

FORMAT = "hustings-log"
FORMAT_VERSION = 1
MAX_ACTIONS = 100_000  # many times a long game; keeps a hostile file from running for hours
MAX_LABEL = 1_000

_STRICT = ConfigDict(extra="forbid", strict=True)
Name = Annotated[str, Field(min_length=1, max_length=200)]


class PackRef(BaseModel):
    model_config = _STRICT
    name: Name
    version: Name


class ModRef(BaseModel):
    model_config = _STRICT
    name: Name
    hash: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


Action = StrictInt | Annotated[StrictStr, Field(max_length=MAX_LABEL)]


class SessionLog(BaseModel):
    model_config = _STRICT
    format: Literal["hustings-log"]
    format_version: StrictInt
    pack: PackRef
    seed: Annotated[int, Field(ge=0, lt=2**63)]
    options: dict[Name, bool] = Field(default_factory=dict)
    players: Annotated[int, Field(ge=1, le=10_000)] | None = None
    mods: list[ModRef] = Field(default_factory=list, max_length=100)
    seats: dict[Name, Name] = Field(default_factory=dict)
    actions: list[Action] = Field(default_factory=list, max_length=MAX_ACTIONS)

    @model_serializer(mode="wrap")
    def _count_when_declared(self, handler):
        """`players` only for a pack with a player count: other files stay as they were."""
        data = handler(self)
        if data.get("players") is None:
            data.pop("players", None)
        return data
