"""hustings simulate: records, resume, summary recomputed from the JSON Lines, backends that
agree game for game, the report's images, and the comparison of two runs."""

from __future__ import annotations

import json
import struct

import pytest

from hustings.dsl.loading import load_pack
from hustings.tools.cli import main
from hustings.tools.simulation.records import Matchup, read_records, without_timing
from hustings.tools.simulation.runner import Job, PackSpec, run_local, run_ray
from hustings.tools.simulation.summary import compare, summarize, two_proportions, wilson

SEATS = ["--seat", "kennedy=greedy", "--seat", "nixon=random"]


@pytest.fixture(scope="module")
def program():
    return load_pack()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Six games, greedy against random with the seats swapped every other game."""
    folder = tmp_path_factory.mktemp("sim")
    out = folder / "results.jsonl"
    code = main(["simulate", "--games", "6", "--swap", *SEATS, "--out", str(out)])
    assert code == 0
    return out


def test_one_line_per_game_with_what_the_pack_declares(run, program):
    records = read_records(run)
    assert [r["seed"] for r in records] == list(range(1, 7))
    for i, r in enumerate(records):
        expected = {"kennedy": "greedy", "nixon": "random"}
        if i % 2:
            expected = {"kennedy": "random", "nixon": "greedy"}
        assert r["seats"] == expected
        assert r["winner"] in program.players
        ev = r["scores"]["electoral_votes"]
        assert r["margin"] == abs(ev["kennedy"] - ev["nixon"])
        assert len(r["places"][r["winner"]]) == r["scores"]["states_won"][r["winner"]]
        kinds = {use for _, use, _ in r["uses"]}
        assert {"event", "cp"} <= kinds
        assert all(str(card) and player in program.players for card, _, player in r["uses"])


def test_the_summary_is_recomputed_from_the_file(run, capsys):
    records = read_records(run)
    s = summarize(records)
    assert s["games"] == 6
    assert sum(r["wins"] for r in s["sides"].values()) + s["ties"] == 6
    greedy = s["agents"]["greedy"]
    assert greedy["games"] == 6
    assert greedy["wins"] == sum(r["seats"][r["winner"]] == "greedy" for r in records)
    # every event use in the file is counted once in the card table
    events = sum(1 for r in records for _, use, _ in r["uses"] if use == "event")
    counted = sum(n for row in s["cards"].values() for n in row["uses"].get("event", {}).values())
    assert counted == events
    won = sum(1 for r in records if "CA" in r["places"].get("kennedy", []))
    assert s["places"]["CA"]["kennedy"]["wins"] == won


def test_resume_skips_games_already_played(run, tmp_path):
    out = tmp_path / "partial.jsonl"
    lines = run.read_text().splitlines()
    out.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # torn by an interruption
    assert main(["simulate", "--games", "6", "--swap", *SEATS, "--out", str(out)]) == 2
    assert main(["simulate", "--games", "6", "--swap", *SEATS, "--out", str(out),
                 "--resume"]) == 0
    again = [without_timing(r) for r in read_records(out)]
    assert again == [without_timing(r) for r in read_records(run)]


def test_resume_refuses_a_file_of_another_matchup(run, tmp_path, capsys):
    out = tmp_path / "other.jsonl"
    out.write_text(run.read_text())
    code = main(["simulate", "--games", "6", "--seat", "kennedy=random", "--out", str(out),
                 "--resume"])
    assert code == 2
    assert "another --out" in capsys.readouterr().err


def test_bad_seats_are_reported(capsys):
    assert main(["simulate", "--games", "1", "--seat", "dewey=greedy"]) == 2
    assert "players: kennedy, nixon" in capsys.readouterr().err
    assert main(["simulate", "--games", "1", "--seat", "nixon=genius"]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_per_player_flags_seat_as_seat_does():
    from hustings.tools.cli import build_parser
    from hustings.tools.commands.simulate import seat_specs, seats

    argv = ["simulate", "--kennedy", "random", "--seat", "nixon=ismcts:iterations=5"]
    args = build_parser(argv).parse_args(argv)
    assert seats(seat_specs(args), ["kennedy", "nixon"]) == {
        "kennedy": "random", "nixon": "ismcts:iterations=5"}


def test_a_player_seated_twice_is_refused(capsys, tmp_path):
    out = str(tmp_path / "r.jsonl")
    argv = ["simulate", "--games", "1", "--kennedy", "random", "--seat", "kennedy=greedy",
            "--out", out]
    assert main(argv) == 2
    assert "kennedy is seated twice" in capsys.readouterr().err


def test_worker_processes_give_the_same_games_in_order(run, program):
    job = Job(Matchup({"kennedy": "greedy", "nixon": "random"}, swap=True), 1, tuple(range(6)))
    records = list(run_local(PackSpec(), program, job, jobs=2))
    assert [without_timing(r) for r in records] == [without_timing(r) for r in read_records(run)]


def test_ray_backend_gives_the_same_games(run, program):
    pytest.importorskip("ray", reason="the Ray backend needs `pip install 'hustings[ray]'`")
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        job = Job(Matchup({"kennedy": "greedy", "nixon": "random"}, swap=True), 1,
                  tuple(range(6)))
        records = list(run_ray(program, job, batch=4))
    finally:
        ray.shutdown()
    assert [without_timing(r) for r in records] == [without_timing(r) for r in read_records(run)]


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_report_writes_valid_images_and_a_self_contained_page(run, tmp_path):
    pytest.importorskip("matplotlib", reason="the report needs `pip install 'hustings[sim]'`")
    folder = tmp_path / "report"
    code = main(["simulate", "--games", "6", "--swap", *SEATS, "--out", str(run), "--resume",
                 "--report", str(folder), "--compare", str(run)])
    assert code == 0
    for name in ("win_rate", "margin", "places"):
        width, height = png_size(folder / f"{name}.png")
        assert width > 100 and height > 100
    page = (folder / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 3
    assert "http://" not in page and "https://" not in page
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["games"] == 6
    # the run against itself: nothing differs
    assert all(not r["significant"] and r["diff"] == 0
               for r in summary["comparison"]["sides"].values())


def test_wilson_interval_and_two_proportion_test():
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.83 and 0.94 < high < 0.95  # the textbook 0.826-0.945
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert two_proportions(50, 100, 50, 100) == pytest.approx(1.0)
    assert two_proportions(60, 100, 40, 100) == pytest.approx(0.0047, abs=0.0005)


def test_compare_flags_a_real_difference_and_not_noise():
    def records(kennedy_wins: int, n: int = 400) -> list[dict]:
        return [{"seed": i, "seats": {"kennedy": "greedy", "nixon": "greedy"},
                 "winner": "kennedy" if i < kennedy_wins else "nixon",
                 "margin": 10, "places": {}, "uses": []} for i in range(n)]

    base = summarize(records(200))
    assert compare(base, summarize(records(260)))["sides"]["kennedy"]["significant"]
    assert not compare(base, summarize(records(205)))["sides"]["kennedy"]["significant"]
