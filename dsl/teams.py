"""pack.yaml `teams:`: checked, then resolved for the players seated in this game.

Two forms: `{team: [players]}`, or `{by_count: {N: {team: [players]}}}` when the teams
depend on how many players are seated (a count not listed seats everyone alone). Every
table is checked, whichever one this game uses, so a pack's six-player teams are checked in
a four-player game too. What teams share is declared where it is kept: `per_team: true` on
a counter, `shown_to_team: true` on a hidden per-player zone (checked here too).

Codes: E170 a team names a non-player or no one; E171 a player in two teams (or twice in
one); E172 a team's name is already a name of the pack; E173 a `by_count` count no game of
the pack can seat; E174 a sharing flag on what cannot be shared; W170 a team of one.
"""

from __future__ import annotations

from typing import Any

from ..schemas.content import PackManifest, TeamsByCount
from .diagnostics import Report, did_you_mean
from .yamlsource import YamlFile

Teams = dict[str, list[str]]


def tables(manifest: PackManifest, mf: YamlFile) -> list[tuple[int | None, Teams, tuple]]:
    """Each table of teams with its count (None: for any count) and its keys in pack.yaml."""
    teams = manifest.teams
    if isinstance(teams, TeamsByCount):
        return [(count, table, ("teams", "by_count", _key(mf, count)))
                for count, table in teams.by_count.items()]
    return [(None, teams, ("teams",))] if teams else []


def _key(mf: YamlFile, count: int) -> Any:
    """The YAML key of a count (written `4:` or `"4":`), for positions."""
    node = mf.node("teams", "by_count")
    return str(count) if isinstance(node, dict) and str(count) in node else count


def seatable(manifest: PackManifest, declared: list[str]) -> tuple[int, int]:
    """The fewest and the most players a game of the pack seats: its `player_count:` range
    (else every player no option names), plus every player an option may seat. `declared`:
    every player of the pack, seated in this game or not."""
    optional = {p for option in manifest.options.values() for p in option.players}
    fixed = len([p for p in declared if p not in optional])
    spec = manifest.player_count
    low, high = (spec.min, spec.max) if spec is not None else (fixed, fixed)
    return low, high + len(optional & set(declared))


def check_teams(manifest: PackManifest, mf: YamlFile, declared: list[str],
                names: set[str], report: Report) -> None:
    """Every table of teams: players of the pack, each in one team at most, teams of two
    or more, team names that are no other name of the pack (`names`)."""
    low, high = seatable(manifest, declared)
    for count, table, keys in tables(manifest, mf):
        if count is not None and not low <= count <= high:
            seats = f"{low} to {high}" if low < high else f"{low}"
            report.error(mf.key_source(*keys), "E173",
                         f"teams for {count} players, but a game of the pack seats {seats}",
                         "key each table by a number of players the pack can seat")
        check_table(table, keys, mf, declared, names, report)


def check_table(table: Teams, keys: tuple, mf: YamlFile, declared: list[str],
                names: set[str], report: Report) -> None:
    seen: dict[str, str] = {}  # player -> the team that named them first
    for team, members in table.items():
        if team in names or team in declared:
            report.error(mf.key_source(*keys, team), "E172",
                         f"team '{team}' has the name of something else of the pack",
                         "give the team a name of its own (effect text names teams by it)")
        if not members:
            report.error(mf.value_source(*keys, team), "E170", f"team '{team}' names no player",
                         f"list its players, e.g. [{', '.join(declared[:2])}]")
        elif len(members) == 1 and members[0] in declared:
            report.warn(mf.value_source(*keys, team), "W170",
                        f"team '{team}' has one player, '{members[0]}'",
                        "a player in no team plays alone anyway: add a teammate or leave "
                        "the team out")
        for i, who in enumerate(members):
            where = mf.value_source(*keys, team, i)
            if who not in declared:
                report.error(where, "E170", f"team '{team}' names '{who}', who is not a player",
                             did_you_mean(who, declared) or f"players: {', '.join(declared)}")
            elif who in seen:
                first = seen[who]
                report.error(where, "E171", f"'{who}' is in team '{first}' and again in "
                             f"team '{team}'" if first != team else
                             f"'{who}' is listed twice in team '{team}'",
                             "a player belongs to one team at most: keep one")
            else:
                seen[who] = team


def check_sharing(manifest: PackManifest, mf: YamlFile, report: Report) -> None:
    """`per_team` on a counter that holds pieces (they go to and from one player's supply)
    and `shown_to_team` on a zone that is not hidden per player have no meaning: E174."""
    pieces = {p.pieces for p in manifest.pools.values() if p.pieces}
    if manifest.bag is not None:
        pieces.add(manifest.bag.pieces)
    for name, counter in manifest.counters.items():
        if counter.per_team and name in pieces:
            report.error(mf.value_source("counters", name, "per_team"), "E174",
                         f"counter '{name}' holds a player's pieces, so it cannot be per team",
                         "share another counter, or leave out `per_team`")
    for name, zone in manifest.zones.items():
        if zone.shown_to_team and not (zone.per_player and zone.hidden):
            report.error(mf.value_source("zones", name, "shown_to_team"), "E174",
                         f"zone '{name}' is shown to teams, but it is not hidden per player",
                         "declare it `per_player: true` and `hidden: true`, or leave out "
                         "`shown_to_team` (everyone sees it already)")


def seated_teams(manifest: PackManifest, seated: list[str]) -> Teams:
    """The teams of this game: the table for this many seated players (or the one table),
    each team's seated members in seat order; a team with none seated is left out."""
    teams = manifest.teams
    table = teams.by_count.get(len(seated), {}) if isinstance(teams, TeamsByCount) else teams
    out: Teams = {}
    for team, members in table.items():
        kept = [p for p in seated if p in members]
        if kept:
            out[team] = kept
    return out


def manifest_names(manifest: PackManifest) -> set[str]:
    """The names a team may not take: everything else pack.yaml names, and the words
    effect text reads as a list (`players`, `teams`)."""
    return {*manifest.counters, *manifest.variables, *manifest.pools, *manifest.zones,
            *manifest.tracks, *manifest.effects, "players", "teams"}
