"""List comprehensions, `[EXPR for NAME in LIST if COND]`: their values, the scope of their
name, their kinds, the work they are charged, and every tool that reads effect text, proven
on the tiny pack of tests/minipack.py (no real game)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from minipack import make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.budget import Budget
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.tools import cli
from hustings.tools.formatting import format_file
from hustings.tools.reading.instructions import substitute
from hustings.tools.reading.render import Renderer

# Pure functions over comprehensions: Game.evaluate reads their values on a position.
FUNCTIONS = """\
functions:
  squares:
    params: [n]
    expr: "[k * k for k in range(1, n)]"
  odd_squares:
    params: [n]
    expr: "[k * k for k in range(1, n) if k % 2 == 1]"
  table:
    params: [n]
    expr: "[[a * b for a in range(1, n)] for b in range(1, n)]"
  others:
    params: [who]
    expr: "[p for p in players if p != who]"
  scores:
    params: []
    expr: "[score of p + gold of p for p in players]"
  held_twice:
    params: [who]
    expr: "[c * 2 for c in cards(hand of who)]"
  titles:
    params: [who]
    expr: "[title of c for c in cards(hand of who) if c > 1]"
  double:
    params: [x]
    expr: "x * 2"
  doubled:
    params: [xs]
    expr: "[double(v) for v in xs if v > 0]"
  shifted:
    params: [xs, k]
    expr: "[v + k for v in xs]"
  above:
    params: [xs]
    expr: "[count(xs where it > v) for v in xs]"
  kept:
    params: [xs]
    expr: "xs where it in [v * 2 for v in [1, 2, 3]]"
  small:
    params: [xs]
    expr: "xs where count([v for v in [1, 2, 3] if v == it]) > 0"
  best:
    params: []
    expr: "max([score of p for p in players])"
  least:
    params: [xs]
    expr: "min([v for v in xs if v > 100])"
  spent:
    params: [xs]
    expr: "total([v * 10 for v in xs])"
  many:
    params: [xs]
    expr: "count([v for v in xs if v > 1])"
"""

CARDS = """\
- {number: 1, title: One}
- {number: 2, title: Two}
- number: 3
  title: Probe
  event: |
    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
    record shifted as [shifted([1, 2], v) for v in [10]]
    record picked as [x for x in [3, 4, 5] if x in [v + 1 for v in [1, 2, 3]]]
    record said as "{[title of c for c in cards(hand of player)]}"
    record gold as [gold of p for p in players]
    finish
