"""The web board's HTTP interface (Starlette): a static page and a small JSON API.

    GET  /                         the page (static/index.html)
    GET  /api/setup                players (and the options seating some), agents, options,
                                   mods, the view's maps
    POST /api/games                a new game: {seed?, options?, seats?} -> id and seat links
    GET  /api/games/{id}?seat=T    the board as that seat sees it
    POST /api/games/{id}/act       {seat, index, at}: take option `index` (409 if not legal)
    POST /api/games/{id}/advance   {seat}: let AI seats move (bounded in time)
    POST /api/games/{id}/undo      {seat}: take back the seat's last decision
    GET  /api/games/{id}/save?seat=T   the session file of `hustings play --resume`
    POST /api/load                 {log, seats?}: a new game from a session file

Every error is JSON `{"error": ...}` with a 4xx status; nothing of a game changes on one.
"""

from __future__ import annotations

import json
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
from ...interpreter.program import Program
from .. import play
from ..agents import parse_agent
from ..failures import InputError, UsageError
from .board import board_for, decision
from .rooms import AI_MOVE_SECONDS, TABLE, NotYours, Room, Rooms

STATIC = Path(__file__).parent / "static"
MAX_BODY = 2_000_000
MAX_SEED = 2**63 - 1


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Server:
    """What `hustings serve` was given (the pack, its mods, default options) and the games."""

    def __init__(self, pack: Path | None, mods: list[Path], options: dict[str, bool],
                 limit: int = 64) -> None:
        self.pack, self.mods, self.options = pack, list(mods), dict(options)
        self.folder = pack or builtin_pack()
        self.manifest = YAML(typ="safe").load((self.folder / "pack.yaml").read_text("utf-8"))
        self.programs: dict[tuple, Program] = {}
        self.programs_lock = threading.Lock()
        self.rooms = Rooms(limit)
        self.refs = play.mod_refs(self.mods)
        self.program(self.options)  # content errors show at start, not at the first game
        self.maps = self.read_maps()

    # ---- content ----------------------------------------------------------
    def program(self, options: dict[str, bool], mods: tuple[int, ...] | None = None) -> Program:
        """The pack with these options and these of the server's mods (default: all)."""
        mods = tuple(range(len(self.mods))) if mods is None else mods
        key = (tuple(sorted(options.items())), mods)
        with self.programs_lock:
            if key not in self.programs:
                self.programs[key] = load_pack(self.pack, options, [self.mods[i] for i in mods])
            return self.programs[key]

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

    # ---- sessions ---------------------------------------------------------
    def new_session(self, seed: int | None, options: dict[str, bool],
                    seats: dict[str, str], mods: tuple[int, ...] | None = None) -> play.Session:
        mods = tuple(range(len(self.mods))) if mods is None else mods
        program = self.program({**self.options, **options}, mods)
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
        left_out = set(self.seated_by()) - set(program.players)
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

    def session_from_log(self, text: str, seats: dict[str, str]) -> play.Session:
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
                program = play.load_recorded(lambda: self.program(dict(log.options), mods),
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
    room = request.app.state.server.rooms.get(request.path_params["game"])
    if room is None:
        raise ApiError(404, "no such game (it may have ended with the server or been "
                       "forgotten for newer ones)")
    return room


def seat_of(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ApiError(400, "give the seat's token as `seat`")
    return value


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


def state_of(game_id: str, room: Room, token: str) -> dict[str, Any]:
    """Everything the token's page shows (its viewer's observation only)."""
    try:
        viewer = room.viewer(token)
    except NotYours as e:
        raise ApiError(403, str(e)) from None
    session = room.session
    game = session.game
    mine = room.may_act(token)
    pending = game.state.pending
    seat = room.tokens[token]
    try:  # labels and remarks are made on request: the rules may fail making them
        board, shown = board_for(game, viewer), decision(game) if mine else None
    except RuleError as e:
        raise ApiError(409, f"rule error while making the options to show: {e}") from None
    return {
        "id": game_id,
        "viewer": viewer,
        "table": seat == TABLE,
        "seats": session.seats,
        "seed": session.seed,
        "options": session.options,
        "actions": len(session.actions),
        "ai_turn": room.ai_turn(),
        "can_undo": any(p == viewer or (seat == TABLE and session.seats[p] == play.HUMAN)
                        for p in session.deciders),
        "board": board,
        "waiting": {"player": pending["player"], "prompt": pending["prompt"]}
        if pending and not mine else None,
        "decision": shown,
    }


# ---- endpoints --------------------------------------------------------------------
async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def setup(request: Request) -> Response:
    server: Server = request.app.state.server
    program = server.program(server.options)
    seated_by = server.seated_by()
    # every player of the pack: those an option seats are offered with the option's name
    players = [p for p in server.manifest.get("players", []) if isinstance(p, str)
               and (p in program.players or p in seated_by)]
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
    })


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
    try:
        session = server.new_session(seed, options, seats,
                                     chosen_mods(server, data.get("mods")))
    except InputError as e:  # the rules failed while setting up the game
        raise ApiError(409, str(e)) from None
    return started(request, session)


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


