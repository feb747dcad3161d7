"""`simulate --report`: its extra is checked before the first game, and its plots read well
when a side wins every game or none (what they draw is checked, not their pixels)."""

from __future__ import annotations

import sys

import pytest

from hustings.tools.cli import main
from hustings.tools.commands import simulate as command
from hustings.tools.simulation.summary import summarize

GAMES = 20


def records(kennedy_wins: int, games: int = GAMES) -> list[dict]:
    """`games` games in which Kennedy wins the first `kennedy_wins`; each winner takes CA,
    Kennedy plays card 5 as an event in every game and Nixon card 9 in the first 12."""
    out = []
    for i in range(games):
        winner = "kennedy" if i < kennedy_wins else "nixon"
        uses = [[5, "event", "kennedy"]] + ([[9, "event", "nixon"]] if i < 12 else [])
        out.append({"seed": i, "seats": {"kennedy": "greedy", "nixon": "random"},
                    "winner": winner, "margin": 100, "places": {winner: ["CA"]},
                    "uses": uses})
    return out


@pytest.fixture
def plt():
    pytest.importorskip("matplotlib", reason="the report needs `pip install '.[sim]'`")
    from hustings.tools.simulation.report import pyplot

    plt = pyplot()
    yield plt
    plt.close("all")


def texts(fig) -> str:
    return "\n".join(t.get_text() for ax in fig.axes for t in [*ax.texts, ax.title])


def bars(ax) -> list:
    return [p for p in ax.patches if p.get_width() != 0]


# ---- the extra, before any game -------------------------------------------------------
def test_report_without_matplotlib_stops_before_the_first_game(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the extra was checked")

    monkeypatch.setattr(command, "run_local", no_games)
    folder = tmp_path / "report"
    code = main(["simulate", "--games", "2", "--seat", "kennedy=random", "--report",
                 str(folder)])
    assert code == 2
    err = capsys.readouterr().err
    assert "matplotlib" in err and "`sim` extra" in err and "pip install '.[sim]'" in err
    # nothing left behind that a second run would refuse without --resume
    assert not folder.exists()


def test_report_with_matplotlib_passes_the_check(plt):
    assert command.missing_report_modules() == []


def test_without_report_no_extra_is_needed(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "r.jsonl"
    assert main(["simulate", "--games", "1", "--seat", "kennedy=random",
                 "--seat", "nixon=random", "--out", str(out)]) == 0
    assert out.read_text().count("\n") == 1


# ---- the plots at 100% and 0% ---------------------------------------------------------
def test_card_impact_of_a_one_sided_run_says_why_it_has_no_bars(plt):
    from hustings.tools.simulation.report import card_impact

    fig = card_impact(summarize(records(GAMES)), {"5": "Volunteers"}, plt)
    (ax,) = fig.axes
    assert bars(ax) == []
    assert not ax.axison
    said = texts(fig)
    assert f"kennedy won all {GAMES} games" in said
    assert "nothing to measure" in said


def test_card_impact_of_a_run_where_nobody_won_says_so(plt):
    from hustings.tools.simulation.report import card_impact

    tied = [{**r, "winner": None, "places": {}} for r in records(0)]
    fig = card_impact(summarize(tied), {}, plt)
    assert bars(fig.axes[0]) == []
    assert f"no side won any of the {GAMES} games" in texts(fig)


def test_card_impact_of_a_mixed_run_draws_a_bar_per_card(plt):
    from hustings.tools.simulation.report import card_impact

    # Kennedy wins 10 of 20; Nixon plays card 9 in games 0-11, of which he wins 10-11 only
    fig = card_impact(summarize(records(10)), {"5": "Volunteers", "9": "Gaffe"}, plt)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["Volunteers (5)", "Gaffe (9)"]
    assert len(bars(ax)) == 1  # card 5's effect is 0: Kennedy played it in every game
    assert "nothing to measure" not in texts(fig)


@pytest.mark.parametrize("kennedy_wins", [GAMES, 0])
def test_win_rates_at_100_and_0_percent_are_written_by_the_bars(plt, kennedy_wins):
    from hustings.tools.simulation.report import win_rates

    fig = win_rates(summarize(records(kennedy_wins)), None, plt)
    names = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    winner, loser = ("kennedy", "nixon") if kennedy_wins else ("nixon", "kennedy")
    assert names[:2] == [f"kennedy\n{100 * kennedy_wins // GAMES}% ({kennedy_wins}/{GAMES})",
                         f"nixon\n{100 - 100 * kennedy_wins // GAMES}% "
                         f"({GAMES - kennedy_wins}/{GAMES})"]
    assert f"{winner}\n100% ({GAMES}/{GAMES})" in names
    assert f"{loser}\n0% (0/{GAMES})" in names


def legend_clear_of_axes(fig) -> bool:
    fig.canvas.draw()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent()
    return legend.x0 >= ax.get_window_extent().x1


@pytest.mark.parametrize("kennedy_wins", [GAMES, 0, 10])
def test_places_legend_covers_no_bar(plt, kennedy_wins):
    from hustings.tools.simulation.report import places

    fig = places(summarize(records(kennedy_wins)), plt)
    fig.tight_layout()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["kennedy", "nixon"]
    # CA went to one side in every game it was won: a bar across the whole width
    assert max(p.get_x() + p.get_width() for p in bars(ax)) == pytest.approx(1.0)
    assert legend_clear_of_axes(fig)
    # and the legend is inside the saved image, not cut off at its edge
    assert fig.axes[0].get_legend().get_window_extent().x1 <= fig.bbox.x1


def test_baseline_legend_of_the_win_rates_covers_no_bar(plt):
    from hustings.tools.simulation.report import win_rates
    from hustings.tools.simulation.summary import compare

    base, other = summarize(records(10)), summarize(records(GAMES))
    fig = win_rates(other, compare(base, other), plt)
    fig.tight_layout()
    assert legend_clear_of_axes(fig)
