"""The `hustings` command line: parsing and dispatch only.

The play loop is in tools/play.py, further commands in tools/commands/ (one module
each), and how every failure ends (exit status and message) in tools/failures.py.

Start-up time counts (`check` and `play` are run by hand, over and over): what a command
needs is imported when it runs; a further command's module only when the command line
names it (all of them only to list them, for --help or a misnamed command).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .collector import collect_after_startup
from .commands import discover
from .failures import UsageError, guarded

if TYPE_CHECKING:
    from ..interpreter.program import Program

DEBUG_FLAG = "--debug"
_TRUE, _FALSE = ("on", "true", "yes", "1"), ("off", "false", "no", "0")


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # this process is the command (not a test or a script calling main)
        collect_after_startup()
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = DEBUG_FLAG in argv
    argv = [a for a in argv if a != DEBUG_FLAG]
    return guarded(lambda: dispatch(argv), argv, debug)


def dispatch(argv: list[str]) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    commands = {
        "play": play_command, "check": check_command, "scenario": scenario_command,
        "bench": bench_command, "schema": schema_command,
    }
    if args.command not in commands:
        commands.update((module.NAME, module.run) for module in discover(args.command))
    return commands[args.command](args)


BUILT_IN = ("play", "check", "scenario", "bench", "schema")


def named_command(argv: list[str]) -> str | None:
    """The subcommand a command line names: its first word that is not a flag."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


# ---- arguments shared by commands ------------------------------------------------
def new_parser(**kwargs) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(allow_abbrev=False, **kwargs)


def add_mod_argument(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--mod", action="append", default=[], type=Path, metavar="PATH",
                    dest="mods", help="apply a mod folder (repeatable; applied in order)")


def add_pack_arguments(sp: argparse.ArgumentParser) -> None:
    """--pack, --option and --mod: which content a command loads."""
    sp.add_argument("--pack", type=Path, default=None, metavar="PATH",
                    help="pack folder (default: the built-in 1960 pack)")
    sp.add_argument("--option", action="append", default=[], metavar="NAME[=on|off]",
                    help="switch an optional rule on (or off: =off, =false, =no, =0); repeatable")
    add_mod_argument(sp)


