"""`hustings play` on a real 80×24 terminal (tmux): the question and what is left stay on
the bottom lines at every decision of a whole turn of 1960, option numbers stay put within
a decision, giving up unspent CP asks first, and `? N` shows card N.

The game in tmux is mirrored in this process: the same pack, seed and seats, with the
same answers, make the same game (AI seats draw from the seed and the decision number),
so each screen is checked against what the engine asks at that moment — never against
narration wording. Captures are saved to /work/shots/term/ when that folder exists.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hustings.dsl.loading import load_pack
from hustings.tools.play import Session, choose, pack_ref
from hustings.tools.terminal.choices import given_up, options_of
from hustings.tools.terminal.look import player_name
from hustings.tools.terminal.numbering import Numbering

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SEED = 5  # Kennedy plays first and holds cards of 2 to 4 CP
HUMAN = "kennedy"
WIDTH, HEIGHT = 80, 24
SHOTS = Path("/work/shots/term")
WAIT = 60.0  # seconds to wait for the game to answer, at most (a loaded machine is slow)
PLAY = "import sys; from hustings.tools.cli import main; sys.exit(main(sys.argv[1:]))"


class Terminal:
    """One tmux server of its own with one 80×24 window running a command."""

    def __init__(self, name: str, command: list[str], cwd: Path) -> None:
        self.tmux = ["tmux", "-L", name]
        shell = " ".join(f"'{part}'" for part in command)
        subprocess.run([*self.tmux, "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT),
                        "-c", str(cwd), f"{shell}; sleep 60"], check=True)
        self.shots = 0

    def send(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", "0", "-l", text], check=True)
        subprocess.run([*self.tmux, "send-keys", "-t", "0", "Enter"], check=True)

    def screen(self) -> list[str]:
        """The 24 lines on screen now."""
        out = subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "0"], check=True,
                             capture_output=True, text=True).stdout
        return (out.split("\n") + [""] * HEIGHT)[:HEIGHT]

    def wait_for(self, ending: str, before: list[str] | None = None) -> list[str]:
        """The screen once its last line is a question ending with `ending`, waiting for
        no answer, and it is no longer the screen `before` (the answer was read)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            lines = self.screen()
            if lines != before and filled(lines)[-1].rstrip().endswith(ending):
                return lines
            time.sleep(0.1)
        raise AssertionError(f"no question ending {ending!r} came:\n" + "\n".join(lines))

    def answer(self, text: str, ending: str) -> list[str]:
        """Type an answer and wait for the next question (ending so) to wait on the screen."""
        before = self.screen()
        self.send(text)
        return self.wait_for(ending, before)

    def save(self, name: str, lines: list[str]) -> None:
        if SHOTS.is_dir():
            self.shots += 1
            (SHOTS / f"{self.shots:03d}-{name}.txt").write_text("\n".join(lines) + "\n")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], check=False, capture_output=True)


def filled(lines: list[str]) -> list[str]:
    """The screen without the blank lines under the cursor."""
    end = max((i for i, line in enumerate(lines) if line.strip()), default=0)
    return lines[:end + 1]


class Mirror:
    """The same game in this process, answered alike: what the engine asks at each prompt."""

    def __init__(self) -> None:
        program = load_pack()
        self.session = Session(program, pack_ref(program), SEED, {}, [],
                               {HUMAN: "human", "nixon": "random"})
        self.session.start()
        self.numbering = Numbering()
        self.name = player_name(program, HUMAN)
        self.options = []

    def advance(self) -> None:
        """Let the AI seat play until the person is asked (or the game ends)."""
        s = self.session
        while not s.game.is_terminal() and s.game.current_player() != HUMAN:
            s.apply(choose(s, s.game.current_player()))

    def ask(self):
        """The person's decision now, numbered as the prompt numbers it."""
        game = self.session.game
        step = game.observation(HUMAN)["steps"]
        self.options, _ = self.numbering.number(HUMAN, step, game.prompt(), options_of(game))
        return self.options

    def turn(self) -> int:
        return self.session.game.state.vars.get("turn") or 0


def bottom(lines: list[str]) -> str:
    """The lines above the prompt that hold the question (it may wrap), as one text."""
    shown = filled(lines)
    return " ".join(line.strip() for line in shown[-4:-1])


def policy(options, spent: dict[str, int]):
    """A plain, deterministic way through the turn that campaigns once and positions
    otherwise: cards for their CP, no preempting, stop spending after two picks."""
    labels = [o.label for o in options]

    def first(*words: str):
        return next((o for o in options for w in words if w in o.label), None)

    if any(": campaign points" in label for label in labels):
        return first(": campaign points")
    if any(label.startswith("campaign with") for label in labels):
        spent["cards"] += 1
        spent["picks"] = 0
        return first("campaign with" if spent["cards"] == 1 else "position with")
    stop = [o for o in options if o.plain]
    if len(stop) == 1 and spent["picks"] >= 2:
        spent["picks"] = 0
        return stop[0]
    spent["picks"] += 1
    return first("do not", "issue support", "campaign in") or options[0]


