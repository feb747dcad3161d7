"""Properties one example cannot speak for (issue 41), checked with Hypothesis.

Hypothesis runs derandomized (its examples come from a fixed seed), so the suite stays
deterministic; the chi-square tests read a fixed stream of the game's own generator.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from minipack import make_pack

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter import machine as machine_module
from hustings.interpreter import rng
from hustings.interpreter.budget import Budget
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game, initial_state, ops_for
from hustings.interpreter.machine import Machine

# Under mutation testing (tools/mutation.py) a failure is all that matters: no shrinking.
PHASES = ([Phase.explicit, Phase.reuse, Phase.generate] if os.environ.get("HUSTINGS_MUTATION")
          else list(Phase))
SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=60,
                    suppress_health_check=[HealthCheck.too_slow], phases=PHASES)


# ---- chance -------------------------------------------------------------------------------
def chi_square_p(df: int, x: float) -> float:
    """P(X >= x) for a chi-square variable of `df` degrees of freedom (1 - the regularized
    lower incomplete gamma function, by its series: exact enough far into the tail)."""
    if x <= 0:
        return 1.0
    a, z = df / 2, x / 2
    term = total = 1 / a
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= z / (a + n)
        total += term
    return 1 - total * math.exp(-z + a * math.log(z) - math.lgamma(a))


def chi_square(counts: Counter, cells: list, expected: float) -> float:
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


# Each statistic below would exceed its bound for a fair generator with probability
# FALSE_ALARM: the stream is fixed, so the test is deterministic, and the chance that a
# correct shuffle's fixed stream happens to fail is that small.
FALSE_ALARM = 1e-6


@pytest.fixture(scope="module")
def machine() -> Machine:
    return Game.new(load_pack(builtin_pack("tic-tac-toe")), seed=0).machine


def test_splitmix64_gives_the_published_outputs():
    """The generator is SplitMix64: its first outputs from 0 are the reference ones, so a
    seed plays the same game on every version and machine."""
    state, out = rng.next_state(0)
    assert out == 0xE220A8397B1DCDAF
    state, out = rng.next_state(state)
    assert out == 0x6E789E6AA1B965F4
    state, out = rng.next_state(state)
    assert out == 0x06C45D188009454F
    assert state == 3 * 0x9E3779B97F4A7C15 & rng.MASK
    assert rng.next_state(rng.MASK)[0] == (rng.MASK + 0x9E3779B97F4A7C15) & rng.MASK


def test_a_shuffle_of_four_cards_gives_each_order_equally_often(machine):
    """24 orders of a 4-card deck, 250 expected each, over a fixed stream of shuffles."""
    machine.s.rng = 12345
    orders = list(permutations("abcd"))
    counts = Counter()
    for _ in range(250 * len(orders)):
        deck = list("abcd")
        machine.shuffle(deck)
        counts[tuple(deck)] += 1
    assert set(counts) == set(orders)  # every order happens (a Sattolo shuffle makes 6)
    stat = chi_square(counts, orders, 250)
    assert chi_square_p(len(orders) - 1, stat) > FALSE_ALARM, (stat, counts.most_common(3))


def test_each_card_lands_in_each_place_equally_often(machine):
    machine.s.rng = 777
    places = [Counter() for _ in range(5)]
    for _ in range(5000):
        deck = list("abcde")
        machine.shuffle(deck)
        for place, card in enumerate(deck):
            places[place][card] += 1
    for counts in places:
        assert chi_square_p(4, chi_square(counts, list("abcde"), 1000)) > FALSE_ALARM, counts


@pytest.mark.parametrize("sides", [1, 2, 6, 7])
def test_a_draw_below_n_is_uniform_over_range_n(sides):
    state, counts = 99, Counter()
    for _ in range(600 * sides):
        state, value = rng.below(state, sides)
        counts[value] += 1
    assert set(counts) == set(range(sides))
    if sides > 1:
        assert chi_square_p(sides - 1, chi_square(counts, list(range(sides)), 600)) \
            > FALSE_ALARM


def test_the_chi_square_tail_is_right():
    """The yardstick itself: known values of the chi-square distribution's tail."""
    assert chi_square_p(2, 2 * math.log(100)) == pytest.approx(0.01)  # df 2: exp(-x/2)
    assert chi_square_p(23, 35.172) == pytest.approx(0.05, abs=1e-3)
    assert chi_square_p(3, 16.266) == pytest.approx(0.001, abs=1e-4)


