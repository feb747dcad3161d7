"""Limits on what content may make the machine do: every bound in one place.

Content is untrusted: a few lines of effect text can ask for unbounded work
(`repeat 40 times: let x = x * x`), memory (`let l = l + l`) or log output.
The interpreter enforces these limits itself, whatever the content says, and
reports a breach as a `RuleError` naming the file:line:col of the instruction.
The loader's limits (file size, number length) live here too, so a designer
finds every bound in one module.

The limits are far above what a real game needs (a 1960 action runs a few
thousand steps and logs a few dozen lines), so a deterministic game never
meets them in normal play; they only stop runaways. The wall-clock limit is
the one limit that is not deterministic, which is why it is generous: it
exists so that a hostile pack cannot hang a server, not to shape play.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Budget:
    """What one action (one `Machine.run`) may spend.

    `work` counts units: each instruction costs one, and an operation that
    builds something costs its size too (joining lists of n items costs n,
    formatting a text costs its length, `range(a, b)` costs its length).
    """

    work: int = 20_000_000
    seconds: float = 5.0  # wall clock per action
    log_lines: int = 10_000  # lines one action may add to the log
    log_chars: int = 1_000_000  # characters one action may add to the log
    log_total_chars: int = 20_000_000  # characters the whole log may hold
    depth: int = 200  # nested blocks and calls


DEFAULT = Budget()


def too_big(value: int) -> bool:
    """True when an integer is outside the 64-bit magnitude content may use."""
    return not -MAX_INT <= value <= MAX_INT
