"""A person's session: save, quit, resume, undo and Ctrl-C, driven by scripted input.

The scripts answer with numbers, the words save/undo/quit and one filter (`/WORD`,
then the number of an option it lists). The proof is the end: a game saved, resumed and
with a decision taken back ends byte-identical to one played straight through.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from hustings.dsl.loading import load_pack
from hustings.interpreter.game import Game
from hustings.tools.cli import main

SEED = "11"
HUMAN = ["--seed", SEED, "--seat", "kennedy=human", "--quiet"]


class Script:
    """Answers a prompt with the next scripted line, then "0" for ever; may interrupt.

    "0" means the first option listed: within a decision asked again the numbers stay put
    (tools/terminal/numbering.py), so once option 0 is gone the lowest number shown is
    typed. Giving up what is left (unspent CP) is always confirmed, outside the script."""

    def __init__(self, lines: list[str], interrupt_after: int | None = None) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.asked = 0
        self.interrupt_after = interrupt_after
        self.offered: list[int] = []  # the numbers the prompt shows now (see listening)

    def __call__(self, prompt: str = "") -> str:
        self.asked += 1
        if self.interrupt_after is not None and self.asked > self.interrupt_after:
            raise KeyboardInterrupt
        if "gives up what is left" in prompt:
            return "y"
        answer = next(self.lines, "0")
        if answer == "0" and self.offered and 0 not in self.offered:
            return str(self.offered[0])
        return answer


def listening(monkeypatch, script: Script) -> None:
    """Answer the prompt with `script`, which learns the option numbers each decision
    shows."""
    from hustings.tools.terminal.numbering import Numbering

    number = Numbering.number

    def numbered(self, *args, **kwargs):
        options, gone = number(self, *args, **kwargs)
        script.offered = sorted(o.number for o in options)
        return options, gone

    monkeypatch.setattr(Numbering, "number", numbered)
    monkeypatch.setattr("builtins.input", script)


def play(monkeypatch, capsys, script: Script, *args: str) -> tuple[int, str, str]:
    listening(monkeypatch, script)
    code = main(["play", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def result_line(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def final_state(log: Path) -> str:
    """The saved state of the game a log leads to, rebuilt from its seed and actions."""
    data = json.loads(log.read_text())
    game = Game.new(load_pack(), seed=data["seed"])
    for action in data["actions"]:
        game.apply_action(action)
    assert game.is_terminal()
    return game.save()


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> tuple[Path, dict, list[int], list[str]]:
    """A game where the human always answers 0: its log, result, which of kennedy's
    decisions (counted from 0) offered more than one action, and the label picked at each."""
    folder = tmp_path_factory.mktemp("straight")
    log = folder / "straight.json"
    mp = pytest.MonkeyPatch()
    listening(mp, Script([]))
    try:
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["play", *HUMAN, "--log", str(log)]) == 0
    finally:
        mp.undo()
    data = json.loads(log.read_text())
    game = Game.new(load_pack(), seed=data["seed"])
    choices, picked, n = [], [], 0
    for action in data["actions"]:
        if game.current_player() == "kennedy":
            if len(game.legal_actions()) > 1:
                choices.append(n)
            picked.append(game.legal_actions()[action])
            n += 1
        game.apply_action(action)
    return log, result_line(out.getvalue()), choices, picked


def test_save_quit_resume_and_undo_end_byte_identical(straight, tmp_path, monkeypatch, capsys):
    log, result, choices, picked = straight
    saved_at, changed_at = choices[3], choices[8]  # two real choices, the second later
    filtered_at = choices[1]
    saved = tmp_path / "half.json"
    # Play to kennedy's decision `saved_at`, save there, quit without the offered save; at
    # `filtered_at` the pick is made after filtering the list by a word of its label.
    word = picked[filtered_at].split()[-1]
    answers = ["0"] * saved_at
    answers[filtered_at:filtered_at + 1] = [f"/{word}", "0"]
    code, out, _ = play(monkeypatch, capsys, Script(answers + [f"save {saved}", "quit", "n"]),
                        *HUMAN)
    assert code == 0 and saved.is_file()
    assert "nothing matches" not in out  # the filter listed the option picked after it
    assert f"saved to {saved}" in out and "left unfinished" in out
    assert json.loads(saved.read_text())["seats"] == {"kennedy": "human", "nixon": "random"}
    # Resume (the seats come from the file), pick 1 where 0 was picked, take it back, go on.
    resumed = tmp_path / "resumed.json"
    script = Script(["0"] * (changed_at - saved_at) + ["1", "undo"])
    code, out, _ = play(monkeypatch, capsys, script, "--resume", str(saved), "--quiet",
                        "--log", str(resumed))
    assert code == 0
    assert "undone: Kennedy's last decision and" in out
    assert result_line(out) == result
    assert resumed.read_bytes() == log.read_bytes()
    assert final_state(resumed) == final_state(log)


def test_undo_without_a_decision_to_take_back(monkeypatch, capsys, tmp_path):
    code, out, _ = play(monkeypatch, capsys, Script(["undo"]), *HUMAN)
    assert code == 0 and "nothing to undo: Kennedy has made no decision yet" in out


def test_a_different_pick_really_changes_the_game(straight, tmp_path, monkeypatch, capsys):
    """The undo test means something only if picking 1 at that point changes the game."""
    log, _, choices, _ = straight
    other = tmp_path / "other.json"
    script = Script(["0"] * choices[8] + ["1"])
    assert play(monkeypatch, capsys, script, *HUMAN, "--log", str(other))[0] == 0
    assert json.loads(other.read_text())["actions"] != json.loads(log.read_text())["actions"]


def assert_resumes_to_the_end(monkeypatch, capsys, saved: Path, log: Path, result: dict) -> None:
    """Resumed from `saved`, always answering 0, the game ends as the straight one did."""
    code, out, _ = play(monkeypatch, capsys, Script([]), "--resume", str(saved), "--quiet",
                        "--log", "after.json")
    assert code == 0 and result_line(out) == result
    assert Path("after.json").read_bytes() == log.read_bytes()


def test_ctrl_c_at_the_prompt_saves_and_exits_130(straight, tmp_path, monkeypatch, capsys):
    log, result, _, _ = straight
    monkeypatch.chdir(tmp_path)
    code, _, err = play(monkeypatch, capsys, Script([], interrupt_after=5), *HUMAN)
    saved = Path(f"hustings-{SEED}.json")
    assert code == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"saved in {saved}" in err and f"--resume {saved}" in err
    assert_resumes_to_the_end(monkeypatch, capsys, saved, log, result)


def test_end_of_input_at_the_prompt_saves_too(straight, tmp_path, monkeypatch, capsys):
    log, result, _, _ = straight

    def ends(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("builtins.input", ends)
    code = main(["play", *HUMAN])
    err = capsys.readouterr().err
    saved = Path(f"hustings-{SEED}.json")
    assert code == 130 and "Traceback" not in err
    assert "no more input" in err and f"saved in {saved}" in err
    assert_resumes_to_the_end(monkeypatch, capsys, saved, log, result)


def test_resume_seats_can_be_overridden(straight, tmp_path, monkeypatch, capsys):
    log, result, _, _ = straight
    # All of kennedy's answers were 0: a human seat becomes an AI one on resume.
    code, out, _ = play(monkeypatch, capsys, Script([]), "--resume", str(log), "--quiet")
    assert code == 0 and result_line(out) == result  # a finished game: just its result
    half = tmp_path / "half.json"
    data = json.loads(log.read_text())
    data["actions"] = data["actions"][:40]
    half.write_text(json.dumps(data))
    code, out, _ = play(monkeypatch, capsys, Script(["quit"]), "--resume", str(half),
                        "--quiet", "--seat", "kennedy=random")
    assert code == 0 and "left unfinished" not in out  # nobody was asked: kennedy is an AI


def test_a_move_that_breaks_the_rules_is_refused_and_the_person_chooses_again(
        monkeypatch, capsys, tmp_path):
    # once it ended the game (exit 1) and the person's game was lost
    from test_cli_errors import bomb_pack

    pack = str(bomb_pack(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, out, _ = play(monkeypatch, capsys, Script(["play Bomb", "pass"]), "--pack", pack,
                        "--seed", "1", "--seat", "ann=human")
    assert code == 0
    assert "rule error after 0 actions (ann: play Bomb): " in out and "cards.yaml:7:" in out
    assert "the game is as it was before that move: choose another" in out
    assert "ann: pass" in out  # the next answer was taken, and the game went on to its end
    assert not list(tmp_path.glob("hustings-*.json"))


def test_an_ai_move_that_breaks_the_rules_saves_the_persons_game_first(
        monkeypatch, capsys, tmp_path):
    from test_cli_errors import bomb_pack

    pack = str(bomb_pack(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ("--pack", pack, "--seed", "1", "--seat", "ann=greedy", "--seat", "bob=human")
    code, _, err = play(monkeypatch, capsys, Script([]), *args)
    assert code == 1
    assert "rule error while the greedy agent weighed ann's options after 0 actions" in err
    saved = tmp_path / "hustings-1.json"
    assert f"the game before that move is saved in {saved.name}" in err
    log = json.loads(saved.read_text())
    assert log["seed"] == 1 and log["actions"] == []
    assert log["seats"] == {"ann": "greedy", "bob": "human"}


def test_options_the_rules_cannot_make_for_a_person_save_the_game_first(
        monkeypatch, capsys, tmp_path):
    from test_cli_errors import unlabelled_pack

    pack = str(unlabelled_pack(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, _, err = play(monkeypatch, capsys, Script([]), "--pack", pack, "--seed", "1",
                        "--seat", "ann=human")
    assert code == 1 and "internal error" not in err
    assert "rule error while making ann's options after 0 actions" in err
    assert (tmp_path / "hustings-1.json").is_file()


class Recorded(Script):
    """A script that keeps every prompt it was asked."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.prompts.append(prompt)
        return super().__call__(prompt)