@SETTINGS
@given(deck=st.lists(st.integers(0, 50), max_size=30), state=st.integers(0, rng.MASK))
def test_a_shuffle_keeps_the_cards_and_is_fixed_by_the_state(machine, deck, state):
    machine.s.rng = state
    first = list(deck)
    machine.shuffle(first)
    after = machine.s.rng
    machine.s.rng = state
    again = list(deck)
    machine.shuffle(again)
    assert sorted(first) == sorted(deck) and first == again
    assert machine.s.rng == after
    # a deck of n cards draws n - 1 numbers: one for each place but the last
    expected = state
    for _ in range(max(len(deck) - 1, 0)):
        expected = rng.next_state(expected)[0]
    assert after == expected


# ---- rollback ------------------------------------------------------------------------------
class Stop(BaseException):
    """Neither an Exception nor an interrupt."""


FAULTS = [KeyboardInterrupt, SystemExit, Stop, MemoryError, RecursionError, ValueError,
          RuleError]
# where the fault strikes: after the method has done its work, so the action is half done
HOOKS = ["decide", "place", "say", "resolve"]


@pytest.fixture(scope="module")
def tic_tac_toe():
    return load_pack(builtin_pack("tic-tac-toe"))


@SETTINGS
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 7), fault=st.sampled_from(FAULTS),
       hook=st.sampled_from(HOOKS), move=st.integers(0, 8))
def test_any_exception_inside_an_action_leaves_the_state_byte_identical(
        tic_tac_toe, seed, plies, fault, hook, move):
    game = Game.new(tic_tac_toe, seed=seed)
    for ply in range(plies):
        if game.is_terminal():
            return
        game.apply_action((seed + ply) % game.num_actions())
    if game.is_terminal():
        return
    index = move % game.num_actions()
    before = game.save()
    real = getattr(Machine, hook)
    struck = []

    def striking(self, *args, **kwargs):
        real(self, *args, **kwargs)
        struck.append(hook)
        raise fault("struck")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Machine, hook, striking)
        try:
            game.apply_action(index)
        except BaseException as e:  # noqa: BLE001 - the property is about any exception
            caught = e
        else:
            caught = None
    if not struck:  # this action never reached the hook: it was applied as usual
        assert caught is None and game.save() != before
        return
    # a Python error inside the rules is said as a RuleError at their position; anything
    # else propagates as it was raised
    said = (fault, RuleError) if issubclass(fault, machine_module._CONTENT_FAULTS) else fault
    assert isinstance(caught, said)
    assert game.save() == before
    reference = Game.load(tic_tac_toe, before)
    game.apply_action(index)
    reference.apply_action(index)
    assert game.save() == reference.save()


# ---- every limit of Budget -----------------------------------------------------------------
LIMITS = """\
procedures:
  game:
    body: |
      say "ready"
  lines:
    body: |
      repeat n times:
        say "abcd"
  busy:
    body: |
      let x = 0
      repeat n times:
        let x = x + 1
  deep:
    body: |
      do p0()
""" + "".join(f"  p{k}:\n    body: |\n      if n > {k}:\n        do p{k + 1}()\n"
              for k in range(80)) + "  p80:\n    body: |\n      say \"bottom\"\n"


@pytest.fixture(scope="module")
def limits(tmp_path_factory):
    manifest = (__import__("minipack").MANIFEST.replace("  round: 0", "  round: 0\n  n: 0"))
    pack = make_pack(tmp_path_factory.mktemp("limits"), rules={"rules/10-game.yaml": LIMITS},
                     manifest=manifest)
    text = (pack / "rules" / "10-game.yaml").read_text().splitlines()
    lines = {word: next(i for i, t in enumerate(text, 1) if word in t)
             for word in ("say \"abcd\"", "repeat n")}
    return load_pack(pack), lines


def run_procedure(program, name: str, n: int, budget: Budget, log: list[str] | None = None):
    """Run procedure `name` with variable n; the machine, and the RuleError (or None)."""
    state = initial_state(program, 1)
    state.vars["n"] = n
    state.log = list(log or [])
    m = Machine(program, state, ops_for(program), budget)
    m.push(program.procedures[name].block, {}, call=True)
    try:
        m.run()
    except RuleError as e:
        return m, e
    return m, None


