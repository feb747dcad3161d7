"""Versions of the content language, and what `check` says of content in an older one.

A pack declares `language: N` in pack.yaml, a mod in mod.yaml; without it, content is
read as language 1. Each later version is a set of breaking changes
(docs/language-changes.md): a form whose meaning changed, or that is now refused. The
engine keeps the meaning of every version it accepts; where it cannot, the older
content is refused at the form that changed, with the change, its fix and the command
that makes the fix (`hustings upgrade PATH`, tools/commands/upgrade.py).

Diagnostic codes:
  E150  the content declares a language newer than this engine knows
  E151  a form whose meaning changed since the content's language (`move P to PLACE`
        of a player the board gives no token, in language 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Report, Source
from .yamlsource import YamlFile

CURRENT = 2  # the language this engine reads natively and `hustings upgrade` writes


@dataclass(frozen=True)
class Change:
    """One breaking change: the version that made it, and what a designer reads of it."""

    version: int
    name: str
    now: str  # the form's meaning since `version`
    before: str  # its meaning in the versions before
    fix: str


CHANGES = (
    Change(2, "tokens",
           now="`move P to PLACE` moves only a token the board's `tokens:` gives",
           before="a player without a token got one at their first move",
           fix="give each player a starting place in the board's `tokens:` (a mod: in its "
               "`board: {tokens: ...}`)"),
)


def change(name: str) -> Change:
    return next(c for c in CHANGES if c.name == name)


def check_declared(f: YamlFile, language: int, report: Report) -> bool:
    """E150 unless this engine knows `language`; true when it does."""
    if language <= CURRENT:
        return True
    report.error(f.value_source("language"), "E150",
                 f"this content is written in language {language}, and this hustings reads "
                 f"languages 1 to {CURRENT}",
                 "install a newer hustings (docs/language-changes.md lists the versions)")
    return False


def languages_by_file(pack_language: int,
                      mods: Iterable[tuple[str, int]]) -> Callable[[str], int]:
    """The language a file is written in, by its displayed path: its mod's, if it lies in
    the folder of one of `mods` (mod.yaml's displayed path, language), else the pack's."""
    folders = [(Path(shown).parent, language) for shown, language in mods]

    def language_of(path: str) -> int:
        for folder, language in folders:
            if Path(path).is_relative_to(folder):
                return language
        return pack_language
    return language_of


def check_token_moves(moves: Iterable[Source], language_of: Callable[[str], int],
                      players: list[str], tokens: dict[str, str], report: Report) -> None:
    """E151 at each `move P to PLACE` of language-1 content while a player has no token.

    Language 1 gave such a player a token at their first move; a game's state now holds
    the tokens the board declares and no others (interpreter/invariants.py), so that
    meaning cannot be kept. With every player given a token both languages agree.
    """
    without = [p for p in players if p not in tokens]
    if not without:
        return
    tokens_change = change("tokens")
    for where in moves:
        if language_of(where.path) >= tokens_change.version:
            continue
        report.error(
            where, "E151",
            f"this moves a token, and the board gives none to {', '.join(without)}: since "
            f"language {tokens_change.version}, {tokens_change.now} (in language 1, which "
            f"this content is written in, {tokens_change.before})",
            f"{tokens_change.fix}, and declare `language: {CURRENT}`; `hustings upgrade "
            "PATH` (the pack or mod folder) makes both changes",
        )
