"""The `hustings` command line: play, replay, bench."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from hustings.tools.cli import main


def run(args, capsys) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_same_seed_gives_byte_identical_play_output(capsys):
    code, first = run(["play", "--seed", "5"], capsys)
    assert code == 0
    _, second = run(["play", "--seed", "5"], capsys)
    assert first == second
    _, other = run(["play", "--seed", "6"], capsys)
    assert other != first


def test_play_narrates_and_ends_with_the_tally(capsys):
    _, out = run(["play", "--seed", "2"], capsys)
    assert "== Turn 1 ==" in out and "== Turn 6: the Debates ==" in out
    assert "== Turn 9: Election Day ==" in out and "== Final map ==" in out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["winner"] in ("kennedy", "nixon", None)
    assert sum(result["electoral_votes"].values()) <= 537


def test_quiet_prints_one_json_line(capsys):
    _, out = run(["play", "--seed", "3", "--quiet"], capsys)
    lines = out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert set(result) >= {"winner", "electoral_votes", "states_won"}


def test_log_then_replay_reproduces_the_game(tmp_path, capsys):
    log = tmp_path / "game.json"
    _, played = run(["play", "--seed", "9", "--nixon", "greedy", "--log", str(log)], capsys)
    saved = json.loads(log.read_text())
    assert saved["seed"] == 9 and saved["actions"]
    _, replayed = run(["play", "--replay", str(log)], capsys)
    assert replayed.strip().splitlines()[-1] == played.strip().splitlines()[-1]


def test_a_human_chooses_from_numbered_actions(monkeypatch, capsys):
    """A person at the terminal looks a card up, types nonsense (refused), then answers
    each question with the first number on screen (asking for the `list` again when the
    screen shows none, trying the next when one is no longer offered, and saying yes to
    giving up what is left): the game plays to its end by numbers alone."""
    seen: list[str] = []
    scripted = ["? gaffe", "nonsense"]
    listed: list[str] = []

    def person(prompt: str = "") -> str:
        out = capsys.readouterr().out
        seen.append(out)
        assert len(seen) < 5000, "the game asked 5,000 questions: " + out[-1000:]
        if "[y/N]" in prompt:
            return "y"
        if scripted:
            return scripted.pop(0)
        numbers = re.findall(r"(?<![\w#])(\d+)(?:\. | [A-Z]{2}\b)", out)
        if numbers:
            listed[:] = numbers
        elif "no longer offered" in out and len(listed) > 1:
            listed.pop(0)
        else:
            return "list"
        return listed[0]

    monkeypatch.setattr("builtins.input", person)
    code = main(["play", "--seed", "4", "--kennedy", "human"])
    rest = capsys.readouterr()
    out = "".join(seen) + rest.out
    assert code == 0, rest.err
    assert "nothing matches 'nonsense'" in out  # the nonsense answer was refused
    assert "Gaffe: Opponent loses 1 momentum marker" in out  # `? gaffe` shows the card
    assert "Winner:" in out  # played to the end by numbers alone


def test_greedy_beats_random_more_often_than_not(capsys):
    wins = 0
    for seed in range(6):
        _, out = run(["play", "--seed", str(seed), "--quiet", "--kennedy", "greedy"], capsys)
        wins += json.loads(out)["winner"] == "kennedy"
    assert wins >= 4


def test_bench_ends_with_a_json_line(capsys):
    code, out = run(["bench", "--games", "2"], capsys)
    assert code == 0
    data = json.loads(out.strip().splitlines()[-1])
    assert data["games"] == 2 and data["games_per_s"] > 0 and data["decisions_per_s"] > 0


@pytest.mark.parametrize("args", [["play", "--kennedy", "robot"], ["nope"]])
def test_usage_errors_exit_2(args):
    proc = subprocess.run([sys.executable, "-m", "hustings.tools.cli", *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2


def test_play_is_identical_across_processes_and_hash_seeds():
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run(
            [sys.executable, "-m", "hustings.tools.cli", "play", "--seed", "8"],
            capture_output=True, text=True, env=env, check=True,
        )
        outputs.add(proc.stdout)
    assert len(outputs) == 1


def test_version_is_looked_up_only_when_asked_for(capsys, monkeypatch):
    import sys

    import pytest

    from hustings.tools import cli

    monkeypatch.delitem(sys.modules, "importlib.metadata", raising=False)
    cli.build_parser(["check"])
    assert "importlib.metadata" not in sys.modules  # nothing else pays for the lookup
    with pytest.raises(SystemExit) as caught:
        cli.main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.startswith("hustings ")
