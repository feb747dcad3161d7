"""Expressions compiled to Python (interpreter/codegen.py), the one way rules run.

Expression by expression: the value or error, the work charged, the variables left
and the chance drawn, against the language's meaning written out here; malformed
expressions refused when built; every expression of a program compiled (none left to
anything else), and one built later compiled then. Then a pack whose names and texts
are Python-looking text, which must stay data in the generated source. Whole games are
proved by the scenarios and the determinism, replay and snapshot tests.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import types
from pathlib import Path

import pytest
from minipack import write

from hustings.dsl.loading import load_pack
from hustings.interpreter import codegen
from hustings.interpreter import unit as unit_module
from hustings.interpreter.builtins import BUILTINS
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game, initial_state, ops_for, prepare
from hustings.interpreter.machine import Machine
from hustings.interpreter.ops import Deferred
from hustings.interpreter.runtime import HELPERS
from hustings.interpreter.unit import Unit, build, build_items, building, unit_for


@pytest.fixture(scope="module")
def program():
    return load_pack()


def compiled(expr: tuple):
    """The expression's function from a unit of its own, written then compiled (as a
    program's expressions are)."""
    unit = Unit("test")
    unit.function(expr)
    unit.compile()
    return unit.function(expr)


class Outcome:
    """Everything an evaluation can change or answer."""

    def __init__(self, program, expr, env: dict | None, setup) -> None:
        m = Machine(program, initial_state(program, 3), ops_for(program))
        if setup is not None:
            setup(m)
        before = m.s.to_dict()
        self.env = copy.deepcopy(env or {})
        try:
            self.answer = ("value", compiled(expr)(m, self.env))
        except Exception as e:  # noqa: BLE001 - the error is part of the outcome
            self.answer = (type(e).__name__, str(e))
        self.work = m.work
        self.drew = m.s.rng != before["rng"]
        after = m.s.to_dict()
        self.changed = {k for k in after if after[k] != before[k]}


def run(program, expr, env=None, setup=None) -> tuple:
    """The expression's answer: ("value", v) or (error class name, message)."""
    return Outcome(program, expr, env, setup).answer


def value(x):
    return ("value", x)


def c(v):
    return ("const", v)


def v(name):
    return ("var", name)


IT = v("it")


# ---- expression by expression -------------------------------------------------------
def test_variables_and_their_missing_error(program):
    assert run(program, v("x"), {"x": 5}) == value(5)
    assert run(program, v("x")) == ("RuleError", "'x' has no value here")
    counter = program.counters[0]
    # a variable read inside a table lookup, then a lookup that fails on its own
    assert run(program, ("counter", counter, v("who"))) == ("RuleError",
                                                            "'who' has no value here")
    assert run(program, ("counter", counter, v("who")), {"who": "x"}) == ("KeyError", "'x'")
    assert run(program, ("global", "no such"))[0] == "KeyError"
    # a lookup failing on a key that is also the name of a variable with no value:
    # the lookup's KeyError, since it fails first
    first = ("list", [("counter", counter, c("x")), v("x")])
    assert run(program, first) == ("KeyError", "'x'")


def test_without_column_positions_a_missing_variable_is_found_by_its_name(program,
                                                                          monkeypatch):
    # python -X no_debug_ranges keeps no columns: the key, unbound and read here, decides
    monkeypatch.setattr(Unit, "_read_at", lambda self, code, lasti: unit_module._UNKNOWN)
    counter = program.counters[0]
    assert run(program, ("arith", "+", c(1), v("x"))) == ("RuleError",
                                                          "'x' has no value here")
    assert run(program, ("list", [("counter", counter, v("x")), v("y")]),
               {"x": "y", "y": 1}) == ("KeyError", "'y'")


def test_comparisons(program):
    assert run(program, ("cmp", "<", v("a"), v("b")), {"a": 1, "b": 2}) == value(True)
    assert run(program, ("cmp", "<", c("a"), c(1))) == value(False)  # incomparable
    assert run(program, ("cmp", ">=", v("a"), c(None)), {"a": 3}) == value(False)
    assert run(program, ("cmp", "<=", c("a"), c("b"))) == value(True)
    # a TypeError inside an operand makes the comparison False too
    assert run(program, ("cmp", ">", ("call", "count", [c(5)]), c(0))) == value(False)
    assert run(program, ("cmp", "<=", ("arith", "+", c(1), c("a")), c(3))) == value(False)
    assert run(program, ("cmp", ">", ("arith", "+", c(1), c(3)), c(3))) == value(True)
    assert run(program, ("cmp", "in", c(1), c(None))) == value(False)
    assert run(program, ("cmp", "not in", c(1), c(None))) == value(True)
    # the container is worked out first; with none, the item never is
    assert run(program, ("cmp", "in", v("nope"), c(None))) == value(False)
    assert run(program, ("cmp", "in", c(2), c([1, 2]))) == value(True)
    assert run(program, ("cmp", "not in", c(2), c([1, 2]))) == value(False)
    assert run(program, ("cmp", "==", c([1]), v("l")), {"l": [1]}) == value(True)
    assert run(program, ("cmp", "!=", c("a"), c("a"))) == value(False)


def test_arithmetic_is_checked(program):
    assert run(program, ("arith", "//", c(7), c(0))) == value(0)
    assert run(program, ("arith", "%", c(7), c(0))) == value(0)
    assert run(program, ("arith", "//", c(-7), c(2))) == value(-4)
    assert run(program, ("arith", "%", c(-7), c(2))) == value(1)
    assert run(program, ("arith", "*", c(-3), c(4))) == value(-12)
    assert run(program, ("arith", "*", c(2**62), c(4))) == (
        "RuleError", "a number went past the 64-bit limit (2**63)")
    assert run(program, ("arith", "+", c(2**63), c(1)))[0] == "RuleError"
    assert run(program, ("arith", "-", v("a"), c(2**63)), {"a": 0}) == value(-2**63)
    assert run(program, ("arith", "+", c("ab"), c("cd"))) == value("abcd")
    assert run(program, ("arith", "*", c("x"), c(10**12))) == (
        "RuleError", f"repeating a text {10**12} times makes it too long")
    assert run(program, ("arith", "*", c(3), c([0]))) == value([0, 0, 0])
    assert run(program, ("arith", "+", c(1), c("a")))[0] == "TypeError"
    assert run(program, ("arith", "+", c(True), c(True))) == value(2)
    assert run(program, ("neg", c(-2**63))) == value(2**63)
    assert run(program, ("neg", c(-2**63 - 1)))[0] == "RuleError"
    assert run(program, ("neg", c("a")))[0] == "TypeError"


