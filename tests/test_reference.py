"""Cross-checks the 1960 pack against the reference data in ../shared/reference/1960.

A user's clone has no ../shared; these tests skip with a reason there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hustings.dsl.loading import builtin_pack, load_pack

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "1960"
needs_reference = pytest.mark.skipif(
    not REFERENCE.is_dir(), reason="../shared/reference/1960 is not beside this checkout"
)


def reference(name: str) -> dict:
    return YAML(typ="safe").load((REFERENCE / name).read_text())


@pytest.fixture(scope="module")
def program():
    return load_pack()


@needs_reference
def test_every_campaign_card_matches_the_reference(program):  # rule: R1.6
    cards = reference("cards.yaml")["cards"]
    assert len(cards) == 97
    campaign = {n: c for n, c in program.cards.items() if c["kind"] == "campaign"}
    assert sorted(campaign) == list(range(1, 98))
    for ref in cards:
        mine = campaign[ref["number"]]
        for key in ("title", "cp", "rest", "icon", "issue", "persistent"):
            assert mine.get(key) == ref[key], f"card {ref['number']} {key}"
        assert (mine.get("state") or "") == (ref["state"] or ""), f"card {ref['number']} state"


@needs_reference
def test_printed_text_is_kept_beside_each_event():
    cards = {c["number"]: c for c in reference("cards.yaml")["cards"]}
    for path in sorted((builtin_pack() / "cards").glob("*.yaml")):
        data = YAML(typ="safe").load(path.read_text())
        assert " ".join(data["text"].split()) == " ".join(cards[data["number"]]["text"].split())


@needs_reference
def test_every_state_matches_the_reference(program):  # rule: R1.1
    states = reference("states.yaml")["states"]
    assert len(states) == 50
    held = program.initial["pools"]["state"]
    for ref in states:
        mine = program.locations[ref["code"]]
        assert (mine["region"], mine["ev"], mine["edge"]) == (ref["region"], ref["ev"], ref["edge"])
        start = ref["start"]
        want = [start["owner"], start["cubes"]] if start else None
        assert held.get(ref["code"]) == want
    assert sum(program.locations[s["code"]]["ev"] for s in states) == 537


def test_setup_matches_the_manual(program):  # rule: R1.2, R1.3, R1.4, R1.5, R1.6
    init = program.initial
    assert init["tokens"] == {"kennedy": "MA", "nixon": "CA"}
    assert program.tracks["issue_track"] == ["defense", "economy", "civil_rights"]
    assert init["bag"] == {"kennedy": 12, "nixon": 12}
    assert init["counters"]["momentum"] == {"kennedy": 2, "nixon": 2}
    assert len(init["zones"]["deck"]) == 97
    regions = [program.cards[c]["region"] for c in init["zones"]["endorsement_deck"]]
    assert len(regions) == 16
    for region in ("west", "east", "midwest", "south"):
        assert regions.count(region) == 3
    assert regions.count("any") == 4
    assert init["zones"]["candidate:kennedy"] == [201]
    assert program.cards[201]["cp"] == 5


def test_travel_costs(program):  # rule: R5.3
    area, cost = program.travel_area, program.travel_cost
    assert cost[area["CA"]][area["NY"]] == 2
    assert cost[area["CA"]][area["HI"]] == 1
    assert cost[area["AK"]][area["HI"]] == 2
    assert cost[area["NY"]][area["AK"]] == 3
    assert cost[area["IL"]][area["OH"]] == 0