def hot_seat(tmp_path) -> list[str]:
    from test_web_secrets import peek_pack  # the tests folder is on the import path

    return ["--pack", str(peek_pack(tmp_path)), "--seed", "5", "--quiet",
            "--seat", "ann=human", "--seat", "bob=human"]


def test_draw_look_undo_at_one_screen_asks_the_other_player(monkeypatch, capsys, tmp_path):
    # ann draws (option 0) and sees the card: her undo asks bob, who refuses, then agrees
    script = Recorded(["0", "undo", "n", "undo", "y"])
    code, out, _ = play(monkeypatch, capsys, script, *hot_seat(tmp_path),
                        "--log", str(tmp_path / "log.json"))
    assert code == 0
    asked = [p for p in script.prompts if "do you agree" in p]
    assert len(asked) == 2 and all("bob, do you agree" in p for p in asked)
    assert "cards hidden then have been seen since" in asked[0]
    assert "bob declines: the game goes on as it is" in out
    assert "undone: ann's last decision and 0 after it" in out
    log = json.loads((tmp_path / "log.json").read_text())
    # the draw was taken back once bob agreed: ann's first decision is the "0" after it
    assert script.prompts[:6] == ["ann > ", "ann > ", asked[0], "ann > ", asked[1], "ann > "]
    assert log["actions"][0] == 0 and len(log["actions"]) == 12


