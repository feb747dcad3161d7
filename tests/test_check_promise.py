"""`check` is a promise (issue 40): what it passes plays, and what it refuses ends in a
diagnostic at file:line:col, within bounded time and memory, before any parser recurses
or any game is set up.

The hostile inputs run `hustings check` in a child process limited to 500 MB of address
space, so a crash (the segmentation fault libyaml's composer met on deep nesting) or a
runaway shows as such instead of taking the test run down; the only time limit is a
generous guard on the child."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from minipack import make_mod, make_pack

from hustings.dsl import pack as pack_module
from hustings.dsl import yamlsource
from hustings.dsl.diagnostics import Diagnostic, Report, Source, excerpt
from hustings.dsl.loading import check_pack, load_pack
from hustings.dsl.scenarios import run_paths
from hustings.dsl.textbounds import too_deep, visible
from hustings.interpreter import codegen
from hustings.interpreter.budget import (
    MAX_FUNCTION_NODES,
    MAX_NESTING,
    MAX_PACK_BYTES,
    MAX_PACK_VALUES,
    MAX_SETUP_NODES,
    MAX_WRITTEN_IN,
)
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.unit import Unit
from hustings.tools.cli import main as cli_main
from hustings.tools.hostile import (
    CARDS,
    DEEP_BRACKETS,
    ECHO,
    bomb_pack,
    doubling_pack,
    event_card,
)

MEMORY = 500 * 2**20  # what a refusal may use, at most (acceptance of issue 40)
GUARD = 120  # seconds: only so a regression cannot hang the test run



def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def check_in_child(pack: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """`hustings check PACK` in a child process of at most MEMORY bytes, no pack cache."""
    env = {"HUSTINGS_CACHE": "off", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "hustings.tools.cli", "check", str(pack)],
                          capture_output=True, text=True, timeout=GUARD, env=env,
                          preexec_fn=_limits, cwd=tmp_path)


def codes(loaded) -> list[str]:
    return [d.code for d in loaded.report.errors]


# ---- the hang: functions that double at each level ---------------------------------
def chain(levels: int) -> dict:
    """The doubling functions as compiled: name -> (parameters, body)."""
    n = ("var", "n")
    functions = {"f0": (["n"], ("arith", "+", n, ("const", 1)))}
    for k in range(1, levels + 1):
        f = f"f{k - 1}"
        functions[f"f{k}"] = (["n"], ("arith", "+", ("fn", f, [n]),
                                      ("fn", f, [("arith", "+", n, ("const", 1))])))
    return functions


def written_in_fully(e, functions):
    """`e` with every call written in, with no bound (only for small chains)."""
    if e[0] == "fn":
        params, body = functions[e[1]]
        args = [written_in_fully(a, functions) for a in e[2]]
        return substitute(body, dict(zip(params, args, strict=True)), functions)
    if e[0] == "arith":
        return ("arith", e[1], written_in_fully(e[2], functions),
                written_in_fully(e[3], functions))
    return e


def substitute(e, scope, functions):
    if e[0] == "var":
        return scope[e[1]]
    if e[0] == "arith":
        return ("arith", e[1], substitute(e[2], scope, functions),
                substitute(e[3], scope, functions))
    if e[0] == "fn":
        return written_in_fully(("fn", e[1], [substitute(a, scope, functions)
                                              for a in e[2]]), functions)
    return e


def test_sizes_written_in_are_measured_exactly_before_any_is_written():
    functions = chain(8)
    pure = codegen.pure_functions(functions)
    sizes = codegen.written_in_sizes(functions, pure)
    for k in range(9):
        full = written_in_fully(("fn", f"f{k}", [("var", "n")]), functions)
        assert sizes[f"f{k}"][0] == codegen._size(full)
        assert sizes[f"f{k}"][1] == {"n": 2**k}  # each body reads n once


def test_forty_doubling_levels_are_measured_from_the_bottom_up():
    sizes = codegen.written_in_sizes(chain(40), codegen.pure_functions(chain(40)))
    assert sizes["f40"][0] > 2**40  # measured, never expanded (that would never end)
    assert sizes["f40"][1] == {"n": 2**40}


def test_a_call_too_large_to_write_in_is_left_a_call_without_expanding_it():
    functions = chain(40)
    unit = Unit("test")
    unit.pure_functions = codegen.pure_functions(functions)
    unit.inliner = codegen.Inliner(functions, unit.pure_functions)
    body = unit.inliner(functions["f40"][1])
    assert body == functions["f40"][1]  # both calls of f39 kept: each is 2**39 bodies
    small = unit.inliner(("fn", "f1", [("var", "a")]))
    assert small == written_in_fully(("fn", "f1", [("var", "a")]), functions)
    for _, e in functions.values():  # every body, as a game's set-up writes them
        unit.inliner(e)
    assert 0 < unit.inliner.spent <= MAX_SETUP_NODES


def test_writing_in_stops_when_the_set_up_budget_is_spent(monkeypatch):
    functions = chain(3)
    inliner = codegen.Inliner(functions, codegen.pure_functions(functions))
    call = ("fn", "f3", [("var", "a")])
    assert inliner(call) != call  # 2**3 bodies: written in
    monkeypatch.setattr(codegen, "MAX_SETUP_NODES", inliner.spent)
    assert inliner(call) == call  # nothing left to spend: left a call
    monkeypatch.setattr(codegen, "MAX_SETUP_NODES", 10**9)
    monkeypatch.setattr(codegen, "MAX_WRITTEN_IN", codegen._size(inliner(call)) - 1)
    assert inliner(call) == call  # larger than a call may be written in as


def test_check_refuses_a_function_too_large_once_written_in(tmp_path):
    pack = doubling_pack(tmp_path, 40)
    done = check_in_child(pack, tmp_path)
    assert done.returncode == 1, done.stderr
    # f16 is the first past the bound (2**16 bodies); those calling it are not repeated
    assert "20-fns.yaml:52:12: error[E402]: the function 'f16'" in done.stdout
    assert done.stdout.count("E402") == 1
    assert f"{MAX_FUNCTION_NODES:,}" in done.stdout


def test_a_pack_of_doubling_functions_within_the_bound_checks_and_plays(tmp_path):
    pack = doubling_pack(tmp_path, 14)
    assert codes(check_pack(pack)) == []
    game = Game.new(load_pack(pack), 1)
    game.apply_action("pass")
    assert game.state.log[-1] == "ann passes 7"  # f1(2) = (2 + 1) + (3 + 1)


def test_the_bounds_leave_room_for_the_shipped_packs():
    assert MAX_WRITTEN_IN >= 10 * 759  # the largest call a shipped pack writes in
    assert MAX_SETUP_NODES >= 10 * 19_038  # campaign-trail's set-up, all of it


# ---- the segmentation fault: nesting measured before a parser reads the text ------------
DEEP = {
    "brackets": DEEP_BRACKETS,
    "braces": "a: " + "{b: " * 30_000 + "\n",
    "dashes": "a:\n  " + "- " * 100_000 + "x\n",
}


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-parser"])
@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_nesting_is_refused_before_the_parser_recurses(tmp_path, shape, libyaml,
                                                            monkeypatch):
    if not libyaml:
        monkeypatch.setattr(yamlsource, "CParser", None)
    elif yamlsource.CParser is None:
        pytest.skip("libyaml's parser (ruamel.yaml.clib) is not installed")
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP[shape])
    report = Report()
    assert yamlsource.read_yaml(path, "deep.yaml", report) is None
    (d,) = report.errors
    assert d.code == "E115" and f"more than {MAX_NESTING} deep" in d.message
    # "a: " is one level; the 64th opener more is one too many
    column = {"brackets": 4 + (MAX_NESTING - 1), "braces": 4 + 4 * (MAX_NESTING - 1),
              "dashes": 3 + 2 * (MAX_NESTING - 1)}[shape]
    assert (d.source.line, d.source.column) == (1 if shape != "dashes" else 2, column)


def test_a_rules_file_of_100000_brackets_ends_in_a_diagnostic_not_a_crash(tmp_path):
    pack = make_pack(tmp_path, CARDS, rules={"rules/20-deep.yaml": DEEP["brackets"]})
    done = check_in_child(pack, tmp_path)
    assert done.returncode == 1, (done.returncode, done.stderr)  # not -11 (SIGSEGV)
    assert "rules/20-deep.yaml:1:67: error[E115]" in done.stdout


@pytest.mark.parametrize("text", [
    "a: '[[[[[[[[[['\n",  # inside quotes
    'a: "[[[[[[[[[[\\"[["\n',
    "a: |\n  [[[[[[[[[[\n    [[[[[[[[\nb: 1\n",  # inside a block of text
    "a: x # [[[[[[[[[[\n",  # a comment
    "a: Nixon's [[ ]] ]] ]] ]]\nb: [[1]]\n",  # an apostrophe; closers bank no levels
])
def test_brackets_that_are_text_do_not_count_as_nesting(text):
    assert too_deep(text, 4) is None


@pytest.mark.parametrize("text", [
    "a: x-'\n  b:\n    c:\n      d:\n        e: 1\n",  # `x-'` opens no quote
    "a: ]]]]]]\nb: [[[[[\n",  # closers first cannot bank levels
    "a: |\n  text\nb:\n  c:\n    d:\n      e:\n        f: 1\n",  # the block has ended
])
def test_nesting_cannot_hide_behind_text(text):
    assert too_deep(text, 4) is not None


def test_every_shipped_content_file_nests_well_within_the_bound():
    files = sorted((Path(__file__).resolve().parent.parent / "content").rglob("*.yaml"))
    assert len(files) > 100
    assert all(too_deep(f.read_text(encoding="utf-8"), 10) is None for f in files)


# ---- control characters ---------------------------------------------------------------
def test_a_control_escape_in_a_yaml_string_is_refused_where_it_is(tmp_path):
    cards = CARDS.replace("title: Two", 'title: "Two\\e]0;owned\\a\\e[2J"')
    pack = make_pack(tmp_path, cards)
    (d,) = [d for d in check_pack(pack).report.errors if d.code == "E141"]  # once, at "Two
    assert "(\\e)" in d.message
    assert (Path(d.source.path).name, d.source.line, d.source.column) == ("cards.yaml", 4, 24)


def test_a_control_escape_in_a_said_text_is_refused(tmp_path):
    rules = {"rules/20-say.yaml": 'procedures:\n  hello:\n    body: "say \\"hi\\x9b2J\\""\n'}
    loaded = check_pack(make_pack(tmp_path, CARDS, rules=rules))
    (d,) = [d for d in loaded.report.errors if d.code == "E141"]
    assert "(\\x9b)" in d.message and (d.source.line, d.source.column) == (3, 11)


def test_a_raw_control_character_is_refused_at_its_position(tmp_path):
    pack = make_pack(tmp_path, CARDS)
    board = pack / "board.yaml"
    board.write_bytes(board.read_bytes().replace(b"{id: B}", b"{id: B\x1b[2J}"))
    done = check_in_child(pack, tmp_path)
    assert "board.yaml:4:13: error[E141]: a control character (\\e)" in done.stdout
    assert "\x1b" not in done.stdout + done.stderr


def test_a_diagnostic_never_echoes_a_control_character(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_bytes(b"title: \x1b]0;owned\x07 end\n")
    d = Diagnostic(Source(str(path), 1, 19), "E999", "unknown 'x\x1b[2J'")
    line, caret = excerpt(d)
    assert line == "title: \\e]0;owned\\x07 end" and line[caret:].startswith("end")
    assert "\x1b" not in str(d) and "\\e[2J" in str(d)
    assert visible("a\tb\x7f\x85") == "a\tb\\x7f\\x85"  # a tab is text


def test_tabs_newlines_and_crlf_line_ends_are_not_control_characters(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_bytes(b"a: |\r\n  one\ttwo\r\n  three\r\nb: 2\r\n")
    report = Report()
    assert yamlsource.read_yaml(path, "ok.yaml", report) is not None and not report.errors


# ---- the size bomb: one total for a pack and its mods -----------------------------------
def test_three_900_kb_card_files_are_refused_before_the_first_is_built(tmp_path):
    pack = bomb_pack(tmp_path, 3, 900_000)  # about 118,000 YAML values a file
    done = check_in_child(pack, tmp_path)
    assert done.returncode == 1
    (line,) = [x for x in done.stdout.splitlines() if "error[" in x]
    # the value past the total is found by libyaml's parser, before ruamel builds any
    assert re.search(r"more0\.yaml:\d+:\d+: error\[E140\]: .* more than "
                     + f"{MAX_PACK_VALUES:,}", line)
    assert "more1.yaml" not in done.stdout  # the load stopped there: nothing more read


def test_files_past_the_total_size_are_refused_at_the_file_that_crosses_it(tmp_path):
    pack = bomb_pack(tmp_path, 2, 10)  # two small card files
    big = pack / "more1.yaml"
    big.write_text(big.read_text() + "# " + "x" * 900_000 + "\n")  # bytes, not values
    (pack / "more0.yaml").write_text((pack / "more0.yaml").read_text()
                                     + "# " + "x" * 900_000 + "\n")
    done = check_in_child(pack, tmp_path)
    assert "more1.yaml:1:1: error[E140]" in done.stdout
    assert f"more than the {MAX_PACK_BYTES:,}" in done.stdout


def test_a_mod_counts_towards_its_pack_s_total(tmp_path, monkeypatch):
    pack = make_pack(tmp_path, CARDS)
    mod = make_mod(tmp_path, "big", {"rules/50-big.yaml": "procedures: {}\n# " + "x" * 5000})
    within = sum(f.stat().st_size for f in pack.rglob("*.yaml"))
    monkeypatch.setattr(yamlsource, "MAX_PACK_BYTES", within + 1000)
    assert codes(check_pack(pack)) == []
    loaded = check_pack(pack, mods=[mod])
    (d,) = loaded.report.errors
    assert d.code == "E140" and d.source.path.endswith("50-big.yaml")
    assert loaded.program is None


def test_values_are_counted_only_with_libyaml_and_only_while_a_pack_loads(tmp_path,
                                                                          monkeypatch):
    if yamlsource.CParser is None:
        pytest.skip("libyaml's parser (ruamel.yaml.clib) is not installed: bytes only")
    path = tmp_path / "many.yaml"
    path.write_text("a: [" + ", ".join("1" for _ in range(50)) + "]\n")
    monkeypatch.setattr(yamlsource, "MAX_PACK_VALUES", 10)
    assert yamlsource.read_yaml(path, "many.yaml", Report()) is not None  # no pack: no total
    report = Report()
    with yamlsource.pack_reading(), pytest.raises(yamlsource.PackTooLarge):
        yamlsource.read_yaml(path, "many.yaml", report)
    (d,) = report.errors  # the 11th value: the mapping, `a`, the list, its 8th item
    assert d.code == "E140" and (d.source.line, d.source.column) == (1, 26)


def test_the_shipped_packs_are_far_below_the_total():
    content = Path(__file__).resolve().parent.parent / "content"
    for pack in ("1960", "campaign-trail", "tic-tac-toe"):
        read = [f for f in (content / pack).rglob("*.yaml") if "scenarios" not in f.parts]
        assert sum(f.stat().st_size for f in read) * 5 < MAX_PACK_BYTES
    mods = sum(f.stat().st_size for f in (content / "mods").rglob("*.yaml"))
    assert mods * 5 < MAX_PACK_BYTES


# ---- check passes what then fails in play ------------------------------------------------
def test_a_reaction_announcing_what_it_reacts_to_is_a_cycle_at_its_members(tmp_path):
    loaded = check_pack(make_pack(tmp_path, event_card(ECHO)))
    (d,) = loaded.report.errors
    assert d.code == "E335" and Path(d.source.path).name == "cards.yaml"
    assert (d.source.line, d.source.column) == (9, 18)  # the `whenever`'s scored
    assert "announce scored -> whenever scored (" in d.message
    assert "cards.yaml:9:18) -> announce scored (" in d.message  # each member's position
    assert "cards.yaml:10:20)" in d.message


def test_the_cycle_check_reports_what_play_would_fail_on(tmp_path, monkeypatch):
    monkeypatch.setattr(pack_module, "check_announcement_cycles", lambda comp, report: None)
    game = Game.new(load_pack(make_pack(tmp_path, event_card(ECHO))), 1)
    game.apply_action("play Three")  # ann: the reaction is in force
    with pytest.raises(RuleError, match="nested too deeply"):  # no file, no line
        game.apply_action("score")


def test_a_cycle_through_a_procedure_and_a_rules_reaction_is_found(tmp_path):
    rules = {"rules/20-echo.yaml": """\
