"""Games in memory, each behind its own lock and reached by its id and a seat's secret.

A game is a `tools.play.Session` (so replays and take-backs are exactly `hustings play`'s)
plus a secret per claimed seat (a browser holds it in a cookie), an invitation per seat not
yet claimed, and a take-back waiting for the other players' answer. The secret of the
whole table (TABLE) is made only for a hot-seat game, where every human seat plays at one
screen. At most MAX_GAMES are kept: starting one more forgets the least recently used.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor, TimeoutError
from dataclasses import dataclass, field

from ...interpreter.game import Game
from ..agents import AGENTS, make_agent
from ..play import HUMAN, Session, TakeBack, ai_seed, weigh

MAX_GAMES = 64
AI_MOVE_SECONDS = 5.0  # an agent still thinking then is replaced by the random agent
AI_BATCH_SECONDS = 1.0  # AI moves made in one request; the page asks again for more
TABLE = "table"


class NotYours(Exception):
    """The browser holds no seat of this game, or not the seat to act."""


@dataclass
class Asked:
    """A take-back waiting for the other human seats: void once the game moves on."""

    plan: TakeBack
    at: int  # the number of actions when it was asked
    agreed: set[str] = field(default_factory=set)


@dataclass
class Room:
    session: Session
    creator: str  # the seat the creator's browser holds (a player, or TABLE)
    secrets: dict[str, str] = field(default_factory=dict)  # seat -> the secret its cookie holds
    invitations: dict[str, str] = field(default_factory=dict)  # player -> unclaimed invitation
    asked: Asked | None = None
    answer: dict | None = None  # the last take-back's outcome, told until the game moves on
    lock: threading.Lock = field(default_factory=threading.Lock)

    def humans(self) -> list[str]:
        return [p for p, kind in self.session.seats.items() if kind == HUMAN]

    def seat_of(self, secret: str | None) -> str:
        """The seat whose secret this is (compared in constant time), or NotYours."""
        if secret:
            for seat, held in self.secrets.items():
                if hmac.compare_digest(held.encode(), secret.encode()):
                    return seat
        raise NotYours("this browser holds no seat of this game (open the invitation link "
                       "you were sent, in the browser you play in)")

    def claim(self, player: str) -> str:
        """The seat's new secret; its invitation is spent."""
        del self.invitations[player]
        self.secrets[player] = secrets.token_urlsafe(24)
        return self.secrets[player]

    def invited(self, token: str) -> str | None:
        """The seat an invitation token opens (constant-time compare), or None."""
        for player, held in self.invitations.items():
            if hmac.compare_digest(held.encode(), token.encode()):
                return player
        return None

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
    def __init__(self, limit: int = MAX_GAMES) -> None:
        self.limit = limit
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, session: Session, creator: str) -> tuple[str, Room]:
        """A room for the game: the creator's seat gets its secret now, every other human
        seat an invitation (none at a hot-seat table, where all play at one screen)."""
        room = Room(session, creator)
        room.secrets[creator] = secrets.token_urlsafe(24)
        if creator != TABLE:
            room.invitations = {p: secrets.token_urlsafe(18) for p in room.humans()
                                if p != creator}
        with self.lock:
            game_id = secrets.token_urlsafe(9)
            self.rooms[game_id] = room
            while len(self.rooms) > self.limit:
                self.rooms.popitem(last=False)
        return game_id, room

    def get(self, game_id: str) -> Room | None:
        with self.lock:
            room = self.rooms.get(game_id)
            if room is not None:
                self.rooms.move_to_end(game_id)
            return room
