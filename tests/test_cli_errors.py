"""Nothing a user types or feeds the CLI ends in a traceback.

Usage errors exit 2, bad input (content, logs) exits 1, Ctrl-C exits 130 and a bug
exits 3 with one line naming the file that holds the details; `--debug` shows them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hustings.interpreter.errors import RuleError
from hustings.tools import cli
from hustings.tools.cli import main
from hustings.tools.commands import discover


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture(scope="module")
def good_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("log") / "game.json"
    assert main(["play", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    return log


def edited(good_log: Path, tmp_path: Path, **changes) -> Path:
    data = json.loads(good_log.read_text())
    data.update(changes)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


# ---- issue 7's list, one test each ----------------------------------------------------
def test_replay_of_a_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, "play", "--replay", str(tmp_path / "nope.json"))
    assert code == 2 and out == ""
    assert "nope.json: no such file" in one_line_error(err)


def test_replay_of_a_file_that_is_not_json(capsys, tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{seed: 1,\n")
    code, _, err = run(capsys, "play", "--replay", str(path))
    assert code == 1 and "x.json: not JSON (line 1, column 2" in one_line_error(err)


@pytest.mark.parametrize("text", ["[1, 2, 3]", '{"seed": 1, "actions": [0]}', '"hello"', "7"])
def test_replay_of_json_that_is_not_a_log(capsys, tmp_path, text):
    path = tmp_path / "x.json"
    path.write_text(text)
    code, _, err = run(capsys, "play", "--replay", str(path))
    assert code == 1 and "x.json: not a hustings log" in one_line_error(err)


def test_replay_of_a_log_with_an_index_out_of_range(capsys, tmp_path, good_log):
    actions = json.loads(good_log.read_text())["actions"]
    actions[1] = 93
    code, _, err = run(capsys, "play", "--replay", str(edited(good_log, tmp_path,
                                                             actions=actions)))
    line = one_line_error(err)
    assert code == 1 and "edited.json: action 2 is 93 but only" in line
    assert "actions are legal" in line


@pytest.mark.parametrize("how", ["--replay", "--resume"])
def test_a_log_with_an_option_the_pack_lacks_is_the_logs_fault(capsys, tmp_path, good_log,
                                                                how):
    path = edited(good_log, tmp_path, options={"bogus": True})
    code, _, err = run(capsys, "play", how, str(path))
    line = one_line_error(err)
    assert code == 1 and line.startswith(f"hustings: {path} was played with an option")
    assert "unknown option 'bogus'" in line and "pack.yaml" not in line


def test_log_into_a_missing_folder_fails_before_the_game(capsys, tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr("hustings.tools.play.Session.start", lambda self: started.append(1))
    code, out, err = run(capsys, "play", "--log", str(tmp_path / "no" / "game.json"))
    assert code == 2 and out == "" and not started
    assert "the folder" in one_line_error(err) and "does not exist" in err


def test_log_onto_a_folder(capsys, tmp_path):
    code, _, err = run(capsys, "play", "--log", str(tmp_path))
    assert code == 2 and "is a folder" in one_line_error(err)


def test_rule_error_during_setup_is_a_content_error(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuleError("setup ran off the board", "rules/setup.yaml:3:5")

    monkeypatch.setattr("hustings.tools.play.Game.new", broken)
    code, out, err = run(capsys, "play", "--seed", "1")
    line = one_line_error(err)
    assert code == 1 and "setting up the game" in line
    assert "rules/setup.yaml:3:5: setup ran off the board" in line


def test_ctrl_c_outside_a_game_exits_130(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("hustings.dsl.loading.check_pack", interrupted)
    code, _, err = run(capsys, "check")
    assert code == 130 and one_line_error(err) == "hustings: interrupted"


def test_ctrl_c_when_the_save_cannot_be_written(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hustings-5.json").mkdir()  # the default save file's name is taken
    monkeypatch.setattr("builtins.input", lambda prompt="": (_ for _ in ()).throw(
        KeyboardInterrupt))
    code, _, err = run(capsys, "play", "--seed", "5", "--seat", "nixon=human", "--quiet")
    assert code == 130 and "could not be saved" in one_line_error(err)


# ---- flags -------------------------------------------------------------------------
def test_seed_is_fresh_and_printed_to_stderr_when_quiet(capsys):
    seeds, results = [], []
    for _ in range(2):
        code, out, err = run(capsys, "play", "--quiet")
        assert code == 0 and len(out.strip().splitlines()) == 1
        seeds.append(int(err.split("--seed ")[1].split(")")[0]))
        results.append(out)
    assert seeds[0] != seeds[1]
    code, out, _ = run(capsys, "play", "--quiet", "--seed", str(seeds[0]))
    assert out == results[0]  # the printed seed plays the same game again


@pytest.mark.parametrize("value", ["maybe", "2", "", "onn"])
def test_option_values_are_checked(capsys, value):
    code, _, err = run(capsys, "play", "--option", f"vice_presidents={value}")
    assert code == 2 and "the value must be on/off" in one_line_error(err)


@pytest.mark.parametrize("value", ["on", "OFF", "true", "no", "1", "0", "Yes"])
def test_option_values_accepted(capsys, value):
    assert cli.parse_options([f"vice_presidents={value}"]) == {
        "vice_presidents": value.lower() in ("on", "true", "yes", "1")}


def test_an_undeclared_option_lists_the_declared_ones(capsys):
    code, _, err = run(capsys, "play", "--option", "no_such_rule", "--seed", "1")
    assert code == 1 and "unknown option 'no_such_rule'" in err
    assert "vice_presidents" in err and "Traceback" not in err


@pytest.mark.parametrize("games", ["0", "-5", "many"])
def test_bench_needs_at_least_one_game(capsys, games):
    with pytest.raises(SystemExit) as stop:
        main(["bench", "--games", games])
    assert stop.value.code == 2
    assert "--games" in capsys.readouterr().err


def test_scenario_options_reach_every_scenario(tmp_path, capsys):
    """A scenario that checks an option's variable passes only when --option sets it."""
    scenario = tmp_path / "vp.yaml"
    scenario.write_text(
        "# yaml-language-server: $schema=x\n"
        "scenarios:\n"
        "  - name: the option is on\n"
        "    seed: 1\n"
        "    steps:\n"
        "      - expect: {vars: {option_vice_presidents: true}}\n")
    assert main(["scenario", str(scenario)]) == 1
    assert main(["scenario", str(scenario), "--option", "vice_presidents"]) == 0
    assert "1 passed" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["play", "--seat", "kennedy"], ["play", "--seat", "kennedy=robot"],
    ["play", "--seat", "ford=human"], ["play", "--seat", "kennedy=human", "--kennedy", "greedy"],
    ["play", "--seat", "nixon=ismcts:iterations=1e400"], ["play", "--nixon", "greedy:breadth=0"],
])
def test_seat_mistakes_are_usage_errors(capsys, argv):
    code, _, err = run(capsys, *argv, "--seed", "1")
    assert code == 2 and "Traceback" not in err and err.startswith("hustings: error:")


