"""The report a designer opens: PNG plots and one self-contained `report.html`.

The HTML has its CSS inline and the plots embedded as base64, so it opens anywhere
without a network. Plots need matplotlib (`pip install 'hustings[sim]'`).
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

from .summary import ALPHA

MIN_EVENT_GAMES = 10  # cards used as an event in fewer games stay out of the impact chart
COLOURS = ["#2b6cb0", "#c53030", "#2f855a", "#b7791f", "#6b46c1"]


def write_report(folder: Path, summary: dict[str, Any], titles: dict[str, str],
                 comparison: dict[str, Any] | None = None, label: str = "") -> list[Path]:
    """Write the PNGs, summary.json and report.html into `folder`; return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = plot_all(folder, summary, titles, comparison)
    data = dict(summary)
    data.pop("signed_margins", None)
    if comparison is not None:
        data["comparison"] = comparison
    (folder / "summary.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    page = folder / "report.html"
    page.write_text(render_html(summary, titles, paths, comparison, label))
    return [*paths, folder / "summary.json", page]


# ---- plots ---------------------------------------------------------------------------
def plot_all(folder: Path, summary: dict[str, Any], titles: dict[str, str],
             comparison: dict[str, Any] | None) -> list[Path]:
    plt = pyplot()
    drawers = {
        "win_rate": lambda: win_rates(summary, comparison, plt),
        "margin": lambda: margins(summary, plt),
        "places": lambda: places(summary, plt),
        "card_impact": lambda: card_impact(summary, titles, plt),
    }
    paths = []
    for name, draw in drawers.items():  # one figure at a time: each is closed once saved
        fig = draw()
        if fig is None:
            continue
        path = folder / f"{name}.png"
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths


def pyplot():
    """matplotlib's pyplot, drawing off screen, with the report's sizes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "figure.dpi": 100})
    return plt


def win_rates(summary: dict[str, Any], comparison, plt):
    players = summary["players"]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    rows = [(p, summary["sides"][p]) for p in players]
    rows += [(f"agent {a}", r) for a, r in summary["agents"].items()]
    places = list(range(len(rows)))
    values = [r["rate"] for _, r in rows]
    errors = [[max(0.0, r["rate"] - r["low"]) for _, r in rows],
              [max(0.0, r["high"] - r["rate"]) for _, r in rows]]
    colours = [COLOURS[i % len(COLOURS)] if i < len(players) else "#718096"
               for i in range(len(rows))]
    ax.barh(places, values, xerr=errors, color=colours, capsize=3)
    # Each bar's rate and count beside its name: a 0% bar is no bar at all, and a 100% one
    # runs into the edge, so neither reads from the bar alone.
    ax.set_yticks(places, [f"{name}\n{rate_text(r)}" for name, r in rows])
    if comparison is not None:
        base = [comparison["sides"][p]["base"] for p in players if p in comparison["sides"]]
        ax.scatter(base, places[:len(base)], marker="|", s=300, color="black",
                   label="baseline", zorder=3)
        outside_legend(ax)
    ax.axvline(0.5, color="#a0aec0", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("win rate (bars: 95% Wilson interval)")
    ax.set_title(f"Win rate by side and by agent, {summary['games']} games")
    return fig


def rate_text(row: dict[str, Any]) -> str:
    return f"{100 * row['rate']:.0f}% ({row['wins']}/{row['games']})"


def outside_legend(ax) -> None:
    """The legend right of the plot: bars may reach either edge (a side winning every game)
    and no corner inside the axes is sure to be free."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def margins(summary: dict[str, Any], plt):
    values = summary.get("signed_margins") or []
    if not values:
        return None
    first, second = summary["players"][:2]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.hist(values, bins=min(40, max(5, len(values) // 10)), color="#4a5568")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(f"margin (positive: {first} won, negative: {second} won)")
    ax.set_ylabel("games")
    mean = summary["signed_margin"]["mean"]
    ax.set_title(f"Margin of victory ({first}'s side), mean {mean:+.1f}")
    return fig


def places(summary: dict[str, Any], plt):
    table = summary["places"]
    if not table:
        return None
    players = summary["players"]
    order = sorted(table, key=lambda w: table[w][players[0]]["rate"], reverse=True)
    fig, ax = plt.subplots(figsize=(6, max(3.0, 0.16 * len(order) + 1)))
    left = [0.0] * len(order)
    for i, p in enumerate(players):
        widths = [table[w][p]["rate"] for w in order]
        ax.barh(order, widths, left=left, color=COLOURS[i % len(COLOURS)], label=p)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("share of games the location went to each side (rest: nobody)")
    ax.set_title("Who won each location")
    outside_legend(ax)
    return fig


def impact_rows(summary: dict[str, Any]) -> list[tuple[str, float, int]]:
    """(card, effect, games) for cards used as an event often enough, sorted by effect."""
    rows = []
    for card, row in summary["cards"].items():
        games = sum(r["games"] for r in row["event_impact"].values())
        if games >= MIN_EVENT_GAMES:
            rows.append((card, row["effect"], games))
    return sorted(rows, key=lambda r: r[1], reverse=True)


def card_impact(summary: dict[str, Any], titles: dict[str, str], plt):
    rows = impact_rows(summary)
    if not rows:
        return None
    if not win_rates_vary(summary):
        return no_impact_note(summary, plt)
    names = [f"{titles.get(c, c)} ({c})" for c, _, _ in rows]
    effects = [e for _, e, _ in rows]
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.15 * len(rows) + 1)))
    ax.barh(names, effects, color=["#2f855a" if e >= 0 else "#c53030" for e in effects])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=6)
    ax.set_xlabel("win rate when played as an event minus the side's overall win rate")
    ax.set_title(f"Card impact as an event (cards with ≥ {MIN_EVENT_GAMES} event games)")
    return fig


