"""A tiny deterministic random number generator whose whole state is one integer.

The state lives inside the game state, so a saved game resumes with the same
future draws. SplitMix64 is fast in pure Python and passes the usual tests for
a simulation of this size.
"""

MASK = (1 << 64) - 1


def next_state(state: int) -> tuple[int, int]:
    """Advance the generator; return (new_state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """Return (new_state, a value in range(n)); n must be positive."""
    state, out = next_state(state)
    return state, out % n
