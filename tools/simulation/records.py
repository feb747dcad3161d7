"""One game played to the end and described as one JSON object (a line of the results file).

A record holds the seed, the seats, the winner, every per-player figure the game recorded in
its result, the margin and places won (as the pack's `agents:` section declares them), and
every use of a card. A card use is an action whose label matches one of the pack's
`card_uses` patterns (e.g. `{title}: event`), credited to the player who chose it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...interpreter.errors import RuleError
from ...interpreter.game import Game
from ...interpreter.program import Program
from ..agents import make_agent
from ..failures import InputError
from ..play import options_of, weigh

# Record keys that depend on the machine, not on the game: left out when comparing runs.
TIMING_KEYS = ("think",)


@dataclass(frozen=True)
class Matchup:
    """Who sits where: agent specs by player; with `swap`, odd seeds rotate the seats."""

    seats: dict[str, str]
    swap: bool = False

    def for_seed(self, index: int) -> dict[str, str]:
        players = list(self.seats)
        if not self.swap or index % 2 == 0:
            return dict(self.seats)
        specs = [self.seats[p] for p in players]
        return dict(zip(players, specs[-1:] + specs[:-1], strict=True))


@dataclass
class UseTable:
    """Action label -> (card number, use): built once per program from its card_uses."""

    labels: dict[str, tuple[int, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, program: Program) -> UseTable:
        table = cls()
        patterns = (program.agents or {}).get("card_uses") or {}
        for number in sorted(program.cards):
            title = program.cards[number]["title"]
            for use, pattern in patterns.items():
                label = pattern.replace("{title}", title).replace("{number}", str(number))
                table.labels.setdefault(label, (number, use))
        return table


def play_record(program: Program, seed: int, seats: dict[str, str]) -> dict[str, Any]:
    """Play one seeded game between the seated agents and describe it."""
    uses_table = program.once("card uses", UseTable.of)  # kept with the program it reads
    agents = {p: make_agent(seats[p], seed * 101 + i) for i, p in enumerate(program.players)}
    think = dict.fromkeys(program.players, 0.0)
    decisions = dict.fromkeys(program.players, 0)
    uses: list[list] = []
    try:
        game = Game.new(program, seed=seed, safe=False, narrate=False)  # nobody reads it
    except RuleError as e:
        raise InputError(f"rule error setting up game {seed}: {e}") from None
    actions = 0
    while not game.is_terminal():
        player = game.current_player()
        start = time.perf_counter()
        index = weigh(agents[player], game, f"the {seats[player]} agent weighed {player}'s "
                      f"options in game {seed} after {actions} actions")
        think[player] += time.perf_counter() - start
        decisions[player] += 1
        label = options_of(game, f"in game {seed} after {actions} actions")[index]
        use = uses_table.labels.get(label)
        if use is not None:
            uses.append([use[0], use[1], player])
        try:
            game.apply_action(index)
        except RuleError as e:
            raise InputError(f"rule error in game {seed} after {actions} actions "
                             f"({player}: {label}): {e}") from None
        actions += 1
    return describe(game, seed, seats, uses, decisions, think)


def describe(game: Game, seed: int, seats: dict[str, str], uses: list[list],
             decisions: dict[str, int], think: dict[str, float]) -> dict[str, Any]:
    result = game.result() or {}
    players = game.program.players
    scores = {k: v for k, v in sorted(result.items())
              if isinstance(v, dict) and set(v) <= set(players)}
    declared = game.program.agents or {}
    record: dict[str, Any] = {
        "seed": seed,
        "seats": seats,
        "winner": result.get("winner"),
        **({"winners": result["winners"]} if "winners" in result else {}),  # a team's
        "scores": scores,
        "margin": margin(scores.get(declared.get("margin") or ""), result.get("winner")),
        "places": places(game, declared.get("places")),
        "uses": uses,
        "decisions": decisions,
        "think": {p: round(t, 4) for p, t in think.items()},
    }
    return record


def margin(figure: dict[str, Any] | None, winner: str | None) -> float | None:
    """The winner's figure less the best other player's (0 on a tie)."""
    if not figure:
        return None
    values = sorted((v for v in figure.values() if isinstance(v, (int, float))), reverse=True)
    if len(values) < 2:
        return None
    return values[0] - values[1] if winner is not None else 0


def places(game: Game, function: str | None) -> dict[str, list[str]]:
    if not function:
        return {}
    return {p: list(game.evaluate(function, p)) for p in game.program.players}


# ---- the results file ----------------------------------------------------------------
def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete record of a JSON Lines file; a torn last line (an interrupted run)
    is ignored, any other bad line is an error naming it."""
    records = []
    lines = path.read_text().splitlines() if path.exists() else []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as e:
            if number == len(lines):
                break
            raise ValueError(f"{path}:{number}: not a JSON record ({e.msg})") from None
    return records


def write_records(path: Path, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Append each record as one line as soon as it comes; yields it on."""
    with path.open("a") as out:
        for record in records:
            out.write(json.dumps(record, sort_keys=True) + "\n")
            out.flush()
            yield record


def without_timing(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in TIMING_KEYS}