def test_a_decision_with_nothing_learned_is_taken_back_alone(monkeypatch, capsys, tmp_path):
    script = Recorded(["2", "undo", "2"])  # ann waits, takes it back, waits again
    code, out, _ = play(monkeypatch, capsys, script, *hot_seat(tmp_path))
    assert code == 0 and "undone: ann's last decision and 0 after it" in out
    assert not any("do you agree" in p for p in script.prompts)


def test_after_the_other_decided_the_take_back_is_theirs_to_allow(monkeypatch, capsys,
                                                                  tmp_path):
    # ann: wait, end the turn; bob: wait, end the turn; ann asks to take back her "end"
    script = Recorded(["2", "0", "2", "0", "undo", "y"])
    code, out, _ = play(monkeypatch, capsys, script, *hot_seat(tmp_path))
    asked = [p for p in script.prompts if "do you agree" in p]
    assert code == 0 and len(asked) == 1 and "bob has decided since" in asked[0]
    assert "undone: ann's last decision and 2 after it" in out
    assert script.prompts[6] == "ann > "  # back at ann's second decision of the turn


def test_a_person_reads_every_choice_once_in_the_narration(monkeypatch, capsys):
    # every decision is narrated (a choice of hidden cards in secret), so no label is
    # echoed beside it: a person's own, an agent's, or one of a game of agents only
    code, out, _ = play(monkeypatch, capsys, Script([]), "--seed", SEED,
                        "--seat", "kennedy=human")
    lines = out.splitlines()
    assert code == 0 and any(line.startswith("  Kennedy: ") for line in lines)
    assert any(line.startswith("  Nixon: ") for line in lines)
    assert not any(line.startswith("  [") for line in lines)
    _, watched, _ = play(monkeypatch, capsys, Script([]), "--seed", SEED)  # agents only
    assert any(line.startswith("  Nixon: ") for line in watched.splitlines())
    assert not any(line.startswith("  [") for line in watched.splitlines())


