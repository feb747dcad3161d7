"""What a person at the prompt may ask of the game session besides an action.

The prompt raises one of these; the play loop (tools/play.py) carries it out.
"""

from __future__ import annotations

from pathlib import Path


class SessionRequest(Exception):
    """Base of the requests a human prompt hands to the play loop."""


class SaveRequest(SessionRequest):
    """Save the game to `path` (None: the session's default file) and go on."""

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(f"save to {path}" if path else "save")
        self.path = path


class UndoRequest(SessionRequest):
    """Take back the asking player's last decision (and the AI's replies after it)."""


class QuitRequest(SessionRequest):
    """Stop playing; the loop offers to save first."""
