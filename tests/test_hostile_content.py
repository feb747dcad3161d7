"""Hostile content ends quickly with a diagnostic or a RuleError naming its position.

One test per case listed in issue 8: each builds a small broken copy of the
1960 pack in tmp_path, loads (and, for runtime cases, starts) it in-process,
and checks that the failure names the file:line:col that caused it, within
a few seconds. Budgets and limits are in interpreter/budget.py.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.budget import Budget
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game, initial_state, ops_for
from hustings.interpreter.machine import Machine
from hustings.interpreter.unit import build

SECONDS = 5.0  # acceptance 2: every hostile case ends within this



def hostile_entry(pack: Path, body: str) -> Path:
    """Make the game start with procedure `hostile`, whose body is `body`."""
    rules = pack / "rules" / "95-hostile.yaml"
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    rules.write_text(f"procedures:\n  hostile:\n    body: |\n{indented}")
    manifest = pack / "pack.yaml"
    manifest.write_text(re.sub(r"(?m)^entry: .*$", "entry: hostile", manifest.read_text()))
    return rules


def start_fails(pack: Path, budget: Budget | None = None) -> RuleError:
    """Start the game; it must stop with a RuleError, quickly. Returns the error."""
    program = load_pack(pack)
    began = time.perf_counter()
    state = initial_state(program, 1)
    machine = Machine(program, state, ops_for(program), budget)
    machine.push(program.procedures[program.entry].block, {}, call=True)
    with pytest.raises(RuleError) as caught:
        machine.run()
    assert time.perf_counter() - began < SECONDS
    return caught.value


def at_line(rules: Path, line: int) -> str:
    """The `path:line:` prefix of a position in the hostile rules file (line of the body)."""
    return f"{rules.name}:{line + 3}:"


def errors(loaded, code: str) -> list:
    return [d for d in loaded.report.errors if d.code == code]


# ---- unbounded work from a few lines -------------------------------------------------
def test_squaring_forty_times_stops_at_the_64_bit_limit(pack):
    rules = hostile_entry(pack, "let x = 3\nrepeat 40 times:\n  let x = x * x")
    err = start_fails(pack)
    assert "64-bit" in str(err) and at_line(rules, 3) in err.where


def test_doubling_a_list_forty_times_stops_at_the_list_limit(pack):
    rules = hostile_entry(pack, "let l = [1]\nrepeat 40 times:\n  let l = l + l")
    err = start_fails(pack)
    assert "100,000 items" in str(err) and at_line(rules, 3) in err.where


def test_nesting_a_list_in_itself_is_bounded(pack):
    rules = hostile_entry(pack, "let l = [1]\nrepeat 60 times:\n  let l = [l, l]\nsay \"{l}\"")
    err = start_fails(pack)
    assert "items" in str(err) and at_line(rules, 3) in err.where


def test_repeating_a_text_is_checked_before_it_is_built():
    # The type checker refuses `"x" * N` in content; the interpreter checks anyway,
    # since a value's type is not always known before the game runs.
    program = load_pack()
    machine = Machine(program, initial_state(program, 1), ops_for(program))
    for seq in ("x", [1]):
        repeat = build(("arith", "*", ("const", seq), ("const", 999_999_999_999)))
        with pytest.raises(RuleError, match="too long"):
            repeat(machine, {})


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-parser"])
def test_a_yaml_alias_bomb_is_refused_at_the_alias(pack, libyaml, monkeypatch):
    from hustings.dsl import yamlsource

    if not libyaml:  # without libyaml the pure parser looks for aliases, at the same spot
        monkeypatch.setattr(yamlsource, "CParser", None)
    elif yamlsource.CParser is None:
        pytest.skip("libyaml's parser (ruamel.yaml.clib) is not installed")
    bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for n, prev in zip("bcdefghi", "abcdefgh", strict=True):
        bomb.append(f"{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
    text = "\n".join(bomb) + "\n"
    assert len(text) < 700
    manifest = pack / "pack.yaml"
    lines = manifest.read_text().splitlines()
    at = lines.index("variables:") + 1
    lines[at:at] = ["  bomb:"] + [f"    {line}" for line in bomb]
    manifest.write_text("\n".join(lines) + "\n")
    began = time.perf_counter()
    loaded = check_pack(pack)
    assert time.perf_counter() - began < SECONDS
    (alias,) = errors(loaded, "E113")
    assert alias.source.line == at + 3 and "*a" in alias.message
    assert alias.source.path.endswith("pack.yaml")


def test_a_10_mb_string_in_say_is_refused_before_reading(pack):
    card = pack / "cards" / "901-huge.yaml"
    card.write_text("number: 901\ntitle: Huge\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
                    "state: NY\npersistent: null\ntext: t\nevent: |\n  say \""
                    + "x" * 10_000_000 + "\"\n")
    loaded = check_pack(pack)
    (big,) = errors(loaded, "E112")
    assert big.source.path.endswith("901-huge.yaml") and "10,000" in big.message


def test_a_long_constant_said_again_and_again_meets_the_log_budget(pack):
    rules = hostile_entry(pack, f'repeat 1000 times:\n  say "{"y" * 200_000}"')
    err = start_fails(pack)
    assert "log" in str(err) and at_line(rules, 2) in err.where


def test_formatting_a_range_in_a_loop_meets_the_log_budget(pack):
    rules = hostile_entry(pack, 'repeat 1000000 times:\n  say "{range(1, 9999)}"')
    err = start_fails(pack)
    assert "log" in str(err) and at_line(rules, 2) in err.where


def test_one_action_may_not_write_unbounded_log_lines(pack):
    rules = hostile_entry(pack, 'repeat 1000000 times:\n  say "a"')
    err = start_fails(pack)
    assert "log lines" in str(err) and at_line(rules, 2) in err.where


def test_a_busy_loop_meets_the_work_budget(pack):
    rules = hostile_entry(pack, "let x = 0\nrepeat 999999999 times:\n  let x = 1")
    err = start_fails(pack, Budget(work=200_000))
    assert "units of work" in str(err) and rules.name in err.where


def test_a_busy_loop_meets_the_wall_clock_limit(pack):
    rules = hostile_entry(pack, "let x = 0\nrepeat 999999999 times:\n  let x = 1")
    err = start_fails(pack, Budget(seconds=0.2))
    assert "longer than 0.2 s" in str(err) and rules.name in err.where


def test_the_clock_starts_at_the_first_look_so_short_actions_never_read_it(monkeypatch):
    """Most actions do a few units of work and never look at the clock; one that works
    on looks at it every so often, and its wall-clock limit counts from the first look."""
    from hustings.dsl.loading import builtin_pack
    from hustings.interpreter import machine

    reads = []
    monkeypatch.setattr(machine.time, "perf_counter", lambda: reads.append(1) or 0.0)
    game = Game.new(load_pack(builtin_pack("tic-tac-toe")), seed=4)
    while not game.is_terminal():
        game.apply_action(0)
    assert reads == []
    clock = iter([100.0, 100.1, 100.3])  # the first look starts it: 0.2 s later it is over
    monkeypatch.setattr(machine.time, "perf_counter", lambda: next(clock))
    m = Machine(game.program, game.state, game.machine.ops, Budget(seconds=0.2))
    m.run()  # the program is over: no work, no look
    m.tick()
    m.tick()
    with pytest.raises(RuleError, match="longer than 0.2 s"):
        m.tick()


def test_a_long_chain_of_procedures_loads_quickly_and_meets_the_depth_budget(pack):
    # 3,000 procedures each calling the next: working out which run without frames is
    # one pass over the calls, and the chain ends at the budget's depth, quickly
    rules = hostile_entry(pack, "do p0()")
    chain = "".join(f"  p{i}:\n    body: |\n      do p{i + 1}()\n" for i in range(3000))
    rules.write_text(rules.read_text() + chain + '  p3000:\n    body: |\n      say "bottom"\n')
    err = start_fails(pack)
    assert "nested too deeply" in str(err) and rules.name in err.where


def test_a_normal_game_never_meets_the_budget():
    """Far from it: no action of a real game comes within a tenth of any limit."""
    game = Game.new(load_pack(), seed=3)
    budget = Budget()
    spent = {"work": 0, "log_lines": 0, "log_chars": 0}
    played = 0
    for _ in range(60):
        if game.is_terminal():
            break
        game.apply_action(0)  # a RuleError here would fail the test
        played += 1
        for key in spent:
            spent[key] = max(spent[key], getattr(game.machine, key))
    assert played == 60 and len(game.state.stack) <= budget.depth // 10
    for key, most in spent.items():
        assert 0 < most < getattr(budget, key) / 10, key
    assert sum(map(len, game.state.log)) < budget.log_total_chars / 10


# ---- tracebacks from check --------------------------------------------------------
def test_a_4301_digit_number_in_an_expression_is_a_diagnostic(pack):
    rules = hostile_entry(pack, "let x = " + "9" * 4301)
    loaded = check_pack(pack)
    (long,) = errors(loaded, "E322")
    assert long.source.path.endswith(rules.name) and (long.source.line, long.source.column) \
        == (4, 15) and "4301 digits" in long.message


def test_a_4301_digit_while_bound_is_a_diagnostic(pack):
    rules = hostile_entry(pack, "let x = 0\nwhile x < 3, at most " + "9" * 4301
                          + " times:\n  let x = x + 1")
    loaded = check_pack(pack)
    (long,) = errors(loaded, "E322")
    assert long.source.path.endswith(rules.name) and long.source.line == 5


def test_a_4301_digit_yaml_number_is_a_diagnostic(pack):
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("  turn: 0", "  turn: " + "7" * 4301))
    loaded = check_pack(pack)
    (long,) = errors(loaded, "E114")
    line = manifest.read_text().splitlines().index("  turn: " + "7" * 4301) + 1
    assert (long.source.line, long.source.column) == (line, 9)


def test_a_19_digit_yaml_number_is_a_diagnostic(pack):
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("  turn: 0", "  turn: 9" + "0" * 18))
    loaded = check_pack(pack)
    assert errors(loaded, "E114")


def test_a_pool_whose_kind_names_no_kind_is_a_diagnostic(pack):
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("kind: issues,", "kind: issuez,"))
    loaded = check_pack(pack)
    (bad,) = errors(loaded, "E108")
    assert "issuez" in bad.message and "issues" in bad.hint
    assert bad.source.path.endswith("pack.yaml") and bad.source.line > 1


# ---- mods cannot shadow what they did not declare ----------------------------------
def write_mod(root: Path, manifest: str = "", files: dict[str, str] | None = None) -> Path:
    folder = root / "mod"
    folder.mkdir()
    (folder / "mod.yaml").write_text(
        'name: hostile\nversion: "0.1"\nbase: {pack: "1960", versions: ["1.0.0"]}\n'
        + manifest)
    for rel, text in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def test_a_mod_cannot_replace_the_builtin_count(tmp_path):
    mod = write_mod(tmp_path, files={"rules/fn.yaml": "functions:\n  count:\n"
                                     "    params: [items]\n    expr: \"0\"\n"})
    loaded = check_pack(mods=[mod])
    (shadow,) = errors(loaded, "E608")
    assert shadow.source.path.endswith("fn.yaml") and shadow.source.line == 2
    assert loaded.program is None


def test_a_mod_cannot_replace_the_builtin_count_even_saying_so(tmp_path):
    mod = write_mod(tmp_path, files={"rules/fn.yaml": "functions:\n  count:\n"
                                     "    params: [items]\n    replaces: true\n"
                                     "    expr: \"0\"\n"})
    loaded = check_pack(mods=[mod])
    assert loaded.program is None
    assert errors(loaded, "E608") or errors(loaded, "E604")


def test_a_mod_procedure_of_an_existing_name_needs_replaces(tmp_path):
    mod = write_mod(tmp_path, files={"rules/p.yaml": "procedures:\n  game:\n"
                                     "    body: |\n      stop\n"})
    loaded = check_pack(mods=[mod])
    (redefined,) = errors(loaded, "E603")
    assert redefined.source.path.endswith("p.yaml") and redefined.source.line == 2


def test_a_mod_cannot_replace_a_procedure_that_does_not_exist(tmp_path):
    mod = write_mod(tmp_path, files={"rules/p.yaml": "procedures:\n  nosuch:\n"
                                     "    replaces: true\n    body: |\n      stop\n"})
    loaded = check_pack(mods=[mod])
    assert errors(loaded, "E604") and loaded.program is None


def test_a_mod_cannot_start_an_unsigned_counter_negative(tmp_path):
    mod = write_mod(tmp_path, "setup:\n  counters:\n    momentum: {start: -999999999999}\n")
    loaded = check_pack(mods=[mod])
    (bad,) = errors(loaded, "E609")
    assert bad.source.path.endswith("mod.yaml") and bad.source.line == 6
    assert "-999999999999" in bad.message


def test_a_pack_cannot_start_an_unsigned_counter_negative(pack):
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("momentum: {start: 2",
                                                     "momentum: {start: -1"))
    loaded = check_pack(pack)
    (bad,) = errors(loaded, "E609")
    assert bad.source.path.endswith("pack.yaml")


def test_the_game_api_takes_a_budget(pack):
    rules = hostile_entry(pack, "let x = 0\nrepeat 999999999 times:\n  let x = 1")
    program = load_pack(pack)
    with pytest.raises(RuleError) as caught:
        Game.new(program, seed=1, budget=Budget(seconds=0.2))
    assert "longer than 0.2 s" in str(caught.value) and rules.name in caught.value.where
