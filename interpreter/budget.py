"""Limits on what content may make the machine do: every bound in one place.

Content is untrusted: a few lines of effect text can ask for unbounded work
(`repeat 40 times: let x = x * x`), memory (`let l = l + l`) or log output.
The interpreter enforces these limits itself, whatever the content says, and
reports a breach as a `RuleError` naming the file:line:col of the instruction.
The loader's limits (file size, number length) live here too, so a designer
finds every bound in one module, and so do the checks that hold a value an
operation builds to them (`checked`, `list_size`, `charged_text`).

The limits are far above what a real game needs (a 1960 action runs a few
thousand steps and logs a few dozen lines), so a deterministic game never
meets them in normal play; they only stop runaways. The wall-clock limit is
the one limit that is not deterministic, which is why it is generous: it
exists so that a hostile pack cannot hang a server, not to shape play. The
machine looks at the clock every 1,024 units of work; the first look starts it,
so the many actions that do less never read the clock at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RuleError

# ---- values --------------------------------------------------------------------
# Integers are bounded to a 64-bit magnitude: a result outside +-2**63 is an error.
MAX_INT = 2**63
# Longest list (items) and text (characters) any operation may build.
MAX_ITEMS = 100_000
MAX_TEXT = 100_000

# ---- the loader ----------------------------------------------------------------
# A content file larger than this is refused before it is read.
MAX_FILE_BYTES = 1_000_000
# A number literal longer than this many digits is refused (2**63 has 19 digits).
MAX_DIGITS = 18
# The content files of a pack and its mods together, counted as each is read (before it
# is parsed): reading and compiling 1 MB of cards takes seconds, and the largest shipped
# pack reads about 180 KB (docs/diagnostics.md, E140, has the figures).
MAX_PACK_BYTES = 1_500_000
# ... and the YAML values (each key, scalar, mapping and list) they hold, counted by
# libyaml's parser before any is built: building costs per value (the largest shipped
# pack holds about 8,500).
MAX_PACK_VALUES = 100_000
# ---- setting a game up -----------------------------------------------------------
# A call of a small pure function is written in where it is called (codegen.Inliner).
# The size it would be written in is known before it is written: a call larger than
# this (in expression nodes) is left a call, never expanded. The shipped packs' largest
# is 759 nodes.
MAX_WRITTEN_IN = 10_000
# Nodes writing in may expand for one program while its game is set up, in all: past
# it, calls are left calls. The shipped packs expand at most 19,038.
MAX_SETUP_NODES = 200_000
# `check` refuses a pure function whose body, every call in it written in, is larger
# than this (E402): one call of it is about that much work, and writing it anywhere
# would be too (a function doubling at each of 40 levels is 2**40 nodes).
MAX_FUNCTION_NODES = 1_000_000

# Deepest nesting of mappings and lists a content file may use; measured on the text
# before a parser reads it (a parser recurses once per level).
MAX_NESTING = 64


@dataclass(frozen=True)
class Budget:
    """What one action (one `Machine.run`) may spend.

    `work` counts units: each instruction costs one, and an operation that
    builds something costs its size too (joining lists of n items costs n,
    formatting a text costs its length, `range(a, b)` costs its length).
    """

    work: int = 20_000_000
    seconds: float = 5.0  # wall clock per action, from its first look at the clock
    log_lines: int = 10_000  # lines one action may add to the log
    log_chars: int = 1_000_000  # characters one action may add to the log
    log_total_chars: int = 20_000_000  # characters the whole log may hold
    depth: int = 200  # nested blocks and calls


DEFAULT = Budget()


def too_big(value: int) -> bool:
    """True when an integer is outside the 64-bit magnitude content may use."""
    return not -MAX_INT <= value <= MAX_INT


# ---- values built while a rule runs (m: the machine, which counts the work) ------
def checked(m, value):
    """A value built by an operation, within the budget: 64-bit integers, bounded
    lists and texts. Lists and texts cost their size in work units."""
    cls = value.__class__
    if cls is int:
        if -MAX_INT <= value <= MAX_INT:
            return value
        raise RuleError("a number went past the 64-bit limit (2**63)")
    if cls is list:
        m.charge(list_size(value))
    elif cls is str:
        if len(value) > MAX_TEXT:
            raise RuleError(f"a text grew longer than {MAX_TEXT:,} characters")
        m.charge(len(value))
    return value


def list_size(items: list) -> int:
    """Items in a list, counting those of the lists inside it (each shared list once
    per place it appears); past MAX_ITEMS, or nested too deep, it is an error."""
    n = len(items)
    if n > MAX_ITEMS:
        raise RuleError(f"a list grew longer than {MAX_ITEMS:,} items")
    if list not in map(type, items):  # flat (most are): its length, found at C speed
        return n
    memo: dict[int, int] = {}

    def size(v: list, depth: int) -> int:
        known = memo.get(id(v))
        if known is not None:
            return known
        if depth > 100:
            raise RuleError("lists nest more than 100 deep")
        n = len(v)
        if n > MAX_ITEMS:
            raise RuleError(f"a list grew longer than {MAX_ITEMS:,} items")
        for x in v:
            if x.__class__ is list:
                n += size(x, depth + 1)
                if n > MAX_ITEMS:
                    raise RuleError(f"a list grew larger than {MAX_ITEMS:,} items "
                                    "(counting the lists inside it)")
        memo[id(v)] = n
        return n

    return size(items, 0)


def charged_text(m, text: str) -> str:
    """A text built from parts: bounded, and its length charged as work."""
    n = len(text)  # each part is bounded, and content fixes how many there are
    if n > MAX_TEXT:
        raise RuleError(f"a text grew longer than {MAX_TEXT:,} characters")
    m.work += n
    if m.work > m.work_limit:
        m.charge(0)
    return text
