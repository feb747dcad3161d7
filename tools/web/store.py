"""Where the web board keeps its games between requests and across restarts.

A game is stored as a `Record`: the session file `hustings play` writes (pack, version, seed,
options, mods by hash, seats, actions), the language it is shown in, the creator's seat, a
sha256 hash of each seat's secret and of each open invitation (never the secrets themselves),
the take-back waiting for answers, and when it was made, last touched and whether it is over.
That is everything needed to rebuild the game exactly: the session is replayed from its seed.

`Store` is the interface a server needs; `SQLiteStore` is the one given (the standard
library's sqlite3). A store for a shared database (PostgreSQL, for several server processes)
implements the same five methods.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

FORMAT = 1  # the records' layout; a row of another layout is refused, not guessed at
MEMORY = ":memory:"
DAY = 86_400.0
KEEP_DAYS = 30  # an unfinished game untouched this long is deleted
KEEP_FINISHED_DAYS = 90  # a finished game is kept this long after its last touch, for replay


class StoreError(Exception):
    """A stored game that cannot be read back (a corrupted or foreign row), or a store that
    cannot be opened or written."""


@dataclass
class Record:
    game_id: str
    log: str  # the session file's text (JSON), as `hustings play` saves it
    language: str
    creator: str
    secrets: dict[str, str]  # seat -> sha256 hex of the secret its cookie holds
    invitations: dict[str, str]  # player -> sha256 hex of the open invitation's token
    asked: dict | None = None  # the take-back waiting for answers (see rooms.Asked)
    answer: dict | None = None  # the last take-back's outcome
    over: bool = False
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)


class Store(Protocol):
    def put(self, record: Record) -> None:
        """Write the record (new or changed) in one transaction."""

    def get(self, game_id: str) -> Record | None:
        """The stored record, None if there is none; StoreError if it cannot be read."""

    def ids(self) -> list[str]:
        """Every stored game's id."""

    def expire(self, now: float, keep_days: float, keep_finished_days: float) -> list[str]:
        """Delete the games past the policy (module docstring); return their ids."""

    def close(self) -> None: ...


COLUMNS = ("id", "format", "log", "language", "creator", "secrets", "invitations", "asked",
           "answer", "over", "created", "updated")
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    format INTEGER NOT NULL,
    log TEXT NOT NULL,
    language TEXT NOT NULL,
    creator TEXT NOT NULL,
    secrets TEXT NOT NULL,
    invitations TEXT NOT NULL,
    asked TEXT,
    answer TEXT,
    over INTEGER NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_age ON games (over, updated);
"""


class SQLiteStore:
    """Games in one SQLite file (or in memory: `:memory:`, gone with the process).

    One connection, shared by the server's threads behind a lock: the server writes a small
    row per request, so one writer at a time costs nothing, and an in-memory database is
    only visible through the connection that made it. WAL mode lets a reader (a backup, the
    sqlite3 shell) look while the server writes. One server process per file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.lock = threading.Lock()
        try:
            if self.path != MEMORY and not Path(self.path).exists():
                # it holds every unfinished game's seed: for the server's user only (SQLite
                # gives its -wal and -shm files the same permissions)
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            if self.path != MEMORY:
                self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"{self.path}: cannot open the games' store ({e}); give "
                             "another file with --store, or --store :memory:") from None

    def put(self, record: Record) -> None:
        row = (record.game_id, FORMAT, record.log, record.language, record.creator,
               json.dumps(record.secrets), json.dumps(record.invitations),
               json.dumps(record.asked), json.dumps(record.answer), int(record.over),
               record.created, record.updated)
        marks = ", ".join("?" for _ in COLUMNS)
        self.write(f"INSERT OR REPLACE INTO games ({', '.join(COLUMNS)}) VALUES ({marks})",
                   row)

    def write(self, sql: str, args: tuple) -> sqlite3.Cursor:
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                cursor = self.db.execute(sql, args)
                self.db.execute("COMMIT")
                return cursor
            except sqlite3.Error as e:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise StoreError(f"{self.path}: the games' store cannot be written ({e})") \
                    from None

    def get(self, game_id: str) -> Record | None:
        with self.lock:
            try:
                row = self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM games WHERE id = ?",
                                      (game_id,)).fetchone()
            except sqlite3.Error as e:
                raise StoreError(f"the games' store cannot be read ({e})") from None
        return None if row is None else record_of(row)

    def ids(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT id FROM games ORDER BY created")]

    def expire(self, now: float, keep_days: float = KEEP_DAYS,
               keep_finished_days: float = KEEP_FINISHED_DAYS) -> list[str]:
        where = "(over = 0 AND updated < ?) OR (over != 0 AND updated < ?)"
        args = (now - keep_days * DAY, now - keep_finished_days * DAY)
        with self.lock:
            gone = [r[0] for r in self.db.execute(f"SELECT id FROM games WHERE {where}", args)]
        if gone:
            self.write(f"DELETE FROM games WHERE {where}", args)
        return gone

    def close(self) -> None:
        with self.lock:
            self.db.close()


def record_of(row: tuple) -> Record:
    """A row read back, each field checked: a row another program (or another layout) wrote,
    or one damaged on disk, is a StoreError naming what is wrong, never a half-made game."""
    values = dict(zip(COLUMNS, row, strict=True))
    game_id = values["id"]
    if values["format"] != FORMAT:
        raise StoreError(f"stored game {game_id}: layout {values['format']!r}, this server "
                         f"reads layout {FORMAT}")
    try:
        secrets = json.loads(values["secrets"])
        invitations = json.loads(values["invitations"])
        asked = json.loads(values["asked"]) if values["asked"] is not None else None
        answer = json.loads(values["answer"]) if values["answer"] is not None else None
    except (TypeError, ValueError, RecursionError):
        raise StoreError(f"stored game {game_id}: a field is not JSON") from None
    texts = (values["log"], values["language"], values["creator"])
    if not all(isinstance(t, str) for t in texts) or not hashes(secrets) \
            or not hashes(invitations) or not isinstance(asked, dict | None) \
            or not isinstance(answer, dict | None) \
            or not all(isinstance(values[k], int | float) for k in ("created", "updated")):
        raise StoreError(f"stored game {game_id}: a field has the wrong shape")
    return Record(game_id, values["log"], values["language"], values["creator"], secrets,
                  invitations, asked, answer, bool(values["over"]), float(values["created"]),
                  float(values["updated"]))


def hashes(value: object) -> bool:
    """Whether the value maps names to sha256 hex digests."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in value.items())
