"""Hostile inputs and what refusing each one costs: `hustings bench --hostile`.

Six packs, each built on the mini pack, that once hung, crashed or slipped past `check`:
doubling functions that explode when written in, 100,000 nested brackets (libyaml's
composer recursed to a segmentation fault), terminal control codes in a title, three
900 KB card files, a reaction that announces what it reacts to, and an effect given a
value of the wrong kind. Each must end in a positioned diagnostic; `measure` runs
`hustings check` on it in a child process, as a user would, and reports the wall time,
the child's peak memory and the diagnostic, against the bounds the engine promises
(MAX_SECONDS, MAX_MB). The tests prove each diagnostic; the time and memory live here,
where speed targets are kept.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .minipack import MANIFEST, make_pack

MAX_SECONDS = 5.0  # a refusal, from the command line to its last line
MAX_MB = 500  # the child's peak resident memory
_GUARD_SECONDS = 120  # only so a regression cannot hang the bench
_CAP_BYTES = 2 * 2**30  # address space of the child: a runaway fails, the machine lives

CARDS = """
- {number: 1, title: One}
- {number: 2, title: Two}
- {number: 3, title: Three}
- {number: 4, title: Four}
"""
DEEP_BRACKETS = "a: " + "[" * 100_000 + "\n"
ECHO = """
until end of round:
  whenever scored(who, n):
    announce scored(player: who, amount: n)
"""


def doubling_functions(levels: int) -> str:
    """f0(n) = n + 1; fk(n) = f(k-1)(n) + f(k-1)(n + 1): fk written in is 2**k bodies."""
    lines = ["functions:", "  f0:", "    params: [n]", '    expr: "n + 1"']
    for k in range(1, levels + 1):
        lines += [f"  f{k}:", "    params: [n]", f'    expr: "f{k - 1}(n) + f{k - 1}(n + 1)"']
    return "\n".join(lines) + "\n"


def doubling_pack(root: Path, levels: int = 40) -> Path:
    """The mini pack with `levels` doubling functions, only f1 called (when ann passes)."""
    pack = make_pack(root, CARDS, rules={"rules/20-fns.yaml": doubling_functions(levels)})
    game = pack / "rules" / "10-game.yaml"
    game.write_text(game.read_text().replace('say "{player} passes"',
                                             'say "{player} passes {f1(2)}"'))
    return pack


def bomb_pack(root: Path, files: int = 3, size: int = 900_000) -> Path:
    """The mini pack with `files` more card files of about `size` bytes each."""
    names = [f"more{k}.yaml" for k in range(files)]
    rules, number = {}, 1
    for name in names:
        parts, total = ["cards:\n"], 7
        while total < size:
            card = f"  - {{number: {number}, title: Card {number}}}\n"
            parts.append(card)
            total += len(card)
            number += 1
        rules[name] = "".join(parts)
    text = MANIFEST.replace("cards: [cards.yaml]", f"cards: [cards.yaml, {', '.join(names)}]")
    return make_pack(root, CARDS, rules=rules, manifest=text)


def event_card(event: str) -> str:
    """The mini pack's cards with card 3 given `event` as its effect text."""
    body = "".join(f"    {line}\n" for line in event.strip().splitlines())
    return CARDS.replace("- {number: 3, title: Three}",
                         f"- number: 3\n  title: Three\n  event: |\n{body}")


def deep_pack(root: Path) -> Path:
    return make_pack(root, CARDS, rules={"rules/20-deep.yaml": DEEP_BRACKETS})


def control_codes_pack(root: Path) -> Path:
    return make_pack(root, CARDS.replace("title: Two", 'title: "Two\\e]0;owned\\a\\e[2J"'))


def cycle_pack(root: Path) -> Path:
    return make_pack(root, event_card(ECHO))


def wrong_kind_pack(root: Path) -> Path:
    return make_pack(root, event_card("until end of round:\n  opponent has bonus A"))


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path], Path]
    code: str  # the diagnostic it must end in


CASES = (
    Case("functions that explode when written in", doubling_pack, "E402"),
    Case("100,000 nested brackets", deep_pack, "E115"),
    Case("terminal control codes in a title", control_codes_pack, "E141"),
    Case("three 900 KB card files", bomb_pack, "E140"),
    Case("a reaction announcing what it reacts to", cycle_pack, "E335"),
    Case("an effect given a value of the wrong kind", wrong_kind_pack, "E320"),
)


@dataclass(frozen=True)
class Refusal:
    case: Case
    seconds: float
    peak_mb: float
    exit_status: int
    diagnostic: str  # the first line naming the case's code, or "" when none did

    @property
    def positioned(self) -> bool:
        return bool(re.search(r":\d+:\d+: error\[" + self.case.code + r"\]", self.diagnostic))

    @property
    def within_bounds(self) -> bool:
        return (self.exit_status == 1 and self.positioned
                and self.seconds <= MAX_SECONDS and self.peak_mb <= MAX_MB)


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_CAP_BYTES, _CAP_BYTES))


def measure(case: Case, folder: Path) -> Refusal:
    """`hustings check` of the case's pack in a child process (no pack cache)."""
    pack = case.build(folder)
    env = {**os.environ, "HUSTINGS_CACHE": "off"}
    command = [sys.executable, "-m", "hustings.tools.cli", "check", str(pack)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, cwd=folder, preexec_fn=_cap_memory)
    guard = threading.Timer(_GUARD_SECONDS, child.kill)
    guard.start()
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the largest yet
    guard.cancel()
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stdout.close()
    lines = [x for x in output.splitlines() if f"error[{case.code}]" in x]
    return Refusal(case, seconds, usage.ru_maxrss / 1024, child.returncode,
                   lines[0] if lines else "")


def report_line(r: Refusal) -> str:
    verdict = "ok" if r.within_bounds else "FAILED"
    where = r.diagnostic.split(": error[")[0].rsplit("/", 1)[-1] if r.diagnostic else "-"
    return (f"  {verdict:6} {r.case.name:44} {r.case.code} at {where:24} "
            f"{r.seconds:5.2f} s {r.peak_mb:6.0f} MB (exit {r.exit_status})")