def test_dividing_by_a_constant_answers_as_dividing_by_a_variable(program):
    """`% 2` or `// 3` skip the 64-bit check an integer cannot fail; whatever else is
    divided takes the general way, as it does by a divisor in a variable."""
    for op in ("%", "//"):
        for a in (7, -7, 0, 2**63, -2**63, True, "ab", None, [1], 2.5):
            for d in (2, -1, 3, 2**63, -2**63, 10**30):
                by_constant = run(program, ("arith", op, v("a"), c(d)), {"a": a})
                by_variable = run(program, ("arith", op, v("a"), v("d")), {"a": a, "d": d})
                assert by_constant == by_variable, (a, op, d)
    assert run(program, ("arith", "%", v("a"), c(10**30)), {"a": -1})[0] == "RuleError"
    unit = Unit("test")
    unit.function(("arith", "%", v("a"), c(2)))
    unit.compile()
    assert " % 2 if " in unit.source  # an integer is divided in place, with no call


def test_lists_and_texts_built_cost_their_size(program):
    joined = Outcome(program, ("arith", "+", v("l"), v("l")), {"l": [1, 2]}, None)
    assert joined.answer == value([1, 2, 1, 2]) and joined.work == 4
    text = Outcome(program, ("arith", "+", c("ab"), c("cd")), None, None)
    assert text.work == 4
    assert Outcome(program, ("arith", "+", c(1), c(2)), None, None).work == 0
    nested = Outcome(program, ("list", [v("l"), c(1)]), {"l": [1, 2]}, None)
    assert nested.answer == value([[1, 2], 1]) and nested.work == 4  # 2 items + 2 inside
    assert Outcome(program, ("list", [c(1), c(2)]), None, None).work == 0
    fmt = Outcome(program, ("fmt", ["ab", v("n")]), {"n": 10}, None)
    assert fmt.answer == value("ab10") and fmt.work == 4


def test_logic_gives_booleans_not_operands(program):
    assert run(program, ("and", c(1), c(2))) == value(True)
    assert run(program, ("or", c(0), c([]))) == value(False)
    assert run(program, ("or", c(0), c("x"))) == value(True)
    assert run(program, ("and", c(0), v("nope"))) == value(False)  # never read
    assert run(program, ("or", c(1), v("nope"))) == value(True)
    assert run(program, ("not", c([]))) == value(True)
    assert run(program, ("ifelse", ("and", c(1), ("or", c(0), c(3))), c("y"), v("nope"))) \
        == value("y")
    assert run(program, ("ifelse", c(0), v("nope"), c("n"))) == value("n")
    assert run(program, ("not", ("and", c(1), ("or", c(0), c(0))))) == value(True)


def test_where_binds_it_and_puts_it_back(program):
    where = ("where", v("l"), ("cmp", ">", IT, c(1)))
    out = Outcome(program, where, {"l": [1, 2, 3], "it": "outer"}, None)
    assert out.answer == value([2, 3])
    assert out.env == {"l": [1, 2, 3], "it": "outer"}
    assert out.work == 3  # one unit per item gone through
    out = Outcome(program, where, {"l": [3, 0]}, None)
    assert out.answer == value([3]) and out.env == {"l": [3, 0]}
    nested = ("where", v("l"), ("cmp", "in", IT, ("where", c([2, 3]), ("cmp", "<", IT, c(3)))))
    assert run(program, nested, {"l": [1, 2, 3]}) == value([2])
    # an error in the filter puts `it` back too (a comparison may make it False)
    failed = Outcome(program, ("where", c([1]), v("nope")), {"it": 0}, None)
    assert failed.answer == ("RuleError", "'nope' has no value here")
    assert failed.env == {"it": 0}
    assert run(program, ("where", c(None), IT))[0] == "TypeError"
    refused = ("RuleError", "what `where` filters must be a list, not the text 'ab' "
               "(a list of one is written [x])")
    assert run(program, ("where", v("t"), IT), {"t": "ab"}) == refused
    assert run(program, ("where", c("ab"), IT)) == refused


