"""The `hustings` command line: play, check, scenario, bench, schema (and tools/commands/)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..dsl.diagnostics import ContentError
from ..dsl.pack import builtin_pack, check_pack, load_pack
from ..dsl.scenarios import run_paths
from ..interpreter.errors import IllegalAction, RuleError
from ..interpreter.game import Game
from ..interpreter.program import Program
from .agents import AGENTS
from .commands import discover
from .report import print_check
from .terminal.human import human_agent


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "play":
        return play_command(args, rest)
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    commands = {
        "check": check_command, "scenario": scenario_command, "bench": bench_command,
        "schema": schema_command,
    }
    for module in discover():
        commands[module.NAME] = module.run
    return commands[args.command](args)


def add_mod_argument(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--mod", action="append", default=[], type=Path, metavar="PATH",
                    dest="mods", help="apply a mod folder (repeatable; applied in order)")


def add_pack_arguments(sp: argparse.ArgumentParser) -> None:
    """--pack, --option and --mod: which content a command loads."""
    sp.add_argument("--pack", type=Path, default=None, help="pack folder (default: 1960)")
    sp.add_argument("--option", action="append", default=[], metavar="NAME[=off]",
                    help="switch an optional rule on (or off with =off)")
    add_mod_argument(sp)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hustings", description="Rules-as-data card game engine.")
    sub = p.add_subparsers(dest="command")

    mod_arg, pack_args = add_mod_argument, add_pack_arguments

    play = sub.add_parser("play", help="play a game (each player: human, random or greedy)")
    pack_args(play)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--quiet", action="store_true", help="print only the result as JSON")
    play.add_argument("--log", type=Path, help="write the action log to this file")
    play.add_argument("--replay", type=Path, help="replay an action log")

    check = sub.add_parser("check", help="load and compile a pack, report every problem")
    check.add_argument("path", nargs="?", type=Path, default=None)
    check.add_argument("--option", action="append", default=[], metavar="NAME[=off]")
    check.add_argument("--format", choices=["text", "json", "github"], default="text")
    mod_arg(check)

    scen = sub.add_parser("scenario", help="run scenario files")
    scen.add_argument("paths", nargs="+", type=Path)
    scen.add_argument("--pack", type=Path, default=None)
    scen.add_argument("--verbose", "-v", action="store_true")
    mod_arg(scen)

    schema = sub.add_parser("schema", help="write JSON Schemas of the content files")
    schema.add_argument("--out", type=Path, default=None, help="folder (default: schemas/json)")

    for module in discover():
        module.add_arguments(sub.add_parser(module.NAME, help=module.HELP))

    bench = sub.add_parser("bench", help="random-vs-random games; prints games/s")
    pack_args(bench)
    bench.add_argument("--games", type=int, default=50)
    bench.add_argument("--seed", type=int, default=1)
    return p


def parse_options(values: list[str]) -> dict[str, bool]:
    out = {}
    for v in values:
        name, _, flag = v.partition("=")
        out[name] = flag.lower() not in ("off", "false", "0", "no")
    return out


def load_or_report(pack: Path | None, options: dict[str, bool],
                   mods: list[Path] | None = None) -> Program | None:
    try:
        return load_pack(pack, options, mods or ())
    except ContentError as e:
        for d in e.report.errors:
            print(d, file=sys.stderr)
        return None


def load_card(args: argparse.Namespace) -> tuple[Program, int] | None:
    """The program and the card that `args.card` names, or None after reporting why not."""
    from .reading.card_lookup import CardNotFound, find_card

    program = load_or_report(args.pack, parse_options(args.option), args.mods)
    if program is None:
        return None
    try:
        return program, find_card(program, args.card)
    except CardNotFound as e:
        print(f"error: {e}", file=sys.stderr)
        return None


# ---- play -------------------------------------------------------------------
def play_command(args: argparse.Namespace, rest: list[str]) -> int:
    options = parse_options(args.option)
    replay = None
    if args.replay:
        replay = json.loads(args.replay.read_text())
        args.seed = replay.get("seed", args.seed)
        options = replay.get("options", options)
        if "mods" in replay and not args.mods:
            args.mods = [Path(m) for m in replay["mods"]]
    program = load_or_report(args.pack, options, args.mods)
    if program is None:
        return 1
    seats = argparse.ArgumentParser(prog="hustings play")
    for player in program.players:
        seats.add_argument(f"--{player}", choices=["human", "random", "greedy"], default="random")
    chosen = vars(seats.parse_args(rest))
    agents = {}
    for i, player in enumerate(program.players):
        kind = chosen[player]
        if kind == "human":
            agents[player] = human_agent()
        else:
            agents[player] = AGENTS[kind](args.seed * 101 + i)
    game = Game.new(program, seed=args.seed, safe=True)
    shown = 0
    actions = list(replay["actions"]) if replay else None
    while not game.is_terminal():
        if not args.quiet:
            shown = narrate(game, shown)
        player = game.current_player()
        if actions is not None:
            if not actions:
                print("the replay ends before the game does", file=sys.stderr)
                return 1
            choice: int | str = actions.pop(0)
        else:
            choice = agents[player](game)
        label = game.legal_actions()[choice] if isinstance(choice, int) else choice
        try:
            game.apply_action(label)
        except (IllegalAction, RuleError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"  [{player}] {label}")
    if not args.quiet:
        narrate(game, shown)
        print(final_map(game))
    result = game.result() or {}
    print(json.dumps(result, sort_keys=True))
    if args.log:
        log = {"seed": args.seed, "options": options, "actions": game.state.history}
        if args.mods:
            log["mods"] = [str(m) for m in args.mods]
        args.log.write_text(json.dumps(log, indent=1) + "\n")
    return 0


def narrate(game: Game, shown: int) -> int:
    log = game.state.log
    for line in log[shown:]:
        print(line)
    return len(log)


def board_summary(game: Game, player: str) -> str:
    """A compact view of what `player` can see."""
    obs = game.observation(player)
    shown = {k: v for k, v in obs["vars"].items() if _worth_showing(k, v)}
    lines = [f"-- {game.program.name}: " + ", ".join(f"{k}={v}" for k, v in shown.items())]
    for name, table in obs["counters"].items():
        lines.append(f"   {name}: " + ", ".join(f"{p} {n}" for p, n in table.items()))
    for name, items in obs["tracks"].items():
        lines.append(f"   {name}: {' > '.join(items)}")
    lines.append("   tokens: " + ", ".join(f"{p} in {w}" for p, w in obs["tokens"].items()))
    for pool, held in obs["pools"].items():
        if held:
            cells = [f"{w}:{o[0]}{n}" for w, (o, n) in sorted(held.items())]
            lines.append(f"   {pool}: " + " ".join(cells))
    for zone, content in obs["zones"].items():
        if zone.endswith(":" + player) and isinstance(content, list) and content:
            lines.append(f"   {zone}:")
            lines.extend(f"     {card_line(game, c)}" for c in content)
    return "\n".join(lines)


def _worth_showing(name: str, value) -> bool:
    """Plain values of the game; options, flags and lists stay out of the way."""
    return (not name.startswith("option_") and value is not None
            and not isinstance(value, (bool, list)))


def card_line(game: Game, card: int) -> str:
    """A card's title and its own properties, e.g. `Title (cp 4, icon both, ...)`."""
    info = game.program.cards[card]
    extra = [f"{k} {v}" for k, v in info.items()
             if k not in ("number", "title", "kind", "text") and v not in (None, "")]
    return f"{info['title']} ({', '.join(extra)})" if extra else info["title"]


