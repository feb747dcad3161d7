"""Compiled packs kept on disk: an unchanged pack loads without being read again.

The key is a SHA-256 over everything the result depends on: the compiler's own source
(dsl/, schemas/ and the Program's definition), every file of the pack and of each mod
(path and bytes), the options, and the folder diagnostics are shown relative to. The
entry holds the compiled Program with the check's report and counts, as JSON in which
every value says its type ({"(": [...]} a tuple, {"{": [[k, v], ...]} a dict,
{"@": "Program", ...} one of the few classes listed here). A cache file is data like
any other input: it is never executed or unpickled, anything unexpected in it makes it
a miss (the pack is then compiled again), and only packs that compile are kept.

The folder is $HUSTINGS_CACHE, else $XDG_CACHE_HOME/hustings, else ~/.cache/hustings;
HUSTINGS_CACHE=off keeps nothing. An entry is small (190 KB for 1960); past KEEP entries
the least recently written go, so a designer saving a file a thousand times fills
nothing up. Deleting the folder is always safe.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from ..interpreter.program import PoolSpec, ProcedureSpec, Program, ZoneSpec
from .diagnostics import Diagnostic, Report, Source
from .loading import Loaded, PackStats

ENV = "HUSTINGS_CACHE"
FORMAT = 1  # of an entry; part of the key
MAX_ENTRY_BYTES = 20_000_000  # a larger file is not read
MAX_PACK_FILES = 5_000  # a pack with more files than this is not cached
KEEP = 64  # entries kept; the oldest go first
# Texts up to this long are names (of players, places, variables ...): read back, each is
# one string object, so the game's comparisons and lookups of them succeed on identity
# (2.2% fewer instructions in 1960's games than with a copy of a name at each place).
NAME_CHARS = 64
CLASSES = {cls.__name__: cls for cls in (Program, PoolSpec, ZoneSpec, ProcedureSpec, Report,
                                         Diagnostic, Source, PackStats, Loaded)}
# The compiler's source: a change to any of it is a change to every compiled pack.
_HERE = Path(__file__).resolve().parent
_COMPILER = [_HERE, _HERE.parent / "schemas", _HERE.parent / "interpreter" / "program.py"]


class Unsupported(Exception):
    """A value the cache cannot write (the pack is then simply not kept)."""


def folder() -> Path | None:
    """Where entries are kept, or None when caching is off."""
    chosen = os.environ.get(ENV, "")
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hustings"


def key(root: Path, options: dict[str, bool], mods: list[Path],
        players: int | None = None) -> str | None:
    """The entry's name for this pack, mods and options; None when it cannot be made (a
    folder that cannot be read, or too many files)."""
    h = hashlib.sha256(f"hustings pack cache {FORMAT}\n{Path.cwd()}\n".encode())
    h.update(json.dumps(sorted(options.items())).encode())
    if players is not None:  # a count asked for: an entry of its own
        h.update(f"players {players}\n".encode())
    try:
        for path in _COMPILER:
            _hash_tree(h, path, suffixes=(".py", ".lark"))
        for path in (root, *mods):
            h.update(f"\0folder {path.resolve()}\n".encode())
            _hash_tree(h, path)
    except (OSError, Unsupported):
        return None
    return h.hexdigest()


def _hash_tree(h, top: Path, suffixes: tuple[str, ...] = ()) -> None:
    files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
    if len(files) > MAX_PACK_FILES:
        raise Unsupported(f"{top} holds more than {MAX_PACK_FILES} files")
    for path in files:
        if suffixes and path.suffix not in suffixes:
            continue
        data = path.read_bytes()
        h.update(f"\0{path.relative_to(top) if path != top else path.name} {len(data)}\n"
                 .encode())
        h.update(data)


def load(name: str) -> Loaded | None:
    """The entry `name`, or None (none kept, caching off, or anything wrong with it)."""
    where = folder()
    if where is None:
        return None
    path = where / f"{name}.json"
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        loaded = decode(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, TypeError, KeyError, RecursionError, Unsupported):
        return None
    return loaded if isinstance(loaded, Loaded) and isinstance(loaded.program, Program) \
        else None


def store(name: str, loaded: Loaded) -> Loaded:
    """Keep a compiled pack; answers it as read back (plain Python values, as a cached
    load gives them), or as it was when it cannot be kept."""
    try:
        text = json.dumps(encode(loaded), separators=(",", ":"))
        copy = decode(json.loads(text))
    except (Unsupported, RecursionError, ValueError, TypeError, KeyError):
        return loaded
    where = folder()
    if where is not None:
        try:
            where.mkdir(parents=True, exist_ok=True)
            temp = where / f"{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"  # one per writer
            temp.write_text(text, "utf-8")
            temp.replace(where / f"{name}.json")  # whole or not at all
            prune(where)
        except OSError:
            pass  # a folder that cannot be written: nothing kept, nothing lost
    return copy


def prune(where: Path) -> None:
    """Keep the KEEP most recently written entries, and no file a writer left half done
    an hour ago."""
    entries = sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    stale = [p for p in where.glob("*.tmp") if p.stat().st_mtime < time.time() - 3600]
    for path in entries[KEEP:] + stale:
        path.unlink(missing_ok=True)


def clear() -> int:
    """Delete every entry; how many there were."""
    where = folder()
    if where is None or not where.is_dir():
        return 0
    entries = list(where.glob("*.json"))
    for path in entries:
        path.unlink(missing_ok=True)
    return len(entries)


# ---- values as JSON that says their types ----------------------------------------------
def encode(value: Any) -> Any:
    if value is None or value.__class__ in (str, bool):
        return value
    if isinstance(value, str):  # plain texts and numbers, whatever class the YAML reader
        return str(value)       # made them
    if value.__class__.__name__ == "ScalarBoolean":
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"(": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((encode(v) for v in value), key=repr)}
    if isinstance(value, dict):
        return {"{": [[encode(k), encode(v)] for k, v in value.items()]}
    cls = CLASSES.get(value.__class__.__name__)
    if cls is value.__class__ and dataclasses.is_dataclass(value):
        return {"@": cls.__name__,
                **{f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(cls)}}
    raise Unsupported(f"a {type(value).__name__} cannot be cached")


def decode(data: Any) -> Any:
    if data.__class__ is str:
        return sys.intern(data) if len(data) <= NAME_CHARS else data
    if data is None or data.__class__ in (bool, int, float):
        return data
    if data.__class__ is list:
        return [decode(v) for v in data]
    if data.__class__ is not dict or len(data) < 1:
        raise Unsupported("not a value of the cache")
    if "(" in data and len(data) == 1:
        return tuple(decode(v) for v in data["("])
    if "{" in data and len(data) == 1:
        return {_key(decode(k)): decode(v) for k, v in data["{"]}
    if "set" in data and len(data) == 1:
        return {_key(decode(v)) for v in data["set"]}
    cls = CLASSES.get(data.get("@"))
    if cls is None:
        raise Unsupported("not a value of the cache")
    names = {f.name for f in dataclasses.fields(cls)}
    if set(data) != names | {"@"}:
        raise Unsupported(f"a {cls.__name__} with other fields")
    return cls(**{name: decode(data[name]) for name in names})


def _key(value: Any) -> Any:
    hash(value)  # a TypeError for a list or dict where a key must be
    return value