class Watched(dict):
    """Variables that note every name written to them."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.written: list[str] = []

    def __setitem__(self, key, value) -> None:
        self.written.append(key)
        super().__setitem__(key, value)


def test_a_filter_sets_it_among_the_variables_only_when_something_may_read_it_there(program):
    inner = ("where", c([2, 3]), ("cmp", "<", IT, v("n")))
    for expr, answer in [(("where", v("l"), ("cmp", ">", IT, c(1))), [2, 3]),
                         (("where", v("l"), ("cmp", "in", IT, inner)), [2])]:
        env = Watched({"l": [1, 2, 3], "n": 3, "it": "outer"})
        assert compiled(expr)(Machine(program, initial_state(program, 3), ops_for(program)),
                              env) == answer
        # the filter reads its item as a local, and a nested filter has its own
        assert env.written == [] and env["it"] == "outer"
    # a missing variable: the exact form, which reads each variable where the language
    # does, sets `it` as it goes and puts it back
    env = Watched({"l": [1, 2, 3], "it": "outer"})
    m = Machine(program, initial_state(program, 3), ops_for(program))
    with pytest.raises(RuleError, match="'n' has no value here"):
        compiled(("where", v("l"), ("cmp", "in", IT, inner)))(m, env)
    assert "it" in env.written and env["it"] == "outer"


def test_counting_a_filter_counts_as_it_goes_with_the_filters_answers_and_work(program):
    """`count(l where ...)` makes no list; everything else is as counting the filtered list."""
    nested = ("where", c([2, 3]), ("cmp", "<", IT, c(3)))
    for cond, env in [(("cmp", ">", IT, c(1)), {"l": [1, 2, 3], "it": "outer"}),
                      (("cmp", "in", IT, nested), {"l": [1, 2, 3]}),
                      (("cmp", ">", IT, c(1)), {"l": []}),
                      (("cmp", ">", IT, c(1)), {"l": [1, "a", 3]}),  # "a" > 1 is False
                      (v("nope"), {"l": [1], "it": 0}),  # the error, `it` put back
                      (IT, {"l": "ab"}), (IT, {"l": None})]:
        where = ("where", v("l"), cond)
        counted = Outcome(program, ("call", "count", [where]), env, None)
        listed = Outcome(program, where, env, None)
        expected = listed.answer
        if expected[0] == "value":
            expected = value(len(expected[1]))
        assert counted.answer == expected, (cond, env)
        assert (counted.env, counted.work) == (listed.env, listed.work), (cond, env)
    unit = Unit("test")
    unit.function(("call", "count", [("where", v("l"), ("cmp", ">", IT, c(1)))]))
    unit.compile()
    assert "_out += 1" in unit.source and ".append(" not in unit.source


def test_items_must_be_a_list_where_that_is_not_known_before(program):
    what = "what the loop runs over"
    assert run(program, ("items", v("l"), what), {"l": [1, 2]}) == value([1, 2])
    assert run(program, ("items", v("l"), what), {"l": None}) == value(None)
    assert run(program, ("items", v("t"), what), {"t": "x" * 100}) == (
        "RuleError", f"{what} must be a list, not the text {'x' * 60!r} "
        "(a list of one is written [x])")
    assert run(program, ("items", v("nope"), what)) == ("RuleError",
                                                       "'nope' has no value here")
    # a builtin's list argument is checked the same way
    assert run(program, ("call", "count", [v("t")]), {"t": "ab"}) == (
        "RuleError", "what count() reads must be a list, not the text 'ab' "
        "(a list of one is written [x])")


def test_as_list_makes_one_place_a_list_of_one(program):
    assert run(program, ("as_list", v("x")), {"x": ["a", "b"]}) == value(["a", "b"])
    assert run(program, ("as_list", v("x")), {"x": "a"}) == value(["a"])
    assert run(program, ("as_list", v("x")), {"x": None}) == value([])
    assert run(program, ("as_list", v("x")), {"x": 7}) == (
        "RuleError", "expected a place or a list of places, not 7")
    assert run(program, ("as_list", v("x")), {"x": True}) == (
        "RuleError", "expected a place or a list of places, not yes")


def test_texts_lists_and_calls(program):
    fmt = ("fmt", ["a ", v("n"), " b ", v("l"), "", v("none"), v("t")])
    env = {"n": 3, "l": [1, [2]], "none": None, "t": "z"}
    assert run(program, fmt, env) == value("a 3 b 1, 2nobodyz")
    assert run(program, ("fmt", [])) == value("")
    assert run(program, ("fmt", [v("nope")])) == ("RuleError", "'nope' has no value here")
    assert run(program, ("list", [])) == value([])
    ranged = Outcome(program, ("call", "range", [c(1), c(4)]), None, None)
    assert ranged.answer == value([1, 2, 3, 4]) and ranged.work == 4
    assert run(program, ("call", "min", [c(3), c(1), c(2)])) == value(1)
    # two values (the common case, worked out without a list), with none, and a list
    assert run(program, ("call", "max", [c(1), c(5)])) == value(5)
    assert run(program, ("call", "min", [c(None), c(5)])) == value(5)
    assert run(program, ("call", "min", [c(None), c(None)])) == value(0)
    assert run(program, ("call", "max", [c([4, 9])])) == value(9)
    assert run(program, ("call", "max", [c([4]), c(1)]))[0] == "TypeError"
    assert run(program, ("call", "count", [c(None)])) == value(0)
    roll = Outcome(program, ("list", [("call", "roll", [c(6)]), ("call", "roll", [c(6)])]),
                   None, None)
    assert roll.answer[0] == "value" and all(1 <= d <= 6 for d in roll.answer[1])
    assert roll.drew and roll.changed == {"rng"}  # chance drawn, and nothing else
    assert Outcome(program, roll_twice := ("call", "roll", [c(6)]), None, None).answer \
        == Outcome(program, roll_twice, None, None).answer  # the same seed, the same die


def test_pack_functions(program):
    name, (params, _) = next(iter(program.functions.items()))
    args = [c(None)] * len(params)
    called = Outcome(program, ("fn", name, args), None, None)
    assert called.work >= 1  # each call is work
    assert called.env == {}  # its parameters live in a scope of its own
    wrong = run(program, ("fn", name, [*args, c(1)]))
    assert wrong == ("RuleError", f"{name}() takes {len(params)} arguments, not "
                     f"{len(params) + 1}")
    # the function is looked up (and refused) before its arguments are worked out
    assert run(program, ("fn", "no such", [v("nope")])) == ("KeyError", "'no such'")


def test_board_reads(program):
    state = initial_state(program, 3)
    card = next(iter(program.cards))
    pool, held = next((p, h) for p, h in state.pools.items() if h)
    where, (owner, n) = next(iter(held.items()))
    other = next(p for p in program.players if p != owner)
    empty = next(loc for loc in program.kinds[program.pools[pool].kind] if loc not in held)
    kind = program.locations[where]["kind"]
    assert run(program, ("attr", "title", c(card))) == value(program.cards[card]["title"])
    assert run(program, ("attr", "x", c("nowhere"))) == ("RuleError",
                                                        "'nowhere' has no property 'x'")
    assert run(program, ("attr", "x", c(None))) == value(None)
    assert run(program, ("attr", "kind", c(where))) == value(kind)
    assert run(program, ("leader", None, c(where))) == value(owner)
    assert run(program, ("leader", pool, c(where))) == value(owner)
    assert run(program, ("leader", pool, c(empty))) == value(None)
    assert run(program, ("support_of", pool, c(owner), c(where))) == value(n)
    assert run(program, ("support_of", pool, c(other), c(where))) == value(0)
    assert run(program, ("support_of", pool, v("nope"), c(empty))) == value(0)
    assert run(program, ("support_at", pool, c(where))) == value(n)
    assert run(program, ("support_at", pool, c(empty))) == value(0)
    assert run(program, ("opponent", c(None))) == value(None)
    assert run(program, ("opponent", c(owner))) == value(other)
    assert run(program, ("token", c(owner))) == value(state.tokens.get(owner))
    zone = next(z for z, spec in program.zones.items() if spec.per_player)
    assert run(program, ("zone", zone, c(owner))) == value(f"{zone}:{owner}")
    assert run(program, ("zone", zone, None)) == value(zone)
    assert run(program, ("cards", ("zone", zone, c(owner)))) == value(
        state.zones[f"{zone}:{owner}"])
    counter = program.counters[0]
    assert run(program, ("counter", counter, c(owner))) == value(
        state.counters[counter][owner])
    if program.tracks:
        track = next(iter(program.tracks))
        assert run(program, ("track", track)) == value(state.tracks[track])


def test_held_lists_places_in_board_order_whatever_order_they_were_taken(program):
    m = Machine(program, initial_state(program, 3), ops_for(program))
    pool = next(p for p, spec in program.pools.items() if not spec.stacking
                and len(program.kinds[spec.kind]) > 8)
    places = program.kinds[program.pools[pool].kind]
    owner, other = program.players[:2]
    m.s.pools[pool] = {}
    for where in reversed(places[::3]):  # taken last place first, every third one mine
        m.s.pools[pool][where] = [owner, 1]
    m.s.pools[pool][places[1]] = [other, 2]
    m.s.pools[pool]["nowhere"] = [owner, 1]  # not a place of the pool's kind: never listed
    held = BUILTINS["held"]
    assert held(m, pool, owner) == places[::3]
    assert held(m, pool, other) == [places[1]]
    assert held(m, pool, "nobody") == []


def test_lasting_effects(program):
    def effects(m):
        m.s.effects = [["e", "a", 2, "game"], ["e", "b", 5, "game"], ["e", "a", 3, "game"],
                       ["f", "a", [1], "game"]]

    assert run(program, ("effect", "e", c("a")), setup=effects) == value(5)
    assert run(program, ("effect", "e", c("c")), setup=effects) == value(0)
    assert run(program, ("effect", "f", c("a")), setup=effects)[0] == "TypeError"
    assert run(program, ("effect_list", "e", c("a")), setup=effects) == value([2, 3])


def test_travel_is_looked_up_in_a_table_with_the_builtins_answers(program):
    # compiled code reads travel(a, b) from a table made once per program
    m = Machine(program, initial_state(program, 3), ops_for(program))
    travel = ("call", "travel", [v("a"), v("b")])
    with building(program):
        tabled = build(travel)
    places = list(program.travel_area)
    assert places  # 1960 travels between its states
    for a in places:
        for b in places:
            assert tabled(m, {"a": a, "b": b}) == BUILTINS["travel"](m, a, b)
    for env in ({"a": places[0], "b": "nowhere"}, {"a": None, "b": places[0]}):
        with pytest.raises(KeyError):
            tabled(m, env)
        with pytest.raises(KeyError):
            compiled(travel)(m, env)


def test_support_read_knowing_which_pools_stack_as_without_knowing(program):
    # a program's unit writes an exclusive pool's support inline (the builtin too): the
    # same answers as the unit of no program, which asks at run time
    state = initial_state(program, 3)
    pool, held = next((p, h) for p, h in state.pools.items() if h)
    where, (owner, _) = next(iter(held.items()))
    empty = next(loc for loc in program.kinds[program.pools[pool].kind] if loc not in held)
    m = Machine(program, state, ops_for(program))
    exprs = [("support_of", pool, v("who"), v("at")),
             ("call", "support_of", [c(pool), v("who"), v("at")]),
             ("call", "support_of", [c("no such pool"), v("who"), v("at")])]
    for expr in exprs:
        with building(program):
            known = build(expr)
        alone = compiled(expr)
        for env in ({"who": owner, "at": where}, {"who": "x", "at": where},
                    {"who": owner, "at": empty}, {"who": owner, "at": [where]}, {"at": where},
                    {"who": owner}):
            answers = []
            for fn in (known, alone):
                try:
                    answers.append(("value", fn(m, dict(env))))
                except Exception as e:  # noqa: BLE001 - the error is the answer
                    answers.append((type(e).__name__, str(e)))
            assert answers[0] == answers[1], (expr, env)


def test_a_programs_properties_read_from_its_tables_as_from_its_cards_and_places(program):
    # a program's unit looks properties up in tables made once; a unit of no program
    # reads the cards and places themselves: the same answers, errors included
    card, place = next(iter(program.cards)), next(iter(program.locations))
    m = Machine(program, initial_state(program, 3), ops_for(program))
    for name in ("title", "region", "kind", "no_such"):
        expr = ("attr", name, v("x"))
        with building(program):
            tabled = build(expr)
        alone = compiled(expr)
        for x in (card, place, None, True, "nowhere", 10_000, [place]):
            answers = []
            for fn in (tabled, alone):
                try:
                    answers.append(("value", fn(m, {"x": x})))
                except Exception as e:  # noqa: BLE001 - the error is the answer
                    answers.append((type(e).__name__, str(e)))
            assert answers[0] == answers[1], (name, x)
    with building(program):
        assert "m.p.locations" not in unit_for(program).source


def test_a_loop_over_constant_places_reads_their_properties_straight_from_its_table(program):
    places = [p for p in program.locations if program.locations[p].get("kind")][:6]
    card = next(iter(program.cards))
    test = ("cmp", "==", ("attr", "kind", IT), c(program.locations[places[0]]["kind"]))
    for listed in (places, [*places, "nowhere"], [*places, None], [*places, card]):
        expr = ("where", c(listed), test)
        with building(program):
            tabled = build(expr)
        answers = []
        for fn in (tabled, compiled(expr)):  # the second knows no program: no tables
            m = Machine(program, initial_state(program, 3), ops_for(program))
            try:
                answers.append(("value", fn(m, {})))
            except Exception as e:  # noqa: BLE001 - the error is the answer
                answers.append((type(e).__name__, str(e)))
        assert answers[0] == answers[1], listed
    assert answers[0][0] == "value"  # a card has a kind too (none): no error
    kinds = unit_for(program).properties["kind"][1]
    assert f"{kinds}[_x]" in unit_for(program).source  # places only: no test of what it is


def test_tally_of_a_short_list_is_counted_in_place_and_a_long_one_charged(program):
    tally = ("call", "tally", [v("l"), v("x")])
    for items, x, answer in (([1, 2, 1], 1, 2), ([], 1, 0), (None, 1, 0), ([[2], 2], [2], 1),
                             (list(range(40)), 3, 1), ([1.0, True], 1, 2)):
        assert run(program, tally, {"l": items, "x": x}) == value(answer), items
    assert run(program, tally, {"l": "abc", "x": "a"})[0] == "RuleError"  # not a list
    assert run(program, tally, {"l": 5, "x": 5})[0] == "TypeError"
    short = Outcome(program, tally, {"l": [1] * 16, "x": 1}, None)
    long = Outcome(program, tally, {"l": [1] * 17, "x": 1}, None)
    assert (short.answer, long.answer) == (value(16), value(17))
    assert short.work == 0 and long.work == 17  # one pass of its loop / its size


# ---- malformed expressions: refused when built ------------------------------------------
@pytest.mark.parametrize(("expr", "message"), [
    (("nonsense",), "unknown expression kind 'nonsense'"),
    (("not", ("nonsense",)), "unknown expression kind 'nonsense'"),
    ((7, c(1)), "unknown expression kind 7"),
    ((), "not an expression: ()"),
    (7, "not an expression: 7"),
    (("arith", "^", c(1), c(2)), "unknown operator '^'"),
    (("arith", ["+"], c(1), c(2)), "unknown operator ['+']"),
    (("cmp", "<>", c(1), c(2)), "unknown operator '<>'"),
    (("cmp", None, c(1), c(2)), "unknown operator None"),
    (("call", "no such", []), "unknown function 'no such'"),
    (("call", ["min"], []), "unknown function ['min']"),
    (("not", c(1), c(2)), "an expression of kind 'not' takes 1 operand, not 2"),
    (("arith", "+", c(1)), "an expression of kind 'arith' takes 3 operands, not 2"),
    (("var", 5), "a variable's name is a text, not 5"),
    (("call", "count", [("where", c([1]))]),
     "an expression of kind 'where' takes 2 operands, not 1"),
    (("call", "count", [("where", c([1]), c(True), c(1))]),
     "an expression of kind 'where' takes 2 operands, not 3"),
])
def test_a_malformed_expression_is_refused_when_built(expr, message):
    with pytest.raises(RuleError) as caught:
        compiled(expr)
    assert str(caught.value) == message
    with pytest.raises(RuleError, match=re.escape(message)):
        build(expr)  # built alone, after its unit is compiled


def test_a_malformed_menu_option_is_refused_when_built():
    with pytest.raises(RuleError, match="a menu option is"):
        Unit("test").offer((c("label"), None))
    with pytest.raises(RuleError, match="unknown expression kind 'nonsense'"):
        Unit("test").offer((("nonsense",), None, None, None, 1))


# ---- shared subexpressions ------------------------------------------------------------
def rng(a, b):
    return ("call", "range", [c(a), c(b)])


def count(e):
    return ("call", "count", [e])


def plus(a, b):
    return ("arith", "+", a, b)


def test_a_repeated_subexpression_is_worked_out_once(program):
    twice = Outcome(program, plus(count(rng(1, 50)), count(rng(1, 50))), None, None)
    assert twice.answer == value(100)
    assert twice.work == 50  # range() charges its length: once, not twice
    # its parts are worked out with it: a list used twice is the same list
    listed = Outcome(program, ("list", [rng(1, 3), rng(1, 3)]), None, None)
    assert listed.answer == value([[1, 2, 3], [1, 2, 3]])
    assert listed.work == 3 + 8  # one range, and the list of lists for what it holds


def test_a_shared_subexpression_is_worked_out_at_its_first_use(program):
    too_long = count(rng(1, 20_000))  # an error whenever it is worked out
    skipped = ("or", ("and", v("flag"), ("cmp", ">", too_long, c(0))),
               ("and", v("flag"), ("cmp", ">", too_long, c(1))))
    assert run(program, skipped, {"flag": False}) == value(False)
    assert run(program, skipped, {"flag": True}) == (
        "RuleError", "range(1, 20000) is longer than 10000 numbers")
    # the first use that is reached works it out; the others read it
    late = ("ifelse", v("flag"), count(rng(1, 40)), plus(count(rng(1, 40)), count(rng(1, 40))))
    out = Outcome(program, late, {"flag": False}, None)
    assert out.answer == value(80) and out.work == 40
    # an error stays an error at every use, with the same message
    missing = plus(count(v("nope")), count(v("nope")))
    assert run(program, missing) == ("RuleError", "'nope' has no value here")


def test_what_reads_a_rebound_variable_is_worked_out_at_each_pass(program):
    doubled = ("arith", "*", IT, c(2))
    where = ("where", c([1, 2, 3]), ("cmp", ">", plus(doubled, doubled), c(6)))
    assert run(program, where) == value([2, 3])
    # what does not read `it` is worked out once for the whole filter
    invariant = ("where", c([1, 2, 3]), ("cmp", "in", IT, rng(2, 10)))
    out = Outcome(program, invariant, None, None)
    assert out.answer == value([2, 3]) and out.work == 3 + 9
    # the list filtered is worked out by the caller: shared with the caller's own use
    source = plus(count(rng(1, 5)), count(("where", rng(1, 5), ("cmp", ">", IT, c(2)))))
    out = Outcome(program, source, None, None)
    assert out.answer == value(8) and out.work == 5 + 5
    # an option's list and condition: its variable read afresh for each item
    unit = Unit("test")
    twice = plus(v("s"), v("s"))
    option = (c("x"), "s", c([1, 2, 3]),
              ("and", ("cmp", "in", v("s"), rng(2, 4)), ("cmp", "!=", twice, c(4))), 9)
    unit.offer(option, False)
    unit.compile()
    m = Machine(program, initial_state(program, 3), ops_for(program))
    offered: list = []
    unit.offer(option, False)(m, {}, offered)
    assert offered == [["branch", 9, "s", 3]]
    assert m.work == 3  # one range for the three items
    # (an ordering comparison whose operands may fail has a function of its own: what
    # they share is shared there)


def test_nothing_is_shared_where_chance_is_drawn(program):
    def forced(m):
        m.s.forced_rolls.extend([1, 5])

    dice = Outcome(program, plus(("call", "roll", [c(6)]), ("call", "roll", [c(6)])), None,
                   forced)
    assert dice.answer == value(6)  # two dice
    # a function with a die in it shares nothing: the die could change what is read
    mixed = plus(plus(count(rng(1, 10)), ("call", "roll", [c(6)])), count(rng(1, 10)))
    assert Outcome(program, mixed, None, forced).work == 20


def test_pack_functions_are_pure_when_their_bodies_are_and_none_recurses():
    functions = {
        "die": (["n"], ("call", "roll", [v("n")])),
        "uses_die": ([], ("fn", "die", [c(6)])),
        "itself": ([], ("fn", "itself", [])),
        "ping": ([], ("fn", "pong", [])),
        "pong": ([], ("fn", "ping", [])),
        "calls_loop": ([], ("fn", "ping", [])),
        "sum": ([], plus(c(1), c(2))),
        "uses_sum": ([], plus(("fn", "sum", []), ("fn", "sum", []))),
        "unknown": ([], ("fn", "nowhere", [])),
        "malformed": ([], ("nonsense",)),
    }
    assert codegen.pure_functions(functions) == {"sum", "uses_sum"}
    assert not codegen.effects_free(("call", "draw_cube", []), frozenset())
    assert not codegen.effects_free(("call", "random_pick", [c([1])]), frozenset())
    assert codegen.effects_free(("fn", "sum", []), frozenset({"sum"}))
    assert not codegen.effects_free(("fn", "sum", []), frozenset())


def test_small_pure_functions_are_written_where_they_are_called(program):
    functions = {
        "double": (["x"], ("arith", "+", v("x"), v("x"))),
        "above": (["n"], ("where", c([1, 2, 3]), ("cmp", ">", IT, v("n")))),
    }
    unit = Unit("test")
    unit.pure_functions = codegen.pure_functions(functions)
    unit.inliner = codegen.Inliner(functions, unit.pure_functions)
    twice = ("fn", "double", [("fn", "double", [v("a")])])
    # an argument reading the outer `where`'s item, into a body with a `where` of its own
    count_above = ("call", "count", [("fn", "above", [IT])])
    one_above = ("where", c([1, 2, 3]), ("cmp", "==", count_above, c(1)))
    for e in (twice, one_above, *(body for _, body in functions.values())):
        unit.function(e)
    unit.compile()
    m = Machine(program, initial_state(program, 3), ops_for(program))
    m.functions = {name: (params, unit.function(body))
                   for name, (params, body) in functions.items()}
    assert unit.function(twice)(m, {"a": 3}) == 12
    assert unit.function(one_above)(m, {}) == [2]
    assert "'double'" not in unit.source  # written in: no call of it is left
    assert "_fn_enter(m, 'above'" in unit.source  # called: its `it` would be the wrong one


def test_a_larger_pure_function_is_written_in_where_it_is_asked_once_per_item(program):
    big = v("n")
    for _ in range(70):  # n + 70, one +1 at a time: too large to write in alone
        big = ("arith", "+", big, c(1))
    assert codegen.INLINE_NODES < codegen._size(big) <= codegen.LOOPED_INLINE_NODES
    functions = {"big": (["n"], big)}
    unit = Unit("test")
    unit.pure_functions = codegen.pure_functions(functions)
    unit.inliner = codegen.Inliner(functions, unit.pure_functions)
    alone = ("fn", "big", [v("a")])
    filtered = ("where", c([1, 2, 3]), ("cmp", ">", ("fn", "big", [IT]), c(72)))
    option = (c("l"), "x", c([1, 2, 3]), ("cmp", ">", ("fn", "big", [v("x")]), c(71)), 9)
    for e in (alone, filtered, big):
        unit.function(e)
    unit.offer(option, False)
    unit.compile()
    m = Machine(program, initial_state(program, 3), ops_for(program))
    m.functions = {"big": (["n"], unit.function(big))}
    assert unit.function(alone)(m, {"a": 1}) == 71
    assert unit.function(filtered)(m, {}) == [3]
    offered: list = []
    unit.offer(option, False)(m, {}, offered)
    assert offered == [["branch", 9, "x", 2], ["branch", 9, "x", 3]]
    # called where it is asked once; written in the filter and the menu's condition
    assert unit.source.count("_fn_enter(m, 'big'") == 1


def test_a_failing_comparison_in_a_menu_option_drops_that_item_only(program):
    m = Machine(program, initial_state(program, 3), ops_for(program))
    option = (c("l"), "x", c([1, "a", 3]), ("cmp", ">", ("arith", "+", v("x"), c(0)), c(1)), 9)
    unit = Unit("test")
    unit.offer(option, False)
    unit.compile()
    offered: list = [["branch", 1, None, None]]
    unit.offer(option, False)(m, {}, offered)
    assert offered == [["branch", 1, None, None], ["branch", 9, "x", 3]]
    assert any(w.__class__ is str for w in unit.waiting)  # the exact loop ran: "a" + 0


def test_a_loop_reads_its_other_variables_once_and_only_where_the_language_does(program):
    # a where's filter and a menu option read their variables into locals before the
    # loop; one with no value is an error only where the language reads it
    reads = ("where", v("l"), ("or", ("cmp", ">", IT, v("low")), v("missing")))
    assert run(program, reads, {"l": [2, 3], "low": 1}) == value([2, 3])  # never read
    assert run(program, reads, {"l": [], "low": 1}) == value([])
    assert run(program, reads, {"l": [0], "low": 1}) == ("RuleError",
                                                         "'missing' has no value here")
    m = Machine(program, initial_state(program, 3), ops_for(program))
    option = (c("l"), "x", v("l"), ("or", ("cmp", ">", v("x"), v("low")), v("missing")), 9)
    unit = Unit("test")
    unit.offer(option, False)
    unit.compile()
    env = {"l": [2, 3], "low": 1}
    offered: list = []
    unit.offer(option, False)(m, env, offered)
    assert offered == [["branch", 9, "x", 2], ["branch", 9, "x", 3]]
    assert env == {"l": [2, 3], "low": 1, "x": 3}  # left at the last item, as offering does
    with pytest.raises(RuleError, match="'missing' has no value here"):
        unit.offer(option, False)(m, {"l": [2, 0], "low": 1}, [])
    empty: dict = {"l": []}
    unit.offer(option, False)(m, empty, offered)
    assert empty == {"l": []}  # no item: the variable is not set


def test_a_where_gives_back_its_item_after_a_failing_comparison(program):
    failing = ("where", c([1, "a", 3]), ("cmp", ">", ("arith", "+", IT, c(0)), c(1)))
    outcome = Outcome(program, failing, {"it": "outer"}, None)
    assert outcome.answer == value([3])
    assert outcome.env == {"it": "outer"}


def test_a_pure_pack_function_called_twice_is_called_once(program):
    assert "carried_ev" in unit_for(program).pure_functions
    call = ("fn", "carried_ev", [c("kennedy")])
    with building(program):
        twice, alone = build(("list", [call, call])), build(call)

    def setup(m):  # kennedy leads a few states
        for where in list(program.locations)[:40:3]:
            if program.locations[where]["kind"] == "state":
                m.s.pools["state"][where] = ["kennedy", 2]

    m, once = (Machine(program, initial_state(program, 3), ops_for(program)) for _ in "ab")
    setup(m)
    setup(once)
    first = alone(once, {})
    assert first > 0 and twice(m, {}) == [first, first]
    assert m.work == once.work  # one call's work
    # inside it, held(state, who) is written three times and worked out once
    unit = unit_for(program)
    held = BUILTINS["held"]
    bound = unit.names[id(held)]
    calls = []
    unit.namespace[bound] = lambda *args: calls.append(args) or held(*args)
    try:
        assert alone(once, {}) == first
    finally:
        unit.namespace[bound] = held
    assert len(calls) == 1


# ---- every expression compiled ------------------------------------------------------------
def functions_in(obj, seen=None) -> list[types.FunctionType]:
    """The functions an op holds (in its slots, lists, tuples, dicts and durations)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, types.FunctionType):
        return [obj]
    if isinstance(obj, list | tuple):
        return [f for x in obj for f in functions_in(x, seen)]
    if isinstance(obj, dict):
        return [f for x in obj.values() for f in functions_in(x, seen)]
    slots = [n for k in type(obj).__mro__ for n in getattr(k, "__slots__", ())]
    return [f for n in slots if hasattr(obj, n) for f in functions_in(getattr(obj, n), seen)]


