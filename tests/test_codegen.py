"""The compiled backend (interpreter/codegen.py) behaves exactly as the closures.

Expression by expression (value or error, work charged, variables left, chance drawn),
game by game (20 random games and every scenario of the pack and its mods, byte for byte),
and on a pack whose names and texts are Python-looking text, which must stay data in the
generated source. `python -m hustings.tools.verify_backend` compares 500 games.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest
from minipack import write

from hustings.dsl.pack import load_pack
from hustings.dsl.scenarios import Runner
from hustings.interpreter import codegen
from hustings.interpreter import expressions as X
from hustings.interpreter.codegen import Unit, unit_for, use_backend
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game, initial_state, ops_for
from hustings.interpreter.machine import Machine
from hustings.tools.verify_backend import differences, random_game, scenarios


@pytest.fixture(scope="module")
def program():
    return load_pack()


def compiled(expr: tuple):
    """The expression's function from a unit of its own."""
    unit = Unit("test")
    with X.active(unit):
        X.build(expr)
    unit.compile()
    with X.active(unit):
        return X.build(expr)


def outcome(program, f, env: dict, setup=None) -> tuple:
    """Everything an evaluation can change or answer."""
    m = Machine(program, initial_state(program, 3), ops_for(program))
    if setup is not None:
        setup(m)
    env = copy.deepcopy(env)
    try:
        answer = ("value", f(m, env))
    except Exception as e:  # noqa: BLE001 - the error is part of the outcome
        answer = (type(e).__name__, str(e))
    return answer, m.work, env, m.s.rng, m.s.to_dict()


def both(program, expr, env=None, setup=None):
    """The outcome on each backend; they must be equal. Returns the compiled one's answer."""
    closure = outcome(program, X.build_closure(expr), env or {}, setup)
    fast = outcome(program, compiled(expr), env or {}, setup)
    assert fast == closure, expr
    return fast[0]


def value(x):
    return ("value", x)


def c(v):
    return ("const", v)


def v(name):
    return ("var", name)


IT = v("it")


# ---- expression by expression -------------------------------------------------------
def test_variables_and_their_missing_error(program):
    assert both(program, v("x"), {"x": 5}) == value(5)
    assert both(program, v("x")) == ("RuleError", "'x' has no value here")
    counter = program.counters[0]
    # a variable read inside a table lookup, then a lookup that fails on its own
    assert both(program, ("counter", counter, v("who"))) == ("RuleError",
                                                             "'who' has no value here")
    assert both(program, ("counter", counter, v("who")), {"who": "x"}) == ("KeyError", "'x'")
    assert both(program, ("global", "no such"))[0] == "KeyError"
    # a lookup failing on a key that is also the name of a variable with no value:
    # the lookup's KeyError, as the closures give, since it fails first
    first = ("list", [("counter", counter, c("x")), v("x")])
    assert both(program, first) == ("KeyError", "'x'")


def test_without_column_positions_a_missing_variable_is_found_by_its_name(program,
                                                                          monkeypatch):
    # python -X no_debug_ranges keeps no columns: the key, unbound and read here, decides
    monkeypatch.setattr(Unit, "_read_at", lambda self, code, lasti: codegen._UNKNOWN)
    counter = program.counters[0]
    assert both(program, ("arith", "+", c(1), v("x"))) == ("RuleError",
                                                           "'x' has no value here")
    assert both(program, ("list", [("counter", counter, v("x")), v("y")]),
                {"x": "y", "y": 1}) == ("KeyError", "'y'")