def started(request: Request, session: play.Session) -> Response:
    game_id, room = request.app.state.server.rooms.add(session)
    links = {seat: token for token, seat in room.tokens.items()}
    return JSONResponse({"id": game_id, "seats": session.seats, "links": links,
                         "seed": session.seed}, status_code=201)


async def load(request: Request) -> Response:
    server: Server = request.app.state.server
    data = await body_of(request)
    log = data.get("log")
    if not isinstance(log, (dict, str)):
        raise ApiError(400, "give the session file's content as `log`")
    text = log if isinstance(log, str) else json.dumps(log)
    session = server.session_from_log(text, text_map(data.get("seats"), "seats"))
    return started(request, session)


async def show(request: Request) -> Response:
    room = room_of(request)
    token = seat_of(request.query_params.get("seat"))
    with room.lock:
        return JSONResponse(state_of(request.path_params["game"], room, token))


async def act(request: Request) -> Response:
    room = room_of(request)
    data = await body_of(request)
    token = seat_of(data.get("seat"))
    index = whole(data.get("index"), "index")
    with room.lock:
        state_of(request.path_params["game"], room, token)  # 403 for a stranger's token
        session = room.session
        if not room.may_act(token):
            raise ApiError(409, "it is not this seat's turn to decide")
        if "at" in data and whole(data["at"], "at") != len(session.actions):
            raise ApiError(409, "the game has moved on since this page was drawn; reload it")
        legal = session.game.legal_actions()
        if not 0 <= index < len(legal):
            raise ApiError(409, f"no option {index} now: choose 0 to {len(legal) - 1}")
        try:
            session.apply(index)
        except InputError as e:
            raise ApiError(409, str(e)) from None
        advance_ai(room)
        return JSONResponse(state_of(request.path_params["game"], room, token))


async def advance(request: Request) -> Response:
    room = room_of(request)
    token = seat_of((await body_of(request)).get("seat"))
    with room.lock:
        state_of(request.path_params["game"], room, token)
        advance_ai(room)
        return JSONResponse(state_of(request.path_params["game"], room, token))


def advance_ai(room: Room) -> None:
    """Let the AI seats move; the rules failing on their move is the content's fault (409,
    the game stays where it was before that move)."""
    try:
        room.advance()
    except InputError as e:
        raise ApiError(409, str(e)) from None


async def undo(request: Request) -> Response:
    room = room_of(request)
    token = seat_of((await body_of(request)).get("seat"))
    with room.lock:
        viewer = state_of(request.path_params["game"], room, token)["viewer"]
        session = room.session
        if room.tokens[token] == TABLE:
            humans = [p for p in reversed(session.deciders) if session.seats[p] == play.HUMAN]
            viewer = humans[0] if humans else viewer
        if session.undo(viewer) == 0:
            raise ApiError(409, "nothing to undo: this seat has made no decision yet")
        return JSONResponse(state_of(request.path_params["game"], room, token))


async def save(request: Request) -> Response:
    room = room_of(request)
    token = seat_of(request.query_params.get("seat"))
    with room.lock:
        state_of(request.path_params["game"], room, token)
        text = json.dumps(room.session.to_log().model_dump()) + "\n"
        name = f"hustings-{room.session.seed}.json"
    return Response(text, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def api_error(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


def http_error(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": getattr(exc, "detail", "error")},
                        status_code=getattr(exc, "status_code", 400))


def create_app(pack: Path | None = None, mods: list[Path] | None = None,
               options: dict[str, bool] | None = None, limit: int = 64) -> Starlette:
    server = Server(pack, mods or [], options or {}, limit)
    routes = [
        Route("/", index),
        Route("/api/setup", setup),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/load", load, methods=["POST"]),
        Route("/api/games/{game}", show),
        Route("/api/games/{game}/act", act, methods=["POST"]),
        Route("/api/games/{game}/advance", advance, methods=["POST"]),
        Route("/api/games/{game}/undo", undo, methods=["POST"]),
        Route("/api/games/{game}/save", save),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error,
                                                       404: http_error, 405: http_error})
    app.state.server = server
    return app