def at_line(err: RuleError, line: int) -> bool:
    return re.search(rf"10-game\.yaml:{line}:\d+$", err.where) is not None


@SETTINGS
@given(limit=st.integers(1, 40), n=st.integers(0, 60))
def test_the_log_lines_limit_stops_at_one_line_past_it(limits, limit, n):
    program, lines = limits
    m, err = run_procedure(program, "lines", n, Budget(log_lines=limit))
    if n <= limit:
        assert err is None and m.s.log == ["abcd"] * n
    else:
        assert "more than" in str(err) and "log lines" in str(err)
        assert at_line(err, lines['say "abcd"']) and len(m.s.log) == limit


@SETTINGS
@given(limit=st.integers(1, 200), n=st.integers(0, 60))
def test_the_log_chars_limit_of_one_action(limits, limit, n):
    program, lines = limits
    m, err = run_procedure(program, "lines", n, Budget(log_chars=limit))
    if 4 * n <= limit:
        assert err is None and len(m.s.log) == n
    else:
        assert f"{limit:,} characters an action" in str(err)
        assert at_line(err, lines['say "abcd"']) and len(m.s.log) == limit // 4


@SETTINGS
@given(limit=st.integers(1, 300), before=st.integers(0, 150), n=st.integers(0, 60))
def test_the_log_total_limit_counts_the_log_already_there(limits, limit, before, n):
    program, lines = limits
    old = ["x" * before] if before else []
    m, err = run_procedure(program, "lines", n, Budget(log_total_chars=limit), old)
    fits = max(0, (limit - before) // 4) if before <= limit else 0
    if n == 0 or before + 4 * n <= limit:  # a log already past it stops the next line only
        assert err is None and len(m.s.log) == len(old) + n
    else:
        assert f"{limit:,} in all" in str(err) and at_line(err, lines['say "abcd"'])
        assert len(m.s.log) == len(old) + fits


@SETTINGS
@given(n=st.integers(0, 3000), slack=st.integers(-3, 3))
def test_the_work_limit_stops_at_the_unit_past_it(limits, n, slack):
    program, lines = limits
    m, err = run_procedure(program, "busy", n, Budget())
    assert err is None
    spent = m.work
    m, err = run_procedure(program, "busy", n, Budget(work=spent + slack))
    if slack >= 0:
        assert err is None
    else:
        assert err is not None and "units of work" in str(err)
        assert re.search(r"10-game\.yaml:\d+:\d+$", err.where)


def deepest(program, n: int) -> int:
    """The most frames the stack holds while `deep` runs to depth n (no limit met)."""
    real, most = Machine.push, [0]

    def push(self, *args, **kwargs):
        frame = real(self, *args, **kwargs)
        most[0] = max(most[0], len(self.s.stack))
        return frame

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Machine, "push", push)
        _, err = run_procedure(program, "deep", n, Budget())
    assert err is None
    return most[0]


@SETTINGS
@given(n=st.integers(0, 79), slack=st.integers(-3, 3))
def test_the_depth_limit_allows_exactly_its_frames(limits, n, slack):
    program, _ = limits
    frames = deepest(program, n)
    assume(frames + slack >= 2)  # the first frame is pushed by hand, not by the rules
    m, err = run_procedure(program, "deep", n, Budget(depth=frames + slack))
    if slack >= 0:
        assert err is None and m.s.log == ["bottom"] * (n == 80)
    else:
        assert "nested too deeply" in str(err)
        assert re.search(r"10-game\.yaml:\d+:\d+$", err.where)


@pytest.mark.parametrize("seconds", [0.5, 2.0])
def test_the_seconds_limit_stops_a_long_run_at_its_position(limits, seconds, monkeypatch):
    program, lines = limits
    clock = iter(range(1_000_000))  # a second passes at each look
    monkeypatch.setattr(machine_module.time, "perf_counter", lambda: float(next(clock)))
    m, err = run_procedure(program, "busy", 100_000, Budget(seconds=seconds))
    assert f"longer than {seconds:g} s" in str(err)
    assert re.search(r"10-game\.yaml:\d+:\d+$", err.where)
    looks = next(clock)
    assert looks == math.floor(seconds) + 2  # the first look starts the clock
    _, none = run_procedure(program, "busy", 10, Budget(seconds=seconds))
    assert none is None  # a short run never looks
