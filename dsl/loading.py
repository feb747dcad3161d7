"""Loading a pack: what tools call, cheap to import.

`check_pack` answers a pack unchanged since it was last compiled from the cache
(packcache.py) without importing the compiler; otherwise the compiler (pack.py) reads
and compiles it, and a pack that compiles is kept for next time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..interpreter.program import Program
from .diagnostics import ContentError, Report

BUILTIN_PACKS = Path(__file__).resolve().parent.parent / "content"
ModPaths = Iterable[Path | str]


def builtin_pack(name: str = "1960") -> Path:
    return BUILTIN_PACKS / name


@dataclass
class PackStats:
    cards: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # cards of each kind, declared first
    events: dict[str, int] = field(default_factory=dict)  # of those, cards with an event
    expect_events: set[str] = field(default_factory=set)  # kinds whose cards all want one
    without_event: list[int] = field(default_factory=list)  # cards of those kinds lacking one
    procedures: int = 0
    # Options off in this run that leave cards or players out: `check` compiles the pack
    # again with them on, so what they add is checked too.
    gated_off: list[str] = field(default_factory=list)
    # `player_count:` as [min, max, default] when the pack declares it: `check` compiles
    # the pack at each count of the range.
    player_counts: list[int] | None = None


@dataclass
class Loaded:
    program: Program | None
    report: Report
    stats: PackStats


def load_pack(path: Path | str | None = None, options: dict[str, bool] | None = None,
              mods: ModPaths = (), players: int | None = None) -> Program:
    """Compile a pack, with mods applied in order, seating `players` (None: the pack's
    default count); raise ContentError listing every problem."""
    loaded = check_pack(path, options, mods, players)
    if loaded.program is None:
        raise ContentError(loaded.report)
    return loaded.program


def check_pack(path: Path | str | None = None, options: dict[str, bool] | None = None,
               mods: ModPaths = (), players: int | None = None) -> Loaded:
    """Load and compile a pack (default: the built-in 1960) with mod folders applied in order.

    The files on disk are only read: mods change the pack as it is loaded.
    """
    from . import packcache

    root = Path(path) if path is not None else builtin_pack()
    options, mods = dict(options or {}), [Path(m) for m in mods]
    name = packcache.key(root, options, mods, players) if packcache.folder() is not None else None
    if name is not None:
        hit = packcache.load(name)
        if hit is not None:
            return hit
    from .pack import compile_pack

    if _once.active and not _once.keeping:
        from . import parser

        parser.remember_trees(True)
        _once.keeping = True
    from .yamlsource import PackTooLarge, pack_reading

    try:
        with pack_reading():  # the pack and its mods, within one total size
            loaded = compile_pack(root, options, mods, players)
    except PackTooLarge as e:
        return Loaded(None, e.report, PackStats())
    if name is not None and loaded.program is not None:
        loaded = packcache.store(name, loaded)
    return loaded


class _ParsingOnce:
    active = False  # within `parsing_once`
    keeping = False  # the parser keeps its trees (turned on by a compile within it)


_once = _ParsingOnce()


@contextmanager
def parsing_once() -> Iterator[None]:
    """Within it, an effect text that one compile parsed is not parsed again by the next:
    `check` compiles a pack twice when options leave cards out. Nothing is imported
    unless a compile happens (a cached pack needs no parser)."""
    _once.active = True
    try:
        yield
    finally:
        _once.active = False
        if _once.keeping:
            from . import parser

            parser.remember_trees(False)
            _once.keeping = False