def final_map(game: Game) -> str:
    """Each player's places in the first pool (for 1960: the states they carry)."""
    s = game.state
    pool = next(iter(s.pools))
    lines = ["== Final map =="]
    for player in game.program.players:
        places = sorted(w for w, (o, _) in s.pools[pool].items() if o == player)
        lines.append(f"{player}: {' '.join(places)}")
    return "\n".join(lines)


# ---- check ------------------------------------------------------------------
def check_command(args: argparse.Namespace) -> int:
    if args.path is not None and not args.path.is_dir():
        print(f"hustings check: {args.path} is not a pack folder", file=sys.stderr)
        return 2
    start = time.perf_counter()
    loaded = check_pack(args.path, parse_options(args.option), args.mods)
    elapsed = time.perf_counter() - start
    label = args.path or builtin_pack()
    if args.mods:
        label = f"{label} + {' + '.join(str(m) for m in args.mods)}"
    return print_check(loaded, args.format, elapsed, label)


# ---- scenario -----------------------------------------------------------------
def scenario_command(args: argparse.Namespace) -> int:
    outcomes, report = run_paths(args.paths, args.pack, args.mods)
    for d in report.diagnostics:
        print(d)
    passed = failed = 0
    for o in outcomes:
        if o.ok:
            passed += 1
            if args.verbose:
                print(f"PASS {o.name}")
        else:
            failed += 1
            print(f"FAIL {o.name} ({o.path})")
            for f in o.failures:
                print(f"     {f}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and not report.errors and outcomes else 1


# ---- schema -------------------------------------------------------------------
def schema_command(args: argparse.Namespace) -> int:
    from ..schemas.export import DEFAULT_FOLDER, write_schemas

    for path in write_schemas(args.out or DEFAULT_FOLDER):
        print(path)
    return 0


# ---- bench --------------------------------------------------------------------
def bench_command(args: argparse.Namespace) -> int:
    from .agents import random_agent

    program = load_or_report(args.pack, parse_options(args.option), args.mods)
    if program is None:
        return 1
    decisions = 0
    start = time.perf_counter()
    for g in range(args.games):
        seed = args.seed + g
        game = Game.new(program, seed=seed, safe=False)
        agent = random_agent(seed)
        while not game.is_terminal():
            game.apply_action(agent(game))
            decisions += 1
    elapsed = time.perf_counter() - start
    print(f"{args.games} games, {decisions} decisions in {elapsed:.2f} s")
    print(json.dumps({
        "games": args.games,
        "games_per_s": round(args.games / elapsed, 1),
        "decisions_per_s": round(decisions / elapsed),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
