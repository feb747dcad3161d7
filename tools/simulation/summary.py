"""Summary statistics of a results file, and the comparison of two.

Win rates carry 95% Wilson score intervals. Two runs are compared figure by figure with a
two-proportion z-test (pooled variance) for rates and a Welch z-test for the mean margin;
a difference is called significant when its two-sided p-value is below 0.05. Per-location
and per-card rows are many tests at once: read a lone significant row among dozens with care.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

Z95 = 1.959963984540054
ALPHA = 0.05


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (0, 1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> float:
    """p-value of the two-proportion z-test (1.0 when it cannot be computed)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return normal_p((k1 / n1 - k2 / n2) / se)


def welch(mean1: float, var1: float, n1: int, mean2: float, var2: float, n2: int) -> float:
    if n1 < 2 or n2 < 2:
        return 1.0
    se = math.sqrt(var1 / n1 + var2 / n2)
    return 1.0 if se == 0 else normal_p((mean1 - mean2) / se)


def rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"wins": k, "games": n, "rate": k / n if n else 0.0, "low": low, "high": high}


def players_of(records: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        for p in r["seats"]:
            seen.setdefault(p)
    return list(seen)


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of the report, from the records alone."""
    players = players_of(records)
    n = len(records)
    wins = Counter(p for r in records for p in winners(r) or [None])
    agents: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        for p, spec in r["seats"].items():
            agents[spec][1] += 1
            agents[spec][0] += p in winners(r)
    margins = [r["margin"] for r in records if r.get("margin") is not None]
    signed = [signed_margin(r, players) for r in records]
    signed = [m for m in signed if m is not None]
    return {
        "games": n,
        "players": players,
        "sides": {p: rate(wins[p], n) for p in players},
        "ties": wins[None],
        "agents": {a: rate(k, g) for a, (k, g) in sorted(agents.items())},
        "margin": moments(margins),
        "signed_margin": moments(signed),
        "signed_margins": signed,
        "scores": score_means(records),
        "places": place_rates(records, players),
        "cards": card_table(records, players, {p: wins[p] for p in players}),
        "think": think_time(records),
    }


def winners(record: dict[str, Any]) -> list[str]:
    """The players a game's record counts as winners: a team's members win together (the
    record's `winners`), else its one `winner`; none on a tie."""
    team = record.get("winners")
    if isinstance(team, list):
        return team
    return [record["winner"]] if record.get("winner") is not None else []


def signed_margin(record: dict[str, Any], players: list[str]) -> float | None:
    """The margin from the first player's side: positive when they won."""
    m = record.get("margin")
    if m is None or not players:
        return None
    return m if players[0] in winners(record) else -m if record["winner"] else 0


def moments(values: list[float]) -> dict[str, float]:
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": 0.0, "var": 0.0}
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return {"n": n, "mean": mean, "var": var}


def score_means(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in records:
        for figure, table in r.get("scores", {}).items():
            for p, v in table.items():
                if isinstance(v, (int, float)):
                    sums[figure][p] += v
    n = max(1, len(records))
    return {f: {p: v / n for p, v in t.items()} for f, t in sorted(sums.items())}


def place_rates(records: list[dict[str, Any]], players: list[str]) -> dict[str, dict[str, Any]]:
    """How often each location went to each player, over all games."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        for p, won in r.get("places", {}).items():
            for where in won:
                counts[where][p] += 1
    n = len(records)
    return {where: {p: rate(c[p], n) for p in players} for where, c in sorted(counts.items())}


def card_table(records: list[dict[str, Any]], players: list[str],
               side_wins: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Per card: uses by kind and player, and the win rate of each player in the games they
    used it as an event against that player's rate over all games."""
    uses: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    event_games: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    n = len(records)
    for r in records:
        evented: set[tuple[str, str]] = set()
        for card, use, p in r.get("uses", []):
            uses[str(card)][use][p] += 1
            if use == "event":
                evented.add((str(card), p))
        for card, p in evented:
            event_games[card][p][1] += 1
            event_games[card][p][0] += p in winners(r)
    table = {}
    for card in sorted(uses, key=int):
        impact = {}
        weighted, total = 0.0, 0
        for p in players:
            k, g = event_games[card][p]
            if g == 0:
                continue
            overall = side_wins.get(p, 0) / n if n else 0.0
            row = rate(k, g)
            row["overall"] = overall
            row["effect"] = row["rate"] - overall
            row["p"] = two_proportions(k, g, side_wins.get(p, 0) - k, n - g)
            impact[p] = row
            weighted += row["effect"] * g
            total += g
        table[card] = {
            "uses": {u: dict(c) for u, c in sorted(uses[card].items())},
            "event_impact": impact,
            "effect": weighted / total if total else 0.0,
        }
    return table


def think_time(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Seconds per decision of each agent kind."""
    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for r in records:
        for p, spec in r["seats"].items():
            spent[spec][0] += r.get("think", {}).get(p, 0.0)
            spent[spec][1] += r.get("decisions", {}).get(p, 0)
    return {a: {"seconds": s, "decisions": d, "per_decision": s / d if d else 0.0}
            for a, (s, d) in sorted(spent.items())}


# ---- comparing two runs ---------------------------------------------------------------
def compare(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Figure-by-figure differences `other - base` with p-values and a significance flag."""
    def prop_row(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        p = two_proportions(b["wins"], b["games"], a["wins"], a["games"])
        return {"base": a["rate"], "other": b["rate"], "diff": b["rate"] - a["rate"],
                "p": p, "significant": p < ALPHA}

    sides = {p: prop_row(base["sides"][p], other["sides"][p])
             for p in base["players"] if p in other["sides"]}
    bm, om = base["signed_margin"], other["signed_margin"]
    margin_p = welch(om["mean"], om["var"], om["n"], bm["mean"], bm["var"], bm["n"])
    places = {}
    for where, row in base["places"].items():
        if where in other["places"]:
            places[where] = {p: prop_row(row[p], other["places"][where][p]) for p in row
                             if p in other["places"][where]}
    cards = {}
    for card, row in base["cards"].items():
        if card not in other["cards"]:
            continue
        cards[card] = {p: prop_row(a, other["cards"][card]["event_impact"][p])
                       for p, a in row["event_impact"].items()
                       if p in other["cards"][card]["event_impact"]}
    return {
        "test": "two-proportion z-test (rates), Welch z-test (mean margin); "
                f"significant when p < {ALPHA}",
        "sides": sides,
        "signed_margin": {"base": bm["mean"], "other": om["mean"], "diff": om["mean"] - bm["mean"],
                          "p": margin_p, "significant": margin_p < ALPHA},
        "places": places,
        "cards": cards,
    }
