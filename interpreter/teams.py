"""Teams: seated players who win or lose together and share what the pack says they share.

The program holds the teams of this game (`Program.teams`: team -> its members in seat
order), already resolved for the number of seated players. A player in no team plays
alone: for what teams share (a `per_team` counter, a `shown_to_team` zone) they are a team
of one. Builtins (builtins.py) take the machine first; the other functions read a program.
"""

from __future__ import annotations

from typing import Any

from .errors import RuleError
from .program import Program


def team_table(program: Program) -> dict[str, str]:
    """Each player in a team -> the team's name, made once per program."""
    return program.once("team of", lambda p: {who: team for team, members in p.teams.items()
                                              for who in members})


def mates_table(program: Program) -> dict[str, tuple[str, ...]]:
    """Each seated player -> the other members of their team (empty: they play alone)."""
    def make(p: Program) -> dict[str, tuple[str, ...]]:
        team = team_table(p)
        return {who: tuple(m for m in p.teams.get(team.get(who, ""), ()) if m != who)
                for who in p.players}
    return program.once("teammates", make)


def same_team(program: Program, a: Any, b: Any) -> bool:
    """Whether two players are one and the same, or members of one team."""
    if a == b:
        return True
    team = team_table(program)
    return a in team and team.get(a) == team.get(b)


def share(m, counter: str, who: Any) -> None:
    """After `who`'s entry of a per-team counter changed, every teammate's entry holds the
    same value: the team's one value, read through any member."""
    if counter in m.p.team_counters:
        table = m.s.counters[counter]
        for mate in mates_table(m.p).get(who, ()):
            table[mate] = table[who]


def winners(program: Program, result: dict[str, Any]) -> dict[str, Any]:
    """The result entries that say a team won, for a result whose `winner` is in a team:
    {"team": name, "winners": members}; nothing for a winner alone (the result stays as a
    game without teams writes it)."""
    winner = result.get("winner")
    team = team_table(program).get(winner) if winner.__class__ is str else None
    if team is None:
        return {}
    return {"team": team, "winners": list(program.teams[team])}


def credit_team(m) -> None:
    """Write the team entries of the result after `winner` was recorded (or take them out,
    when the winner recorded now plays alone or is none)."""
    result = m.s.result
    result.pop("team", None)
    result.pop("winners", None)
    result.update(winners(m.p, result))


def result_winners(result: dict[str, Any] | None) -> list[str]:
    """Every player a finished game's result counts as a winner: a team's members, or the
    one winner, or nobody (a tie or no result). What tools read instead of `winner`."""
    result = result or {}
    team = result.get("winners")
    if isinstance(team, list):
        return [str(w) for w in team]
    winner = result.get("winner")
    return [winner] if isinstance(winner, str) else []


def team_name(program: Program, team: str) -> str:
    """What a person reads for a team: the pack's `names:` entry, else its id."""
    return program.names.get(team) or team.replace("_", " ")


# ---- builtins ------------------------------------------------------------------------


def _player(m, who: Any, what: str) -> str:
    if who not in m.p.players:
        raise RuleError(f"{what} needs a seated player, not {str(who)[:80]!r}")
    return who


def team_of(m, who) -> str | None:
    """`team_of(p)`: the name of p's team, or none when p plays alone."""
    return team_table(m.p).get(_player(m, who, "team_of()"))


def teammates(m, who) -> list[str]:
    """`teammates(p)`: the other members of p's team, in seat order (empty when alone)."""
    return list(mates_table(m.p)[_player(m, who, "teammates()")])


def team_members(m, team) -> list[str]:
    """`team_members(t)`: the members of team t in seat order. Given a player instead, the
    members of that player's team, or the player alone (a player in no team is a team of
    one)."""
    teams = m.p.teams
    if team.__class__ is str and team in teams:
        return list(teams[team])
    if team in m.p.players:
        own = team_table(m.p).get(team)
        return [team] if own is None else list(teams[own])
    known = ", ".join(teams) or "none in this game"
    raise RuleError(f"team_members() needs a team, not {str(team)[:80]!r} (teams: {known})")
