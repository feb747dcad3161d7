"""The tools' own texts (the terminal's headings, prompts and notes) in the language a game
is shown in: `ui(program, "English {x}", x=...)` looks the English format string up in the
program's catalog (Program.catalog: the engine's, tools/locale/<lang>.po and the pack's,
merged by `hustings play --lang`), else uses it as written. No game's words live here or in
tools/locale: what names a pack's things comes from the pack's own catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..interpreter.program import Program

TOOLS_CATALOGS = Path(__file__).parent / "locale"


def ui(program: Program, text: str, **values: Any) -> str:
    catalog = program.catalog
    if catalog is not None:
        text = catalog.plain.get(text, text)
    return text.format(**values) if values else text


def word(program: Program, text: str) -> str:
    """A word of the pack shown as it is (an id in words: "initiative"), in the game's
    language when its catalog has it."""
    catalog = program.catalog
    return catalog.plain.get(text, text) if catalog is not None else text


def heading(field: str, program: Program | None = None) -> str:
    """A column heading for a card field: short ones (two letters) in capitals; in the
    game's language when the pack's catalog words it."""
    text = field.upper() if len(field) <= 2 else field.replace("_", " ").capitalize()
    return word(program, text) if program is not None else text
