"""`hustings fuzz-saves`: corrupted saved games must be refused or play on soundly.

Saves are taken at random points of seeded random games and corrupted by a
seeded corruptor (numbers changed, keys deleted or added, lists swapped, cards
duplicated, values retyped, NaN). Each corrupted save must be refused by
`Game.load` with a SaveError message, or load into a state that passes every
invariant and plays on to the end with random agents. Any other exception is a
failure: the command prints it with the seed that reproduces it and exits 1.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from typing import Any

from .. import cli

NAME = "fuzz-saves"
HELP = "corrupt saved games at random; each must be refused or play on soundly"

MAX_ACTIONS = 5_000  # a game played on from a loaded save never needs more


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--saves", type=int, default=1000,
                        help="how many corrupted saves (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first one (default 1)")
    cli.add_pack_arguments(parser)


# ---- the corruptor ---------------------------------------------------------------


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value, as a path of keys and indices."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def _set(data: Any, path: tuple, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _number(rng: random.Random, n: int) -> Any:
    return rng.choice([n + 1, n - 1, -n, 0, -1, -1000, n * 7, 2**70, -(2**63), 1.5, True])


def _retype(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -5, "x", "", [], {}, [1, 2], {"a": 1},
                       float("nan"), float("inf"), 2.5, "nobody"])


def _text(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def corrupt(data: dict, rng: random.Random) -> str:
    """One seeded corruption of a save's JSON data (changed in place); returns the text.

    A mutation that happens to change nothing (a shuffle of equal items, a number
    search in a part without numbers) is followed by another, up to ten times."""
    before = _text(data)
    for _ in range(10):
        text = _mutate(data, rng)
        if text != before:
            break
    return text


def _mutate(data: dict, rng: random.Random) -> str:
    kind = rng.choice(["number", "number", "delete", "swap", "duplicate", "retype",
                       "retype", "add", "shuffle", "copy"])
    # a part of the save first (so the few frames weigh as much as the many places),
    # then a place inside it
    top = rng.choice(sorted(data))
    paths = _paths(data[top], (top,))
    path = rng.choice(paths)
    value = _get(data, path)
    parent = _get(data, path[:-1])
    if kind == "number":
        numbers = [p for p in paths if type(_get(data, p)) is int]
        if numbers:
            path = rng.choice(numbers)
            _set(data, path, _number(rng, _get(data, path)))
    elif kind == "delete":
        del parent[path[-1]]
    elif kind == "swap":
        lists = [p for p in _paths(data) if p and isinstance(_get(data, p), list | dict)]
        a, b = rng.choice(lists), rng.choice(lists)
        va, vb = _get(data, a), _get(data, b)
        if not _contains(a, b) and not _contains(b, a):
            _set(data, a, vb)
            _set(data, b, va)
    elif kind == "duplicate":
        zones = data.get("zones")
        if isinstance(zones, dict) and zones:
            cards = [c for held in zones.values() if isinstance(held, list) for c in held]
            target = zones[rng.choice(sorted(zones))]
            if cards and isinstance(target, list):
                target.append(rng.choice(cards))
    elif kind == "retype":
        _set(data, path, _retype(rng))
    elif kind == "add":
        if isinstance(value, dict):
            twin = f"{rng.choice(sorted(value))}2" if value else "x"
            value[rng.choice(["zzz", "1", twin])] = _retype(rng)
        elif isinstance(value, list):
            value.append(rng.choice(value) if value else _retype(rng))
        else:
            _set(data, path, [value, value])
    elif kind == "shuffle":
        lists = [p for p in paths if isinstance(_get(data, p), list) and len(_get(data, p)) > 1]
        if lists:
            rng.shuffle(_get(data, rng.choice(lists)))
    else:  # copy a value from elsewhere of the same save
        other = rng.choice(paths)
        if not _contains(path, other):
            _set(data, path, json.loads(json.dumps(_get(data, other))))
    return _text(data)


def _contains(outer: tuple, inner: tuple) -> bool:
    return inner[: len(outer)] == outer


# ---- checking one corrupted save -----------------------------------------------------


def saves_of_game(program, seed: int, every: int) -> list[str]:
    """Saves along a random game of the pack, every `every` actions; the pack's own game
    failing is the content's fault (there is nothing to corrupt yet)."""
    from ...interpreter.errors import RuleError
    from ...interpreter.game import Game
    from ..failures import InputError

    try:
        game = Game.new(program, seed=seed, safe=False)
        agent = random.Random(seed)
        out = [game.save()]
        while not game.is_terminal():
            game.apply_action(agent.randrange(game.num_actions()))
            if len(game.state.history) % every == 0:
                out.append(game.save())
        out.append(game.save())
    except RuleError as e:
        raise InputError(f"rule error in the pack's own game {seed}, before any save is "
                         f"corrupted: {e}") from None
    return out


def try_save(program, text: str, seed: int) -> tuple[str, str]:
    """('refused' | 'played' | 'rule error' | 'FAILED', detail) for one corrupted save."""
    from ...interpreter.errors import RuleError, SaveError
    from ...interpreter.game import Game, ops_for
    from ...interpreter.invariants import first_violation

    try:
        game = Game.load(program, text)
    except SaveError as e:
        return "refused", str(e)
    except Exception as e:  # noqa: BLE001 - this is what the fuzzer hunts
        return "FAILED", f"load raised {type(e).__name__}: {e}"
    agent = random.Random(seed)
    ops = ops_for(program)
    try:
        for _ in range(MAX_ACTIONS):
            problem = first_violation(program, game.state, ops)
            if problem:
                return "FAILED", f"loaded, then broke an invariant: {problem}"
            if game.is_terminal():
                return "played", ""
            game.apply_action(agent.randrange(game.num_actions()))
        return "FAILED", f"still playing after {MAX_ACTIONS} actions"
    except RuleError as e:
        return "rule error", str(e)
    except Exception as e:  # noqa: BLE001
        return "FAILED", f"play raised {type(e).__name__}: {e}"


def fuzz(program, first_seed: int, count: int):
    """Yield (seed, outcome, detail) for `count` corrupted saves."""
    base: dict[int, list[str]] = {}
    for seed in range(first_seed, first_seed + count):
        game_seed = seed % 5
        if game_seed not in base:
            base[game_seed] = saves_of_game(program, game_seed, 7)
        rng = random.Random(seed)
        data = json.loads(rng.choice(base[game_seed]))
        text = corrupt(data, rng)
        for _ in range(rng.choice([0, 0, 0, 1, 2])):  # some saves get several corruptions
            text = corrupt(json.loads(text), rng)
        outcome, detail = try_save(program, text, seed)
        yield seed, outcome, detail


def run(args: argparse.Namespace) -> int:
    program = cli.load_or_report(args.pack, cli.parse_options(args.option), args.mods)
    if program is None:
        return 1
    start = time.perf_counter()
    tally: Counter = Counter()
    messages: Counter = Counter()
    for seed, outcome, detail in fuzz(program, args.seed, args.saves):
        tally[outcome] += 1
        if outcome == "refused":
            messages[re.sub(r"\d+", "N", detail)[:70]] += 1
        if outcome in ("FAILED", "rule error"):
            print(f"{outcome.upper()} seed {seed}: {detail}", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print("most frequent refusals:")
    for text, n in messages.most_common(12):
        print(f"  {n:5}  {text}")
    print(json.dumps({"saves": args.saves, **{k: tally[k] for k in
                      ("refused", "played", "rule error", "FAILED")},
                      "seconds": round(elapsed, 1)}))
    return 1 if tally["FAILED"] else 0