def test_simulate_refuses_agent_settings_out_of_bounds_before_playing(tmp_path, capsys):
    # the settings were first checked in the worker: a crash, or a search that never ended
    code, _, err = run(capsys, "simulate", "--games", "1", "--out", str(tmp_path / "r.jsonl"),
                       "--seat", "kennedy=ismcts:iterations=2.5", "--seat", "nixon=random")
    assert code == 2 and one_line_error(err).endswith(
        "iterations must be a whole number from 1 to 1,000,000, not 2.5")


def test_play_takes_an_agents_settings_and_its_log_keeps_them(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", "--seed", "4", "--quiet", "--seat", "nixon=ismcts:iterations=2",
                 "--log", str(log)]) == 0
    first = capsys.readouterr().out
    assert json.loads(log.read_text())["seats"]["nixon"] == "ismcts:iterations=2"
    assert main(["play", "--replay", str(log), "--quiet"]) == 0
    assert capsys.readouterr().out == first


def test_no_abbreviations_so_players_never_collide(tmp_path, capsys):
    """A pack whose player is `rep`: `--rep random` seats it, never means `--replay`."""
    pack = tmp_path / "pack"
    (pack).mkdir()
    (pack / "pack.yaml").write_text("name: x\nplayers: [rep, seed, quiet]\n")
    parser = cli.build_parser(["play", "--pack", str(pack)])
    args = parser.parse_args(["play", "--pack", str(pack), "--rep", "greedy"])
    assert args.replay is None and args.seat_rep == "greedy"
    assert cli.seat_choices(args) == {"rep": "greedy"}
    # `seed` and `quiet` are play flags: those players are seated with --seat only.
    args = parser.parse_args(["play", "--pack", str(pack), "--seed", "4", "--seat", "seed=human"])
    assert args.seed == 4 and cli.seat_choices(args) == {"seed": "human"}
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--pack", str(pack), "--rep", "greedy", "--res", "x"])
    help_text = parser._subparsers._group_actions[0].choices["play"].format_help()
    assert "seats: rep, seed, quiet" in help_text
    assert "no per-player flag for seed, quiet" in help_text


