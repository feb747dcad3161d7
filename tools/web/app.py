"""The web board's HTTP interface (Starlette): a static page and a small JSON API.

    GET  /                         the page (static/index.html)
    GET  /api/setup                players (and the options seating some), agents, options,
                                   mods, the view's maps, the languages a game may be shown in,
                                   the pack's player_count {min, max, default} or null
    POST /api/games                a new game: {seed?, options?, seats?, mods?, me?,
                                   hot_seat?, lang?, players?} -> id, the creator's seat (its
                                   secret in a cookie) and an invitation per other human seat
    POST /api/games/{id}/claim     {invite}: the invitation's seat, for this browser (cookie)
    GET  /api/games/{id}           the board as this browser's seat sees it
    POST /api/games/{id}/act       {index, at}: take option `index` (409 if not legal; `at`,
                                   the number of actions the page saw, is required)
    POST /api/games/{id}/advance   let AI seats move (bounded in time)
    POST /api/games/{id}/undo      {at}: take back the seat's last decision, or ask the
                                   others to
    POST /api/games/{id}/answer    {accept}: agree to, or refuse, the take-back asked
    GET  /api/games/{id}/save      the session file of `hustings play --replay` (game over)
    POST /api/load                 {log, seats?, me?, hot_seat?, lang?}: a game from a session
                                   file

A seat is this browser's by the HttpOnly cookie `hustings-ID` (a per-seat secret made with
`secrets`, compared in constant time); neither the seed nor the generator's state is sent
before the game ends. Every error is JSON `{"error": ...}` with a 4xx status (a stored game
that cannot be restored: 500); nothing of a game changes on one. Every change is written to
the store before the reply (rooms.py, store.py); every request passes the guard first
(guard.py: Host, Origin, JSON only, body size).
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...dsl.loading import builtin_pack, load_pack
from ...interpreter.errors import RuleError
from ...interpreter.game import Game
from ...interpreter.program import Program
from ...interpreter.translation import LANGUAGE
from .. import play
from ..agents import parse_agent
from ..failures import InputError, UsageError
from .board import board_for, card, decision
from .guard import MAX_BODY, Guard
from .rooms import AI_MOVE_SECONDS, MAX_GAMES, TABLE, Asked, NotYours, Room, Rooms
from .store import (
    KEEP_DAYS,
    KEEP_FINISHED_DAYS,
    MEMORY,
    Record,
    SQLiteStore,
    Store,
    StoreError,
)
from .words import page_words

STATIC = Path(__file__).parent / "static"
MAX_SEED = 2**63 - 1
POSITION = re.compile(r"(?P<file>.+?):(?P<at>\d+(?::\d+)?)")  # a rule's `file:line:col`
COOKIE_DAYS = 30  # a seat's cookie outlives a browser restart: a player comes back to it


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Server:
    """What `hustings serve` was given (the pack, its mods, default options) and the games."""

    def __init__(self, pack: Path | None, mods: list[Path], options: dict[str, bool],
                 limit: int = MAX_GAMES, store: Store | None = None,
                 keep_days: float = KEEP_DAYS,
                 keep_finished_days: float = KEEP_FINISHED_DAYS) -> None:
        self.pack, self.mods, self.options = pack, list(mods), dict(options)
        self.folder = pack or builtin_pack()
        self.manifest = YAML(typ="safe").load((self.folder / "pack.yaml").read_text("utf-8"))
        self.programs: dict[tuple, Program] = {}
        self.programs_lock = threading.Lock()
        self.titles: dict[int, tuple[Program, re.Pattern | None]] = {}  # to find titles in logs
        self.store = SQLiteStore(MEMORY) if store is None else store
        self.rooms = Rooms(self.store, self.rebuild, limit, keep_days, keep_finished_days)
        self.refs = play.mod_refs(self.mods)
        self.program(self.options)  # content errors show at start, not at the first game
        self.maps = self.read_maps()
        self.rooms.expire(force=True)

    # ---- content ----------------------------------------------------------
    def program(self, options: dict[str, bool], mods: tuple[int, ...] | None = None,
                language: str = "en", players: int | None = None) -> Program:
        """The pack with these options and these of the server's mods (default: all),
        seating `players` (None: the pack's default count), shown in `language` (one of
        `languages()`)."""
        mods = tuple(range(len(self.mods))) if mods is None else mods
        key = (tuple(sorted(options.items())), mods) if players is None \
            else (tuple(sorted(options.items())), mods, players)
        with self.programs_lock:
            if key not in self.programs:
                self.programs[key] = load_pack(self.pack, options,
                                               [self.mods[i] for i in mods], players)
            program = self.programs[key]
            if language == "en":
                return program
            shown = (key, language)
            if shown not in self.programs:
                self.programs[shown] = play.shown_in(program, self.pack, language)
            return self.programs[shown]

    def languages(self) -> list[str]:
        """The languages a game may be shown in: the pack's own (en) and each catalog's."""
        folder = self.folder / "locale"
        found = sorted(p.stem for p in folder.glob("*.po")) if folder.is_dir() else []
        return ["en", *(lang for lang in found if LANGUAGE.fullmatch(lang) and lang != "en")]

    def mods_of(self, hashes: list[str]) -> tuple[int, ...] | None:
        """The server's mods with these hashes, in this order (None if one is not served)."""
        known = [m.hash for m in self.refs]
        if any(h not in known for h in hashes):
            return None
        return tuple(known.index(h) for h in hashes)

    def declared_options(self) -> dict[str, dict[str, Any]]:
        found = self.manifest.get("options") or {}
        return {name: {"default": bool(spec.get("default", False)),
                       "doc": str(spec.get("doc", ""))}
                for name, spec in found.items() if isinstance(spec, dict)}

    def read_maps(self) -> dict[str, Any]:
        """The map files the view names, read from inside the pack folder only."""
        maps = {}
        root = self.folder.resolve()
        for group in self.program(self.options).view.get("groups", []):
            name = group.get("map")
            if not name:
                continue
            path = (root / name).resolve()
            if root not in path.parents or not path.is_file():
                raise InputError(f"view map {name!r}: not a file inside {self.folder}")
            try:
                maps[name] = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError) as e:
                raise InputError(f"{path}: the map cannot be read ({e})") from None
        return maps

    def title_pattern(self, program: Program) -> re.Pattern | None:
        """Every card title of the program as a whole word, the longest first (kept with
        the program it was made for)."""
        with self.programs_lock:
            kept = self.titles.get(id(program))
            if kept is None or kept[0] is not program:
                titles = sorted({str(c["title"]) for c in program.cards.values()
                                 if str(c.get("title") or "").strip()}, key=len, reverse=True)
                choices = "|".join(re.escape(t) for t in titles)
                kept = (program, re.compile(rf"(?<!\w)(?:{choices})(?!\w)") if titles
                        else None)
                self.titles[id(program)] = kept
            return kept[1]

    def rule_shown(self, position: str | None) -> str | None:
        """A rule's position as its reader finds it: `file:line:col` inside the pack's folder
        (or `MOD: file:line:col` inside a mod's), never the folder the pack is installed in
        (a file elsewhere: its name only). The page shows `file:line`."""
        if position is None:
            return None
        found = POSITION.fullmatch(position)
        if not found:
            return position if not Path(position).is_absolute() else Path(position).name
        where = Path(found["file"]).resolve()
        at = found["at"]
        roots = [(self.folder, ""), *((m, f"{m.name}: ") for m in self.mods)]
        for root, prefix in roots:
            if root.resolve() in where.parents:
                return f"{prefix}{where.relative_to(root.resolve()).as_posix()}:{at}"
        return f"{where.name}:{at}"

    # ---- sessions ---------------------------------------------------------
    def new_session(self, seed: int | None, options: dict[str, bool],
                    seats: dict[str, str], mods: tuple[int, ...] | None = None,
                    language: str = "en", players: int | None = None) -> play.Session:
        mods = tuple(range(len(self.mods))) if mods is None else mods
        program = self.program({**self.options, **options}, mods, language, players)
        seats = self.checked_seats(program, seats)
        pack = play.pack_ref(program)
        session = play.Session(program, pack, play.fresh_seed() if seed is None else seed,
                               {**self.options, **options}, [self.refs[i] for i in mods],
                               seats)
        session.start()
        return session

    def seated_by(self) -> dict[str, list[str]]:
        """The players an option seats (`options: NAME: {players: [...]}`), with those options."""
        found: dict[str, list[str]] = {}
        for name, spec in (self.manifest.get("options") or {}).items():
            for player in (spec.get("players") or []) if isinstance(spec, dict) else []:
                found.setdefault(str(player), []).append(str(name))
        return found

    def checked_seats(self, program: Program, seats: dict[str, str]) -> dict[str, str]:
        # the players an option or the count leaves out of this game: their seats go
        left_out = (set(self.seated_by()) | {str(p) for p in self.manifest.get("players", [])}) \
            - set(program.players)
        seats = {p: kind for p, kind in seats.items() if p not in left_out}
        for player, kind in seats.items():
            if player not in program.players:
                raise ApiError(400, f"no seat {player!r}; seats: {', '.join(program.players)}")
            problem = play.agent_problem(kind) or beyond_a_move(kind)
            if problem:
                raise ApiError(400, f"agent {kind!r}: {problem}")
        first = program.players[0]
        return {p: seats.get(p, play.HUMAN if p == first else "random")
                for p in program.players}

    def session_from_log(self, text: str, seats: dict[str, str],
                         language: str = "en") -> play.Session:
        """A session file checked and replayed exactly as `hustings play --resume` does."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "session.json"
            path.write_text(text, encoding="utf-8")
            try:
                log = play.read_log(path)
                mods = self.mods_of([m.hash for m in log.mods])
                if mods is None:
                    play.check_mods(log, self.refs, path)  # says which mods it needs
                refs = [self.refs[i] for i in mods]
                program = play.load_recorded(
                    lambda: self.program(dict(log.options), mods, language, log.players),
                    path)
                pack = play.pack_ref(program)
                if not play.same_pack(log.pack, pack):
                    raise InputError(f"the file is a game of {log.pack.name} "
                                     f"{log.pack.version}, not {pack.name} {pack.version}")
                table = play.seat_table(program, log.seats, {}, path)
                table.update(self.checked_seats(program, {**table, **seats}))
                session = play.Session(program, pack, log.seed, dict(log.options), refs,
                                       table)
                session.start()
                session.replay(list(log.actions), path)
            except (InputError, UsageError) as e:
                raise ApiError(400, str(e).replace(str(path), "the session file")) from None
        return session

    def rebuild(self, record: Record) -> Room:
        """A stored game as it was: its session file replayed from the seed (StoreError if
        the row is not a game this server can play)."""
        where = f"stored game {record.game_id}"
        if record.language not in self.languages():
            raise StoreError(f"{where}: language {record.language!r} is not served here")
        try:
            session = self.session_from_log(record.log, {}, record.language)
        except ApiError as e:
            raise StoreError(f"{where}: {e}") from None
        seats = {*session.seats, TABLE}
        if record.creator not in seats or not set(record.secrets) <= seats \
                or not set(record.invitations) <= set(session.seats):
            raise StoreError(f"{where}: its seats are not the game's")
        try:
            asked = Asked.restored(record.asked) if record.asked else None
        except (KeyError, TypeError, ValueError):
            raise StoreError(f"{where}: the take-back asked is damaged") from None
        return Room(record.game_id, session, record.creator, record.language,
                    dict(record.secrets), dict(record.invitations), asked, record.answer,
                    record.created)


# ---- helpers --------------------------------------------------------------------
# An agent's settings a page may ask for: a move must fit the server's time for it (a
# search past it is replaced by the random agent, but its thread would go on working).
WEB_AGENT_LIMITS = {"iterations": 5_000, "depth": 20, "seconds": AI_MOVE_SECONDS,
                    "breadth": 500}


def beyond_a_move(spec: str) -> str | None:
    """Why an agent's settings are more than the web board gives a move, or None (its
    name and settings are checked already: play.agent_problem)."""
    if spec == play.HUMAN:
        return None
    _, settings = parse_agent(spec)
    for key, value in settings.items():
        limit = WEB_AGENT_LIMITS.get(key)
        if limit is not None and value > limit:
            return (f"{key} is at most {limit:,g} on the web board (a move has "
                    f"{AI_MOVE_SECONDS:g} s); `hustings play` takes more")
    return None


async def body_of(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ApiError(413, f"the request is larger than {MAX_BODY // 1_000_000} MB")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise ApiError(400, "the request body is not JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def room_of(request: Request) -> Room:
    try:
        room = request.app.state.server.rooms.get(request.path_params["game"])
    except StoreError as e:  # a damaged or foreign row: told, never half-played
        raise ApiError(500, f"this game cannot be restored: {e}") from None
    if room is None:
        raise ApiError(404, "no such game (it may have expired: unfinished games are kept "
                       f"{KEEP_DAYS} days after their last move unless the server says "
                       "otherwise)")
    return room


def saved(request: Request, room: Room) -> None:
    """Write the game after a change (with its lock held): the reply says it is kept."""
    try:
        request.app.state.server.rooms.save(room)
    except StoreError as e:
        raise ApiError(500, str(e)) from None


def at_of(data: dict[str, Any], room: Room) -> None:
    """`at`, the number of actions the page was drawn after, is required: a request made
    on a page the game has moved past (another tab, a double click) changes nothing."""
    if "at" not in data:
        raise ApiError(400, "give `at`: the number of actions taken when the page was drawn")
    if whole(data["at"], "at") != len(room.session.actions):
        raise ApiError(409, "the game has moved on since this page was drawn; reload it")


def cookie_name(game_id: str) -> str:
    return f"hustings-{game_id}"


def secret_of(request: Request) -> str | None:
    return request.cookies.get(cookie_name(request.path_params["game"]))


def seat_of(request: Request, room: Room) -> str:
    """This browser's seat of the game, by its cookie (403 without a valid one)."""
    try:
        return room.seat_of(request.cookies.get(cookie_name(request.path_params["game"])))
    except NotYours as e:
        raise ApiError(403, str(e)) from None