def add_players_argument(sp: argparse.ArgumentParser) -> None:
    """--players N: how many players a game seats, within the pack's `player_count:`."""
    sp.add_argument("--players", type=positive_int, default=None, metavar="N",
                    help="seat N players (within the pack's player_count; default: its own)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seed_value(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError("a seed is a whole number from 0 to 2**63-1")
    return value


def parse_options(values: list[str]) -> dict[str, bool]:
    """`--option NAME` or `NAME=VALUE` with an on/off value; anything else is a usage error."""
    out = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not name.strip():
            raise UsageError(f"--option {text!r}: give an option name, e.g. --option NAME")
        if not sep or value.lower() in _TRUE:
            out[name] = True
        elif value.lower() in _FALSE:
            out[name] = False
        else:
            raise UsageError(f"--option {text}: the value must be on/off, true/false, yes/no "
                             "or 1/0")
    return out


def pack_folder(pack: Path | None) -> Path | None:
    if pack is not None and not pack.is_dir():
        raise UsageError(f"--pack {pack}: no pack folder there (a pack folder holds pack.yaml)")
    return pack


def load_or_report(pack: Path | None, options: dict[str, bool],
                   mods: list[Path] | None = None, players: int | None = None) -> Program | None:
    from ..dsl.diagnostics import ContentError
    from ..dsl.loading import load_pack

    try:
        return load_pack(pack_folder(pack), options, mods or (), players)
    except ContentError as e:
        players_refused(e)
        for d in e.report.errors:
            print(d, file=sys.stderr)
        return None


def players_refused(e: Exception) -> None:
    """A pack refused only for the count of players asked (E176) is the command line's
    fault: one line and exit 2 (UsageError), not the pack's diagnostics."""
    errors = e.report.errors
    if errors and all(d.code == "E176" for d in errors):
        raise UsageError(f"--players: {errors[0].message} ({errors[0].hint})") from None


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


# ---- the parser -------------------------------------------------------------------
def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; for a command line naming a built-in command, only that command's
    (it is all that parses it), so nothing the other commands need is imported."""
    argv = argv or []
    p = new_parser(prog="hustings", description="Rules-as-data card game engine.",
                   epilog="--debug (anywhere on the line): show the traceback of an internal "
                          "error instead of writing it to a file.")
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    named = named_command(argv)
    only = named if named in BUILT_IN else None
    for name, add in (("play", lambda: add_play_parser(sub, pack_players(argv, "play"))),
                      ("check", lambda: add_check_parser(sub)),
                      ("scenario", lambda: add_scenario_parser(sub)),
                      ("schema", lambda: add_schema_parser(sub)),
                      ("", lambda: add_further_parsers(sub, argv)),
                      ("bench", lambda: add_bench_parser(sub))):
        if only in (None, name):
            add()
    return p


def add_check_parser(sub) -> None:
    check = sub.add_parser("check", help="load and compile a pack, report every problem",
                           allow_abbrev=False)
    check.add_argument("path", nargs="?", type=Path, default=None, metavar="PATH",
                       help="pack folder, as --pack (`hustings check content/1960`)")
    add_pack_arguments(check)
    check.add_argument("--format", choices=["text", "json", "github"], default="text")


def add_scenario_parser(sub) -> None:
    scen = sub.add_parser("scenario", help="run scenario files", allow_abbrev=False)
    scen.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                      help="scenario files or folders of them")
    add_pack_arguments(scen)
    add_players_argument(scen)
    scen.add_argument("--verbose", "-v", action="store_true", help="name each passing scenario")
    scen.add_argument("--format", choices=["text", "github"], default="text",
                      help="github: each failure as a workflow annotation at its file and line")


def add_schema_parser(sub) -> None:
    schema = sub.add_parser("schema", help="write JSON Schemas of the content files",
                            allow_abbrev=False)
    schema.add_argument("--out", type=Path, default=Path("schemas", "json"), metavar="FOLDER",
                        help="folder to write to (default: ./schemas/json under the current "
                             "folder)")
    schema.add_argument("--pack", type=Path, default=None, metavar="PATH",
                        help="include this pack's card and board fields (default: generic "
                             "schemas that allow any extra field)")


def add_further_parsers(sub, argv: list[str]) -> None:
    for module in discover(named_command(argv)):
        parser = sub.add_parser(module.NAME, help=module.HELP, allow_abbrev=False)
        module.add_arguments(parser)
        if hasattr(module, "add_player_flags"):  # seats named after the pack's players
            module.add_player_flags(parser, pack_players(argv, module.NAME))


def add_bench_parser(sub) -> None:
    bench = sub.add_parser(
        "bench", allow_abbrev=False,
        help="random-vs-random games; games/s and decisions/s per core and in total",
        description="Random-vs-random games, then plain-Python tic-tac-toe played the same "
                    "way as a yardstick (and, with the openspiel extra, OpenSpiel's "
                    "pure-Python tic-tac-toe). Per-core speeds are CPU time summed over the "
                    "processes; the total is wall-clock time. Ends with one JSON line.")
    add_pack_arguments(bench)
    bench.add_argument("--games", type=positive_int, default=50, metavar="N",
                       help="how many games (at least 1; default 50)")
    bench.add_argument("--seed", type=seed_value, default=1, help="first game's seed")
    bench.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                       help="processes to play them in, each a contiguous block of seeds "
                            "(default 1: this process)")
    bench.add_argument("--startup", type=positive_int, default=None, metavar="RUNS",
                       help="also time `check` and `play --quiet` of the pack, each a whole "
                            "process, compiling the pack and with the pack cache, RUNS times "
                            "each (wall clock)")
    bench.add_argument("--hostile", action="store_true",
                       help="instead of games, time `check` refusing six hostile packs (each "
                            "must end in its positioned diagnostic within 5 s and 500 MB)")


def add_play_parser(sub, players: list[str] | None) -> None:
    from .play import agent_names

    agents = agent_names()
    play = sub.add_parser(
        "play", help="play a game (each seat: " + ", ".join(agents) + ")", allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play a game. Each seat is played by an agent; seats not given are random.")
    add_pack_arguments(play)
    add_players_argument(play)
    play.add_argument("--seed", type=seed_value, default=None,
                      help="the deal (default: a fresh random seed, printed so the game can "
                           "be played again)")
    play.add_argument("--seat", action="append", default=[], metavar="PLAYER=AGENT",
                      help="who plays a seat, e.g. --seat PLAYER=human (repeatable)")
    play.add_argument("--quiet", action="store_true",
                      help="print only the result as one JSON line")
    play.add_argument("--log", type=Path, metavar="FILE",
                      help="write the session file (the game's log) here at the end")
    play.add_argument("--lang", default="en", metavar="LANG",
                      help="the language everything shown is in, from the pack's "
                           "locale/LANG.po (default: en, the pack's own words)")
    source = play.add_mutually_exclusive_group()
    source.add_argument("--replay", type=Path, metavar="FILE",
                        help="replay a log to its end (the same mods must be given with --mod)")
    source.add_argument("--resume", type=Path, metavar="FILE",
                        help="go on with a saved game (seats as recorded; --seat overrides)")
    flagged = add_seat_flags(play, players, None)  # an agent may have settings: checked later
    play.epilog = seats_epilog(players, flagged, agents)


def add_seat_flags(parser: argparse.ArgumentParser, players: list[str] | None,
                   choices: list[str] | None) -> list[str]:
    """`--PLAYER AGENT` for each player whose name no option of `parser` already takes
    (the same as `--seat PLAYER=AGENT`); the players flagged."""
    taken = set(parser._option_string_actions)
    flagged = [p for p in players or [] if f"--{p}" not in taken]
    for player in flagged:
        parser.add_argument(f"--{player}", choices=choices, dest=f"seat_{player}",
                            metavar="AGENT",
                            help=f"who plays {player} (the same as --seat {player}=AGENT)")
    parser.set_defaults(player_flags=flagged)
    return flagged


def seats_epilog(players: list[str] | None, flagged: list[str], agents: list[str]) -> str:
    if players is None:
        seats = "seats: (the pack named by --pack cannot be read)"
    else:
        seats = f"seats: {', '.join(players)}"
    lines = [f"{seats}; agents: {', '.join(agents)}"]
    clashing = [p for p in players or [] if p not in flagged]
    if clashing:
        lines.append("no per-player flag for " + ", ".join(clashing) +
                     " (the name is taken by a play flag or is not a flag name): use --seat")
    lines.append("At a human prompt: a number or a label picks an action; `save [FILE]`, "
                 "`undo` and `quit` act on the game. Ctrl-C saves to the default file.")
    return "\n".join(lines)


_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def pack_players(argv: list[str], command: str) -> list[str] | None:
    """The players of the pack a `play` (or `simulate`) command line names, read cheaply,
    without compiling.

    They become the per-player seat flags and are listed by `play --help`. None when the
    pack cannot be read (loading it later reports why)."""
    if command not in argv:
        return []
    from ..dsl.loading import builtin_pack

    pack = builtin_pack()
    for i, arg in enumerate(argv):
        if arg == "--pack" and i + 1 < len(argv):
            pack = Path(argv[i + 1])
        elif arg.startswith("--pack="):
            pack = Path(arg.split("=", 1)[1])
    try:
        from ruamel.yaml import YAML

        manifest_file = pack / "pack.yaml"
        if manifest_file.stat().st_size > 1_000_000:
            return None
        players = YAML(typ="safe").load(manifest_file.read_text("utf-8"))["players"]
    except Exception:  # any problem is reported when the pack is loaded for real
        return None
    if not isinstance(players, list):
        return None
    return [p for p in players if isinstance(p, str) and _NAME.match(p)]


class VersionAction(argparse.Action):
    """`--version`: the installed version, looked up only when asked for (reading the
    package metadata costs every other command 20-40 ms)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hustings")
    except PackageNotFoundError:
        return "(not installed)"


# ---- play -------------------------------------------------------------------------
def play_command(args: argparse.Namespace) -> int:
    from .play import PlayArgs, play

    return play(PlayArgs(
        pack=pack_folder(args.pack), options=parse_options(args.option), mods=args.mods,
        seed=args.seed, seats=seat_choices(args), quiet=args.quiet, log=args.log,
        replay=args.replay, resume=args.resume, language=args.lang, players=args.players,
    ))


def seat_choices(args: argparse.Namespace) -> dict[str, str]:
    """Seats from --seat PLAYER=AGENT and --PLAYER AGENT; one player given two agents fails."""
    from .play import agent_problem

    chosen: dict[str, str] = {}
    given = [item.partition("=") for item in args.seat]
    given += [(p, "=", getattr(args, f"seat_{p}")) for p in args.player_flags
              if getattr(args, f"seat_{p}") is not None]
    for player, sep, agent in given:
        if not sep or not player or not agent:
            raise UsageError("--seat wants PLAYER=AGENT, e.g. --seat "
                             f"{player or 'PLAYER'}=human")
        problem = agent_problem(agent)
        if problem:
            raise UsageError(f"--seat {player}={agent}: {problem}")
        if chosen.get(player, agent) != agent:
            raise UsageError(f"{player} is seated twice: {chosen[player]} and {agent}")
        chosen[player] = agent
    return chosen


# ---- check ------------------------------------------------------------------------
def check_command(args: argparse.Namespace) -> int:
    from ..dsl.loading import builtin_pack, check_pack, parsing_once
    from .report import Wider, print_check

    if args.path is not None and args.pack is not None and args.path != args.pack:
        raise UsageError(f"two packs named: {args.path} and --pack {args.pack}; name one")
    named = args.path if args.path is not None else args.pack
    if named is not None and (named / "mod.yaml").is_file() and not (named / "pack.yaml").exists():
        raise UsageError(f"{named} is a mod (it has mod.yaml): check it on its pack with "
                         f"`hustings check --mod {named}`")
    pack = pack_folder(named)
    options = parse_options(args.option)
    start = time.perf_counter()
    with parsing_once():  # a second run below reads the same effect texts
        loaded = check_pack(pack, options, args.mods)
        # Cards and players only an option brings are checked too: again with those
        # options on (the ones the command line leaves unnamed).
        wider_on = [o for o in loaded.stats.gated_off if o not in options]
        wider = check_pack(pack, {**options, **dict.fromkeys(wider_on, True)}, args.mods) \
            if wider_on else None
        counted = other_counts(pack, options, args.mods, loaded)
    if counted:
        loaded = dataclasses.replace(loaded, report=dataclasses.replace(
            loaded.report, diagnostics=[*loaded.report.diagnostics, *counted]))
    # the pack's message catalogs (locale/*.po): each loads, and names only pack texts
    from .commands.translate import catalog_diagnostics

    extra = catalog_diagnostics(pack or builtin_pack(), loaded.program) \
        if loaded.program is not None else []
    if extra:
        loaded = dataclasses.replace(loaded, report=dataclasses.replace(
            loaded.report, diagnostics=[*loaded.report.diagnostics, *extra]))
    elapsed = time.perf_counter() - start
    label = pack or builtin_pack()
    if args.mods:
        label = f"{label} + {' + '.join(str(m) for m in args.mods)}"
    return print_check(loaded, args.format, elapsed, label, Wider(wider_on, wider))


MAX_COUNTS_CHECKED = 8  # a wider range is checked at its least, default and greatest counts


def other_counts(pack: Path | None, options: dict[str, bool], mods: list[Path],
                 loaded) -> list:
    """What compiling the pack at each other count of its `player_count:` range finds that
    the default count did not, each message saying the count: whatever `check` passes
    plays with any number of players the pack allows."""
    from ..dsl.diagnostics import Diagnostic
    from ..dsl.loading import check_pack

    counts = loaded.stats.player_counts
    if counts is None:
        return []
    least, most, default = counts
    every = range(least, most + 1)
    if len(every) > MAX_COUNTS_CHECKED:
        every = sorted({least, most})
    seen = {str(d) for d in loaded.report.diagnostics}
    found: list[Diagnostic] = []
    for n in every:
        if n == default:
            continue
        for d in check_pack(pack, options, mods, n).report.diagnostics:
            if str(d) not in seen:
                seen.add(str(d))
                found.append(dataclasses.replace(d, message=f"{d.message} (with {n} players)"))
    return found


# ---- scenario ---------------------------------------------------------------------
def scenario_command(args: argparse.Namespace) -> int:
    from ..dsl.scenarios import run_paths
    from .report import github_line, scenario_annotation

    missing = [p for p in args.paths if not p.exists()]
    if missing:
        raise UsageError(f"scenario: no such file or folder: {missing[0]}")
    outcomes, report = run_paths(args.paths, pack_folder(args.pack), args.mods,
                                 parse_options(args.option), args.players)
    github = args.format == "github"
    for d in report.diagnostics:
        print(github_line(d) if github else d)
    passed = failed = 0
    for o in outcomes:
        if o.ok:
            passed += 1
            if args.verbose:
                print(f"PASS {o.name}")
            continue
        failed += 1
        if github:
            for d in o.problems:
                print(scenario_annotation(o.name, d))
            continue
        print(f"{'SKIP' if o.skipped else 'FAIL'} {o.name} ({o.path})")
        for f in o.failures:
            print(f"     {f}")
    skipped = [o for o in outcomes if o.skipped]
    shown = "; ".join(f"{o.name} ({o.path})" for o in skipped[:5])
    more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
    print(f"{passed} passed, {failed} failed"
          + (f" ({len(skipped)} not run, counted as failed: {shown}{more})" if skipped else ""))
    return 0 if failed == 0 and not report.errors and outcomes else 1


# ---- schema -----------------------------------------------------------------------
def schema_command(args: argparse.Namespace) -> int:
    from ..dsl.pack import pack_declarations
    from ..schemas.export import write_schemas

    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: a file is in the way, not a folder")
    manifest, places = None, None
    if args.pack is not None:
        manifest, places, report = pack_declarations(pack_folder(args.pack))
        if report.errors:
            for d in report.errors:
                print(d, file=sys.stderr)
            return 1
    try:
        written = write_schemas(args.out, manifest, places)
    except OSError as e:
        raise UsageError(f"--out {args.out}: cannot write there ({e.strerror})") from None
    for path in written:
        print(path)
    return 0


# ---- bench ------------------------------------------------------------------------
def bench_command(args: argparse.Namespace) -> int:
    from . import benchmark, startup
    from .yardsticks import Yardsticks

    if args.hostile:
        return hostile_command()
    options = parse_options(args.option)
    program = load_or_report(args.pack, options, args.mods)
    if program is None:
        return 1
    blocks = benchmark.seed_blocks(args.seed, args.games, args.jobs)
    with benchmark.on_one_cpu(len(blocks) == 1):  # several processes: several CPUs
        yardsticks = Yardsticks(args.seed)
        try:
            tallies = benchmark.run_games(program, blocks, args.pack, options,
                                          list(args.mods), yardsticks)
            yardsticks.top_up()
            memory = benchmark.peak_mb()  # before the OpenSpiel helper (numpy and all) ends
        finally:
            yardsticks.close()
    branching = benchmark.branching(program, args.seed, args.games)  # off the clock
    figures = benchmark.summary(tallies, yardsticks, memory, branching)
    narrated = benchmark.narrated_speed(program, blocks[0])  # off the yardsticks' clock
    figures["narrated_games_per_s"] = round(narrated, 1)
    lines = benchmark.report_lines(figures, memory)
    lines.insert(3, f"  with the narration a person's game has (play, serve), the first "
                 f"{min(args.games, benchmark.NARRATED_GAMES)} games: {narrated:.1f} games/s")
    times = startup_times(args) if args.startup else None
    figures.update(startup.figures(times))
    if times:
        lines.append(startup.report_line(times))
    for line in lines:
        print(line)
    print(json.dumps(figures))
    return 0


def hostile_command() -> int:
    """`bench --hostile`: each hostile pack refused, timed in a child process."""
    import tempfile

    from . import hostile

    print(f"check refusing hostile packs (bounds: {hostile.MAX_SECONDS:g} s, "
          f"{hostile.MAX_MB} MB each)")
    refusals = []
    for case in hostile.CASES:
        with tempfile.TemporaryDirectory(prefix="hustings-hostile-") as folder:
            refusals.append(hostile.measure(case, Path(folder)))
        print(hostile.report_line(refusals[-1]))
    print(json.dumps({"hostile": [{"case": r.case.name, "code": r.case.code,
                                   "seconds": round(r.seconds, 3), "peak_mb": round(r.peak_mb),
                                   "ok": r.within_bounds} for r in refusals]}))
    return 0 if all(r.within_bounds for r in refusals) else 1


def startup_times(args: argparse.Namespace) -> dict[str, list[float]]:
    """`bench --startup`: the start-up of `check` and `play` of the content benched."""
    from . import startup
    from .failures import InputError

    content = startup.content_arguments(args.pack, args.option, args.mods)
    try:
        return startup.time_startup(content, args.startup)
    except startup.StartupFailed as e:
        raise InputError(f"--startup: {e}") from None


if __name__ == "__main__":
    raise SystemExit(main())