def test_play_help_lists_the_seats_and_agents():
    proc = subprocess.run([sys.executable, "-m", "hustings.tools.cli", "play", "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert "seats: kennedy, nixon; agents: human, random, greedy" in proc.stdout
    assert "--seat PLAYER=AGENT" in proc.stdout and "--kennedy AGENT" in proc.stdout


def test_check_names_its_pack_with_the_flag(capsys, tmp_path):
    code, _, err = run(capsys, "check", "--pack", str(tmp_path / "nope"))
    assert code == 2 and "no pack folder" in one_line_error(err)
    # the folder may also be check's one argument: the same refusal, the same words
    code, _, err = run(capsys, "check", str(tmp_path / "nope"))
    assert code == 2 and "no pack folder" in one_line_error(err)


def test_schema_writes_under_the_current_folder(tmp_path, monkeypatch, capsys):
    from hustings.schemas.export import DEFAULT_FOLDER

    before = {p: p.stat().st_mtime_ns for p in DEFAULT_FOLDER.iterdir()}
    monkeypatch.chdir(tmp_path)
    assert main(["schema"]) == 0
    assert (tmp_path / "schemas" / "json" / "card.schema.json").is_file()
    assert {p: p.stat().st_mtime_ns for p in DEFAULT_FOLDER.iterdir()} == before


# ---- a crash is a bug: exit 3 in every command --------------------------------------
def boom(*args, **kwargs):
    raise ZeroDivisionError("planted")


CRASHES = {
    "play": ("hustings.tools.play.Session.start", ["play", "--seed", "1"]),
    "check": ("hustings.dsl.loading.check_pack", ["check"]),
    "scenario": ("hustings.dsl.scenarios.run_paths", ["scenario", "."]),
    "bench": ("hustings.tools.agents.random_agent", ["bench", "--games", "1"]),
    "schema": ("hustings.schemas.export.write_schemas", ["schema", "--out", "{tmp}"]),
    "explain": ("hustings.tools.reading.outline.outline", ["explain", "2"]),
    "graph": ("hustings.tools.reading.effect_graph.effect_graph", ["graph", "2"]),
    "interactions": ("hustings.tools.reading.interactions.interactions", ["interactions"]),
    "fmt": ("hustings.tools.formatting.format_file", ["fmt", "--check"]),
    "new": ("hustings.tools.commands.new.card_fields", ["new", "card", "{tmp}/1-x.yaml"]),
    "upgrade": ("hustings.tools.upgrading.plan", ["upgrade", "{tmp}"]),
    "translate": ("hustings.tools.commands.translate.pack_texts",
                  ["translate", "extract", "--lang", "ja"]),
}


@pytest.mark.parametrize("command", sorted(CRASHES))
def test_a_crash_is_reported_as_a_bug(command, capsys, monkeypatch, tmp_path):
    target, argv = CRASHES[command]
    monkeypatch.setattr(target, boom)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = run(capsys, *argv)
    line = one_line_error(err)
    assert code == 3 and "bug in hustings" in line and "ZeroDivisionError" in line
    report = Path(line.split("the details are in ")[1].split(" (")[0])
    try:
        details = report.read_text()
        assert "Traceback" in details and "planted" in details and command in details
    finally:
        report.unlink()


def test_every_further_command_reports_a_crash_as_a_bug(capsys, monkeypatch):
    """Whatever command is added to tools/commands/, a crash in it exits 3."""
    for module in discover():
        monkeypatch.setattr(module, "run", boom)
        parser = cli.build_parser([])
        args = [module.NAME]
        try:
            parser.parse_args(args)
        except SystemExit:  # the command needs arguments: give the ones it asks for
            args = CRASHES[module.NAME][1] if module.NAME in CRASHES else args
            capsys.readouterr()
        code, _, err = run(capsys, *[a.replace("{tmp}", ".") for a in args])
        line = one_line_error(err)
        assert code == 3 and "bug in hustings" in line, module.NAME
        Path(line.split("the details are in ")[1].split(" (")[0]).unlink()


LONG = "a" * 300  # a name no file system takes


@pytest.mark.parametrize("argv", [
    ["check", "--pack", LONG], ["check", "--mod", LONG], ["play", "--resume", LONG],
    ["scenario", LONG], ["play", "--replay", LONG],
])
def test_a_path_the_system_refuses_is_input_not_a_bug(argv, capsys):
    code, _, err = run(capsys, *argv)
    line = one_line_error(err)
    assert code == 1 and "File name too long" in line and "bug" not in line
    assert len(line) < 140  # the name is cut short


def test_debug_shows_the_traceback(capsys, monkeypatch):
    monkeypatch.setattr("hustings.dsl.loading.check_pack", boom)
    code, _, err = run(capsys, "--debug", "check")
    assert code == 3 and "Traceback" in err and "ZeroDivisionError: planted" in err


def test_a_crash_in_a_real_process_exits_3_without_traceback(tmp_path):
    """The same through the console entry: a planted bug via a broken bench seed type."""
    code = ("import sys; from hustings.tools import cli; "
            "cli.bench_command = lambda args: 1 / 0; sys.exit(cli.main(['bench']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    Path(proc.stderr.split("the details are in ")[1].split(" (")[0]).unlink()


@pytest.mark.parametrize("argv", [
    ["graph", "2", "--out", "{tmp}/no/such/folder/x.dot"],
    ["schema", "--out", "{tmp}/file/sub"],
    ["new", "card", "{tmp}/file/sub/1-x.yaml"],
])
def test_unwritable_outputs_are_usage_errors(argv, tmp_path, capsys):
    (tmp_path / "file").write_text("a file where a folder is wanted")
    code, _, err = run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


BOMB = """\
- {number: 1, title: One}
- {number: 2, title: Two}
- {number: 3, title: Three}
- {number: 4, title: Four}
- {number: 5, title: Five}
- {number: 6, title: Bomb, event: "while true, at most 3 times:\\n  say \\"tick\\""}
"""


def mini_pack(root: Path, rules: tuple[str, str] | None = None) -> Path:
    """The mini pack with the Bomb (card 6, which ann holds from the start: its event
    breaks the rules), and one change (old, new) to its rules."""
    from minipack import RULES, make_pack  # the tests folder is on the import path

    if rules is None:
        return make_pack(root, BOMB)
    changed = RULES.replace(*rules, 1)
    assert changed != RULES
    return make_pack(root, BOMB, rules={"rules/10-game.yaml": changed})


def bomb_pack(root: Path) -> Path:
    """Checks clean; playing the Bomb breaks the rules (cards.yaml:7)."""
    return mini_pack(root)


def unlabelled_pack(root: Path) -> Path:
    """Checks clean; the `pass` option's label names a card that is not there, so the
    rules fail when the options are shown (labels are made on request; 10-game.yaml:16)."""
    return mini_pack(root, ('"pass":\n', '"pass {title of (round + 90)}":\n'))


def looping_setup_pack(root: Path) -> Path:
    """Checks clean; the rules fail while setting up a game (10-game.yaml:4)."""
    return mini_pack(root, ("      for p in players:\n        deal 2",
                            '      while true, at most 2 times:\n        say "x"\n'
                            "      for p in players:\n        deal 2"))


AI = ["--seat", "ann=greedy", "--seat", "bob=random"]
RANDOM = ["--seat", "ann=random", "--seat", "bob=random"]
BROKEN = [  # (pack, command, how the last line starts, where the rules failed)
    (bomb_pack, ["bench", "--games", "3"], "rule error in game 1: ", "cards.yaml:7:"),
    (bomb_pack, ["play", "--seed", "1", "--quiet", "--seat", "ann=greedy"],
     "rule error while the greedy agent weighed ann's options after 0 actions: ",
     "cards.yaml:7:"),
    (bomb_pack, ["simulate", "--games", "3", *RANDOM],
     "rule error in game 1 after 0 actions (ann: play Bomb): ", "cards.yaml:7:"),
    (bomb_pack, ["simulate", "--games", "3", *AI],
     "rule error while the greedy agent weighed ann's options in game 1 after 0 actions: ",
     "cards.yaml:7:"),
    (bomb_pack, ["fuzz-saves", "--saves", "3"],
     "rule error in the pack's own game 1, before any save is corrupted: ", "cards.yaml:7:"),
    (unlabelled_pack, ["play", "--seed", "1", "--quiet"],
     "rule error while making ann's options after 0 actions: ", "10-game.yaml:16:"),
    (unlabelled_pack, ["simulate", "--games", "2", *RANDOM],
     "rule error while making ann's options in game 1 after 0 actions: ", "10-game.yaml:16:"),
    (looping_setup_pack, ["simulate", "--games", "2", *RANDOM],
     "rule error setting up game 1: ", "10-game.yaml:4:"),
    (looping_setup_pack, ["fuzz-saves", "--saves", "3"],
     "rule error in the pack's own game 1, before any save is corrupted: ",
     "10-game.yaml:4:"),
]


@pytest.mark.parametrize("make, command, said, where", BROKEN)
def test_rules_failing_in_play_are_the_contents_fault_with_its_position(
        capsys, tmp_path, monkeypatch, make, command, said, where):
    # once an internal error (exit 3) from each of these
    pack = make(tmp_path)
    monkeypatch.chdir(tmp_path)
    extra = ["--out", str(tmp_path / "games.jsonl")] if command[0] == "simulate" else []
    code, _, err = run(capsys, *command, "--pack", str(pack), *extra)
    line = err.strip().splitlines()[-1]
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert line.startswith("hustings: " + said), line
    assert where in line


def test_soak_says_how_to_reproduce_with_the_pack_it_soaked(capsys, tmp_path):
    pack = bomb_pack(tmp_path)
    code, _, err = run(capsys, "soak", "--games", "2", "--pack", str(pack))
    assert code == 1
    assert f"reproduce: hustings soak --games 1 --seed 1 --pack {pack}" in err
