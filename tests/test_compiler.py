"""Compiling effect text: phrases, targets and name checks."""

from __future__ import annotations

import pytest

from hustings.dsl.compiler import Compiler, Symbols
from hustings.dsl.diagnostics import Report, Source
from hustings.dsl.loading import load_pack


@pytest.fixture(scope="module")
def program():
    return load_pack()


def compile_event(program, text: str):
    report = Report()
    names = {n: list(p.params) for n, p in program.procedures.items()}
    attributes = {k for table in (program.locations, program.cards) for v in table.values()
                  for k in v}
    symbols = Symbols(
        players=program.players, counters=set(program.counters), variables=program.variables,
        pools={n: p.kind for n, p in program.pools.items()}, locations=program.locations,
        kinds=program.kinds, zones={n: z.per_player for n, z in program.zones.items()},
        tracks=set(program.tracks), effects=set(program.effects), attributes=attributes,
        procedures=names, functions={n: f[0] for n, f in program.functions.items()},
    )
    comp = Compiler(symbols, report)
    block = comp.compile_text(text, Source("card.yaml", 10, 3), "card", ["player", "opponent"])
    return comp, block, report


def call_args(comp, block) -> dict:
    (ins,) = comp.blocks[block]
    assert ins[0] == "call"
    return dict(ins[2])


@pytest.mark.parametrize("where", ["[south, midwest]", "south or midwest"])
def test_region_targets_expand_to_their_states(program, where):
    comp, block, report = compile_event(
        program, f"nixon may add a total of 5 state support in {where}, at most 2 per state")
    assert not report.errors
    targets = call_args(comp, block)["targets"]
    expected = [s for s in program.kinds["states"]
                if program.locations[s]["region"] in ("south", "midwest")]
    assert targets == ("const", expected)


def test_named_states_stay_in_board_order(program):
    comp, block, _ = compile_event(program, "kennedy may add 3 state support in [VT, CT, MA]")
    args = call_args(comp, block)
    assert args["targets"] == ("const", ["CT", "MA", "VT"])
    assert args["per"] == ("const", 3) and args["optional"] == ("const", True)


def test_anywhere_means_every_place_of_the_pool(program):
    comp, block, _ = compile_event(program, "player must add 2 issue support anywhere")
    args = call_args(comp, block)
    assert args["targets"] == ("const", program.kinds["issues"])
    assert args["optional"] == ("const", False)


def test_errors_are_positioned_in_the_file(program):
    _, _, report = compile_event(program, "player gains 1 momentum\nmove player to Texas")
    (err,) = report.errors
    assert (err.code, err.source.line, err.source.column) == ("E315", 11, 18)


def test_a_region_holds_no_issues(program):
    _, _, report = compile_event(program, "player may add 1 issue support in south")
    assert [e.code for e in report.errors] == ["E307"]


def test_lasting_effects_need_a_duration(program):
    _, _, report = compile_event(program, "player has cp_bonus 1")
    assert [e.code for e in report.errors] == ["E311"]


def test_unknown_duration(program):
    _, _, report = compile_event(program, "expire week effects")
    assert [e.code for e in report.errors] == ["E310"]



@pytest.mark.parametrize("body", ["let x = range(1, 100000000)",
                                  "repeat 100000000 times:\n  let x = 1"])
def test_runaway_content_stops_with_a_rule_error_not_a_hang(tmp_path, body):
    import shutil

    from hustings.dsl.loading import builtin_pack
    from hustings.dsl.scenarios import Runner
    from hustings.schemas.scenario import Scenario

    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    indented = "\n".join("      " + line for line in body.splitlines())
    (pack / "rules" / "99-runaway.yaml").write_text(
        f"procedures:\n  runaway:\n    body: |\n{indented}\n")
    scenario = Scenario.model_validate(
        {"name": "runaway", "run": {"procedure": "runaway"}, "steps": [{"expect": {}}]})
    outcome = Runner(pack).run(scenario, "test")
    assert len(outcome.failures) == 1 and "rules error" in outcome.failures[0]
