"""The content fuzzer: seeded mutations of a pack, each checked and played.

A mutant is the pack with one file changed by one mutation, either at the
YAML level (delete, duplicate or retype a key, swap two values, truncate the
file) or in effect text (delete, insert or swap a token, change a number,
unbalance a quote, shift a line's indentation). Each mutant must end in one of
two ways: diagnostics that each name a file:line:col, or a program that plays
short seeded games, one for each of PLAY_SEEDS seeds, whose states pass every
invariant after every action. A RuleError in play is fine when it names the
file:line:col of the content that failed (content may be wrong); anything else
is a crash, which is a bug of the engine: a mutant that `check` passes must
play, or fail at a place its author can find.

Mutant `i` of seed `s` depends only on (s, i) and the pack, so a crash is
reproduced by `hustings fuzz --seed s --first i --mutants 1`.
Used by `hustings fuzz` (tools/commands/fuzz.py) and tests/test_content_fuzz.py.
"""

from __future__ import annotations

import random
import re
import shutil
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..dsl import parser, yamlsource
from ..dsl.loading import check_pack
from ..interpreter.budget import Budget
from ..interpreter.errors import RuleError
from ..interpreter.game import Game, initial_state
from ..interpreter.invariants import first_violation
from .explorers import explorer

# Play is short and cheap: a mutant's game shows that what compiled also runs.
PLAY_DECISIONS = 60
PLAY_SEEDS = 3  # games played of each mutant that checks clean
PLAY_BUDGET = Budget(work=2_000_000, seconds=2.0)

_KEY_VALUE = re.compile(r"^(\s*(?:- )?[\w-]+:\s+)(\S.*)$")
_BLOCK_START = re.compile(r":\s*[|>][-+0-9]*\s*(#.*)?$")
_TOKEN = re.compile(r'"[^"]*"|\w+|[^\s\w]')
_RETYPES = ["[]", "{}", '"text"', "0", "-1", "null", "true", "1.5", "99999999999999999999",
            "[1, [2]]", "{a: 1}", '"' + "x" * 300 + '"', ".nan", "-999999999999"]
# Where a rule error happened: `path:line:col`, both numbers from 1.
_POSITIONED = re.compile(r"\S.*:[1-9][0-9]*:[1-9][0-9]*")
_NUMBERS = ["0", "-1", "1", "2", "999999999", "9" * 19, "9" * 4301, "100000"]


@dataclass
class Mutant:
    index: int
    file: str  # relative to the pack
    mutation: str
    text: str


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # "diagnostic", "clean", "rule-error" or "crash"
    detail: str = ""
    games: int = 0  # games of it played


@dataclass
class Summary:
    mutants: int = 0
    diagnostics: int = 0
    clean: int = 0
    rule_errors: int = 0
    games: int = 0  # games played, PLAY_SEEDS for each mutant that checked clean
    crashes: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.mutants += 1
        self.games += outcome.games
        if outcome.verdict == "diagnostic":
            self.diagnostics += 1
        elif outcome.verdict == "clean":
            self.clean += 1
        elif outcome.verdict == "rule-error":
            self.rule_errors += 1
        else:
            self.crashes.append(outcome)


# ---- mutations --------------------------------------------------------------------
def block_lines(lines: list[str]) -> list[int]:
    """Indices of the lines inside `|` or `>` blocks: effect text."""
    out, indent = [], None
    for i, line in enumerate(lines):
        width = len(line) - len(line.lstrip())
        if indent is not None:
            if line.strip() and width <= indent:
                indent = None
            elif line.strip():
                out.append(i)
                continue
        if _BLOCK_START.search(line):
            indent = width
    return out


def _yaml_mutation(rng: random.Random, lines: list[str]) -> tuple[str, list[str]]:
    lines = list(lines)
    keyed = [i for i, line in enumerate(lines) if _KEY_VALUE.match(line)]
    op = rng.choice(["delete", "duplicate", "retype", "swap", "truncate", "alias"])
    if op == "truncate" or not keyed:
        cut = rng.randrange(len(lines) + 1)
        return f"truncate at line {cut + 1}", lines[:cut]
    i = rng.choice(keyed)
    if op == "delete":
        del lines[i]
        return f"delete line {i + 1}", lines
    if op == "duplicate":
        lines.insert(i, lines[i])
        return f"duplicate line {i + 1}", lines
    head, value = _KEY_VALUE.match(lines[i]).groups()
    if op == "retype":
        new = rng.choice(_RETYPES)
        lines[i] = head + new
        return f"line {i + 1}: value {value[:20]!r} -> {new[:20]!r}", lines
    if op == "alias":
        lines[i] = head + "&anchor " + value
        lines.insert(i + 1, head + "*anchor")
        return f"line {i + 1}: an alias", lines
    j = rng.choice(keyed)
    other = _KEY_VALUE.match(lines[j]).group(2)
    lines[i], lines[j] = head + other, _KEY_VALUE.match(lines[j]).group(1) + value
    return f"swap the values of lines {i + 1} and {j + 1}", lines