def win_rates_vary(summary: dict[str, Any]) -> bool:
    """Whether some side won some games and lost others. If none did (one side won them all,
    or every game was tied), every card's effect is 0 by construction, not by measurement."""
    return any(0.0 < r["rate"] < 1.0 for r in summary["sides"].values())


def no_impact_note(summary: dict[str, Any], plt):
    """The card impact figure of a run whose win rates do not vary: a note saying why there
    is nothing to measure, in place of a chart of bars of length 0."""
    games = summary["games"]
    winners = [p for p, r in summary["sides"].items() if r["rate"] == 1.0]
    what = (f"{winners[0]} won all {games} games" if winners
            else f"no side won any of the {games} games (all tied)")
    fig, ax = plt.subplots(figsize=(7, 2.6))
    ax.set_axis_off()
    ax.set_title(f"Card impact as an event: nothing to measure in {games} games")
    ax.text(0.5, 0.55,
            f"{what}, so no card's event can be told\n"
            "to raise or lower a win rate:\n"
            "each card's effect would be 0 by construction.\n"
            "Run agents closer in strength (the same agent on both sides, or --swap)\n"
            "or more games to see what each event does.",
            ha="center", va="center", transform=ax.transAxes, fontsize=10,
            linespacing=1.6)
    return fig


