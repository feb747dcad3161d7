"""Pydantic model of a scenario file: a position, forced chance, steps and expectations."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# One place's support: [owner, count] (exclusive pool), {player: count} (stacking), or none.
Held = tuple[str, int] | dict[str, int] | None


class Setup(Strict):
    """Changes applied to the pack's initial state before anything runs."""

    vars: dict[str, Any] = Field(default_factory=dict, description="turn, phase, initiative...")
    clear: list[str] = Field(default_factory=list, description="pools to empty first")
    support: dict[str, dict[str, Held]] = Field(
        default_factory=dict, description="support per pool and place: [owner, count] in an "
        "exclusive pool, {player: count} in a stacking one; null empties the place")
    counters: dict[str, dict[str, int]] = Field(default_factory=dict)
    tokens: dict[str, str] = Field(default_factory=dict)
    zones: dict[str, list[int]] = Field(
        default_factory=dict, description="move these cards into these zones, in this order"
    )
    tracks: dict[str, list[str]] = Field(default_factory=dict)
    effects: list[tuple[str, str, bool | int | str, str]] = Field(
        default_factory=list, description="[effect, player, value, duration]: lasting "
        "effects already in force; the value is a number, true, or a name (`campaign_ban` "
        "south)")
    reactions: list[tuple[int, str]] = Field(
        default_factory=list, description="[card, player]: the lasting reactions that card's "
        "event starts for that player are in force (the rest of the event does not run)",
    )
    prevented: list[int] = Field(default_factory=list)
    faces: dict[int, str] = Field(default_factory=dict)
    bag: dict[str, int] | None = Field(None, description="bag contents (cubes move to/from supply)")


class Run(Strict):
    procedure: str | None = Field(None, description="procedure to start (default: the whole game)")
    args: dict[str, Any] = Field(default_factory=dict)


class Sees(Strict):
    """What one player sees: cards in a zone they see, or shown to them (`show`)."""

    player: str
    cards: list[int]
    zone: str | None = Field(None, description="where the player sees or was shown them "
                             "(a zone key such as hand:bob); left out: anywhere")


class Told(Strict):
    """A text in one player's own narration (the public log and the lines told to them)."""

    player: str
    text: str


class Expect(Strict):
    support: dict[str, dict[str, Held]] = Field(
        default_factory=dict, description="support per pool and place: [owner, count] in an "
        "exclusive pool, {player: count} in a stacking one; null: nobody's")
    counters: dict[str, dict[str, int]] = Field(default_factory=dict)
    tokens: dict[str, str] = Field(default_factory=dict)
    vars: dict[str, Any] = Field(default_factory=dict)
    tracks: dict[str, list[str]] = Field(default_factory=dict)
    zones: dict[str, list[int]] = Field(default_factory=dict, description="exact contents")
    zone_contains: dict[str, list[int]] = Field(default_factory=dict)
    zone_lacks: dict[str, list[int]] = Field(default_factory=dict)
    bag: dict[str, int] = Field(default_factory=dict)
    effects: list[tuple[str, str]] = Field(
        default_factory=list, description="(effect, player) pairs in force"
    )
    no_effects: list[tuple[str, str]] = Field(default_factory=list)
    reactions: list[tuple[str, int]] = Field(
        default_factory=list, description="[announcement, card]: a lasting reaction to the "
        "announcement, started by that card's event, is in force",
    )
    no_reactions: list[tuple[str, int]] = Field(default_factory=list)
    prevented: list[int] = Field(default_factory=list)
    faces: dict[int, str] = Field(default_factory=dict, description="card faces, e.g. exhausted")
    revealed: dict[str, list[str]] = Field(
        default_factory=dict, description="zone -> players it has been revealed to"
    )
    sees: list[Sees] | Sees = Field(
        default_factory=list, description="cards a player sees (in a zone open to them, or "
        "shown to them), optionally in one zone: {player, cards, zone}")
    not_sees: list[Sees] | Sees = Field(
        default_factory=list, description="cards a player neither sees nor was shown")
    told: list[Told] | Told = Field(
        default_factory=list, description="a text in that player's narration: {player, text}")
    not_told: list[Told] | Told = Field(
        default_factory=list, description="a text not in that player's narration")
    player: str | None = Field(None, description="who must decide next")
    legal: list[str] = Field(default_factory=list, description="labels that must be offered")
    illegal: list[str] = Field(default_factory=list, description="labels that must not be offered")
    log: list[str] = Field(default_factory=list, description="texts the log must contain")
    result: dict[str, Any] = Field(default_factory=dict)
    terminal: bool | None = None
    out: list[str] | None = Field(
        None, description="exactly the players out of the game (`eliminate P`), any order")


class Forced(Strict):
    """Chance decided in advance: each list is used up in order as the rules draw."""

    cubes: list[str] = Field(default_factory=list, description="colours of the next cubes drawn")
    dice: list[int] = Field(default_factory=list, description="the next rolls of `roll(N)`")
    picks: list[Any] = Field(
        default_factory=list, description="the next items `random_pick` takes (cards by number)"
    )


class Step(Strict):
    """Exactly one of the fields."""

    force: list[str] | Forced | None = Field(
        None, description="the next cubes drawn (a list of colours), or {cubes, dice, picks}"
    )
    cards: list[int] | None = Field(None, description="the next cards dealt, in order")
    do: str | list[str] | None = Field(None, description="action label(s) to take")
    expect: Expect | None = None
    refuse: str | None = Field(None, description="an action that must be refused")
    note: str | None = None


class Scenario(Strict):
    name: str
    rules: list[str] = Field(default_factory=list, description="rule ids proven, e.g. R5.3")
    seed: int = 0
    options: dict[str, bool] = Field(default_factory=dict)
    players: int | None = Field(
        None, description="how many players the game seats (a pack with `player_count:`); "
        "default: `hustings scenario --players`, else the pack's default count",
    )
    setup: Setup = Field(default_factory=Setup)
    run: Run = Field(default_factory=Run)
    steps: list[Step] = Field(default_factory=list)


class ScenarioFile(Strict):
    scenarios: list[Scenario]
