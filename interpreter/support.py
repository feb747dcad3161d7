"""Reading one place's support, whatever the pool's kind.

An exclusive pool holds `[owner, count]` at a place; a stacking pool holds
`{player: count}` (only players with pieces there). The machine's hot paths branch
on the pool's kind themselves; these helpers serve everything else (invariants,
narration, scenarios, boards) so each reads both shapes the same way.
"""

from __future__ import annotations

from typing import Any


def holdings(entry: Any) -> dict[str, int]:
    """Each player's pieces at one place: {} when nobody has any."""
    if not entry:
        return {}
    if entry.__class__ is dict:
        return dict(entry)
    return {entry[0]: entry[1]}


def leader(counts: dict[str, int]) -> str | None:
    """The player with strictly the most pieces, or None (nobody, or a tie for the most)."""
    best, top, tied = None, 0, False
    for who, n in counts.items():
        if n > top:
            best, top, tied = who, n, False
        elif n == top:
            tied = True
    return None if tied else best
