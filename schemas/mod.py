"""Pydantic models of mod files: the mod manifest, mod cards and mod rules files.

A mod is a folder that changes a base pack without copying it: `mod.yaml` (this
module's `ModManifest`), card files in `cards/` (`ModCard`) and rules files in
`rules/` (`ModRulesFile`). `hustings schema` exports them as JSON Schema
(`mod`, `modcard`, `modcardlist`, `modrules`) for editors.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .content import (
    LANGUAGE_DOC,
    AnnouncementDef,
    Card,
    CardFieldDef,
    CardKindDef,
    EffectDef,
    FieldDef,
    Function,
    NumericTrack,
    PoolDef,
    Procedure,
    Reaction,
    Strict,
    TextDef,
    ZoneDef,
)


class BaseRef(Strict):
    """The base pack a mod is written for."""

    pack: str = Field(description="the base pack's `name` in its pack.yaml, e.g. \"1960\"")
    versions: list[str] = Field(
        min_length=1,
        description="base pack versions the mod fits, e.g. [\"1.0.0\"]; `*` and `?` are "
        "wildcards (\"1.0.*\")",
    )


class CounterChange(Strict):
    start: int | None = None
    signed: bool | None = None
    min: int | None = Field(None, description="the least value (a loss stops there)")
    max: int | None = Field(None, description="the greatest value (a gain stops there)")
    doc: str | None = None


class BagChange(Strict):
    pieces: str | None = None
    start: dict[str, int] = Field(default_factory=dict, description="cubes per player")


class SetupChange(Strict):
    """Changes merged into the base pack.yaml, key by key (a deep merge).

    Only the keys written change: `{counters: {score: {start: 3}}}` changes the
    start of `score` and keeps its other fields. Lists and plain values are
    replaced whole. A name the base does not have is added.
    """

    counters: dict[str, CounterChange] = Field(
        default_factory=dict, description="e.g. {score: {start: 3}}"
    )
    variables: dict[str, Any] = Field(default_factory=dict, description="starting values")
    bag: BagChange | None = Field(None, description="e.g. {start: {red: 14}}")
    tracks: dict[str, list[str] | NumericTrack] = Field(
        default_factory=dict, description="a track's items, first to last (replaced whole), "
        "or a new numbered track {min, max, start}",
    )
    effects: dict[str, str | EffectDef] = Field(
        default_factory=dict, description="lasting effects a mod's cards or rules need"
    )
    zones: dict[str, ZoneDef] = Field(default_factory=dict, description="new zones of cards")
    pools: dict[str, PoolDef] = Field(default_factory=dict, description="new kinds of support")
    durations: dict[str, str] = Field(
        default_factory=dict, description="new durations (the mod's rules expire them)"
    )
    announcements: dict[str, AnnouncementDef] = Field(
        default_factory=dict, description="new announcements the mod's rules make"
    )
    texts: dict[str, str | TextDef] = Field(
        default_factory=dict, description="texts the rules say, reworded or new"
    )
    card_kinds: dict[str, str | CardKindDef] = Field(
        default_factory=dict, description="new kinds of card (name: description, or {doc, "
        "events})"
    )
    card_fields: dict[str, CardFieldDef] = Field(
        default_factory=dict, description="card fields a mod's cards use, or changed declarations"
    )
    board_fields: dict[str, dict[str, FieldDef]] = Field(
        default_factory=dict, description="fields of locations, per kind: {KIND: {FIELD: {type, "
        "...}}}, merged field by field",
    )


class ModManifest(Strict):
    """mod.yaml: what the mod is, which base pack it fits, and what it changes.

    Cards: every card file in the mod's `cards` folders is added; a file whose
    number is already in the pack must say `replaces: NUMBER` and then replaces
    that card whole. Rules: every procedure or function in the mod's `rules`
    folder is added; one whose name is already defined must say `replaces: true`.
    Mods are applied in the order given; two mods changing the same thing (a
    card, a setup key, a board field, an option, a procedure) is an error.
    """

    name: str = Field(description="the mod's short name, e.g. whistle-stops")
    title: str = ""
    version: str = Field(description="the mod's own version")
    language: int = Field(1, ge=1, strict=True, description=LANGUAGE_DOC)
    doc: str = ""
    base: BaseRef
    cards: list[str] = Field(
        default_factory=lambda: ["cards"],
        description="folders or files of the mod's card files (default: cards)",
    )
    rules: str = Field("rules", description="the folder of the mod's rules files (default: rules)")
    remove: list[int] = Field(
        default_factory=list, description="numbers of cards taken out of the game"
    )
    setup: SetupChange = Field(
        default_factory=SetupChange, description="changes merged into the base pack.yaml"
    )
    board: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="changes of board data: {KIND: {LOCATION: {FIELD: VALUE}}}, e.g. "
        "{states: {CA: {ev: 40}}}; `tokens: {PLAYER: LOCATION}` moves starting tokens",
    )
    options: dict[str, bool] = Field(
        default_factory=dict,
        description="optional rules switched on or off by default, e.g. {vice_presidents: true}",
    )


class ModCard(Card):
    """A card of a mod: a new card, or (with `replaces`) a whole new version of a card."""

    replaces: int | None = Field(
        None, ge=1,
        description="the number of the card this file replaces; it must equal `number`. "
        "Without it, a number already in the pack is an error.",
    )


class ModCardList(Strict):
    cards: list[ModCard]


class ModProcedure(Procedure):
    replaces: bool = Field(
        False, description="true: replaces the procedure of the same name (else a new name); "
        "its body may `do original` to run the one it replaces",
    )
    extends: Literal["before", "after"] | None = Field(
        None, description="before/after: runs this body before or after the procedure of the "
        "same name, with its parameters; several mods may extend one procedure",
    )


class ModFunction(Function):
    replaces: bool = Field(
        False, description="true: replaces the function of the same name (else a new name)"
    )
    extends: bool = Field(
        False, description="true: wraps the function of the same name; `original` is its "
        "value for the same arguments",
    )


class ModReaction(Reaction):
    replaces: bool = Field(False, description="true: replaces the reaction of the same name")


class ModRulesFile(Strict):
    procedures: dict[str, ModProcedure] = Field(default_factory=dict)
    functions: dict[str, ModFunction] = Field(default_factory=dict)
    reactions: dict[str, ModReaction] = Field(default_factory=dict)