def _text_mutation(rng: random.Random, lines: list[str], blocks: list[int],
                   words: list[str]) -> tuple[str, list[str]]:
    lines = list(lines)
    i = rng.choice(blocks)
    line = lines[i]
    indent = line[:len(line) - len(line.lstrip())]
    tokens = _TOKEN.findall(line.strip())
    op = rng.choice(["delete", "insert", "swap", "number", "quote", "indent"])
    if op == "indent":
        new_indent = rng.choice([indent + " ", indent + "  ", indent[:-1], indent[:-2], "\t"])
        lines[i] = new_indent + line.lstrip()
        return f"line {i + 1}: indentation {len(indent)} -> {len(new_indent)}", lines
    if op == "quote":
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + '"' + line[at:]
        return f"line {i + 1}: a quote at column {at + 1}", lines
    if not tokens:
        return f"line {i + 1}: deleted", lines[:i] + lines[i + 1:]
    k = rng.randrange(len(tokens))
    if op == "delete":
        del tokens[k]
        what = "delete a token"
    elif op == "insert":
        tokens.insert(k, rng.choice(words))
        what = "insert a token"
    elif op == "swap":
        names = [n for n, t in enumerate(tokens) if re.fullmatch(r"[A-Za-z_]\w*", t)]
        k = rng.choice(names) if names else k
        tokens[k] = rng.choice(words)
        what = "swap a name"
    else:
        numbers = [n for n, t in enumerate(tokens) if t.isdigit()]
        k = rng.choice(numbers) if numbers else k
        tokens[k] = rng.choice(_NUMBERS)
        what = "change a number"
    lines[i] = indent + " ".join(tokens)
    return f"line {i + 1}: {what}", lines


class Mutator:
    """Makes mutant `i` of a seed from a pack's files."""

    def __init__(self, root: Path, seed: int) -> None:
        self.seed = seed
        self.files = {str(p.relative_to(root)): p.read_text(encoding="utf-8")
                      for p in sorted(root.rglob("*.yaml"))}
        self.blocks = {rel: block_lines(text.splitlines()) for rel, text in self.files.items()}
        words: set[str] = set()
        for rel, text in self.files.items():
            lines = text.splitlines()
            for i in self.blocks[rel]:
                words.update(_TOKEN.findall(lines[i]))
        self.words = sorted(words)

    def mutant(self, index: int) -> Mutant:
        rng = random.Random(f"{self.seed}:{index}")
        with_text = [rel for rel, b in self.blocks.items() if b]
        if with_text and rng.random() < 0.5:
            rel = rng.choice(with_text)
            lines = self.files[rel].splitlines()
            what, new = _text_mutation(rng, lines, self.blocks[rel], self.words)
        else:
            rel = rng.choice(sorted(self.files))
            what, new = _yaml_mutation(rng, self.files[rel].splitlines())
        return Mutant(index, rel, what, "\n".join(new) + "\n")


# ---- running a mutant ----------------------------------------------------------------
def judge(root: Path, mutant: Mutant, play_seed: int, agent: str = "random") -> Outcome:
    """Check (and if it compiles, play, with `agent`: tools/explorers.py) the pack at
    `root`, which holds `mutant`."""
    try:
        loaded = check_pack(root)
        if loaded.program is None:
            unplaced = [d for d in loaded.report.errors
                        if not d.source.path or d.source.line < 1 or d.source.column < 1]
            if not loaded.report.errors:
                return Outcome(mutant, "crash", "no program and no error")
            if unplaced:
                return Outcome(mutant, "crash", f"a diagnostic without file:line:col: "
                               f"{unplaced[0]}")
            return Outcome(mutant, "diagnostic", str(loaded.report.errors[0]))
        return play_all(loaded.program, mutant, play_seed, agent)
    except Exception:  # the fuzzer's very purpose: any other exception is a crash
        return Outcome(mutant, "crash", traceback.format_exc())


