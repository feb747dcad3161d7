"""`hustings graph`, `explain` and `interactions`: views of compiled card events."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.tools import cli
from hustings.tools.reading.card_lookup import find_card
from hustings.tools.reading.effect_graph import effect_graph, to_dot, to_mermaid
from hustings.tools.reading.instructions import simplify, substitute
from hustings.tools.reading.outline import outline as explain
from hustings.tools.reading.render import Renderer

# Cards whose events are written and stable, one per kind of outline: prevention, a move
# with a turn-long effect, an add with a per-place limit, losses, Election Day, a decision.
PINNED = [1, 2, 6, 22, 33, 90]


@pytest.fixture(scope="module")
def program():
    return load_pack()


@pytest.fixture
def run(program, monkeypatch, capsys):
    """Run the CLI on the already compiled pack: (exit code, stdout, stderr)."""
    monkeypatch.setattr(cli, "load_or_report", lambda *args, **kwargs: program)

    def go(*args: str) -> tuple[int, str, str]:
        code = cli.main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return go


# ---- checking the graph texts ------------------------------------------------------------
DOT_NODE = re.compile(r'^\s*"([^"]+)"\s*\[')
DOT_EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"')
MERMAID_NODE = re.compile(r"^\s*(n\d+)[\[({/]")
MERMAID_EDGE = re.compile(r"^\s*(n\d+)\s+[-=.]+>(?:\|[^|]*\|)?\s+(n\d+)\s*$")


def outside_quotes(text: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


def assert_valid_dot(text: str) -> None:
    assert text.startswith("digraph")
    bare = outside_quotes(text)
    assert bare.count("{") == bare.count("}") == 1
    assert bare.rstrip().endswith("}")
    declared: set[str] = set()
    edges = 0
    for line in text.splitlines()[1:-1]:
        edge = DOT_EDGE.match(line)
        if edge:
            assert {edge[1], edge[2]} <= declared, f"edge to an undeclared node: {line}"
            edges += 1
        elif DOT_NODE.match(line):
            declared.add(DOT_NODE.match(line)[1])
    assert {"start", "end"} <= declared and edges >= 1


def assert_valid_mermaid(text: str) -> None:
    assert text.startswith("flowchart")
    declared: set[str] = set()
    for line in text.splitlines()[1:]:
        edge = MERMAID_EDGE.match(line)
        if edge:
            assert {edge[1], edge[2]} <= declared, f"edge to an undeclared node: {line}"
        elif MERMAID_NODE.match(line):
            declared.add(MERMAID_NODE.match(line)[1])
    assert len(declared) >= 2


# ---- every card ------------------------------------------------------------------------
def test_every_card_has_a_graph_an_outline_and_the_pack_its_interactions(program, run):
    campaign = [n for n, c in sorted(program.cards.items()) if c["kind"] == "campaign"]
    assert len(campaign) >= 90
    for number in sorted(program.cards):
        code, dot, _ = run("graph", str(number), "--format", "dot")
        assert code == 0
        assert_valid_dot(dot)
        code, mermaid, _ = run("graph", str(number), "--format", "mermaid")
        assert code == 0
        assert_valid_mermaid(mermaid)
        code, both, _ = run("graph", str(number))
        assert code == 0 and "digraph" in both and "flowchart" in both
        code, text, _ = run("explain", str(number))
        assert code == 0
        assert text.startswith(f"{number} {program.cards[number]['title']}\n")
        if number in program.events:
            assert "\nEvent (" in text and "\nChanges:" in text and "\nDecisions:" in text
        else:
            assert "Event: none written" in text
    code, table, _ = run("interactions")
    assert code == 0 and "relation" in table.splitlines()[0]


def test_cards_without_events_say_so(program, run):
    missing = [n for n in program.cards if n not in program.events]
    assert missing  # endorsement and candidate cards never have one
    number = missing[0]
    _, text, _ = run("explain", str(number))
    assert "no event" in text
    graph = effect_graph(program, number)
    assert graph.edges["start", "end"]["label"] == "no event written"


# ---- explain -----------------------------------------------------------------------------
@pytest.mark.parametrize("number", PINNED)
def test_explain_outline(number, program, run, snapshot):
    assert number in program.events, "pick another card whose event is written"
    code, text, _ = run("explain", str(number))
    assert code == 0
    assert text == snapshot


def test_explain_names_decisions_reads_changes_limits_and_timing(program):
    first = explain(program, 1)
    assert first.text.startswith("Immediately")
    assert any("prevent" in c and "9 " in c for c in first.changes)
    assert any(line.startswith("at most 1 per") for line in first.limits)
    assert any("optional" in line for line in first.limits)
    assert first.timing and first.timing[0].startswith("persistent prevention")
    recount = explain(program, 90)
    assert recount.decisions[0].startswith("nixon chooses s from states")
    assert any("election_day" in t and "resolved later" in t for t in recount.timing)
    gaffe = explain(program, 22)
    assert gaffe.reads["tokens"] == ["location of opponent"]
    knee = explain(program, 2)
    assert any("campaign_tax" in c and "read by" in c for c in knee.changes)
    assert any("until the end of the turn" in t for t in knee.timing)


def test_outlines_read_like_the_cards(program):
    """No option that can never be offered, no library procedure a phrase was lowered to."""
    from hustings.dsl.compiler import PHRASES
    from hustings.tools.reading.outline import format_outline

    for number in program.events:
        text = format_outline(explain(program, number))
        assert "only if false" not in text and "only if true" not in text, number
        assert "@" not in text, number
        assert not [p for p in PHRASES if f"via {p}" in text], number
    old_south = explain(program, 19)
    assert old_south.decisions == [
        "lead must subtract a total of 5 state support in south  [if lead != none]"]


def test_an_option_with_a_settled_condition_reads_without_it(tmp_path):
    import shutil

    from hustings.dsl.loading import check_pack

    pack = shutil.copytree(builtin_pack(), tmp_path / "pack",
                           ignore=shutil.ignore_patterns("scenarios"))
    (pack / "cards" / "901-menu.yaml").write_text(
        "number: 901\ntitle: Menu\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
        "state: NY\npersistent: null\ntext: A test card.\nevent: |\n"
        "  player chooses:\n    \"never\" if false:\n      stop\n"
        "    \"always\" if true:\n      stop\n"
        "    \"rich\" if momentum of player > 2:\n      stop\n")
    outline = explain(check_pack(pack).program, 901)
    assert outline.decisions == [
        'player chooses one of: "always"; "rich" if momentum of player > 2']
    assert outline.limits == ['option "rich" only if momentum of player > 2']


EARLY_STOPS = {
    902: "  if momentum of player == 0:\n    stop\n  player gains 1 momentum\n",
    903: "  for s in [1, 2]:\n    if s > momentum of player:\n      stop\n"
         "  player gains 1 rest_cubes\n",
    904: "  if momentum of player > 2:\n    player gains 1 momentum\n  else:\n    stop\n"
         "  player gains 1 rest_cubes\n",
    905: "  if zone_size(hand of opponent) >= 3:\n    player gains 1 momentum\n",
}


@pytest.fixture(scope="module")
def early_stops(tmp_path_factory):
    import shutil

    from hustings.dsl.loading import check_pack

    pack = shutil.copytree(builtin_pack(), tmp_path_factory.mktemp("stops") / "pack",
                           ignore=shutil.ignore_patterns("scenarios"))
    for number, event in EARLY_STOPS.items():
        (pack / "cards" / f"{number}-card.yaml").write_text(
            f"number: {number}\ntitle: Card {number}\ncp: 2\nrest: 2\nicon: both\n"
            f"issue: defense\nstate: NY\npersistent: null\ntext: A test card.\n"
            f"event: |\n{event}")
    return check_pack(pack).program


def test_an_early_stop_conditions_what_follows_it(early_stops):
    outline = explain(early_stops, 902)
    assert outline.limits == ["stops early if momentum of player == 0"]
    assert outline.changes == ["player gains 1 momentum  [unless momentum of player == 0]"]


def test_an_early_stop_inside_a_loop_conditions_what_follows_the_loop(early_stops):
    outline = explain(early_stops, 903)
    assert "stops early if s > momentum of player  [for s in [1, 2]]" in outline.limits
    assert outline.changes == [
        "player gains 1 rest_cubes  [unless s > momentum of player]"]


def test_an_else_that_stops_leaves_what_follows_under_the_condition(early_stops):
    outline = explain(early_stops, 904)
    assert outline.limits == ["only if momentum of player > 2"]
    assert outline.changes == [
        "player gains 1 momentum  [if momentum of player > 2]",
        "player gains 1 rest_cubes  [only if momentum of player > 2]"]


def test_a_card_that_reads_a_hand_says_so(early_stops):
    outline = explain(early_stops, 905)
    assert outline.reads["zones"] == ["hand of opponent"]


def test_explain_json(run):
    code, out, _ = run("explain", "recount", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["number"] == 90 and data["has_event"]
    assert data["attributes"]["persistent"] == "election_day"
    assert data["text"].startswith("On Election Day") and "text" not in data["attributes"]


def test_explain_shows_the_printed_text_of_a_card_a_mod_adds(capsys):
    mod = builtin_pack().parent / "mods" / "whistle-stops"
    code = cli.main(["explain", "98", "--mod", str(mod)])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("98 Whistle-Stop Tour\n")
    printed = out.split("Printed text:\n", 1)[1].split("\n\n", 1)[0]
    assert " ".join(printed.split()).startswith("Player may add a total of 4 state support in the")
    assert "| text" not in out.splitlines()[1]


# ---- finding cards -----------------------------------------------------------------------
def test_cards_are_found_by_number_or_title_in_any_case(program):
    assert find_card(program, "2") == 2
    assert find_card(program, "#90") == 90
    assert find_card(program, "NIXON'S KNEE") == 2
    assert find_card(program, "nixons knee") == 2
    assert find_card(program, "houston") == 1


def test_a_misspelt_title_gets_did_you_mean(run):
    code, out, err = run("explain", "Nixon's Kneee")
    assert code == 1 and out == ""
    assert "did you mean" in err and "Nixon's Knee" in err
    code, _, err = run("graph", "999")
    assert code == 1 and "no card number 999" in err


@pytest.mark.parametrize(("typed", "said"), [
    ("²", "no card titled '²'"), ("9" * 5000, "no card number 99999999999999999999")])
def test_digits_that_are_no_card_number_are_an_answer_not_a_crash(run, typed, said):
    # '²' passes isdigit() but not int(), and int() refuses 5,000 digits
    for command in ("explain", "graph"):
        code, _, err = run(command, typed)
        assert code == 1 and said in err and "bug" not in err


# ---- graph -------------------------------------------------------------------------------
def test_graph_marks_decisions_branches_loops_and_calls(program):
    g = effect_graph(program, 90)
    kinds = {d["kind"] for _, d in g.nodes(data=True)}
    assert {"decision", "call", "procedure"} <= kinds
    labels = [d["label"] for _, d in g.nodes(data=True)]
    assert any(label.startswith("nixon chooses s from states") for label in labels)
    assert "call support_checks(who=nixon, where=s, n=3)" in labels
    add = effect_graph(program, 6)
    call = next(d["label"] for _, d in add.nodes(data=True) if d["kind"] == "call")
    assert call.startswith("call add_support(who=kennedy,") and "per=2" in call
    loop = effect_graph(program, 53)
    edge_kinds = {d["kind"] for _, _, d in loop.edges(data=True)}
    assert {"loop", "back", "option"} <= edge_kinds


def test_graph_depth_draws_called_procedure_bodies(program):
    shallow = effect_graph(program, 90)
    deep = effect_graph(program, 90, depth=1)
    assert deep.number_of_nodes() > shallow.number_of_nodes()
    assert deep.has_edge("proc_support_checks", next(deep.successors("proc_support_checks")))
    assert_valid_dot(to_dot(deep))
    assert_valid_mermaid(to_mermaid(deep))


def test_graph_out_picks_the_format_from_the_file_ending(run, tmp_path):
    code, out, _ = run("graph", "gaffe", "--out", str(tmp_path / "g.dot"))
    assert code == 0 and out == ""
    assert_valid_dot((tmp_path / "g.dot").read_text())
    run("graph", "gaffe", "--out", str(tmp_path / "g.mmd"))
    assert_valid_mermaid((tmp_path / "g.mmd").read_text())


# ---- interactions ----------------------------------------------------------------------------
def test_interactions_find_prevention_moves_persistence_and_effects(run):
    code, out, _ = run("interactions", "--format", "json")
    rows = json.loads(out)
    assert code == 0
    by = {(r["card"], r["relation"]): r for r in rows}
    assert by[1, "prevents"]["cards"] == [9, 73, 44]
    assert by[1, "persistent"]["target"] == "prevention"
    assert by[2, "sets effect"]["target"] == "campaign_tax" and by[2, "sets effect"]["readers"]
    assert by[33, "persistent"]["target"] == "election_day"
    assert "withhold_below" in by[33, "persistent"]["detail"]
    named = [r for r in rows if r["relation"] == "moves card"]
    assert all(r["cards"] for r in named)
    # a lasting reaction (Nixon's Pledge), with the rules that announce what it waits for
    pledge = by[76, "reacts to"]
    assert pledge["target"] == "card_played" and "whenever card_played(" in pledge["detail"]
    assert "spend_cp" in pledge["readers"] and "announced by " in pledge["detail"]


def test_interactions_table_is_readable(run):
    _, out, _ = run("interactions")
    header, rule = out.splitlines()[:2]
    assert header.split()[:4] == ["card", "title", "relation", "target"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert re.search(r"^1 +Greater Houston.* prevents ", out, re.M)


# ---- rendering -----------------------------------------------------------------------------
def test_expressions_render_back_to_effect_text(program):
    r = Renderer(program)
    a, b, c = ("var", "a"), ("var", "b"), ("var", "c")
    assert r.expr(("arith", "*", ("arith", "+", a, b), c)) == "(a + b) * c"
    assert r.expr(("arith", "-", a, ("arith", "-", b, c))) == "a - (b - c)"
    assert r.expr(("not", ("and", a, b))) == "not (a and b)"
    assert r.expr(("counter", "momentum", ("opponent", ("var", "player")))) == \
        "momentum of opponent of player"
    assert r.expr(("fmt", ["in ", ("var", "s")])) == '"in {s}"'
    assert r.expr(("const", list(program.kinds["states"]))) == "states"
    assert r.expr(("call", "count", [("cards", ("zone", "hand", a))])) == "count(cards(hand of a))"
    assert r.expr(("mystery", ("const", 1))) == "mystery(1)"  # kinds added later still show


def test_arguments_put_into_a_procedure_fold_settled_conditions():
    e = ("or", ("cmp", "!=", ("var", "pool"), ("const", "x")), ("fn", "f", [("var", "who")]))
    env = {"pool": ("const", "x"), "who": ("const", "p")}
    assert simplify(substitute(e, env)) == ("fn", "f", [("const", "p")])
    label = ("fmt", ["add ", ("var", "pool"), " in ", ("var", "s")])
    assert simplify(substitute(label, env)) == ("fmt", ["add x in ", ("var", "s")])


VIEWS = ["card_lookup", "effect_graph", "instructions", "interactions", "outline", "render",
         "rule_analysis", "walk"]


@pytest.mark.parametrize("module", VIEWS)
def test_the_views_name_no_game(program, module):
    source = Path(importlib.import_module(f"hustings.tools.reading.{module}").__file__).read_text()
    names = (set(program.players) | set(program.counters) | set(program.zones)
             | set(program.tracks) | set(program.effects) | set(program.locations)
             | {c["title"] for c in program.cards.values()}
             | {c["kind"] for c in program.cards.values()})
    found = {n for n in names if re.search(rf"\b{re.escape(n)}\b", source)}
    assert not found


def test_a_reaction_reads_as_its_whenever_line(program, run):
    code, out, _ = run("explain", "76")
    assert code == 0
    assert ("until end of turn: whenever card_played(who, what, use) if who == nixon and "
            'use != "campaign" and what != card:') in out
    assert "    kennedy gains 1 momentum" in out
    assert "(only if" not in out and "guard" not in out