def test_comparisons(program):
    assert both(program, ("cmp", "<", v("a"), v("b")), {"a": 1, "b": 2}) == value(True)
    assert both(program, ("cmp", "<", c("a"), c(1))) == value(False)  # incomparable
    assert both(program, ("cmp", ">=", v("a"), c(None)), {"a": 3}) == value(False)
    # a TypeError inside an operand makes the comparison False too
    assert both(program, ("cmp", ">", ("call", "count", [c(5)]), c(0))) == value(False)
    assert both(program, ("cmp", "<=", ("arith", "+", c(1), c("a")), c(3))) == value(False)
    assert both(program, ("cmp", "in", c(1), c(None))) == value(False)
    assert both(program, ("cmp", "not in", c(1), c(None))) == value(True)
    # the container is worked out first; with none, the item never is
    assert both(program, ("cmp", "in", v("nope"), c(None))) == value(False)
    assert both(program, ("cmp", "in", c(2), c([1, 2]))) == value(True)
    assert both(program, ("cmp", "==", c([1]), v("l")), {"l": [1]}) == value(True)
    assert both(program, ("cmp", "!=", c("a"), c("a"))) == value(False)


def test_arithmetic_is_checked(program):
    assert both(program, ("arith", "//", c(7), c(0))) == value(0)
    assert both(program, ("arith", "%", c(7), c(0))) == value(0)
    assert both(program, ("arith", "//", c(-7), c(2))) == value(-4)
    assert both(program, ("arith", "*", c(2**62), c(4)))[0] == "RuleError"
    assert both(program, ("arith", "+", c(2**63), c(1)))[0] == "RuleError"
    assert both(program, ("arith", "-", v("a"), c(2**63)), {"a": 0}) == value(-2**63)
    assert both(program, ("arith", "+", v("l"), v("l")), {"l": [1, 2]}) == value([1, 2, 1, 2])
    assert both(program, ("arith", "+", c("ab"), c("cd"))) == value("abcd")
    assert both(program, ("arith", "*", c("x"), c(10**12)))[0] == "RuleError"
    assert both(program, ("arith", "+", c(1), c("a")))[0] == "TypeError"
    assert both(program, ("arith", "+", c(True), c(True))) == value(2)
    assert both(program, ("neg", c(-2**63))) == value(2**63)
    assert both(program, ("neg", c("a")))[0] == "TypeError"


def test_logic_gives_booleans_not_operands(program):
    assert both(program, ("and", c(1), c(2))) == value(True)
    assert both(program, ("or", c(0), c([]))) == value(False)
    assert both(program, ("or", c(0), c("x"))) == value(True)
    assert both(program, ("and", c(0), v("nope"))) == value(False)  # never read
    assert both(program, ("not", c([]))) == value(True)
    assert both(program, ("ifelse", ("and", c(1), ("or", c(0), c(3))), c("y"), v("nope"))) \
        == value("y")
    assert both(program, ("not", ("and", c(1), ("or", c(0), c(0))))) == value(True)


def test_where_binds_it_and_puts_it_back(program):
    where = ("where", v("l"), ("cmp", ">", IT, c(1)))
    answer = both(program, where, {"l": [1, 2, 3], "it": "outer"})
    assert answer == value([2, 3])
    assert both(program, where, {"l": [3, 0]}) == value([3])
    nested = ("where", v("l"), ("cmp", "in", IT, ("where", c([2, 3]), ("cmp", "<", IT, c(3)))))
    assert both(program, nested, {"l": [1, 2, 3]}) == value([2])
    # an error in the filter leaves `it` as the closure does
    assert both(program, ("where", c([1]), v("nope")), {"it": 0})[0] == "RuleError"
    assert both(program, ("where", c(None), IT))[0] == "TypeError"


def test_texts_lists_and_calls(program):
    fmt = ("fmt", ["a ", v("n"), " b ", v("l"), "", v("none"), v("t")])
    env = {"n": 3, "l": [1, [2]], "none": None, "t": "z"}
    assert both(program, fmt, env) == value("a 3 b 1, 2nobodyz")
    assert both(program, ("fmt", [])) == value("")
    assert both(program, ("list", [v("l"), c(1)]), {"l": [1, 2]}) == value([[1, 2], 1])
    assert both(program, ("list", [])) == value([])
    assert both(program, ("call", "range", [c(1), c(4)])) == value([1, 2, 3, 4])
    assert both(program, ("call", "min", [c(3), c(1), c(2)])) == value(1)
    assert both(program, ("call", "count", [c(None)])) == value(0)
    assert both(program, ("call", "bag_size", [])) == both(program, ("call", "bag_size", []))
    two_rolls = ("list", [("call", "roll", [c(6)]), ("call", "roll", [c(6)])])
    assert both(program, two_rolls)[0] == "value"  # the same dice, in the same order