def test_every_expression_of_a_program_is_compiled_in_its_module(program):
    unit = unit_for(program)
    ops = ops_for(program)
    deferred = [op for row in ops for op in row if isinstance(op, Deferred)]
    assert deferred and all(op.op is None for op in deferred)  # none built by loading
    held = functions_in([[op.built() if isinstance(op, Deferred) else op for op in row]
                         for row in ops])
    held += functions_in([body for _, body in Machine(
        program, initial_state(program, 1), ops_for(program)).functions.values()])
    assert len(held) > 300  # distinct functions: an expression written twice is one
    assert all(f.__globals__ is unit.namespace for f in held)
    waiting = [f for f in held if f.__code__.co_filename != unit.filename]
    assert len(waiting) > 200  # compiled at their first call: most never are
    unit.compile_stubs()
    assert {f.__code__.co_filename for f in held} == {unit.filename}
    assert all(f"def {f.__name__}(" in unit.source for f in held)


def test_compiling_a_whole_program_goes_a_batch_at_a_time(monkeypatch):
    """prepare compiles a few thousand lines at a time: one compile of all of 1960's
    generated source held 40 MB of syntax trees at once."""
    chunks: list[int] = []

    def counting(source, *args):
        chunks.append(source.count("\n"))
        return compile(source, *args)

    monkeypatch.setattr(unit_module, "compile", counting, raising=False)
    fresh = load_pack()
    prepare(fresh)
    assert sum(chunks) > 10_000 and len(chunks) > 5
    assert max(chunks) < 3_000  # a batch: 2,000 lines and the block or function past them
    assert Game.new(fresh, seed=3).num_actions() > 0


