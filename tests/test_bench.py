"""`hustings bench`: its figures, its processes, and the tic-tac-toe it measures against."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hustings.tools.agents import random_agent
from hustings.tools.benchmark import on_one_cpu, options_per_decision, play_games, seed_blocks
from hustings.tools.cli import main
from hustings.tools.reference_game import IllegalMove, TicTacToe
from hustings.tools.startup import StartupFailed, content_arguments, time_startup
from hustings.tools.yardsticks import MIN_YARDSTICK_SECONDS, SHARE, Yardsticks


def played(*squares: str) -> TicTacToe:
    game = TicTacToe()
    for square in squares:
        game.apply_action(square)
    return game


@pytest.mark.parametrize(("moves", "winner"), [
    (("a1", "a2", "b1", "b2", "c1"), "x"),  # a row
    (("a1", "b1", "a2", "b2", "c3", "b3"), "o"),  # a column
    (("a1", "b1", "b2", "c1", "c3"), "x"),  # a diagonal
    (("c1", "a1", "b2", "b1", "a3"), "x"),  # the other diagonal
])
def test_three_in_a_line_wins_and_ends_the_game(moves, winner):
    game = played(*moves)
    assert game.is_terminal() and game.result() == {"winner": winner}
    assert game.legal_actions() == [] and game.current_player() is None


def test_a_full_board_without_a_line_is_a_draw():
    game = played("a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3", "c3")
    assert game.is_terminal() and game.result() == {"winner": None}


def test_an_unfinished_game_has_no_result_and_offers_the_empty_squares():
    game = played("b2", "a1")
    assert not game.is_terminal() and game.result() is None
    assert game.current_player() == "x"
    assert game.legal_actions() == ["b1", "c1", "a2", "c2", "a3", "b3", "c3"]
    game.apply_action(0)  # an index among the legal actions, as the agents give
    assert game.board[1] == "x"


@pytest.mark.parametrize("move", ["b2", "d4", 7, -1, True])
def test_illegal_moves_are_refused_and_change_nothing(move):
    game = played("b2", "a1", "c1", "a3", "a2", "c3")
    assert game.legal_actions() == ["b1", "c2", "b3"] and not game.is_terminal()
    before = (list(game.board), game.moves, game.winner)
    with pytest.raises(IllegalMove):
        game.apply_action(move)
    assert (list(game.board), game.moves, game.winner) == before


def test_no_move_after_the_game_is_won():
    game = played("a1", "a2", "b1", "b2", "c1")
    with pytest.raises(IllegalMove):
        game.apply_action("c3")


def test_the_random_agent_plays_it_to_the_end():
    for seed in range(50):
        game, agent, decisions = TicTacToe(), random_agent(seed), 0
        while not game.is_terminal():
            game.apply_action(agent(game))
            decisions += 1
        assert 5 <= decisions <= 9 and game.result() is not None


@pytest.mark.parametrize(("games", "jobs"), [(10, 3), (2, 5), (7, 1)])
def test_seeds_are_split_into_contiguous_even_blocks(games, jobs):
    blocks = seed_blocks(4, games, jobs)
    assert [s for b in blocks for s in b] == list(range(4, 4 + games))
    assert len(blocks) == min(games, jobs) and all(blocks)
    assert max(map(len, blocks)) - min(map(len, blocks)) <= 1


def bench(capsys, *args: str) -> tuple[str, dict]:
    assert main(["bench", *args]) == 0
    out = capsys.readouterr().out
    return out, json.loads(out.strip().splitlines()[-1])


def test_bench_prints_per_core_total_reference_and_memory(capsys):
    out, data = bench(capsys, "--games", "2")
    assert data["games"] == 2 and data["jobs"] == 1
    for key in ("games_per_s", "decisions_per_s", "wall_games_per_s", "cpu_seconds",
                "peak_mb", "reference_decisions_per_s", "ratio"):
        assert data[key] > 0, key
    assert data["ratio"] == pytest.approx(
        data["decisions_per_s"] / data["reference_decisions_per_s"], rel=0.01)
    assert "CPU time" in out and "wall clock" in out and "tic-tac-toe" in out
    # a 1960 decision offers more than a move of tic-tac-toe (at most nine squares)
    assert data["options_per_decision"] > 9 > data["reference_options_per_decision"] > 1
    assert data["options_ratio"] == pytest.approx(
        data["ratio"] * data["options_per_decision"] / data["reference_options_per_decision"],
        rel=0.01)
    assert "options a decision offers, over the first 2 games" in out
    assert data["startup_play_s"] is None and "start-up" not in out  # not asked for


def test_options_per_decision_is_the_mean_menu_of_the_games_replayed():
    seeds = range(5)
    options = decisions = 0
    for seed in seeds:  # a move of plain tic-tac-toe offers the squares still empty
        game, agent = TicTacToe(), random_agent(seed)
        while not game.is_terminal():
            options, decisions = options + 9 - game.moves, decisions + 1
            game.apply_action(agent(game))
    assert options_per_decision(lambda _: TicTacToe(), seeds) == options / decisions


def test_bench_measures_the_same_game_as_content_against_plain_python(capsys):
    out, data = bench(capsys, "--games", "1")
    assert data["same_game_games_per_s"] > 0 and data["same_game_reference_games_per_s"] > 0
    assert data["same_game_ratio"] == pytest.approx(
        data["same_game_games_per_s"] / data["same_game_reference_games_per_s"], rel=0.01)
    assert "the tic-tac-toe pack run by hustings" in out


def test_bench_measures_openspiel_tic_tac_toe_when_the_extra_is_installed(capsys):
    out, data = bench(capsys, "--games", "1")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        assert data["openspiel_decisions_per_s"] is None and data["openspiel_ratio"] is None
        assert "OpenSpiel" not in out
        return
    assert data["openspiel_decisions_per_s"] > 0
    assert data["openspiel_ratio"] == pytest.approx(
        data["decisions_per_s"] / data["openspiel_decisions_per_s"], rel=0.01)
    # the plain-Python yardstick is the lighter of the two: no game API between its moves
    assert data["openspiel_decisions_per_s"] < data["reference_decisions_per_s"]
    assert "OpenSpiel's pure-Python tic-tac-toe" in out


def test_bench_in_two_processes_plays_the_same_games(capsys):
    _, one = bench(capsys, "--games", "3", "--seed", "5")
    out, two = bench(capsys, "--games", "3", "--seed", "5", "--jobs", "2")
    assert two["jobs"] == 2 and "2 processes" in out and "largest worker" in out
    assert two["games"] == one["games"] == 3 and two["decisions"] == one["decisions"]


class FakeClock:
    """Process and wall clocks that only the stand-in yardsticks move: the games take no
    time on them, so what the tally counts is exactly what it kept in or out."""

    def __init__(self) -> None:
        self.now = 1000.0

    def read(self) -> float:
        return self.now


class BurningYardsticks:
    """Stands in for the yardsticks: each turn spends `burn` seconds of CPU (on the fake
    clock when one is given, so no test depends on how fast the machine is)."""

    def __init__(self, burn: float, clock: FakeClock | None = None) -> None:
        self.burn, self.turns, self.clock = burn, [], clock

    def run(self, seconds: float) -> None:
        self.turns.append(seconds)
        if self.clock is not None:
            self.clock.now += self.burn
            return
        start = time.process_time()
        while time.process_time() - start < self.burn:
            pass


def tic_tac_toe():
    from hustings.dsl.loading import builtin_pack, load_pack
    from hustings.interpreter.game import prepare

    program = load_pack(builtin_pack("tic-tac-toe"))
    prepare(program)
    return program


def test_the_yardsticks_take_turns_between_the_games_and_their_time_is_kept_out(monkeypatch):
    from hustings.tools import benchmark

    program = tic_tac_toe()
    alone = play_games(program, list(range(1, 6)))
    clock = FakeClock()
    monkeypatch.setattr(benchmark.time, "process_time", clock.read)
    monkeypatch.setattr(benchmark.time, "time", clock.read)
    yardsticks = BurningYardsticks(burn=0.02, clock=clock)
    tally = play_games(program, list(range(1, 6)), yardsticks, chunk=0)
    assert (tally.games, tally.decisions) == (alone.games, alone.decisions)
    assert len(yardsticks.turns) == 5  # a turn after every game (a chunk of 0 s)
    assert tally.cpu == 0  # the games took no time on this clock: none of the 0.1 s burnt
    assert tally.paused == pytest.approx(0.1) and tally.ended - tally.started == \
        pytest.approx(0.1)


def test_a_turn_of_the_yardsticks_lasts_a_share_of_the_chunk_before_it():
    program = tic_tac_toe()
    yardsticks = BurningYardsticks(burn=0)
    tally = play_games(program, list(range(1, 400)), yardsticks, chunk=0.005)
    assert len(yardsticks.turns) >= 2
    assert sum(yardsticks.turns) == pytest.approx(SHARE * tally.cpu, rel=0.05)


def test_every_yardstick_runs_its_least_time_and_same_game_counts_the_same_seeds():
    yardsticks = Yardsticks(first_seed=3)
    try:
        yardsticks.run(0.01)
        assert yardsticks.plain.units > 0 and yardsticks.same_content.units > 0
        assert yardsticks.same_content.units == yardsticks.same_plain.units
        yardsticks.top_up()
        for measure in (yardsticks.plain, yardsticks.same_content, yardsticks.openspiel):
            if measure is not None:  # OpenSpiel's: with the extra only
                assert measure.cpu >= MIN_YARDSTICK_SECONDS and measure.units > 0
    finally:
        yardsticks.close()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"),
                    reason="this platform cannot keep a process on one CPU")
def test_a_one_process_bench_keeps_to_one_cpu_and_gives_the_others_back():
    before = os.sched_getaffinity(0)
    with on_one_cpu():
        assert os.sched_getaffinity(0) == {min(before)}
    assert os.sched_getaffinity(0) == before
    with on_one_cpu(active=False):
        assert os.sched_getaffinity(0) == before


def test_a_bench_whose_openspiel_helper_dies_goes_on_without_its_figure():
    pytest.importorskip("pyspiel", reason="OpenSpiel's helper needs the `openspiel` extra")
    yardsticks = Yardsticks(first_seed=1)
    try:
        assert yardsticks.openspiel is not None
        yardsticks._helper.process.kill()
        yardsticks._helper.process.join()
        yardsticks.run(0.01)
        assert yardsticks.openspiel is None and yardsticks.plain.units > 0
    finally:
        yardsticks.close()


def test_bench_times_the_start_up_of_check_and_play_when_asked(capsys):
    out, data = bench(capsys, "--games", "1", "--startup", "1")
    for key in ("startup_check_s", "startup_play_s", "startup_check_cached_s",
                "startup_play_cached_s"):
        assert data[key] > 0, key
    assert "start-up, wall clock, whole process" in out and "with the pack cache" in out


def test_start_up_is_timed_in_a_cache_of_its_own(tmp_path, monkeypatch):
    """The user's pack cache is neither read nor written; each kind runs the times asked."""
    mine = tmp_path / "cache"
    monkeypatch.setenv("HUSTINGS_CACHE", str(mine))
    times = time_startup(content_arguments(None, [], []), 2)
    assert sorted(times) == ["check", "check_cached", "play", "play_cached"]
    assert all(len(runs) == 2 for runs in times.values())
    assert not mine.exists()


def test_a_start_up_command_that_fails_is_named_with_its_error(tmp_path):
    named = r"`hustings check --pack .*nowhere` exited 2: .*no pack folder"
    with pytest.raises(StartupFailed, match=named):
        time_startup(content_arguments(tmp_path / "nowhere", [], []), 1)


def test_the_content_benched_is_named_to_the_timed_commands():
    assert content_arguments(None, ["third_party"], []) == ["--option", "third_party"]
    assert content_arguments(Path("p"), [], [Path("m1"), Path("m2")]) == [
        "--pack", "p", "--mod", "m1", "--mod", "m2"]