def give_seat(request: Request, response: Response, game_id: str, secret: str) -> Response:
    """Hand this browser a seat's secret: a cookie scripts cannot read, sent back only to
    this game's API on this site."""
    response.set_cookie(cookie_name(game_id), secret, max_age=COOKIE_DAYS * 86_400,
                        path=f"/api/games/{game_id}", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


def whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(400, f"{what} must be a whole number")
    return value


def text_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ApiError(400, f"{what} must be an object of names")
    return value


def state_of(request: Request, room: Room, seat: str,
             secret: str | None = None) -> dict[str, Any]:
    """Everything the seat's page shows: its viewer's observation, and the seed only once
    the game is over. `secret`: the seat's, from its cookie (the creator's makes the open
    invitations' links)."""
    server: Server = request.app.state.server
    game_id = request.path_params["game"]
    viewer = room.viewer(seat)
    session = room.session
    game = session.game
    mine = room.may_act(seat)
    pending = game.state.pending
    try:  # labels and remarks are made on request: the rules may fail making them
        board, shown = board_for(game, viewer), decision(game) if mine else None
    except RuleError as e:
        raise ApiError(409, f"rule error while making the options to show: {e}") from None
    board["narration"] = game.narration(viewer)  # the whole of it: the page's log scrolls
    if shown is not None:
        shown["rule"] = server.rule_shown(shown["rule"])
    over = game.is_terminal()
    return {
        "id": game_id,
        "viewer": viewer,
        "table": seat == TABLE,
        "seats": session.seats,
        "joined": {p: p in room.secrets or TABLE in room.secrets for p in room.humans()},
        "invitations": room.open_invitations(secret) if seat == room.creator else {},
        "options": session.options,
        "actions": len(session.actions),
        "over": over,
        "seed": session.seed if over else None,
        "ai_turn": room.ai_turn(),
        "can_undo": not over and undoer(room, seat) in session.deciders,
        "takeback": takeback_of(room, seat),
        "answer": room.answer if room.answer and room.answer["at"] == len(session.actions)
        else None,
        "board": board,
        # the cards the narration names, so the page shows them from the log
        "log_cards": cards_named(server, game, board["narration"]),
        "waiting": {"player": pending["player"], "prompt": pending["prompt"]}
        if pending and not mine else None,
        "decision": shown,
        "words": page_words(game.program),  # the page's own words in the game's language
    }


def cards_named(server: Server, game: Game, lines: list[str]) -> dict[str, Any]:
    """The pack's cards whose titles the narration names (its own words, already the
    player's), by number, each as the hand shows a card: the page links the names to them."""
    pattern = server.title_pattern(game.program)
    if pattern is None:
        return {}
    titles = {t for line in lines for t in pattern.findall(line)}
    numbers = {str(info.get("title")): number for number, info in game.program.cards.items()}
    return {str(numbers[t]): card(game, numbers[t]) for t in sorted(titles)}


def undoer(room: Room, seat: str) -> str | None:
    """Whose decision the seat's Undo takes back: its own; the table's, the last human's."""
    if seat != TABLE:
        return seat
    session = room.session
    done = [p for p in reversed(session.deciders) if session.seats[p] == play.HUMAN]
    return done[0] if done else None


def takeback_of(room: Room, seat: str) -> dict[str, Any] | None:
    """The take-back waiting for answers, as this seat's page shows it."""
    asked = room.asked
    if asked is None or asked.at != len(room.session.actions):
        return None
    plan = asked.plan
    waiting = [p for p in plan.ask if p not in asked.agreed]
    return {"player": plan.player, "why": plan.why, "undone": plan.undone,
            "waiting": waiting, "mine": seat in (plan.player, TABLE),
            "may_answer": seat == TABLE or seat in waiting}


# ---- endpoints --------------------------------------------------------------------
async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def setup(request: Request) -> Response:
    server: Server = request.app.state.server
    program = server.program(server.options)
    seated_by = server.seated_by()
    # every player of the pack: those an option seats are offered with the option's name,
    # and with a player count every one it may seat (the page hides those past its count)
    counted = player_count_of(server) is not None
    players = [p for p in server.manifest.get("players", []) if isinstance(p, str)
               and (p in program.players or p in seated_by or counted)]
    return JSONResponse({
        "title": program.view.get("title") or program.name,
        "players": players,
        "names": {p: program.view.get("players", {}).get(p, {}).get("name", p)
                  for p in players},
        "seated_by": {p: seated_by[p] for p in players if p in seated_by},
        "agents": play.agent_names(),
        "options": server.declared_options(),
        "defaults": server.options,
        "mods": [m.name for m in server.refs],
        "maps": server.maps,
        "languages": server.languages(),
        "player_count": player_count_of(server),
    })


def player_count_of(server: Server) -> dict[str, int] | None:
    """`{min, max, default}` of the pack's `player_count:` (None: it seats a fixed list):
    a new game may ask for `players` within it, seating the first that many."""
    spec = server.manifest.get("player_count")
    if not isinstance(spec, dict):
        return None
    fixed = [p for p in server.manifest.get("players", []) if p not in server.seated_by()]
    most = spec.get("max", len(fixed))
    return {"min": spec.get("min", 2), "max": most, "default": spec.get("default", most)}


def players_asked(server: Server, value: Any) -> int | None:
    """`players` of a new game: a whole number within the pack's count, or none given."""
    if value is None:
        return None
    count = player_count_of(server)
    if count is None:
        raise ApiError(400, "players: this pack seats a fixed list of players; leave it out")
    n = whole(value, "players")
    if not count["min"] <= n <= count["max"]:
        raise ApiError(400, f"players: this game seats from {count['min']} to {count['max']}")
    return n


async def new_game(request: Request) -> Response:
    server: Server = request.app.state.server
    data = await body_of(request)
    seed = data.get("seed")
    if seed is not None:
        seed = whole(seed, "seed")
        if not 0 <= seed <= MAX_SEED:
            raise ApiError(400, f"the seed must be between 0 and {MAX_SEED}")
    options = data.get("options") or {}
    declared = server.declared_options()
    if not isinstance(options, dict) or not all(
            k in declared and isinstance(v, bool) for k, v in options.items()):
        raise ApiError(400, f"options must map option names ({', '.join(declared)}) to "
                       "true or false")
    seats = text_map(data.get("seats"), "seats")
    language = chosen_language(server, data)
    mods = chosen_mods(server, data.get("mods"))
    players = players_asked(server, data.get("players"))
    program = server.program({**server.options, **options},
                             tuple(range(len(server.mods))) if mods is None else mods,
                             players=players)
    humans = [p for p, kind in server.checked_seats(program, seats).items()
              if kind == play.HUMAN]
    if seed is not None and len(humans) > 1:
        # the seed is the game: whoever holds it knows every hand and every draw to come
        raise ApiError(400, "a seed may be chosen only for a game with at most one human "
                       "seat (practice against agents); with several people the server "
                       "draws it")
    creator = creator_seat(data, humans)
    try:
        session = server.new_session(seed, options, seats, mods, language, players)
    except InputError as e:  # the rules failed while setting up the game
        raise ApiError(409, str(e)) from None
    return started(request, session, creator, language)


def chosen_language(server: Server, data: dict[str, Any]) -> str:
    """`lang`: the language the game is shown in (default en); the game is the same in all."""
    language = data.get("lang", "en")
    if language not in server.languages():
        raise ApiError(400, f"lang must be one of {', '.join(server.languages())}")
    return language


def creator_seat(data: dict[str, Any], humans: list[str]) -> str:
    """The seat the creator's browser takes: `me` (a human seat; default the first), or
    the whole table when `hot_seat` asks for every human seat at this one screen."""
    hot, me = data.get("hot_seat", False), data.get("me")
    if not isinstance(hot, bool):
        raise ApiError(400, "hot_seat must be true or false")
    if hot or not humans:  # a game of agents only: the creator watches from the table
        if me is not None:
            raise ApiError(400, "a hot-seat game gives this browser every human seat: "
                           "`me` names none")
        return TABLE
    if me is None:
        return humans[0]
    if me not in humans:
        raise ApiError(400, f"`me` must be one of the human seats ({', '.join(humans)})")
    return me


def chosen_mods(server: Server, value: Any) -> tuple[int, ...] | None:
    """Mods by their place in the server's list (never a path): a subset, in order."""
    if value is None:
        return None
    count = len(server.mods)
    if not isinstance(value, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count for i in value) \
            or len(set(value)) != len(value):
        raise ApiError(400, f"mods must list distinct numbers of the server's mods (0 to "
                       f"{count - 1})" if count else "this server was started with no mods")
    return tuple(sorted(value))


def started(request: Request, session: play.Session, creator: str,
            language: str) -> Response:
    """The creator's reply: the game (stored), the seat this browser now holds (its secret
    goes in the cookie only) and an invitation per other human seat; never the seed."""
    try:
        room, secret = request.app.state.server.rooms.add(session, creator, language)
    except StoreError as e:
        raise ApiError(500, str(e)) from None
    reply = JSONResponse({"id": room.game_id, "seats": session.seats, "me": creator,
                          "invitations": room.open_invitations(secret)}, status_code=201)
    return give_seat(request, reply, room.game_id, secret)


async def load(request: Request) -> Response:
    server: Server = request.app.state.server
    data = await body_of(request)
    log = data.get("log")
    if not isinstance(log, (dict, str)):
        raise ApiError(400, "give the session file's content as `log`")
    text = log if isinstance(log, str) else json.dumps(log)
    language = chosen_language(server, data)
    session = server.session_from_log(text, text_map(data.get("seats"), "seats"), language)
    humans = [p for p, kind in session.seats.items() if kind == play.HUMAN]
    if len(humans) > 1 and not session.game.is_terminal():
        # the file holds the seed: a game it seats several people at would show one of
        # them what the others hold
        raise ApiError(400, "a session file of an unfinished game loads with at most one "
                       "human seat (it holds the seed, and with it every hand); seat the "
                       "others with agents, or load it once the game is over")
    return started(request, session, creator_seat(data, humans), language)


async def claim(request: Request) -> Response:
    """An invitation opened: its seat becomes this browser's, once and for all."""
    room = room_of(request)
    token = (await body_of(request)).get("invite")
    if not isinstance(token, str) or not token:
        raise ApiError(400, "give the invitation's token as `invite`")
    game_id = request.path_params["game"]
    with room.lock:
        try:
            held = room.seat_of(request.cookies.get(cookie_name(game_id)))
        except NotYours:
            held = None
        player = room.invited(token)
        if player is None:
            raise ApiError(403, "this invitation is not (or no longer) open: each is claimed "
                           "once, by the first browser to open it")
        if held is not None:
            raise ApiError(409, f"this browser holds a seat of this game already ({held}); "
                           "send the invitation to the person who plays that seat")
        secret = room.claim(player)
        saved(request, room)
        reply = JSONResponse(state_of(request, room, player))
    return give_seat(request, reply, game_id, secret)


async def show(request: Request) -> Response:
    room = room_of(request)
    with room.lock:
        seat = seat_of(request, room)
        return JSONResponse(state_of(request, room, seat, secret_of(request)))


async def act(request: Request) -> Response:
    room = room_of(request)
    data = await body_of(request)
    index = whole(data.get("index"), "index")
    with room.lock:
        seat = seat_of(request, room)
        session = room.session
        if not room.may_act(seat):
            raise ApiError(409, "it is not this seat's turn to decide")
        at_of(data, room)
        legal = session.game.legal_actions()
        if not 0 <= index < len(legal):
            raise ApiError(409, f"no option {index} now: choose 0 to {len(legal) - 1}")
        try:
            session.apply(index)
        except InputError as e:
            raise ApiError(409, str(e)) from None
        try:
            advance_ai(room)
        finally:  # the seat's action stands even when the rules fail on an AI's reply
            saved(request, room)
        return JSONResponse(state_of(request, room, seat, secret_of(request)))


async def advance(request: Request) -> Response:
    room = room_of(request)
    with room.lock:
        seat = seat_of(request, room)
        moved = len(room.session.actions)
        try:
            advance_ai(room)
        finally:
            if len(room.session.actions) != moved:
                saved(request, room)
        return JSONResponse(state_of(request, room, seat, secret_of(request)))


def advance_ai(room: Room) -> None:
    """Let the AI seats move; the rules failing on their move is the content's fault (409,
    the game stays where it was before that move)."""
    try:
        room.advance()
    except InputError as e:
        raise ApiError(409, str(e)) from None


async def undo(request: Request) -> Response:
    """Take back the seat's last decision (and the AI replies after it) when it may alone;
    otherwise ask the other human seats (play.Session.take_back says which)."""
    room = room_of(request)
    data = await body_of(request)
    with room.lock:
        seat = seat_of(request, room)
        session = room.session
        at_of(data, room)
        player = undoer(room, seat)
        plan = session.take_back(player) if player and not session.game.is_terminal() \
            else None
        if plan is None:
            raise ApiError(409, "nothing to undo: this seat has made no decision yet"
                           if not session.game.is_terminal() else "the game is over")
        if plan.ask:
            room.asked = Asked(plan, len(session.actions))
        else:
            rewind(room, plan.keep)
        saved(request, room)
        return JSONResponse(state_of(request, room, seat, secret_of(request)))


def rewind(room: Room, keep: int) -> None:
    try:
        room.session.rewind(keep)
    except InputError as e:  # the same actions replayed: only a broken pack fails here
        raise ApiError(409, str(e)) from None
    room.asked = None


async def answer(request: Request) -> Response:
    """A seat asked agrees to the take-back or refuses it (the seat that asked may withdraw
    it); once every seat asked agrees, it is done. The table answers for all its seats."""
    room = room_of(request)
    accept = (await body_of(request)).get("accept")
    if not isinstance(accept, bool):
        raise ApiError(400, "give `accept`: true or false")
    with room.lock:
        seat = seat_of(request, room)
        session = room.session
        view = takeback_of(room, seat)
        if view is None:
            raise ApiError(409, "no take-back is waiting for an answer (the game may have "
                           "moved on)")
        plan = room.asked.plan
        withdraw = seat == plan.player and not accept
        if not (view["may_answer"] or withdraw):
            raise ApiError(403, "this seat is not asked to answer this take-back")
        if not accept:
            room.asked = None
            room.answer = {"player": plan.player, "by": room.viewer(seat), "accepted": False,
                           "at": len(session.actions)}
        else:
            room.asked.agreed.update(plan.ask if seat == TABLE else (seat,))
            if set(plan.ask) <= room.asked.agreed:
                rewind(room, plan.keep)
                room.answer = {"player": plan.player, "by": room.viewer(seat),
                               "accepted": True, "at": len(session.actions)}
        saved(request, room)
        return JSONResponse(state_of(request, room, seat, secret_of(request)))


async def save(request: Request) -> Response:
    """The session file, once the game is over: it holds the seed, and the seed is every
    hand and every draw."""
    room = room_of(request)
    with room.lock:
        seat_of(request, room)
        session = room.session
        if not session.game.is_terminal():
            raise ApiError(409, "the session file is handed out when the game is over (it "
                           "holds the seed); until then the server keeps the game: come "
                           "back to it through your own link")
        text = json.dumps(session.to_log().model_dump()) + "\n"
        name = f"hustings-{session.seed}.json"
    return Response(text, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def api_error(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


def http_error(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": getattr(exc, "detail", "error")},
                        status_code=getattr(exc, "status_code", 400))


def create_app(pack: Path | None = None, mods: list[Path] | None = None,
               options: dict[str, bool] | None = None, limit: int = MAX_GAMES,
               store: Store | None = None, guard: Guard | None = None,
               keep_days: float = KEEP_DAYS,
               keep_finished_days: float = KEEP_FINISHED_DAYS) -> Starlette:
    """The web board's app. `store`: where games are kept (default: in memory, gone with
    the process; `hustings serve` gives a file). `guard`: the Host/Origin allow-list
    (default: a guard checking bodies and content types only, for an app embedded or
    tested; `hustings serve` always gives one built from its address)."""
    server = Server(pack, mods or [], options or {}, limit, store, keep_days,
                    keep_finished_days)
    routes = [
        Route("/", index),
        Route("/api/setup", setup),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/load", load, methods=["POST"]),
        Route("/api/games/{game}", show),
        Route("/api/games/{game}/claim", claim, methods=["POST"]),
        Route("/api/games/{game}/act", act, methods=["POST"]),
        Route("/api/games/{game}/advance", advance, methods=["POST"]),
        Route("/api/games/{game}/undo", undo, methods=["POST"]),
        Route("/api/games/{game}/answer", answer, methods=["POST"]),
        Route("/api/games/{game}/save", save),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error,
                                                       404: http_error, 405: http_error})
    app.state.server = server
    app.add_middleware(Guard.middleware, guard=guard or Guard(None))
    return app

