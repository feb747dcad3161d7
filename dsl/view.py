"""Checks of a pack's `view:` section: every name it shows must be one the pack defines.

The view itself is plain data carried in the Program for the tools that draw a board.
"""

from __future__ import annotations

from typing import Any

from ..schemas.content import PackManifest, ShownValue
from .diagnostics import Report
from .yamlsource import YamlFile


def check_view(manifest: PackManifest, file: YamlFile, report: Report,
               functions: dict[str, list[str]], properties: set[str],
               kinds: set[str], every_player: list[str] | None = None) -> None:
    """Report E116 for each name in the view that the pack does not have
    (`every_player`: the pack's players, those this game leaves out included)."""
    view = manifest.view

    def bad(keys: tuple, what: str, name: Any, known) -> None:
        known = sorted(str(k) for k in known)
        report.error(file.value_source("view", *keys), "E116",
                     f"the view shows {what} '{name}', which the pack does not define",
                     f"known: {', '.join(known[:12])}" if known else "")

    # a player an option leaves out of this game is still the pack's
    declared = [*(every_player or manifest.players),
                *(p for o in manifest.options.values() for p in o.players)]
    for player in view.players:
        if player not in declared:
            bad(("players", player), "player", player, declared)
    check_marks(view.players, file, report)
    for section in ("status", "player_rows"):
        for i, value in enumerate(getattr(view, section)):
            check_value(value, (section, i), manifest, functions, bad)
    for i, group in enumerate(view.groups):
        if group.pool not in manifest.pools:
            bad(("groups", i, "pool"), "pool", group.pool, manifest.pools)
        if group.kind is not None and group.kind not in kinds:
            bad(("groups", i, "kind"), "kind of location", group.kind, kinds)
        if group.order is not None and group.order not in manifest.tracks:
            bad(("groups", i, "order"), "track", group.order, manifest.tracks)
        if group.map is not None and not safe_file_name(group.map):
            bad(("groups", i, "map"), "map file", group.map,
                ["a relative path inside the pack folder, e.g. map.json"])
        for key in ("by", "value"):
            name = getattr(group, key)
            if name is not None and name not in properties:
                bad(("groups", i, key), "location property", name, properties)
    for i, zone in enumerate(view.hands):
        if zone not in manifest.zones or not manifest.zones[zone].per_player:
            bad(("hands", i), "per-player zone", zone,
                [z for z, d in manifest.zones.items() if d.per_player])
    if view.choices_by is not None and view.choices_by not in properties:
        bad(("choices_by",), "location property", view.choices_by, properties)
    fields = {"number", "title", "text", "kind", *manifest.card_fields}
    for i, column in enumerate(view.card_columns):
        if column not in fields:
            bad(("card_columns", i), "card field", column, fields)


def check_marks(players: dict, file: YamlFile, report: Report) -> None:
    """E117: two players given the same `short` mark could not be told apart on a board."""
    seen: dict[str, str] = {}
    for player, look in players.items():
        mark = look.short.strip()
        if look.short and not mark:
            report.error(file.value_source("view", "players", player, "short"), "E117",
                         f"the short mark of '{player}' is blank", "write 1 to 3 characters")
        elif mark in seen:
            report.error(file.value_source("view", "players", player, "short"), "E117",
                         f"'{player}' and '{seen[mark]}' have the same short mark '{mark}'",
                         "give each player a mark of their own")
        elif mark:
            seen[mark] = player


def safe_file_name(name: str) -> bool:
    """A path relative to the pack folder that cannot leave it."""
    parts = name.replace("\\", "/").split("/")
    return bool(name) and not name.startswith("/") and ".." not in parts and ":" not in name


def check_value(value: ShownValue, keys: tuple, manifest: PackManifest,
                functions: dict[str, list[str]], bad) -> None:
    chosen = [k for k in ("variable", "counter", "function", "face_of", "zone")
              if getattr(value, k) is not None] + (["token"] if value.token else [])
    if len(chosen) != 1:
        bad(keys, "value", value.label, ["exactly one of variable, counter, function, token,"
                                         " face_of, zone"])
        return
    kind = chosen[0]
    name = getattr(value, kind)
    if kind == "variable" and name not in manifest.variables:
        bad((*keys, kind), "variable", name, manifest.variables)
    elif kind == "counter" and name not in manifest.counters:
        bad((*keys, kind), "counter", name, manifest.counters)
    elif kind == "function" and name not in functions:
        bad((*keys, kind), "function", name, functions)
    elif kind == "zone" and name not in manifest.zones:
        bad((*keys, kind), "zone", name, manifest.zones)
    elif kind == "face_of" and (name not in manifest.zones
                                or not manifest.zones[name].per_player):
        bad((*keys, kind), "per-player zone", name, manifest.zones)