# ---- the page ------------------------------------------------------------------------
CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;color:#1a202c}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #cbd5e0;padding:2px 8px}
th{background:#edf2f7}td.n{text-align:right}.sig{background:#fefcbf;font-weight:bold}
img{max-width:100%;display:block;margin:1em 0}details{margin:1em 0}
"""


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def render_html(summary: dict[str, Any], titles: dict[str, str], plots: list[Path],
                comparison: dict[str, Any] | None, label: str) -> str:
    e = html.escape
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>Simulation {e(label)}"
           f"</title><style>{CSS}</style></head><body>",
           f"<h1>Simulation: {e(label)}</h1><p>{summary['games']} games; "
           f"{summary['ties']} ties.</p>", "<h2>Win rates</h2>",
           table(["side", "wins", "games", "rate", "95% CI"],
                 [[p, r["wins"], r["games"], pct(r["rate"]),
                   f"{pct(r['low'])} – {pct(r['high'])}"]
                  for p, r in [*summary["sides"].items(), *summary["agents"].items()]])]
    m = summary["margin"]
    out.append(f"<p>Mean margin of the winner: {m['mean']:.1f} (n = {m['n']}).</p>")
    think = summary.get("think", {})
    if think:
        out.append(table(["agent", "decisions", "seconds per decision"],
                         [[a, t["decisions"], f"{t['per_decision']:.4f}"]
                          for a, t in think.items()]))
    if comparison is not None:
        out.append(comparison_html(comparison, titles))
    for path in plots:
        data = base64.b64encode(path.read_bytes()).decode()
        out.append(f"<img alt='{e(path.stem)}' src='data:image/png;base64,{data}'>")
    out.append(cards_html(summary, titles))
    out.append("</body></html>")
    return "\n".join(out)


def table(head: list[str], rows: list[list[Any]], marks: list[bool] | None = None) -> str:
    e = html.escape
    lines = ["<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for i, row in enumerate(rows):
        cls = " class='sig'" if marks and marks[i] else ""
        cells = "".join(f"<td class='n'>{e(str(c))}</td>" if isinstance(c, (int, float))
                        else f"<td>{e(str(c))}</td>" for c in row)
        lines.append(f"<tr{cls}>{cells}</tr>")
    return "\n".join(lines) + "</table>"


def diff_rows(rows: dict[str, dict[str, Any]], name) -> tuple[list[list[Any]], list[bool]]:
    out, marks = [], []
    for key, r in rows.items():
        out.append([name(key), pct(r["base"]), pct(r["other"]), f"{100 * r['diff']:+.1f}",
                    f"{r['p']:.3g}", "yes" if r["significant"] else "no"])
        marks.append(r["significant"])
    return out, marks


def comparison_html(c: dict[str, Any], titles: dict[str, str]) -> str:
    head = ["figure", "baseline", "this run", "difference (points)", "p", "significant"]
    parts = [f"<h2>Against the baseline</h2><p>Test: {html.escape(c['test'])}.</p>"]
    rows, marks = diff_rows(c["sides"], lambda p: f"{p} win rate")
    m = c["signed_margin"]
    rows.append(["mean signed margin", f"{m['base']:.1f}", f"{m['other']:.1f}",
                 f"{m['diff']:+.1f}", f"{m['p']:.3g}", "yes" if m["significant"] else "no"])
    marks.append(m["significant"])
    parts.append(table(head, rows, marks))
    flat = {f"{w} to {p}": r for w, row in c["places"].items() for p, r in row.items()}
    rows, marks = diff_rows(flat, str)
    parts.append(f"<details><summary>Locations ({sum(marks)} significant at {ALPHA})</summary>"
                 + table(head, rows, marks) + "</details>")
    flat = {f"{titles.get(card, card)} ({card}), {p} as event": r
            for card, row in c["cards"].items() for p, r in row.items()}
    rows, marks = diff_rows(flat, str)
    parts.append(f"<details><summary>Cards: win rate after playing as an event "
                 f"({sum(marks)} significant at {ALPHA})</summary>"
                 + table(head, rows, marks) + "</details>")
    return "\n".join(parts)


def cards_html(summary: dict[str, Any], titles: dict[str, str]) -> str:
    players = summary["players"]
    uses = sorted({u for row in summary["cards"].values() for u in row["uses"]})
    head = ["card"] + [f"{u} by {p}" for u in uses for p in players] + ["event effect"]
    rows = []
    for card, row in summary["cards"].items():
        counts = [row["uses"].get(u, {}).get(p, 0) for u in uses for p in players]
        rows.append([f"{titles.get(card, card)} ({card})", *counts, f"{100 * row['effect']:+.1f}"])
    return ("<h2>Cards</h2><p>Uses over all games; event effect: win rate of the side in the "
            "games it played the card as an event, minus its overall rate (points).</p>"
            + table(head, rows))
