"""Proof that the compiled expressions play exactly as the closures they replace.

    python -m hustings.tools.verify_backend [--games 500] [--seed 0] [--pack P] [--mod M]

Plays seeded random games (seed s: `random.Random(s).randrange(len(legal))` for every
decision, as `hustings bench` does) and runs every scenario of the pack and of each mod
under content/mods, once on each backend (interpreter/codegen.py), and compares the final
save and log byte for byte (for a scenario: also its failures; for a game that stops on a
RuleError: the error). Prints each difference and exits 1 if there is any.
tests/test_codegen.py runs the same comparison on a few seeds and every scenario.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..dsl.diagnostics import Report
from ..dsl.pack import builtin_pack
from ..dsl.scenarios import Runner, load_scenarios, scenario_files
from ..interpreter.codegen import BACKENDS, use_backend
from ..interpreter.errors import RuleError
from ..interpreter.game import Game
from ..interpreter.program import Program


def random_game(program: Program, seed: int) -> str:
    """The final save and log of one random game (or where a RuleError stopped it)."""
    game = Game.new(program, seed=seed, safe=False)
    pick = random.Random(seed)
    try:
        while not game.is_terminal():
            game.apply_action(pick.randrange(len(game.legal_actions())))
    except RuleError as e:
        return f"{game.save()}\n{chr(10).join(game.state.log)}\nRuleError: {e}"
    return f"{game.save()}\n{chr(10).join(game.state.log)}"


def scenarios(pack: Path | None = None) -> list[tuple[str, tuple[Path, ...], object, str]]:
    """Every scenario of the pack, then of each mod under content/mods (with its mod)."""
    base = pack or builtin_pack()
    report = Report()
    found = []
    for path in scenario_files([base / "scenarios"]):
        found += [(path.name, (), sc, where) for sc, where in load_scenarios(path, report)]
    if pack is None:
        for mod in sorted(p.parent for p in (base.parent / "mods").glob("*/mod.yaml")):
            for path in scenario_files([mod / "scenarios"]):
                found += [(f"{mod.name}/{path.name}", (mod,), sc, where)
                          for sc, where in load_scenarios(path, report)]
    if report.errors:
        raise SystemExit("\n".join(str(d) for d in report.errors))
    return found


def scenario_outcome(runner: Runner, case: tuple) -> str:
    _, mods, sc, where = case
    out = runner.run(sc, where, mods or None)
    game = out.game
    played = f"{game.save()}\n{chr(10).join(game.state.log)}" if game is not None else ""
    return f"{out.failures}\n{played}"


@functools.lru_cache(maxsize=4)
def shared_runner(pack: Path | None, mods: tuple[Path, ...]) -> Runner:
    """One runner (its programs loaded once) for both backends: each backend builds its
    own ops and functions from the same program."""
    return Runner(pack, mods)


def outcomes(runner: Runner, seeds: range,
             cases: list[tuple]) -> Iterator[tuple[str, Callable[[], str]]]:
    """(name, a function giving its outcome on the backend in use), for every case."""
    for seed in seeds:
        yield f"game seed {seed}", lambda seed=seed: random_game(runner.program({}), seed)
    for case in cases:
        yield (f"scenario {case[0]}: {case[2].name}",
               lambda case=case: scenario_outcome(runner, case))


def differences(pack: Path | None = None, mods: list[Path] | None = None,
                seeds: range = range(20), cases: list[tuple] = (),
                progress: Callable[[str], None] | None = None,
                runner: Runner | None = None) -> list[str]:
    """Names of the random games (by seed) and scenario cases (from `scenarios`) whose
    outcome differs between the backends."""
    runner = runner or shared_runner(pack, tuple(mods or ()))
    differ = []
    for name, outcome in outcomes(runner, seeds, list(cases)):
        results = []
        for b in BACKENDS:
            with use_backend(b):
                results.append(outcome())
        if len(set(results)) != 1:
            differ.append(name)
        if progress is not None:
            progress(name)
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hustings.tools.verify_backend",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500, help="random games (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="first game's seed (default 0)")
    parser.add_argument("--pack", type=Path, default=None, help="pack folder (default 1960)")
    parser.add_argument("--mod", type=Path, action="append", default=[], help="mod folder")
    parser.add_argument("--no-scenarios", action="store_true", help="games only")
    args = parser.parse_args(argv)
    count = [0]

    def progress(name: str) -> None:
        count[0] += 1
        if count[0] % 50 == 0:
            print(f"  {count[0]} compared ({name})", file=sys.stderr)

    cases = [] if args.no_scenarios else scenarios(args.pack)
    differ = differences(args.pack, args.mod, range(args.seed, args.seed + args.games),
                         cases, progress)
    for name in differ:
        print(f"DIFFERENT: {name}")
    print(f"{count[0]} cases compared, {len(differ)} different")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