def test_a_resumed_game_knows_what_was_learned_before_the_save(monkeypatch, capsys,
                                                               tmp_path):
    # ann waits (nothing learned) and saves; resumed, her wait is hers to take back alone,
    # while bob's draw, saved and resumed, still needs ann's consent
    saved = tmp_path / "saved.json"
    args = hot_seat(tmp_path)
    script = Recorded(["2", f"save {saved}", "quit", "n"])
    assert play(monkeypatch, capsys, script, *args)[0] == 0
    resume = ["--resume", str(saved), "--quiet", "--pack", args[1]]
    script = Recorded(["undo"])
    code, out, _ = play(monkeypatch, capsys, script, *resume)
    assert code == 0 and "undone: ann's last decision and 0 after it" in out
    assert not any("do you agree" in p for p in script.prompts)
    script = Recorded(["2", "0", "0", f"save {saved}", "quit", "n"])  # bob draws, saves
    assert play(monkeypatch, capsys, script, *args)[0] == 0
    script = Recorded(["undo", "n"])
    code, out, _ = play(monkeypatch, capsys, script, *resume)
    assert any("ann, do you agree" in p and "cards hidden then" in p for p in script.prompts)
    assert "ann declines" in out


def test_a_look_at_another_hand_is_shown_at_the_terminal_to_that_player(monkeypatch, capsys,
                                                                        tmp_path):
    from test_web_secrets import secrets_pack, spyglass_seed  # the tests folder

    pack = secrets_pack(tmp_path)
    seed = spyglass_seed(pack)
    game = Game.new(load_pack(pack), seed=seed)
    game.apply_action("play Spyglass")
    game.apply_action("bob")
    bob = [load_pack(pack).cards[c]["title"] for c in game.state.zones["hand:bob"]]
    script = Script(["play Spyglass", "bob", "pass"])
    code, out, _ = play(monkeypatch, capsys, script, "--pack", str(pack), "--seed", str(seed),
                        "--seat", "ann=human", "--quiet")
    assert code == 0
    after = out.split("Shown to you", 1)
    assert len(after) == 2, "ann's next board lists what she was shown"
    shown = after[1].split("ann >", 1)[0]
    assert all(title in shown for title in bob) and "hand of bob" in shown
    assert "you look at bob's hand" in out  # her own narration, under her board


CONTENT = Path(__file__).resolve().parent.parent / "content"
ELSEWHERE = [  # a game of a pack or a mod given by folder, which the save does not hold
    ["--pack", str(CONTENT / "tic-tac-toe"), "--seed", "3", "--seat", "x=human"],
    ["--mod", str(CONTENT / "mods" / "head-to-head"), "--seed", "3", "--seat",
     "kennedy=human"],
]


@pytest.mark.parametrize("stop", ["interrupted", "saved"])
@pytest.mark.parametrize("args", ELSEWHERE, ids=["pack", "mod"])
def test_the_command_to_go_on_names_the_folders_it_needs(monkeypatch, capsys, tmp_path,
                                                          args, stop):
    # once it said only `--resume FILE`, and that command then refused the save: a game
    # of another pack than the built-in one
    monkeypatch.chdir(tmp_path)
    script = Script(["save"], interrupt_after=1) if stop == "saved" else \
        Script([], interrupt_after=0)
    code, out, err = play(monkeypatch, capsys, script, *args)
    assert code == 130
    hint = re.search(r"go on (?:later )?with: (hustings play [^)]*)\)", out + err)
    assert hint, out + err
    words = shlex.split(hint.group(1))
    assert words[:3] == ["hustings", "play", "--resume"]
    assert args[1] in words and words[words.index(args[1]) - 1] == args[0]
    code, out, err = play(monkeypatch, capsys, Script([], interrupt_after=0), *words[2:])
    assert code == 130 and "resumed " in out, err