@pytest.fixture(scope="module")
def turn(tmp_path_factory):
    """A whole first turn of 1960 played at an 80×24 tmux terminal: each decision's
    screen with what the engine asked then, and what the special answers showed."""
    cwd = tmp_path_factory.mktemp("play")
    command = [sys.executable, "-c", PLAY, "play", "--seed", str(SEED), "--seat",
               f"{HUMAN}=human", "--seat", "nixon=random"]
    term = Terminal(f"hustings-test-{id(cwd)}", command, cwd)
    mirror = Mirror()
    prompt = f"{mirror.name} >"
    record = {"decisions": [], "numbers": [], "declined": None, "card": None}
    spent = {"cards": 0, "picks": 0}
    try:
        mirror.advance()
        lines = term.wait_for(prompt)
        while not mirror.session.game.is_terminal() and mirror.turn() < 2:
            options = mirror.ask()
            game = mirror.session.game
            status = game.remarks()["status"]
            term.save("decision", lines)
            record["decisions"].append((lines, game.question(), status))
            if record["card"] is None:  # `? 63`: the number the hand prints
                record["card"] = term.answer("? 63", prompt)
                term.save("card-63", record["card"])
            if any(o.place == "NY" and o.label.startswith("campaign") for o in options):
                look_up_a_number(term, options, game.legal_actions(), prompt, record)
            pick = policy(options, spent)
            if given_up(pick, options, status):
                if record["declined"] is None:  # the first time: say no, keep the CP
                    term.save("confirm", term.answer(str(pick.number), "[y/N]"))
                    record["declined"] = (term.answer("n", prompt), status)
                    term.save("declined", record["declined"][0])
                term.answer(str(pick.number), "[y/N]")
                pick_text = "y"
            else:
                pick_text = str(pick.number)
            mirror.session.apply(pick.index)
            mirror.advance()
            lines = term.answer(pick_text, prompt)
        record["after"] = lines
        term.save("next-turn", lines)
    finally:
        term.close()
    return record


def look_up_a_number(term: Terminal, options, labels: list[str], prompt: str,
                     record: dict) -> None:
    """Filter the options for New York's campaign option; note the number shown and its
    place among the legal actions."""
    target = next(o for o in options if o.place == "NY" and o.label.startswith("campaign"))
    lines = term.answer(f"/{target.label}", prompt)
    term.save("numbers", lines)
    found = [int(m.group(1)) for line in lines
             if (m := re.match(rf"\s*(\d+)\. {re.escape(target.label)}\b", line))]
    record["numbers"].append((found, labels.index(target.label), target.label))


def test_every_decision_of_a_turn_has_its_question_and_what_is_left_at_the_bottom(turn):
    decisions = turn["decisions"]
    assert len(decisions) >= 10
    with_cp = 0
    for lines, question, status in decisions:
        assert len(lines) == HEIGHT and max(len(line) for line in lines) <= WIDTH
        shown = filled(lines)
        assert shown[-1].rstrip().endswith(">")  # the prompt, on the last line
        text = bottom(lines)
        assert question and question in text, (question, shown[-4:])
        if status:
            assert status in text, (status, shown[-4:])
            with_cp += bool(re.fullmatch(r"\d+ CP left", status))
    assert with_cp >= 4  # campaigning and positioning, each asked again after each pick


def test_option_numbers_stay_put_within_a_decision(turn):
    numbers = turn["numbers"]
    assert len(numbers) >= 2, "the turn never campaigned twice in a row"
    first = numbers[0]
    assert len(first[0]) == 1
    same = [n for n in numbers if n[2] == first[2]]
    assert all(found == first[0] for found, _, _ in same)
    # the rules' own order moved it: by position it would have had another number
    assert any(index != first[0][0] for _, index, _ in same)


def test_giving_up_unspent_cp_asks_first_and_no_keeps_them(turn):
    assert turn["declined"] is not None, "the turn never ended spending early"
    lines, status = turn["declined"]
    text = "\n".join(filled(lines))
    assert "[y/N]" in text and status in text
    assert status in bottom(lines)  # declined: the same decision, nothing spent


def test_question_mark_and_the_hands_number_shows_that_card(turn):
    program = load_pack()
    card = program.cards[63]
    text = " ".join(line.strip() for line in turn["card"])
    assert f"#63 {card['title']}" in text
    assert card["text"].split()[0] in text
    assert bottom(turn["card"])  # the question comes back under it


def test_the_next_turn_starts_with_its_question_on_screen(turn):
    assert filled(turn["after"])[-1].rstrip().endswith(">")