reactions:
  echo:
    whenever: scored
    body: |
      do score(player: player, amount: 1)
"""}
    loaded = check_pack(make_pack(tmp_path, CARDS, rules=rules))
    (d,) = loaded.report.errors
    assert d.code == "E335" and d.source.path.endswith("20-echo.yaml") and d.source.line == 2
    assert ("announce scored -> reaction echo (" in d.message
            and "-> do score (" in d.message and "10-game.yaml:" in d.message)


def test_a_reaction_that_is_used_up_ends_and_is_no_cycle(tmp_path):
    used_once = ECHO.replace("until end of round:", "until used once:")
    loaded = check_pack(make_pack(tmp_path, event_card(used_once)))
    assert codes(loaded) == []
    game = Game.new(loaded.program, 1)
    game.apply_action("play Three")
    game.apply_action("score")  # bob scores; the reaction answers once and is gone
    assert game.state.reactions == []


def test_an_effect_given_a_value_of_the_wrong_kind_is_refused_where_it_is_given(tmp_path):
    loaded = check_pack(make_pack(tmp_path, event_card(
        "until end of round:\n  opponent has bonus A")))
    (d,) = loaded.report.errors
    assert d.code == "E320" and "the value of the effect `bonus` must be a number" in d.message
    assert "'A'" in d.message and (d.source.line, d.source.column) == (9, 28)


def test_an_effect_given_a_number_still_checks(tmp_path):
    loaded = check_pack(make_pack(tmp_path, event_card(
        "until end of round:\n  opponent has bonus 2")))
    assert codes(loaded) == []


def test_e331_offers_names_that_hide_nothing(tmp_path):
    loaded = check_pack(make_pack(tmp_path, event_card(
        "until end of round:\n  whenever scored(who):\n    player gains 1 gold")))
    (d,) = loaded.report.errors
    assert d.code == "E331" and "whenever scored(player_now, amount)" in d.hint


def test_a_reaction_naming_its_value_player_in_a_card_event_hides_the_card_s_player(tmp_path):
    loaded = check_pack(make_pack(tmp_path, event_card(
        "until end of round:\n  whenever scored(player, amount):\n    player gains 1 gold")))
    (d,) = loaded.report.errors
    assert d.code == "E333" and "names its value 'player'" in d.message
    assert "whenever scored(player_now, amount)" in d.hint


# ---- the scenario runner counts what it cannot read -----------------------------------
TWO_SCENARIOS = """\
scenarios:
  - name: fine
    steps:
      - expect: {counters: {gold: {ann: 3}}}
  - name: misspelt
    stesp: []
