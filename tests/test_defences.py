"""The engine's defences, each on every path it has (issue 41).

Each test here was written against a mutant that survived the rest of the suite (a small
change a tired developer could make, docs/testing.md): it fails when that defence breaks.
"""

from __future__ import annotations

import errno
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from minipack import make_pack
from ruamel.yaml.error import MarkedYAMLError

from hustings.dsl import yamlsource
from hustings.dsl.diagnostics import ContentError, Report, Source
from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter import budget
from hustings.interpreter.budget import Budget
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.machine import Machine
from hustings.tools import failures

# ---- rollback: any exception, BaseException too ---------------------------------------


@pytest.fixture(scope="module")
def tic_tac_toe():
    return load_pack(builtin_pack("tic-tac-toe"))


class Interrupt(BaseException):
    """Neither an Exception nor a KeyboardInterrupt: rollback must not care which."""


@pytest.mark.parametrize(("kind", "raised"), [
    (KeyboardInterrupt, KeyboardInterrupt), (SystemExit, SystemExit), (Interrupt, Interrupt),
    (ZeroDivisionError, RuleError)])  # a bug's error in the rules is said at their position
def test_an_interrupt_inside_an_action_leaves_the_state_byte_identical(tic_tac_toe, kind,
                                                                      raised, monkeypatch):
    """Ctrl-C lands after the move is made and before the next decision is asked: the
    game is as it was before the action, byte for byte, and plays on as a fresh one."""
    game = Game.new(tic_tac_toe, seed=1)
    game.apply_action(4)
    before, reference = game.save(), Game.load(tic_tac_toe, game.save())
    real = Machine.decide

    def interrupted(self, *args, **kwargs):
        real(self, *args, **kwargs)  # the next decision is set: the action is all but done
        raise kind("now")

    monkeypatch.setattr(Machine, "decide", interrupted)
    with pytest.raises(raised, match="now"):
        game.apply_action(0)
    assert game.save() == before
    assert game.current_player() == reference.current_player()
    monkeypatch.setattr(Machine, "decide", real)
    game.apply_action(0)
    reference.apply_action(0)
    assert game.save() == reference.save() != before