def test_pack_functions(program):
    name, (params, _) = next(iter(program.functions.items()))
    args = [c(None)] * len(params)
    both(program, ("fn", name, args))
    wrong = both(program, ("fn", name, [*args, c(1)]))
    assert wrong == ("RuleError", f"{name}() takes {len(params)} arguments, not "
                     f"{len(params) + 1}")
    # the function is looked up (and refused) before its arguments are worked out
    assert both(program, ("fn", "no such", [v("nope")])) == ("KeyError", "'no such'")


def test_board_reads(program):
    state = initial_state(program, 3)
    card = next(iter(program.cards))
    pool, held = next((p, h) for p, h in state.pools.items() if h)
    where, (owner, n) = next(iter(held.items()))
    other = next(p for p in program.players if p != owner)
    empty = next(loc for loc in program.kinds[program.pools[pool].kind] if loc not in held)
    assert both(program, ("attr", "title", c(card))) == value(program.cards[card]["title"])
    assert both(program, ("attr", "x", c("nowhere")))[0] == "RuleError"
    assert both(program, ("attr", "x", c(None))) == value(None)
    assert both(program, ("attr", "kind", c(where)))[0] == "value"
    assert both(program, ("leader", None, c(where)))[0] == "value"
    assert both(program, ("leader", pool, c(where))) == value(owner)
    assert both(program, ("support_of", pool, c(owner), c(where))) == value(n)
    assert both(program, ("support_of", pool, c(other), c(where))) == value(0)
    assert both(program, ("support_of", pool, v("nope"), c(empty))) == value(0)
    assert both(program, ("support_at", pool, c(where))) == value(n)
    assert both(program, ("opponent", c(None))) == value(None)
    assert both(program, ("opponent", c(owner))) == value(other)
    assert both(program, ("token", c(owner)))[0] == "value"
    zone = next(z for z, spec in program.zones.items() if spec.per_player)
    assert both(program, ("zone", zone, c(owner))) == value(f"{zone}:{owner}")
    assert both(program, ("cards", ("zone", zone, c(owner))))[0] == "value"
    if program.tracks:
        assert both(program, ("track", next(iter(program.tracks))))[0] == "value"


def test_lasting_effects(program):
    def effects(m):
        m.s.effects = [["e", "a", 2, "game"], ["e", "b", 5, "game"], ["e", "a", 3, "game"],
                       ["f", "a", [1], "game"]]

    assert both(program, ("effect", "e", c("a")), setup=effects) == value(5)
    assert both(program, ("effect", "f", c("a")), setup=effects)[0] == "TypeError"
    assert both(program, ("effect_list", "e", c("a")), setup=effects) == value([2, 3])


def refusal(build, expr) -> tuple:
    with pytest.raises(Exception) as caught:  # noqa: B017 - the error is compared
        build(expr)
    return type(caught.value).__name__, str(caught.value)


@pytest.mark.parametrize("expr", [("nonsense",), ("not", ("nonsense",)),
                                  ("arith", "^", c(1), c(2)), ("call", "no such", []),
                                  ("cmp", "<>", c(1), c(2)), ("not", c(1), c(2))])
def test_what_the_closures_refuse_to_build_is_refused_alike(expr):
    assert refusal(compiled, expr) == refusal(X.build_closure, expr)


