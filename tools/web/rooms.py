"""Games reached by their id and a seat's secret: a cache in memory over the store.

A game is a `tools.play.Session` (so replays and take-backs are exactly `hustings play`'s)
plus a secret per claimed seat (a browser holds it in a cookie), an invitation per seat not
yet claimed, and a take-back waiting for the other players' answer. The secret of the
whole table (TABLE) is made only for a hot-seat game, where every human seat plays at one
screen.

Every change is written to the store (`store.py`) before the reply: a restarted server
serves every stored game where it was, rebuilt from its session file on first access. At
most MAX_GAMES are kept in memory; forgetting one there loses nothing. Games leave the store
only by the expiry policy (`store.py`), never because others started new ones.

Secrets are held as sha256 hashes, in memory as in the store; a request's secret is hashed
and compared in constant time. An invitation's token is made from the creator's secret
(an HMAC of the game and the seat), so the creator's page can show the same links after a
restart while the store holds only their hashes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, TimeoutError
from dataclasses import dataclass, field

from ...interpreter.game import Game
from ..agents import AGENTS, make_agent
from ..play import HUMAN, Session, TakeBack, ai_seed, weigh
from .store import KEEP_DAYS, KEEP_FINISHED_DAYS, Record, Store

MAX_GAMES = 64  # games kept in memory (the store keeps them all)
EXPIRE_EVERY = 3_600.0  # seconds between sweeps of expired games
AI_MOVE_SECONDS = 5.0  # an agent still thinking then is replaced by the random agent
AI_BATCH_SECONDS = 1.0  # AI moves made in one request; the page asks again for more
TABLE = "table"


def hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def matching(hashes: dict[str, str], secret: str | None) -> str | None:
    """The name whose hash is the secret's (each compared in constant time), or None."""
    if not secret:
        return None
    digest = hashed(secret)
    found = None
    for name, held in hashes.items():
        if hmac.compare_digest(held, digest):
            found = name
    return found


def invitation(creator_secret: str, game_id: str, player: str) -> str:
    """The invitation token of a seat: only the creator's secret makes it."""
    mac = hmac.new(creator_secret.encode(), f"invite\0{game_id}\0{player}".encode(),
                   hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:18]).decode()


class NotYours(Exception):
    """The browser holds no seat of this game, or not the seat to act."""


@dataclass
class Asked:
    """A take-back waiting for the other human seats: void once the game moves on."""

    plan: TakeBack
    at: int  # the number of actions when it was asked
    agreed: set[str] = field(default_factory=set)

    def stored(self) -> dict:
        plan = self.plan
        return {"player": plan.player, "keep": plan.keep, "undone": plan.undone,
                "ask": list(plan.ask), "why": plan.why, "at": self.at,
                "agreed": sorted(self.agreed)}

    @staticmethod
    def restored(data: dict) -> Asked:
        plan = TakeBack(str(data["player"]), int(data["keep"]), int(data["undone"]),
                        tuple(str(p) for p in data["ask"]), str(data["why"]))
        return Asked(plan, int(data["at"]), {str(p) for p in data["agreed"]})


@dataclass(eq=False)
class Room:
    game_id: str
    session: Session
    creator: str  # the seat the creator's browser holds (a player, or TABLE)
    language: str = "en"
    secrets: dict[str, str] = field(default_factory=dict)  # seat -> its secret's sha256
    invitations: dict[str, str] = field(default_factory=dict)  # player -> open token's sha256
    asked: Asked | None = None
    answer: dict | None = None  # the last take-back's outcome, told until the game moves on
    created: float = field(default_factory=time.time)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def humans(self) -> list[str]:
        return [p for p, kind in self.session.seats.items() if kind == HUMAN]

    def seat_of(self, secret: str | None) -> str:
        """The seat whose secret this is (compared in constant time), or NotYours."""
        seat = matching(self.secrets, secret)
        if seat is None:
            raise NotYours("this browser holds no seat of this game (open the invitation "
                           "link you were sent, in the browser you play in)")
        return seat

    def seat_secret(self, seat: str) -> str:
        """A new secret for the seat (its hash is kept)."""
        secret = secrets.token_urlsafe(24)
        self.secrets[seat] = hashed(secret)
        return secret

    def invite(self, creator_secret: str) -> None:
        """An invitation per human seat but the creator's (none at a hot-seat table)."""
        if self.creator != TABLE:
            self.invitations = {p: hashed(invitation(creator_secret, self.game_id, p))
                                for p in self.humans() if p != self.creator}

    def open_invitations(self, creator_secret: str | None) -> dict[str, str]:
        """The open invitations' tokens, made again from the creator's secret."""
        if not creator_secret:
            return {}
        return {p: invitation(creator_secret, self.game_id, p) for p in self.invitations}

    def claim(self, player: str) -> str:
        """The seat's new secret; its invitation is spent."""
        del self.invitations[player]
        return self.seat_secret(player)

    def invited(self, token: str) -> str | None:
        """The seat an invitation token opens (constant-time compare), or None."""
        return matching(self.invitations, token)

    def viewer(self, seat: str) -> str:
        """Whose observation the seat's page shows (the table: the human to decide, or
        the last human who decided)."""
        if seat != TABLE:
            return seat
        game = self.session.game
        current = game.current_player()
        humans = self.humans()
        if current in humans:
            return current
        done = [p for p in reversed(self.session.deciders) if p in humans]
        return done[0] if done else (humans[0] if humans else self.session.program.players[0])

    def may_act(self, seat: str) -> bool:
        current = self.session.game.current_player()
        if current is None or self.session.seats.get(current) != HUMAN:
            return False
        return seat == TABLE or seat == current

    def ai_turn(self) -> bool:
        current = self.session.game.current_player()
        return current is not None and self.session.seats.get(current) != HUMAN

    def advance(self, budget: float = AI_BATCH_SECONDS) -> int:
        """Let AI seats move until a human's turn, the end, or the time budget is spent."""
        moves, started = 0, time.monotonic()
        while self.ai_turn() and time.monotonic() - started < budget:
            self.session.apply(ai_choice(self.session))
            moves += 1
        return moves

    def record(self) -> Record:
        """What the store keeps of the game: enough to rebuild it exactly."""
        log = json.dumps(self.session.to_log().model_dump()) + "\n"  # play's save
        return Record(self.game_id, log, self.language, self.creator, dict(self.secrets),
                      dict(self.invitations), self.asked.stored() if self.asked else None,
                      self.answer, self.session.game.is_terminal(), self.created, time.time())


