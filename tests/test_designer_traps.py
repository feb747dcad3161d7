"""A designer's small traps: a game of cards alone needs no board file (a pack that names
none and has no `board.yaml` plays on an empty board, while a board file the pack names
and lacks is E100); a game whose rules record no result is said so, not a silent `{}`."""

from __future__ import annotations

import shutil
from pathlib import Path

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.game import Game

GUESS = Path(__file__).parent / "packs" / "guess"


def without_board(tmp_path: Path, keep_entry: bool) -> Path:
    pack = tmp_path / "guess"
    shutil.copytree(GUESS, pack)
    (pack / "board.yaml").unlink()
    manifest = pack / "pack.yaml"
    text = manifest.read_text()
    assert "board: board.yaml\n" in text
    if not keep_entry:
        manifest.write_text(text.replace("board: board.yaml\n", ""))
    return pack


def test_a_pack_that_names_no_board_plays_without_one(tmp_path):
    pack = without_board(tmp_path, keep_entry=False)
    assert check_pack(pack).report.errors == []
    game = Game.new(load_pack(pack), seed=2)
    while not game.is_terminal():
        game.apply_action(0)
    assert game.result()["winner"] in ("ann", "bob")


def test_a_board_file_the_pack_names_must_be_there(tmp_path):
    pack = without_board(tmp_path, keep_entry=True)
    errors = check_pack(pack).report.errors
    assert [(d.code, Path(d.source.path).name) for d in errors] == [("E100", "board.yaml")]


def test_a_game_its_rules_end_without_a_result_is_said_so(tmp_path, capsys):
    # once it printed `{}` and nothing more: a designer read it as a game that worked
    from hustings.tools.cli import main

    pack = tmp_path / "guess"
    shutil.copytree(GUESS, pack)
    rules = next((pack / "rules").glob("*.yaml"))
    text = rules.read_text()
    assert text.count("record winner as ") == 2
    rules.write_text(text.replace("record winner as ann", 'say "ann"')
                     .replace("record winner as bob", 'say "bob"'))
    assert main(["play", "--pack", str(pack), "--seed", "2", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "{}" and "warning: the game ended but its rules recorded no result" \
        in err and "record winner as P" in err
    # and a game that records one ends without it
    assert main(["play", "--pack", str(GUESS), "--seed", "2", "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_failed_log_expectation_shows_what_the_log_says(tmp_path, capsys):
    from hustings.dsl.scenarios import LOG_TAIL, log_tail
    from hustings.tools.cli import main

    scenario = tmp_path / "log.yaml"
    scenario.write_text('scenarios:\n  - name: "a line nobody wrote"\n    steps:\n'
                        '      - expect: {log: ["a line nobody wrote"]}\n')
    assert main(["scenario", str(scenario), "--pack", str(GUESS)]) == 1
    out = capsys.readouterr().out
    game = Game.new(load_pack(GUESS), seed=1)
    assert game.state.log and "the log lacks 'a line nobody wrote'" in out
    assert all(f"  | {line}" in out for line in game.state.log)
    # a long log shows its end, and says how long it is
    long = [f"line {n}" for n in range(40)]
    shown = log_tail(long).splitlines()
    assert shown[0] == f"the log's last {LOG_TAIL} of 40 lines:"
    assert shown[1:] == [f"  | line {n}" for n in range(40 - LOG_TAIL, 40)]
    assert log_tail([]) == "the log is empty"


def test_a_do_naming_nothing_offered_says_one_option_is_never_asked(tmp_path, capsys):
    from hustings.tools.cli import main

    scenario = tmp_path / "do.yaml"
    scenario.write_text('scenarios:\n  - name: "a do that names nothing offered"\n'
                        '    steps:\n      - do: "an option nobody offers"\n')
    assert main(["scenario", str(scenario), "--pack", str(GUESS)]) == 1
    out = capsys.readouterr().out
    assert "'an option nobody offers' is not legal now for ann; legal: 'name card 1'" in out
    assert "a decision that offers one option is taken without asking" in out


def test_a_scenario_sets_up_an_effect_whose_value_is_a_name(tmp_path):
    # once refused: E104 expected a whole number, got 'south'
    from hustings.dsl.diagnostics import Report
    from hustings.dsl.scenarios import Runner, load_scenarios

    path = tmp_path / "effects.yaml"
    path.write_text(
        'scenarios:\n  - name: "effects of each kind of value"\n    setup:\n'
        "      effects: [[campaign_ban, kennedy, south, turn], [cp_bonus, nixon, 1, turn],\n"
        "                [travel_free, kennedy, true, turn]]\n"
        "    steps:\n      - expect: {effects: [[campaign_ban, kennedy], [cp_bonus, nixon]]}\n")
    report = Report()
    (sc, where), = load_scenarios(path, report)
    assert not report.errors
    outcome = Runner().run(sc, where)
    assert outcome.ok, outcome.failures
    assert outcome.game.state.effects[-3:] == [["campaign_ban", "kennedy", "south", "turn"],
                                               ["cp_bonus", "nixon", 1, "turn"],
                                               ["travel_free", "kennedy", True, "turn"]]