def play_all(program, mutant: Mutant, first_seed: int, agent: str = "random") -> Outcome:
    """Play the mutant with PLAY_SEEDS seeds from `first_seed`: the first crash is the
    verdict, else the first rule error, else clean."""
    worst: Outcome | None = None
    for k in range(PLAY_SEEDS):
        outcome = play(program, mutant, first_seed + k, agent)
        if outcome.verdict == "crash":
            outcome.games = k + 1
            return outcome
        if worst is None and outcome.verdict == "rule-error":
            worst = outcome
    worst = worst or Outcome(mutant, "clean")
    worst.games = PLAY_SEEDS
    return worst


def play(program, mutant: Mutant, seed: int, agent: str = "random") -> Outcome:
    choose = explorer(agent, seed)
    try:
        game = Game(program, initial_state(program, seed), safe=False)
        game.machine.budget = PLAY_BUDGET
        game.machine.push(program.procedures[program.entry].block, {}, call=True)
        game.machine.run()
        for _ in range(PLAY_DECISIONS):
            problem = first_violation(program, game.state)
            if problem:  # whatever content says, the engine keeps the state sound
                return Outcome(mutant, "crash", f"the rules left an impossible state: {problem}")
            if game.is_terminal():
                break
            game.legal_actions()  # what a person is shown: labels and remarks, made on
            game.remarks()  # request, must work or be a rule error at a line, as play is
            game.apply_action(choose(game))
    except RuleError as e:
        if not _POSITIONED.fullmatch(e.where):  # its author could not find what failed
            return Outcome(mutant, "crash", f"seed {seed}: a rule error with no "
                           f"file:line:col: {str(e)[:200]}")
        return Outcome(mutant, "rule-error", f"seed {seed}: {str(e)[:200]}")
    return Outcome(mutant, "clean")


class Workspace:
    """A scratch copy of the pack; each mutant overwrites one file, then restores it."""

    def __init__(self, pack: Path) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="hustings-fuzz-")
        self.root = Path(self._tmp.name) / pack.name
        shutil.copytree(pack, self.root, ignore=shutil.ignore_patterns("scenarios"))

    def run(self, mutant: Mutant, original: str, play_seed: int,
            agent: str = "random") -> Outcome:
        path = self.root / mutant.file
        path.write_text(mutant.text, encoding="utf-8")
        try:
            return judge(self.root, mutant, play_seed, agent)
        finally:
            path.write_text(original, encoding="utf-8")

    def close(self) -> None:
        self._tmp.cleanup()


def fuzz(pack: Path, seed: int, count: int, first: int = 0,
         agent: str = "random") -> Iterator[Outcome]:
    """Outcomes of mutants first .. first+count-1 of `seed`, one at a time; clean
    mutants are played by `agent` (a name tools/explorers.py knows)."""
    explorer(agent, 0)  # an unknown name fails here, before any work
    ws = Workspace(pack)
    mutator = Mutator(ws.root, seed)
    yamlsource.remember_files(True)
    parser.remember_trees(True)
    try:
        check_pack(ws.root)  # the unchanged files, parsed once and remembered
        yamlsource.remember_no_more_files()  # a mutant is read once: keeping it only grows
        parser.remember_no_more_trees()
        for index in range(first, first + count):
            mutant = mutator.mutant(index)
            yield ws.run(mutant, mutator.files[mutant.file], seed * 1_000_003 + index, agent)
    finally:
        yamlsource.remember_files(False)
        parser.remember_trees(False)
        ws.close()


def save_crash(pack: Path, outcome: Outcome, folder: Path, seed: int) -> Path:
    """Write the crashing mutant as a whole pack, with a note saying how it crashed."""
    m = outcome.mutant
    target = folder / f"seed{seed}-mutant{m.index}"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(pack, target / pack.name, ignore=shutil.ignore_patterns("scenarios"))
    (target / pack.name / m.file).write_text(m.text, encoding="utf-8")
    (target / "CRASH.txt").write_text(
        f"seed {seed}, mutant {m.index}: {m.file}: {m.mutation}\n"
        f"reproduce: hustings check {target / pack.name}\n"
        f"       or: hustings fuzz --seed {seed} --first {m.index} --mutants 1\n\n"
        f"{outcome.detail}\n", encoding="utf-8")
    return target


ProgressFn = Callable[[Summary], None]