def test_the_compiled_backend_is_the_default_and_closures_can_be_chosen(program):
    with use_backend("compiled"):
        ops = ops_for(program)
    with use_backend("closures"):
        old = ops_for(program)
    lets = [(a.e, b.e) for ba, bb in zip(ops, old, strict=True)
            for a, b in zip(ba, bb, strict=True) if hasattr(a, "e")]
    generated = [a for a, _ in lets if a.__code__.co_filename == f"<hustings:{program.name}>"]
    assert len(generated) > 100
    # the others read a constant or a variable: their closure is a single call already
    assert all(a.__code__ is b.__code__ for a, b in lets if a not in generated)
    assert all(b.__code__.co_filename.endswith("expressions.py") for _, b in lets)
    assert codegen.backend() == "compiled"
    with pytest.raises(ValueError, match="unknown backend"):
        with use_backend("fast"):
            pass


# ---- game by game -------------------------------------------------------------------
def test_twenty_random_games_are_byte_identical():
    assert differences(seeds=range(20)) == []


SCENARIOS = scenarios()
PARTS = 4  # the scenarios in parts, so that test workers share them


@pytest.mark.parametrize("part", range(PARTS))
def test_every_scenario_of_the_pack_and_its_mods_is_byte_identical(part):
    cases = SCENARIOS[part::PARTS]
    assert any(mods for _, mods, _, _ in SCENARIOS)  # the mods' scenarios are there too
    assert differences(seeds=range(0), cases=cases) == []


def test_the_comparison_sees_a_difference(monkeypatch):
    # `<` compiled as `<=`: the check must notice, or it proves nothing
    right = codegen.GENERATORS["cmp"]

    def wrong(w, op, a, b):
        return right(w, "<=" if op == "<" else op, a, b)

    monkeypatch.setitem(codegen.GENERATORS, "cmp", wrong)
    assert differences(seeds=range(2), runner=Runner()) != []  # a fresh load, compiled anew


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
OWN_NAMES = re.compile(r"^(m|env|offered|_e|_x|_saved|_out|_src|_unbound|_t\d+|_g\d+|"
                       r"[ecow]_\d+)$")
OWN_ATTRIBUTES = {"s", "p", "vars", "counters", "zones", "effects", "tracks", "tokens", "pools",
                  "opponents", "locations", "cards", "functions", "get", "show", "work",
                  "work_limit", "charge", "append", "pop", "join", "__class__"}
PYTHON_LOOKING = ["__import__", "os", "getcwd", "system", "pwned", "import os", "\"]);",
                  "'); __import__('os')"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    pack = tmp_path_factory.mktemp("hostile") / "pack"
    write(pack, {"pack.yaml": HOSTILE_MANIFEST, "board.yaml": HOSTILE_BOARD,
                 "cards.yaml": HOSTILE_CARDS, "rules/10-game.yaml": HOSTILE_RULES})
    return pack


def test_a_pack_of_python_looking_names_plays_as_with_closures(hostile):
    games = {}
    for b in codegen.BACKENDS:
        with use_backend(b):
            program = load_pack(hostile)
            games[b] = [random_game(program, seed) for seed in range(8)]
    assert games["compiled"] == games["closures"]
    finished = [g for g in games["compiled"] if "RuleError" not in g]
    assert len(finished) == 8
    assert any("'); __import__('os').system('echo') #" in g for g in finished)  # a label
    assert any(EVIL.split("\n")[1].replace("{n}", "2") in g for g in finished)  # a text


def test_content_is_only_ever_a_literal_in_the_generated_source(hostile):
    program = load_pack(hostile)
    unit = unit_for(program)
    tree = ast.parse(unit.source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    names |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    assert {n for n in names if not OWN_NAMES.match(n)} <= set(codegen.HELPERS)
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
    errors = {}
    for b in codegen.BACKENDS:
        with use_backend(b):
            with pytest.raises(RuleError) as caught:
                Game.new(load_pack(rules), seed=1)
            errors[b] = str(caught.value)
    assert errors["compiled"] == errors["closures"]
    assert "10-game.yaml:24:" in errors["compiled"]
    assert errors["compiled"].endswith("'__import__' has no value here")
