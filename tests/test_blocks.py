"""Blocks compiled to Python between decision points (interpreter/blocks.py).

Control flow that cannot pause runs as Python `if`, `for` and `while`, and a procedure
that cannot pause is a Python function called without a frame. These tests hold that to
the language's meaning: `stop` leaves one procedure, loops and their bounds, errors at
the nested instruction's line, blocks nested deeper than is written inline, and a
decision deep in loops that pauses, saves and resumes where it was.
"""

from __future__ import annotations

import random

import pytest
from minipack import make_pack

from hustings.dsl.loading import load_pack
from hustings.interpreter.blocks import MAX_INLINE_DEPTH, direct_procedures
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game

RULES = "rules/10-game.yaml"


def probe_pack(tmp_path, body: str, extra: str = ""):
    """The mini pack whose game is `body` (its rules file: RULES), plus `extra` YAML."""
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    rules = f"procedures:\n  game:\n    body: |\n{indented}{extra}"
    pack = make_pack(tmp_path, rules={RULES: rules})
    return pack, load_pack(pack)


def said(game: Game) -> list[str]:
    """The lines the rules said: the narration of changes (indented) and of decisions
    (`ann: take 1`) left out."""
    return [line.strip() for line in game.state.log
            if not line.startswith(("  ", "ann: ", "bob: "))]


def test_stop_in_a_procedure_called_without_a_frame_leaves_that_procedure(tmp_path):
    extra = """\
  inner:
    params: [limit]
    body: |
      for r from 1 to 5:
        if r == limit:
          stop
        say "r {r}"
"""
    _, program = probe_pack(tmp_path, 'do inner(limit: 3)\nsay "after"', extra)
    assert "inner" in direct_procedures(program)
    game = Game.new(program, seed=1)
    assert said(game) == ["r 1", "r 2", "after"]
    assert game.is_terminal()


def test_loops_written_inline_keep_their_meaning(tmp_path):
    body = """\
let n = 0
repeat 3 times:
  let n = n + 1
repeat 0 times:
  let n = 100
for x in [10, 20]:
  let n = n + x
say "n {n} x {x}"
let k = 0
while k < 4, at most 10 times:
  let k = k + 1
say "k {k}"
"""
    _, program = probe_pack(tmp_path, body)
    assert said(Game.new(program, seed=1)) == ["n 33 x 20", "k 4"]


def test_a_while_loop_past_its_bound_is_an_error_at_the_loop(tmp_path):
    pack, program = probe_pack(tmp_path, "let k = 0\nwhile k < 99, at most 3 times:\n"
                                         "  let k = k + 1")
    with pytest.raises(RuleError, match="past its bound") as caught:
        Game.new(program, seed=1)
    assert "10-game.yaml:5:" in caught.value.where  # the `while` line


def test_an_error_deep_in_inline_code_names_its_own_line(tmp_path):
    body = """\
let x = 0
for r from 1 to 3:
  if r > 1:
    if r == 3:
      let x = 999999999999999999 * r * r * r * r
"""
    _, program = probe_pack(tmp_path, body)
    with pytest.raises(RuleError, match="64-bit") as caught:
        Game.new(program, seed=1)
    assert "10-game.yaml:8:" in caught.value.where


def nested(depth: int, inner: list[str]) -> str:
    lines = [f"{'  ' * k}if {k} < {depth}:" for k in range(depth)]
    return "\n".join(lines + ["  " * depth + line for line in inner])


def test_blocks_nested_deeper_than_written_inline_still_run(tmp_path):
    depth = MAX_INLINE_DEPTH + 4
    _, program = probe_pack(tmp_path, nested(depth, ['say "deep"']))
    assert said(Game.new(program, seed=1)) == ["deep"]


def test_a_decision_deep_in_loops_pauses_saves_and_resumes_there(tmp_path):
    body = nested(MAX_INLINE_DEPTH + 2, [
        "for r from 1 to 3:",
        "  repeat 2 times:",
        '    ann chooses n from [1, 2, 3] labelled "take {n}"',
        "    ann gains n score",
        '    say "round {r}: {n}"',
    ])
    _, program = probe_pack(tmp_path, body)
    rnd = random.Random(4)
    moves = []
    game = Game.new(program, seed=1)
    while not game.is_terminal():
        assert game.legal_actions() == ["take 1", "take 2", "take 3"]
        moves.append(rnd.randrange(3))
        if len(moves) == 4:  # save mid-loop, and carry on from the save
            game = Game.load(program, game.save())
        game.apply_action(moves[-1])
    assert len(moves) == 6
    lines = said(game)
    assert lines == [f"round {1 + k // 2}: {moves[k] + 1}" for k in range(6)]
    assert game.state.counters["score"]["ann"] == min(5, sum(m + 1 for m in moves))


def test_a_comparison_a_type_error_makes_false_keeps_its_meaning_inline(tmp_path):
    # `r` is a number and a text in turn: "x" + 1 fails, so `> 1` is false, not an error
    body = """\
let n = 0
for r in [1, "x", 3]:
  let big = r + 1 > 2
  if big:
    let n = n + 1
  say "{r}: {big}"
"""
    _, program = probe_pack(tmp_path, body)
    game = Game.new(program, seed=1)
    assert said(game) == ["1: no", "x: no", "3: yes"]


def test_an_error_passing_generated_code_with_no_line_is_still_positioned(tmp_path):
    """Code the compiler gives no line (exception cleanups) has a traceback entry whose
    tb_lineno is None: the error is still placed, by the entries that have one."""
    import types

    from hustings.interpreter.blocks import marked
    from hustings.interpreter.unit import unit_for

    _, program = probe_pack(tmp_path, "let x = 3\nlet y = 999999999999999999 * x * x * x")
    with pytest.raises(RuleError) as caught:
        Game.new(program, seed=1)
    error = caught.value.__context__ or caught.value
    unit = unit_for(program)
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_globals is not unit.namespace:
        tb = tb.tb_next
    assert tb is not None, "the error went through no generated code"
    lineless = types.TracebackType(tb, tb.tb_frame, 1 << 20, -1)  # an offset with no line
    assert lineless.tb_lineno is None
    error.__traceback__ = lineless
    assert marked(unit, error) is not None


def test_a_gain_of_nothing_works_out_nothing_else(tmp_path):
    # a gain's count comes first: below 1, its player is never read (as ops.Gain runs)
    body = """\
if score of ann > 100:
  let later = "ann"
later gains 0 score
let who = "bob"
who gains 2 score
say "{score of bob}"
"""
    _, program = probe_pack(tmp_path, body)
    assert said(Game.new(program, seed=1)) == ["2"]
    _, broken = probe_pack(tmp_path / "b", body.replace("later gains 0", "later gains 1"))
    with pytest.raises(RuleError, match="'later' has no value here"):
        Game.new(broken, seed=1)