def test_an_expression_is_compiled_at_its_first_call_and_then_runs_as_compiled(program):
    unit = unit_for(program)
    with building(program):
        f = build(("arith", "+", v("y"), ("arith", "*", v("y"), c(3))))
    assert f.__code__.co_filename != unit.filename and f"def {f.__name__}(" not in unit.source
    m = Machine(program, initial_state(program, 1), ops_for(program))
    assert f(m, {"y": 2}) == 8
    compiled = unit.namespace[f.__name__]
    assert f.__code__ is compiled.__code__ and f.__kwdefaults__ is None  # no call between
    assert f(m, {"y": 5}) == 20


def test_building_the_ops_again_finds_every_expression_compiled(program):
    from hustings.interpreter.machine import build_ops

    unit = unit_for(program)
    build_ops(program)  # a first pass (other tests of the module may have made one)
    sites, lines = len(unit.sites), len(unit.lines)
    build_ops(program)  # the same instructions: the first pass saw each of them
    assert sites > 0 and (len(unit.sites), len(unit.lines)) == (sites, lines)


def test_an_error_at_a_first_call_is_not_placed_at_the_stubs_line():
    """The code a function runs before its first call is no line of the rules: an error
    raised then is placed by the rules' lines it went through, not by the stub's."""
    from hustings.interpreter.blocks import marked

    unit = Unit("test")
    unit.write("s", ("m", "f"), ["m.work += 1  #@5:7"], guard=False)  # line 2 is marked
    unit.compile()
    f = unit.stub("e", ("m", "env"), lambda w: ["return env['n'] // 0"], True)
    with pytest.raises(ZeroDivisionError) as caught:
        f(None, {"n": 1})
    assert marked(unit, caught.value) is None


