"""How a pack's players and places are named and coloured on screen (from its `view:`)."""

from __future__ import annotations

from typing import Any

from ...interpreter.program import Program
from ..wording import ui, word


def player_name(program: Program, player: Any) -> str:
    """The player's display name from the view, else the id itself."""
    look = program.view.get("players", {}).get(player) if isinstance(player, str) else None
    return (look or {}).get("name") or str(player)


def player_style(program: Program, player: Any) -> str:
    look = program.view.get("players", {}).get(player) if isinstance(player, str) else None
    colour = (look or {}).get("colour") or "default"
    return f"bold {colour}" if colour != "default" else "bold"


def player_marks(program: Program) -> dict[str, str]:
    """A short mark per player for counts on a place: the pack's `short:` where it gives one,
    else the shortest distinct starts of the names (distinct from the given marks too)."""
    looks = program.view.get("players", {})
    given = {p: (looks.get(p) or {}).get("short", "").strip() for p in program.players}
    given = {p: mark for p, mark in given.items() if mark}
    names = {p: player_name(program, p) for p in program.players if p not in given}
    if not names:
        return given
    for n in range(1, 1 + max(len(v) for v in names.values())):
        marks = {p: v[:n].upper() if n == 1 else v[:n] for p, v in names.items()}
        if len({*marks.values(), *given.values()}) == len(marks) + len(given):
            return {p: given.get(p) or marks[p] for p in program.players}
    return {p: given.get(p, p) for p in program.players}


def zone_label(program: Program, key: str) -> str:
    """A zone's key as a person reads it: `hand:bob` is "hand of Bob"."""
    name, _, owner = key.partition(":")
    name = name.replace("_", " ")
    name = word(program, name)
    return ui(program, "{zone} of {player}", zone=name, player=player_name(program, owner)) \
        if owner else name


def shown_to(program: Program, obs: dict) -> list[tuple[int, str]]:
    """The cards the rules showed this observation's player once (`show CARDS to P`), each
    with where it was then, in card order (none in an observation without `shown`)."""
    found = []
    for card, zone in (obs.get("shown") or {}).items():
        number = int(card) if str(card).lstrip("-").isdigit() else None
        if number is not None and number in program.cards:
            found.append((number, zone_label(program, str(zone))))
    return sorted(found)


def place_name(program: Program, place: Any) -> str:
    info = program.locations.get(place) if isinstance(place, str) else None
    return info.get("name", place) if info else str(place)


def shown(program: Program, value: Any) -> str:
    """A value as a person reads it: players and places by name, lists joined."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return ui(program, "yes" if value else "no")
    if isinstance(value, list):
        return ", ".join(shown(program, v) for v in value) if value else ui(program, "none")
    if isinstance(value, str):
        if value in program.players:
            return player_name(program, value)
        if value in program.locations:
            return place_name(program, value)
        return word(program, value)
    return str(value)