"""


def test_a_scenario_with_an_invalid_key_is_counted_failed_and_the_others_run(tmp_path):
    pack = make_pack(tmp_path, CARDS)
    path = tmp_path / "s.yaml"
    path.write_text(TWO_SCENARIOS)
    outcomes, report = run_paths([path], pack)
    assert [(o.name, o.ok, o.skipped) for o in outcomes] == [
        ("fine", True, False), ("misspelt", False, True)]
    (d,) = report.errors
    assert (d.source.line, d.source.column) == (6, 5) and "stesp" in d.message


def test_a_scenario_file_that_cannot_be_read_is_counted_failed(tmp_path):
    pack = make_pack(tmp_path, CARDS)
    (tmp_path / "broken.yaml").write_text("scenarios: [\n")
    (tmp_path / "shape.yaml").write_text("scenario:\n  - name: x\n")
    outcomes, report = run_paths([tmp_path / "broken.yaml", tmp_path / "shape.yaml"], pack)
    assert [(Path(o.path).name, o.ok, o.skipped) for o in outcomes] == [
        ("broken.yaml", False, True), ("shape.yaml", False, True)]
    assert [(Path(d.source.path).name, d.code) for d in report.errors] == [
        ("broken.yaml", "E101"), ("shape.yaml", "E102")]


def test_hustings_scenario_says_what_it_did_not_run_and_fails(tmp_path, capsys):
    pack = make_pack(tmp_path, CARDS)
    path = tmp_path / "s.yaml"
    path.write_text(TWO_SCENARIOS)
    assert cli_main(["scenario", "--pack", str(pack), str(path)]) == 1
    out = capsys.readouterr().out
    assert f"SKIP misspelt ({path}:5:5)" in out
    assert f"1 passed, 1 failed (1 not run, counted as failed: misspelt ({path}:5:5))" in out


# ---- `bench --hostile`: the six refusals, each measured in a child process ---------------
def test_each_hostile_case_is_built_to_end_in_its_own_diagnostic(tmp_path):
    """Each case's pack, checked in-process, gives exactly the code the bench expects of it
    (the deep and the bomb packs are proven in a child above: they stop before any build)."""
    from hustings.tools import hostile

    assert len({c.code for c in hostile.CASES}) == len(hostile.CASES) == 6
    for case in hostile.CASES:
        if case.code in ("E115", "E140", "E402"):
            continue
        loaded = check_pack(case.build(tmp_path / case.code))
        assert codes(loaded)[0] == case.code, case.name


def test_the_bench_measures_a_refusal_and_judges_it_on_every_bound(tmp_path):
    from dataclasses import replace

    from hustings.tools import hostile

    case = next(c for c in hostile.CASES if c.code == "E320")
    r = hostile.measure(case, tmp_path)
    assert r.exit_status == 1 and r.positioned, r.diagnostic
    assert "cards.yaml:9:28: error[E320]" in r.diagnostic and r.peak_mb > 10
    fine = replace(r, seconds=hostile.MAX_SECONDS, peak_mb=hostile.MAX_MB)
    assert fine.within_bounds
    assert not replace(fine, seconds=hostile.MAX_SECONDS + 0.01).within_bounds
    assert not replace(fine, peak_mb=hostile.MAX_MB + 1).within_bounds
    assert not replace(fine, exit_status=0).within_bounds
    assert not replace(fine, exit_status=-11).within_bounds  # a segmentation fault
    assert not replace(fine, diagnostic="error[E320]: no position").within_bounds
    assert not replace(fine, diagnostic="").within_bounds
    assert "cards.yaml:9:28" in hostile.report_line(r)


# ---- cards that start in no zone (found by `hustings fuzz` on campaign-trail) ---------------
def test_cards_of_a_kind_no_zone_starts_with_are_refused_at_the_first(tmp_path):
    from minipack import MANIFEST

    kinds = MANIFEST.replace("zones:\n", "card_kinds: {campaign: x, topic: y}\nzones:\n")
    cards = CARDS + ("- {number: 5, title: Five, kind: topic}\n"
                     "- {number: 6, title: Six, kind: topic}\n")
    unstarted = make_pack(tmp_path / "a", cards, manifest=kinds)
    (d,) = check_pack(unstarted).report.errors
    assert d.code == "E123" and "the topic cards (card 5 and any others)" in d.message
    assert (Path(d.source.path).name, d.source.line) == ("cards.yaml", 7)  # card 5's kind
    started = kinds.replace("  discard: {}\n", "  discard: {}\n  topics: {start: topic}\n")
    loaded = check_pack(make_pack(tmp_path / "b", cards, manifest=started))
    assert codes(loaded) == []
    assert Game.new(loaded.program, 1).state.zones["topics"] == [5, 6]