def test_an_expression_built_later_is_compiled_into_the_programs_module(program):
    unit = unit_for(program)
    late = ("arith", "+", c(40), ("arith", "*", v("x"), c(2)))
    with building(program):
        f = build(late)
        assert build(late) is f  # the same expression: the same function
        listed = build_items(v("late_list"), "what the tool reads")
        assert build_items(v("late_list"), "what the tool reads") is not None
    m = Machine(program, initial_state(program, 1), ops_for(program))
    # its lines are numbered where they are in the module: a missing variable is named,
    # at the first call (compiling it) as at any other
    with pytest.raises(RuleError, match="^'x' has no value here$"):
        f(m, {})
    assert f.__globals__ is unit.namespace and f.__code__.co_filename == unit.filename
    assert f"def {f.__name__}(" in unit.source
    assert f(m, {"x": 1}) == 42
    with pytest.raises(RuleError, match="^'x' has no value here$"):
        f(m, {})
    with pytest.raises(RuleError, match="what the tool reads must be a list"):
        listed(m, {"late_list": "ab"})


def test_an_expression_of_no_program_is_compiled_alone(program):
    f = build(("fmt", ["n=", ("arith", "-", v("n"), c(1))]))
    assert f.__globals__["__builtins__"] == {}
    m = Machine(program, initial_state(program, 1), ops_for(program))
    assert f(m, {"n": 3}) == "n=2"
    assert f.__code__.co_filename == "<hustings:expression>"
    with pytest.raises(RuleError, match="^'n' has no value here$"):
        f(m, {})