- {number: 4, title: Four}
"""


def mini(tmp_path: Path, cards: str = CARDS, rules: dict[str, str] | None = None) -> Path:
    return make_pack(tmp_path, cards, rules={"rules/20-lists.yaml": FUNCTIONS, **(rules or {})})


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    return mini(tmp_path_factory.mktemp("comprehensions"))


@pytest.fixture(scope="module")
def program(pack):
    return load_pack(pack)


def event_text(pack: Path, number: int = 3) -> list[str]:
    """The lines of card `number`'s event, as written."""
    lines = (pack / "cards.yaml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"number: {number}")
    body = lines[start + 3:]
    return [line.strip() for line in body if line.startswith("    ")]


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


# ---- values -------------------------------------------------------------------------------
def test_a_comprehension_maps_filters_and_nests(program):
    game = Game.new(program, 1)
    assert game.evaluate("squares", 4) == [1, 4, 9, 16]  # range(1, 4) includes 4
    assert game.evaluate("odd_squares", 5) == [1, 9, 25]
    assert game.evaluate("table", 3) == [[1, 2, 3], [2, 4, 6], [3, 6, 9]]
    assert game.evaluate("squares", 0) == []  # range(1, 0) is empty: so is the map


def test_a_comprehension_runs_over_players_and_a_zones_cards(program):
    game = Game.new(program, 1)
    assert game.evaluate("others", "ann") == ["bob"]
    assert game.evaluate("others", "nobody") == ["ann", "bob"]
    assert game.evaluate("scores") == [0 + 3, 0 + 3]  # score 0, gold starts at 3
    for who in ("ann", "bob"):
        hand = game.state.zones[f"hand:{who}"]
        assert len(hand) == 2
        assert game.evaluate("held_twice", who) == [c * 2 for c in hand]
        titles = {1: "One", 2: "Two", 3: "Probe", 4: "Four"}
        assert game.evaluate("titles", who) == [titles[c] for c in hand if c > 1]


def test_sums_counts_and_extremes_compose_with_comprehensions(program):
    game = Game.new(program, 1)
    game.apply_action("score")  # ann: 1 score
    assert game.evaluate("best") == 1
    assert game.evaluate("spent", [1, 2, 3]) == 60
    assert game.evaluate("many", [1, 2, 3]) == 2
    assert game.evaluate("least", [5, 200, 150]) == 150
    # max and min of an empty comprehension are 0, as documented (docs/dsl.md, 5.3)
    assert game.evaluate("least", [1, 2]) == 0
    assert game.evaluate("spent", []) == 0


def test_pure_functions_over_comprehensions_call_each_other(program):
    game = Game.new(program, 1)
    assert game.evaluate("doubled", [1, 0, 3, -2]) == [2, 6]
    assert game.evaluate("above", [1, 3, 2]) == [2, 0, 1]  # `it` is where's, `v` the item's
    assert game.evaluate("kept", [1, 2, 4, 6, 7]) == [2, 4, 6]
    assert game.evaluate("small", [0, 3, 1, 5]) == [3, 1]  # `it` inside: the where's item


def test_a_card_event_uses_comprehensions_in_loops_records_and_texts(program):
    game = Game.new(program, 1)
    game.apply_action("play Probe")
    result = game.state.result
    assert game.state.counters["score"]["ann"] == 2  # the loop ran once per item
    # the caller's `v` is the function's argument, never the comprehension's own `v`
    # (written in where it is called, `shifted` must not capture it)
    assert result["shifted"] == [[11, 12]]
    assert result["picked"] == [3, 4]
    assert result["said"] == "Four"  # Probe left the hand before its event
    assert result["gold"] == [3, 3]


def test_comprehensions_give_a_menus_options_and_what_is_chosen_from(tmp_path):
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", """    player chooses:
      "take {t}" for t in [n * 10 for n in [1, 2, 3]] if t in [m * 10 for m in [1, 3]]:
        let took = t
      "none" if count([c for c in cards(hand of player) if c > 9]) > 0:
        stop
    player chooses y from [n * n for n in [2, 3]] labelled "square {y}"
    record square as [took, y]
""")
    game = Game.new(load_pack(mini(tmp_path, cards)), 1)
    game.apply_action("play Probe")
    assert game.legal_actions() == ["take 10", "take 30"]
    game.apply_action("take 30")
    assert game.legal_actions() == ["square 4", "square 9"]
    game.apply_action("square 9")
    assert game.state.result["square"] == [30, 9]


# ---- scope ------------------------------------------------------------------------------
def errors(tmp_path: Path, event: str) -> list[tuple[str, int, int, str]]:
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", "".join(f"    {line}\n" for line in event.splitlines()))
    pack = mini(tmp_path, cards)
    loaded = check_pack(pack)
    return [(d.code, d.source.line, d.source.column, d.message) for d in loaded.report.errors]


def column(line: str, word: str, nth: int = 1) -> int:
    at = -1
    for _ in range(nth):
        at = line.index(word, at + 1)
    return at + 7  # the event's lines are indented by six spaces in cards.yaml


EVENT_LINE = 7  # the first line of the event in cards.yaml


@pytest.mark.parametrize("event,word,nth", [
    ("let m = [score of player for player in players]", "player", 2),  # a parameter
    ("let q = 1\nlet m = [q for q in [1, 2]]", "q", 2),  # a `let` above
    ("for q in [1]:\n  let m = [q for q in [1, 2]]", "q", 2),  # a loop's name
    ("for q in [1]:\n  stop\nlet m = [q for q in [1, 2]]", "q", 2),  # ... after its loop
    ("let m = [[q for q in [1]] for q in [2]]", "q", 2),  # an enclosing comprehension's
    ("let m = [it for it in [1, 2]]", "it", 2),  # where's item
])
def test_a_comprehensions_name_may_not_hide_a_local_name(tmp_path, event, word, nth):
    line = event.splitlines()[-1]
    found = errors(tmp_path, event)
    at = EVENT_LINE + len(event.splitlines()) - 1
    assert [e[:3] for e in found] == [("E324", at, column(line, word, nth))], found
    assert f"'{word}'" in found[0][3]


def test_a_comprehensions_name_may_not_hide_a_name_of_the_pack(tmp_path):
    event = "let m = [A for A in [1, 2]]"
    assert [e[:3] for e in errors(tmp_path, event)] == [("E319", EVENT_LINE,
                                                        column(event, "A", 2))]


def test_a_comprehensions_name_does_not_leak_after_it(tmp_path):
    event = "let m = [q for q in [1, 2]]\nsay \"{q}\""
    found = errors(tmp_path, event)
    assert [e[:3] for e in found] == [("E315", EVENT_LINE + 1, column('say "{q}"', "q"))]
    # nor into the list it runs over, which is worked out before the name is bound
    event = "let m = [q for q in q]"
    assert [e[:3] for e in errors(tmp_path / "x", event)] == [
        ("E315", EVENT_LINE, column(event, "q", 3))]


def test_two_comprehensions_may_use_the_same_name_one_after_the_other(tmp_path):
    assert errors(tmp_path, "let m = [q for q in [1]]\nlet n = [q * 2 for q in [3]]\n"
                            "let q = 5") == []


@pytest.mark.parametrize("inner", [
    "[q * 2 for q in [5, 6]]",  # the name is the loop's local alone
    "[count([7, 8] where it > q) for q in [5, 6]]",  # ... and in env, for the where it calls
])
def test_a_comprehensions_name_is_not_left_in_a_saved_game(tmp_path, inner):
    """The game waits on a decision after the comprehension: its frame, saved, holds the
    event's own names, not the comprehension's."""
    game = Game.new(load_pack(mini(tmp_path, CARDS.replace(
        """    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", f"    let seen = {inner}\n    player chooses y from [1, 2]\n"))), 1)
    game.apply_action("play Probe")
    assert game.legal_actions() == ["1", "2"]
    envs = json.loads(game.save())["envs"]
    event_env = next(env for env in envs if "seen" in env)
    assert "q" not in event_env and "it" not in event_env
    game.apply_action("2")
    assert game.state.result["gold"] == [3, 3]


# ---- kinds ---------------------------------------------------------------------------------
def test_check_knows_the_kind_of_a_comprehensions_items(tmp_path):
    event = "for s in [n for n in [1, 2]]:\n  s gains 1 score"
    found = errors(tmp_path, event)
    assert [e[:3] for e in found] == [("E320", EVENT_LINE + 1, column("  s gains", "s"))]
    assert "who gains must be a player" in found[0][3] and "a number" in found[0][3]
    # items that are players are players
    assert errors(tmp_path / "ok", "for s in [p for p in players if p != player]:\n"
                                   "  s gains 1 score") == []


def test_a_comprehensions_element_is_checked_with_its_name_s_kind(tmp_path):
    event = "let m = [p + 1 for p in players]"
    found = errors(tmp_path, event)
    assert [e[:2] for e in found] == [("E320", EVENT_LINE)]
    assert "a player" in found[0][3]


def test_what_a_comprehension_runs_over_must_be_a_list(tmp_path):
    event = "let m = [q for q in 5]"
    found = errors(tmp_path, event)
    assert [e[:3] for e in found] == [("E320", EVENT_LINE, column(event, "5"))]
    assert "what a list comprehension runs over must be a list" in found[0][3]


@pytest.mark.parametrize("event", ["let m = [[a, b] for a in [1] for b in [2]]",
                                   "let m = [[a, b] for a in [1] if a > 0 for b in [2]]"])
def test_a_second_for_is_a_syntax_error_at_its_place(tmp_path, event):
    found = errors(tmp_path, event)
    assert [e[:3] for e in found] == [("E201", EVENT_LINE, column(event, "for", 2))]
    assert found[0][3] == "a list comprehension has one `for`"


# ---- bounded -----------------------------------------------------------------------------
# The budgets below give the wall clock ten minutes: the work limit is what is tested, and a
# busy machine must not stop an action on the clock first.
RUNAWAY = """\
    let xs = range(1, 5000)
    repeat 100 times:
      let ys = [x + 1 for x in xs if x > 0]
    finish
"""


def test_a_comprehension_past_the_work_budget_stops_at_its_statement(tmp_path):
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", RUNAWAY)
    pack = mini(tmp_path, cards)
    program = load_pack(pack)
    game = Game.new(program, 1, budget=Budget(work=200_000, seconds=600))
    with pytest.raises(RuleError) as caught:
        game.apply_action("play Probe")
    err = caught.value
    assert "units of work" in str(err)
    line = line_of(pack / "cards.yaml", "let ys")
    col = (pack / "cards.yaml").read_text().splitlines()[line - 1].index("let ys") + 1
    assert err.where.endswith(f"cards.yaml:{line}:{col}")
    assert game.state.result is None  # an illegal action changes nothing
    # the same event with room for its work runs to its end
    roomy = Game.new(program, 1, budget=Budget(work=10_000_000, seconds=600))
    roomy.apply_action("play Probe")
    assert roomy.is_terminal()


def test_nested_comprehensions_that_multiply_stop_too(tmp_path):
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", "    let t = [count([a for a in range(1, 9000) if a > b]) for b in range(1, 9000)]\n")
    pack = mini(tmp_path, cards)
    game = Game.new(load_pack(pack), 1, budget=Budget(work=1_000_000, seconds=600))
    with pytest.raises(RuleError) as caught:
        game.apply_action("play Probe")
    assert "units of work" in str(caught.value)
    assert caught.value.where.endswith(f"cards.yaml:{line_of(pack / 'cards.yaml', 'let t')}:7")


@pytest.mark.parametrize("size,made,stop", [
    (300, "[x for x in xs]", None),  # 300 items: within the budget
    (300, "[xs for x in xs]", "units of work"),  # 300 lists of 300: 90,000 units
    (5000, "[xs for x in xs]", "a list grew larger than 100,000 items"),  # 25,000,000 held
])
def test_a_list_of_lists_is_charged_for_what_it_holds(tmp_path, size, made, stop):
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", f"    let xs = range(1, {size})\n    let ys = {made}\n")
    budget = Budget(work=50_000, seconds=600)
    game = Game.new(load_pack(mini(tmp_path, cards)), 1, budget=budget)
    if stop is None:
        game.apply_action("play Probe")
        assert game.is_terminal()
        return
    with pytest.raises(RuleError, match=stop) as caught:
        game.apply_action("play Probe")
    assert caught.value.where.endswith(":8:7")  # at `let ys`


# ---- the tools that read effect text ------------------------------------------------------
def test_fmt_leaves_comprehensions_as_they_are(pack):
    before, after = format_file(pack / "cards.yaml")
    assert after == before
    assert "[x for x in [3, 4, 5] if x in [v + 1 for v in [1, 2, 3]]]" in after


def test_explain_shows_the_comprehensions_as_written(pack, capsys):
    code = cli.main(["explain", "3", "--pack", str(pack)])
    out = capsys.readouterr().out
    assert code == 0
    assert "for k in [v * 100 for v in [1, 2]]:" in out
    assert "record picked as [x for x in [3, 4, 5] if x in [v + 1 for v in [1, 2, 3]]]" in out
    assert "cards(hand of player)" in out  # read by the comprehension: listed under Reads


def test_graph_labels_a_loop_over_a_comprehension(pack, capsys):
    code = cli.main(["graph", "3", "--pack", str(pack)])
    out = capsys.readouterr().out
    assert code == 0 and "for k in [v * 100 for v in [1, 2]]" in out


def test_the_renderer_writes_back_each_form(program):
    r = Renderer(program)
    body = program.functions["odd_squares"][1]
    assert r.expr(body) == "[k * k for k in range(1, n) if k % 2 == 1]"
    assert r.expr(program.functions["table"][1]) == \
        "[[a * b for a in range(1, n)] for b in range(1, n)]"


def test_a_call_shown_with_its_arguments_keeps_the_comprehensions_own_name():
    e = ("comp", "v", ("var", "xs"), ("arith", "+", ("var", "v"), ("var", "k")), None)
    args = {"xs": ("const", [1, 2]), "k": ("var", "v"), "v": ("const", 9)}
    shown = substitute(e, args)
    # the list is the caller's; inside, `v` stays the item and `k` becomes the argument
    assert shown == ("comp", "v", ("const", [1, 2]),
                     ("arith", "+", ("var", "v"), ("var", "v")), None)
    assert substitute(e, {"k": ("const", 1)}) == (
        "comp", "v", ("var", "xs"), ("arith", "+", ("var", "v"), ("const", 1)), None)


# ---- determinism --------------------------------------------------------------------------
def test_the_same_seed_and_actions_give_the_same_game_byte_for_byte(tmp_path):
    cards = CARDS.replace("""    for k in [v * 100 for v in [1, 2]]:
      player gains 1 score
""", "    let pick = random_pick([p for p in players if score of p >= 0])\n"
     "    record pick as [pick, roll(6)]\n")
    program = load_pack(mini(tmp_path, cards))
    saves = []
    for _ in range(2):
        game = Game.new(program, 7)
        game.apply_action("score")
        game.apply_action("pass")
        game.apply_action("play Probe")
        saves.append(game.save())
    assert saves[0] == saves[1]
    assert json.loads(saves[0])["result"]["pick"][0] in ("ann", "bob")
