"""The page's own words (buttons, headings, the legend, the status line), sent with each
state in the game's language: the page is a script that knows no language of its own.

Each text is the English the page shows, with `{name}` for what it fills in; a game whose
program has a catalog (`--lang`, the new-game dialog's Language) gets their translations
from the tools' catalog (tools/locale/LANG.po), an English game none (the page keeps its
English)."""

from __future__ import annotations

from ...interpreter.program import Program
from ..wording import ui

PAGE_TEXTS = (
    "New game", "Undo", "Save", "Load", "Narration", "Rule", "(no position)",
    "hot seat: {player} to look", "you: {player}", "Game over — ", "The game is over.",
    "{player} is thinking…", "Waiting for {player}: {prompt}", "{player} to choose",
    "{hand} of {player}", "{player} holds {n}", "Shown to you", "seen in {zone}",
    "filter options", "show all", "only {place} ", "{player} leads (darker: more)", "tied",
    "nobody", "{player}'s token", "changed by the last move", "{player} (out)",
    "{team} win together",
)


def page_words(program: Program) -> dict[str, str]:
    """The page's texts in the program's language ({} in the pack's own)."""
    if program.catalog is None:
        return {}
    return {text: ui(program, text) for text in PAGE_TEXTS}