# ---- content stays data ---------------------------------------------------------------
EVIL = "line one\n'''" + '""" {n} \\ end " + __import__(\'os\') + "'

HOSTILE_MANIFEST = """\
name: "hostile'); __import__('os')"
title: Hostile
version: "1.0.0"
players: [ann, bob]
counters:
  __class__: {max: 50}
  _KeyError: {start: 3}
variables:
  __builtins__: 0
durations:
  round: "until the end of the round"
effects:
  __import__: "'); import os; ('"
texts:
  evil: {params: [n], text: EVIL}
zones:
  deck: {start: campaign}
  hand: {per_player: true}
  discard: {}
entry: game
board: board.yaml
cards: [cards.yaml]
rules: rules
""".replace("EVIL", json.dumps(EVIL))

HOSTILE_BOARD = r"""
locations:
  spaces:
    - {id: "A'] + __import__('os').getcwd() + ['", name: "x\ny"}
    - {id: "B\"]); import os; (\"", name: "{}"}
    - {id: "C\n\\"}
tokens: {ann: "C\n\\", bob: "C\n\\"}
"""

HOSTILE_CARDS = r"""
cards:
  - {number: 1, title: "__import__('os').system('echo pwned')"}
  - {number: 2, title: "\"]); import os; (\""}
  - {number: 3, title: "line\nbreak"}
  - {number: 4, title: "}{"}
"""