def test_an_unsafe_game_is_not_rolled_back(tic_tac_toe, monkeypatch):
    """safe=False (search agents' forks) trades the rollback for speed: the half-done action
    stays, so a caller must not use such a game after an exception."""
    game = Game.new(tic_tac_toe, seed=1, safe=False)
    before = game.save()
    monkeypatch.setattr(Machine, "decide", lambda self, *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        game.apply_action(4)
    assert game.save() != before


# ---- the whole game's log ----------------------------------------------------------------

TALKER = """\
procedures:
  game:
    body: |
      for r from 1 to 60:
        ann chooses:
          "talk":
            say "{r}: a line of about fifty characters, said once."
          "hush":
            say "..."
"""


@pytest.fixture(scope="module")
def talker(tmp_path_factory):
    pack = make_pack(tmp_path_factory.mktemp("talker"), rules={"rules/10-game.yaml": TALKER})
    return pack, load_pack(pack)


def say_position(pack: Path) -> str:
    """`10-game.yaml:LINE:` of the talker's `say`."""
    lines = (pack / "rules" / "10-game.yaml").read_text().splitlines()
    return f"10-game.yaml:{next(n for n, t in enumerate(lines, 1) if 'say' in t)}:"


def talk_until_stopped(game: Game, actions: int = 60) -> tuple[int, RuleError | None]:
    for n in range(actions):
        if game.is_terminal():
            return n, None
        try:
            game.apply_action(0)
        except RuleError as e:
            return n, e
    return actions, None


def test_the_whole_games_log_limit_stops_a_game_that_talks_on(talker):
    pack, program = talker
    game = Game.new(program, budget=Budget(log_total_chars=2000))
    played, err = talk_until_stopped(game)
    assert err is not None and "2,000 in all" in str(err)
    assert say_position(pack) in err.where
    total = sum(map(len, game.state.log))
    assert total <= 2000 < total + len(game.state.log[-1]) + 1  # stopped at the next line
    assert 20 < played < 60
    # the limit of one action is not what stopped it: without the whole-game limit it plays on
    free, none = talk_until_stopped(Game.new(program))
    assert none is None and free == 60


def test_the_whole_games_log_limit_counts_the_log_of_a_loaded_or_forked_game(talker):
    _, program = talker
    budget = Budget(log_total_chars=2000)
    played, _ = talk_until_stopped(Game.new(program, budget=budget))
    half = Game.new(program, budget=budget)
    for _ in range(played // 2):
        half.apply_action(0)
    loaded = Game.load(program, half.save(), budget=budget)
    assert talk_until_stopped(loaded)[0] == played - played // 2
    forked = half.fork(safe=True)
    assert talk_until_stopped(forked)[0] == played - played // 2


# ---- YAML aliases: libyaml and the pure parser alike -------------------------------------

BOMB = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(9)]


def alias_bomb(pack: Path, directive: bool) -> int:
    """An alias bomb (9**10 items once expanded) under `variables:` of pack.yaml, after a
    `%FOO bar` directive libyaml will not read when `directive`; the first alias's line."""
    manifest = pack / "pack.yaml"
    lines = manifest.read_text().splitlines()
    at = lines.index("variables:") + 1
    lines[at:at] = ["  bomb:"] + [f"    {line}" for line in BOMB]
    head = ["%FOO bar", "---"] if directive else []
    manifest.write_text("\n".join(head + lines) + "\n")
    return len(head) + at + 3  # 1-based: the `b:` line, whose first item is `*a`


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The texts handed to either YAML loader: a refused file must never reach one (an
    alias bomb built by a loader never ends, so the test would hang, not fail)."""
    seen: list[str] = []

    def guard(text: str) -> None:
        if "bomb:" in text:
            seen.append(text)
            raise AssertionError("the alias bomb reached a YAML loader")

    fast = yamlsource.fast_load

    class GuardedYAML(yamlsource.YAML):
        def load(self, stream):
            guard(stream)
            return super().load(stream)

    monkeypatch.setattr(yamlsource, "fast_load", lambda text: guard(text) or fast(text))
    monkeypatch.setattr(yamlsource, "YAML", GuardedYAML)
    return seen


@pytest.mark.parametrize("directive", [False, True], ids=["libyaml", "pure-parser"])
def test_an_alias_bomb_is_refused_before_any_loader_reads_it(pack, directive, loads):
    line = alias_bomb(pack, directive)
    loaded = check_pack(pack)
    assert loads == []
    (alias,) = [d for d in loaded.report.errors if d.code == "E113"]
    assert alias.source.path.endswith("pack.yaml") and alias.source.line == line
    assert "*a" in alias.message


def test_libyaml_refuses_the_directive_so_the_pure_parser_is_the_one_that_looks():
    """What the test above relies on: libyaml stops at `%FOO bar`; the pure parser reads it."""
    if yamlsource.CParser is None:
        pytest.skip("libyaml (ruamel.yaml.clib) is not installed: only the pure parser reads")
    text = "%FOO bar\n---\na: &a [1]\nb: *a\n"
    parser = yamlsource.CParser(text)
    with pytest.raises(MarkedYAMLError, match="unknown directive"):
        while parser.check_event():
            parser.get_event()
    parser.dispose()
    event = yamlsource._first_alias(text)
    assert event is not None and event.anchor == "a" and event.start_mark.line == 3


def test_without_libyaml_the_pure_parser_refuses_aliases(pack, monkeypatch, loads):
    monkeypatch.setattr(yamlsource, "CParser", None)
    line = alias_bomb(pack, directive=False)
    (alias,) = [d for d in check_pack(pack).report.errors if d.code == "E113"]
    assert alias.source.line == line and loads == []


# ---- columns of effect text on one line ----------------------------------------------------

ONE_LINE_CARD = ("number: 901\ntitle: Broken\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
                 "state: NY\npersistent: null\ntext: A test card.\nevent: {event}\n")


@pytest.mark.parametrize("event", ["nixon gains two momentum", '"nixon gains two momentum"',
                                   "'nixon gains two momentum'", '  "nixon gains two momentum"'],
                         ids=["plain", "double-quoted", "single-quoted", "spaced-quoted"])
def test_a_diagnostic_in_one_line_effect_text_points_at_its_word(pack, event):
    path = pack / "cards" / "901-broken.yaml"
    path.write_text(ONE_LINE_CARD.format(event=event))
    text = path.read_text()
    at = text.index("two")
    where = (text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1)
    errors = [d for d in check_pack(pack).report.errors if d.source.path.endswith(path.name)]
    assert [(d.code, d.source.line, d.source.column) for d in errors] == [("E315", *where)]


# ---- a menu option's condition reading the option's own variable -----------------------

MENU = """\
procedures:
  game:
    body: |
      ann chooses:
        "take {x}" for x in [0, 1, 2, 3] if count([1, 2, 3] where it > x) > 0:
          say "took {x}"
"""


def test_a_menu_options_condition_reads_its_own_variable_through_a_list(tmp_path):
    program = load_pack(make_pack(tmp_path, rules={"rules/10-game.yaml": MENU}))
    game = Game.new(program)
    assert game.legal_actions() == ["take 0", "take 1", "take 2"]
    game.apply_action("take 2")
    assert game.state.log[-1] == "took 2" and game.is_terminal()


# ---- how the command line ends: every exit status ------------------------------------------


def raising(error: BaseException):
    def command() -> int:
        raise error
    return command


def content_error() -> ContentError:
    report = Report()
    report.error(Source("pack.yaml", 3, 7), "E101", "YAML syntax: broken", "fix it")
    return ContentError(report)


@pytest.mark.parametrize(("error", "status", "said"), [
    (failures.UsageError("two seeds"), 2, "hustings: error: two seeds"),
    (failures.InputError("the log is empty"), 1, "hustings: the log is empty"),
    (KeyboardInterrupt(), 130, "hustings: interrupted"),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "missing.json"), 1,
     "hustings: cannot use missing.json: No such file or directory"),
    (PermissionError(errno.EACCES, "Permission denied", "x" * 100), 1,
     f"hustings: cannot use {'x' * 77}...: Permission denied"),
    (PermissionError(errno.EACCES, "Permission denied", "y" * 80), 1,
     f"hustings: cannot use {'y' * 80}: Permission denied"),
    (PermissionError(errno.EACCES, "Permission denied", "z" * 81), 1,
     f"hustings: cannot use {'z' * 77}...: Permission denied"),
    (OSError(errno.EIO, "", "disk.json"), 1,  # no strerror: the error as it prints
     "hustings: cannot use disk.json: [Errno 5] : 'disk.json'"),
], ids=["usage", "input", "ctrl-c", "missing-file", "long-file-name", "80-chars", "81-chars",
        "no-strerror"])
def test_each_failure_has_its_exit_status_and_message(error, status, said, capsys):
    assert failures.guarded(raising(error), ["play"], debug=False) == status
    out, err = capsys.readouterr()
    assert out == "" and err == said + "\n"


def test_a_content_error_prints_each_diagnostic_and_exits_1(capsys):
    assert failures.guarded(raising(content_error()), ["check"], debug=False) == 1
    err = capsys.readouterr().err
    assert err.startswith("pack.yaml:3:7") and "YAML syntax: broken" in err


def test_success_is_the_commands_own_status(capsys):
    assert failures.guarded(lambda: 0, ["play"], debug=False) == 0
    assert failures.guarded(lambda: 1, ["check"], debug=False) == 1
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   OSError("no file named"), ZeroDivisionError("bug")],
                         ids=["oserror-no-file", "oserror-bare", "plain-bug"])
def test_an_error_naming_no_file_is_a_bug_with_a_report(error, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert failures.guarded(raising(error), ["play", "--seed", "3"], debug=False) == 3
    err = capsys.readouterr().err
    (report,) = tmp_path.glob("hustings-crash-*.txt")
    assert err == (f"hustings: internal error ({type(error).__name__}): this is a bug in "
                   "hustings, not in your input; the details are in "
                   f"{report} (please attach it to a bug report, or rerun with --debug)\n")
    head, command, blank, *trace = report.read_text().splitlines()
    release = version("hustings")  # the installed release, not "unknown"
    assert head == f"hustings {release}, Python {sys.version.split()[0]}"
    assert (command, blank) == ("hustings play --seed 3".join(["command: ", ""]), "")
    assert trace[0] == "Traceback (most recent call last):"
    assert trace[-1].startswith(type(error).__name__)


def test_a_crash_report_names_an_uninstalled_release_unknown(capsys, tmp_path, monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert failures.guarded(raising(ValueError("bug")), ["play"], debug=False) == 3
    (report,) = tmp_path.glob("hustings-crash-*.txt")
    assert report.read_text().startswith("hustings unknown, Python ")


@pytest.mark.parametrize("error", [OSError(errno.EIO, "I/O"), ValueError("bug")],
                         ids=["oserror-no-file", "plain-bug"])
def test_debug_prints_the_traceback_and_writes_no_report(error, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert failures.guarded(raising(error), ["play"], debug=True) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and type(error).__name__ in err
    assert not list(tmp_path.glob("hustings-crash-*"))


def test_a_crash_report_that_cannot_be_written_says_so(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "missing"))
    assert failures.guarded(raising(ValueError("bug")), ["play"], debug=False) == 3
    assert capsys.readouterr().err.endswith(
        "the details are in (nowhere: the temp folder is not writable) (please attach it to "
        "a bug report, or rerun with --debug)\n")


def test_a_broken_pipe_ends_quietly_with_0(monkeypatch):
    closed = []
    monkeypatch.setattr(sys, "stderr", type("Err", (), {"close": lambda s: closed.append(1),
                                                        "write": lambda s, t: 0})())
    assert failures.guarded(raising(BrokenPipeError()), ["play"], debug=False) == 0
    assert closed == [1]  # nothing more can be said: the reader has gone


def test_a_reader_that_leaves_early_is_no_failure():
    """`hustings play | head`: the pipe closes before the game is written out."""
    process = subprocess.Popen([sys.executable, "-m", "hustings.tools.cli", "play", "--seed",
                                "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first line
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=120) == 0
    assert err == b""


def test_the_exit_statuses_are_the_documented_ones():
    doc = failures.__doc__
    for status in (failures.USAGE, failures.INPUT, failures.BUG, failures.INTERRUPTED):
        assert re.search(rf"\b{status}\s", doc)
    assert (failures.INPUT, failures.USAGE, failures.BUG, failures.INTERRUPTED) == (1, 2, 3, 130)


# ---- the bounds on values an operation builds (interpreter/budget.py) ---------------------


@pytest.fixture
def spender(tic_tac_toe) -> Machine:
    """A machine that has spent nothing of a 1,000-unit budget."""
    m = Game.new(tic_tac_toe, seed=1).machine
    m.work, m.work_limit = 0, 1000
    return m


@pytest.mark.parametrize(("value", "big"), [
    (2**63, False), (-(2**63), False), (2**63 + 1, True), (-(2**63) - 1, True), (0, False)])
def test_a_number_is_bounded_to_64_bits_inclusive(spender, value, big):
    assert budget.too_big(value) is big
    if big:
        with pytest.raises(RuleError, match=r"^a number went past the 64-bit limit \(2\*\*63\)$"):
            budget.checked(spender, value)
    else:
        assert budget.checked(spender, value) == value and spender.work == 0


def test_a_built_list_or_text_costs_its_size(spender):
    assert budget.checked(spender, [1, 2, 3]) == [1, 2, 3] and spender.work == 3
    assert budget.checked(spender, "abcd") == "abcd" and spender.work == 7
    assert budget.checked(spender, True) is True and spender.work == 7  # nothing built
    with pytest.raises(RuleError, match="units of work"):
        budget.checked(spender, list(range(994)))  # 7 + 994 > 1000


def test_a_text_is_bounded(spender):
    spender.work_limit = 10**9
    assert budget.checked(spender, "x" * budget.MAX_TEXT) == "x" * budget.MAX_TEXT
    with pytest.raises(RuleError, match="^a text grew longer than 100,000 characters$"):
        budget.checked(spender, "x" * (budget.MAX_TEXT + 1))
    assert budget.charged_text(spender, "y" * budget.MAX_TEXT) == "y" * budget.MAX_TEXT
    with pytest.raises(RuleError, match="^a text grew longer than 100,000 characters$"):
        budget.charged_text(spender, "y" * (budget.MAX_TEXT + 1))


def test_a_joined_text_is_charged_up_to_the_budget_exactly(spender):
    assert budget.charged_text(spender, "x" * 600) == "x" * 600 and spender.work == 600
    assert budget.charged_text(spender, "x" * 400) == "x" * 400 and spender.work == 1000
    with pytest.raises(RuleError, match="units of work"):
        budget.charged_text(spender, "x")


def test_a_list_counts_the_lists_inside_it_each_place_once():
    shared = [1, 2, 3]
    assert budget.list_size([]) == 0
    assert budget.list_size([1, 2]) == 2
    assert budget.list_size([shared, shared, 4]) == 3 + 3 + 3  # each place it appears
    assert budget.list_size([[shared, [shared]], 1]) == 2 + (2 + 3 + (1 + 3))


def test_a_list_is_bounded_flat_and_nested():
    n = budget.MAX_ITEMS
    assert budget.list_size([0] * n) == n
    with pytest.raises(RuleError, match="^a list grew longer than 100,000 items$"):
        budget.list_size([0] * (n + 1))
    with pytest.raises(RuleError, match="^a list grew longer than 100,000 items$"):
        budget.list_size([[0] * (n + 1)])
    half = [0] * (n // 2)
    assert budget.list_size([half, []]) == 2 + n // 2
    assert budget.list_size([half, [0] * (n // 2 - 2)]) == n  # just at the bound, counted
    # one list of the bound inside another: past it only counting both, and said so
    with pytest.raises(RuleError, match=r"^a list grew larger than 100,000 items \(counting"):
        budget.list_size([[0] * n])
    with pytest.raises(RuleError, match=r"larger than 100,000 items \(counting the lists"):
        budget.list_size([half, half])


def test_lists_nest_at_most_100_deep():
    deep: list = []
    for _ in range(99):
        deep = [deep]
    assert budget.list_size([deep]) == 100  # the innermost list 100 below the outer one
    with pytest.raises(RuleError, match="^lists nest more than 100 deep$"):
        budget.list_size([[deep]])


# ---- the game's queries at each end, and a rolled-back game keeps its budget ---------------


def test_the_queries_before_during_and_after_a_game(tic_tac_toe):
    game = Game.new(tic_tac_toe, seed=2)
    assert game.question() == "Where do you mark?" and game.num_actions() == 9
    assert game.result() is None and not game.is_terminal()
    assert game.remarks() == {"status": None, "notes": [None] * 9}
    for square in ("a1", "a2", "b1", "b2", "c1"):  # x: a1, b1, c1, a line
        game.apply_action(square)
    assert game.is_terminal() and game.result() == {"winner": "x"}
    assert (game.num_actions(), game.question(), game.current_player()) == (0, None, None)
    assert game.remarks() == {"status": None, "notes": []}
    assert game.legal_actions() == []


def test_a_rolled_back_game_keeps_its_budget(talker, monkeypatch):
    _, program = talker
    budget = Budget(log_total_chars=2000)
    played, _ = talk_until_stopped(Game.new(program, budget=budget))
    game = Game.new(program, budget=budget)
    real = Machine.say

    def interrupted(self, text):
        real(self, text)
        raise KeyboardInterrupt

    monkeypatch.setattr(Machine, "say", interrupted)
    with pytest.raises(KeyboardInterrupt):
        game.apply_action(0)
    monkeypatch.setattr(Machine, "say", real)
    assert talk_until_stopped(game)[0] == played  # the same limit, after the rollback


def test_each_seed_starts_its_own_generator(tic_tac_toe):
    """A game's chance comes from its seed: the first SplitMix64 output of the seed (taken
    to 64 bits), so two seeds never share a game by accident."""
    from hustings.interpreter import rng

    states = {seed: Game.new(tic_tac_toe, seed=seed).state.rng for seed in (0, 1, 2, 2**64 + 1)}
    assert states[0] == rng.next_state(0)[1] and states[1] == rng.next_state(1)[1]
    assert len({states[0], states[1], states[2]}) == 3
    assert states[2**64 + 1] == states[1]


def test_no_action_is_legal_once_the_game_is_over(tic_tac_toe):
    from hustings.interpreter.errors import IllegalAction

    game = Game.new(tic_tac_toe, seed=2)
    for square in ("a1", "a2", "b1", "b2", "c1"):
        game.apply_action(square)
    with pytest.raises(IllegalAction, match="^the game is over: no action is legal$"):
        game.apply_action(0)