_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="hustings-ai")


def ai_choice(session: Session) -> int:
    """The AI seat's action, drawn as `hustings play` draws it; on a copy of the game, in a
    worker with a time limit (past it, the random agent decides with the same seed)."""
    game = session.game
    kind = session.seats[game.current_player()]
    seed = ai_seed(session.seed, len(session.actions))
    copy = Game.load(session.program, game.save(), safe=True)
    doing = f"the {kind} agent weighed {game.current_player()}'s options"
    future = _pool.submit(weigh, make_agent(kind, seed), copy, doing)
    try:
        index = future.result(timeout=AI_MOVE_SECONDS)
    except TimeoutError:
        index = AGENTS["random"](seed)(game)
    if not 0 <= index < game.num_actions():
        index = AGENTS["random"](seed)(game)
    return index


class Rooms:
    """The games: the store holds them all; the most recently used MAX_GAMES are kept in
    memory, and a game some request still holds stays the one object for its id."""

    def __init__(self, store: Store, rebuild: Callable[[Record], Room],
                 limit: int = MAX_GAMES, keep_days: float = KEEP_DAYS,
                 keep_finished_days: float = KEEP_FINISHED_DAYS) -> None:
        self.store, self.rebuild, self.limit = store, rebuild, limit
        self.keep_days, self.keep_finished_days = keep_days, keep_finished_days
        self.rooms: OrderedDict[str, Room] = OrderedDict()  # the cache, least recent first
        self.live: weakref.WeakValueDictionary[str, Room] = weakref.WeakValueDictionary()
        self.lock = threading.Lock()
        self.swept = 0.0

    def add(self, session: Session, creator: str, language: str = "en") -> tuple[Room, str]:
        """A room for the game, stored: the creator's seat gets its secret (returned: only
        its hash is kept), every other human seat an invitation."""
        self.expire()
        with self.lock:
            game_id = secrets.token_urlsafe(9)
            while game_id in self.live or self.store.get(game_id) is not None:
                game_id = secrets.token_urlsafe(9)
        room = Room(game_id, session, creator, language)
        secret = room.seat_secret(creator)
        room.invite(secret)
        self.save(room)
        with self.lock:
            self.keep(room)
        return room, secret

    def keep(self, room: Room) -> None:
        self.rooms[room.game_id] = room
        self.rooms.move_to_end(room.game_id)
        self.live[room.game_id] = room
        while len(self.rooms) > self.limit:
            self.rooms.popitem(last=False)  # still in the store: read back when asked for

    def get(self, game_id: str) -> Room | None:
        """The game, from memory or rebuilt from the store (StoreError if its row cannot
        be read or replayed); None if there is no such game."""
        with self.lock:
            room = self.rooms.get(game_id) or self.live.get(game_id)
            if room is None:
                record = self.store.get(game_id)
                if record is None:
                    return None
                room = self.rebuild(record)
            self.keep(room)
            return room

    def save(self, room: Room) -> None:
        """Write the game as it is now (called with its lock held, after each change)."""
        self.store.put(room.record())

    def expire(self, now: float | None = None, force: bool = False) -> list[str]:
        """Delete the games past the policy, at most once an EXPIRE_EVERY (or when forced)."""
        now = time.time() if now is None else now
        if not force and now - self.swept < EXPIRE_EVERY:
            return []
        self.swept = now
        gone = self.store.expire(now, self.keep_days, self.keep_finished_days)
        with self.lock:
            for game_id in gone:
                self.rooms.pop(game_id, None)
                self.live.pop(game_id, None)
        return gone