# Variables named like the generated code's own names (env, m, _t1, _x, _g0, offered).
HOSTILE_RULES = r"""
procedures:
  game:
    body: |
      let env = 1
      let m = "\"]); import os; (\"" + ""
      let _t1 = [1, 2, 3]
      let __import__ = _t1 where it > 1
      for p in players:
        deal 2 from deck to hand of p
      for r from 1 to 3:
        set __builtins__ to r
        say evil(r)
        for p in players:
          do turn(player: p, offered: m, os: __import__)
        expire round effects
      say "{env} {m} {_t1}"
  turn:
    params: [player, offered, os]
    body: |
      let _x = offered + ""
      let _g0 = count(os) + 1
      player chooses:
        "score {_x}'); __import__('os').system('echo') #":
          player gains _g0 __class__
          until end of round:
            player has __import__ 1
        "go to {s} \\ {_x} {__import__ of player}" for s in spaces if s != "B" and _g0 > 1:
          move player to s
        "play {title of c}" for c in cards(hand of player):
          transfer c to discard
          say "{title of c} played by {player}: \"{_x}\""
        "pass":
          say "{player} passes\\n {__class__ of player} {_KeyError of player}"
"""

# What the source may name: its own identifiers, never one from content.
OWN_NAMES = re.compile(r"^(m|env|f|offered|_|_e|_x|_n|_saved|_out|_unbound|_later|_Scope|"
                       r"_RuleError|_range|_[tgcalxinsvhop]\d+|_ce\d+_\d+|[ecowxsp]_\d+)$")
OWN_ATTRIBUTES = {"s", "p", "vars", "counters", "zones", "effects", "tracks", "tokens", "pools",
                  "opponents", "locations", "cards", "functions", "get", "show", "work",
                  "work_limit", "charge", "append", "pop", "join", "__class__",
                  "env", "pc", "run", "stop", "say", "tick", "tick_at", "copy",
                  "stack", "items", "cond", "bound", "push", "announce",
                  "apply_payload", "decide", "apply", "names"}
PYTHON_LOOKING = ["__import__", "os", "getcwd", "system", "pwned", "import os", "\"]);",
                  "'); __import__('os')"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    pack = tmp_path_factory.mktemp("hostile") / "pack"
    write(pack, {"pack.yaml": HOSTILE_MANIFEST, "board.yaml": HOSTILE_BOARD,
                 "cards.yaml": HOSTILE_CARDS, "rules/10-game.yaml": HOSTILE_RULES})
    return pack


def random_game(program, seed: int) -> str:
    """The labels taken, the final save and the log of one random game."""
    game = Game.new(program, seed=seed, safe=False)
    pick = __import__("random").Random(seed)
    taken = []
    while not game.is_terminal():
        legal = game.legal_actions()
        taken.append(legal[pick.randrange(len(legal))])
        game.apply_action(taken[-1])
    return "\n".join([*taken, game.save(), *game.state.log])


def test_a_pack_of_python_looking_names_plays_as_data(hostile):
    finished = [random_game(load_pack(hostile), seed) for seed in range(8)]
    assert finished == [random_game(load_pack(hostile), seed) for seed in range(8)]
    assert any("'); __import__('os').system('echo') #" in g for g in finished)  # a label
    assert any(EVIL.split("\n")[1].replace("{n}", "2") in g for g in finished)  # a text


def test_content_is_only_ever_a_literal_in_the_generated_source(hostile):
    program = load_pack(hostile)
    prepare(program)  # all of it: every op, and every block as Python
    unit = unit_for(program)
    tree = ast.parse(unit.source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    names |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    assert {n for n in names if not OWN_NAMES.match(n)} <= set(HELPERS)
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert attributes <= OWN_ATTRIBUTES
    texts = [n.value for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    # the content's words are all there, as data
    for word in ("env", "m", "_t1", "_x", "_g0", "offered", "__class__", "__import__",
                 "_KeyError", "'); __import__('os').system('echo') #", "\"]); import os; (\""):
        assert word in texts or any(word in t for t in texts), word
    # and nothing Python-looking is left once the literals are taken out
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            node.value = 0
    bare = ast.unparse(tree)
    assert not [w for w in PYTHON_LOOKING if w in bare.replace("__class__", "")]
    assert unit.namespace["__builtins__"] == {}


def test_a_missing_variable_in_a_compiled_rule_is_positioned_as_before(hostile, tmp_path):
    line = 'let _x = offered + ""'
    broken = HOSTILE_RULES.replace(line, line + "\n      if _x == 1:\n        let __import__ = 1\n"
                                   '      say "{_x} {__import__ + 1}"')
    rules = hostile.parent / "broken"
    write(rules, {"pack.yaml": HOSTILE_MANIFEST, "board.yaml": HOSTILE_BOARD,
                  "cards.yaml": HOSTILE_CARDS, "rules/10-game.yaml": broken})
    with pytest.raises(RuleError) as caught:
        Game.new(load_pack(rules), seed=1)
    assert "10-game.yaml:24:" in str(caught.value)
    assert str(caught.value).endswith("'__import__' has no value here")


# ---- answers kept while a function is written --------------------------------------------
def test_what_a_tuple_expression_reads_is_worked_out_once_until_forgotten():
    e = ("arith", "+", ("var", "x"), ("var", "y"))
    first = codegen.variables_read(e)
    assert first == {"x", "y"}
    assert codegen.variables_read(e) is first  # kept, not worked out again
    codegen.forget_answers()
    again = codegen.variables_read(e)
    assert again == first and again is not first


def test_a_list_expression_is_asked_afresh_each_time():
    """A list may change between two asks; only tuples (which cannot) are kept."""
    e = ["arith", "+", ["var", "x"], ["var", "y"]]
    assert codegen.variables_read(e) == {"x", "y"}
    e[3] = ["var", "z"]
    assert codegen.variables_read(e) == {"x", "z"}
    assert codegen._operands(e) == (["var", "x"], ["var", "z"])
