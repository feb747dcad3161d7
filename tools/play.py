"""`hustings play`: a game session — seats, narration, logs, replays, save, resume and undo.

A session is the pack (+ mods, options) and a seed with a list of actions, nothing else:
saving writes that list (schemas/log.py), resuming and undoing replay it from the seed.
AI seats draw their randomness from (seed, decision number), not from a generator that
runs along with the game, so a replayed history leaves them exactly where they were and
the same decisions after a resume or an undo give the same game, byte for byte.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dsl.diagnostics import ContentError
from ..dsl.fingerprint import folder_hash
from ..dsl.loading import load_pack
from ..interpreter import rng
from ..interpreter.errors import IllegalAction, RuleError
from ..interpreter.game import Game
from ..interpreter.program import Program
from ..interpreter.support import holdings, leader
from ..interpreter.teams import team_name
from .agents import AGENTS, Agent, make_agent
from .failures import INTERRUPTED, InputError, UsageError
from .terminal.look import player_name
from .terminal.requests import QuitRequest, SaveRequest, UndoRequest
from .wording import ui

if TYPE_CHECKING:
    from ..schemas.log import SessionLog

HUMAN = "human"
MAX_LOG_BYTES = 20_000_000  # a log of the longest game is well under 1 MB


def agent_names() -> list[str]:
    return [HUMAN, *AGENTS]


def agent_problem(spec: str) -> str | None:
    """What is wrong with a seat's agent (`human`, `greedy`, `ismcts:iterations=50` ...),
    or None."""
    if spec == HUMAN:
        return None
    if spec.partition(":")[0] not in AGENTS:
        return f"the agents are {', '.join(agent_names())}"
    try:
        make_agent(spec, 0)
    except ValueError as e:
        return str(e)
    return None


def fresh_seed() -> int:
    import secrets  # only a game without --seed needs it (5 ms to import: hmac, hashlib)

    return secrets.randbelow(2**31)


# ---- reading a session file -------------------------------------------------------
def read_log(path: Path) -> SessionLog:
    """A session file, checked for its shape; every problem is one line naming the file."""
    from pydantic import ValidationError  # the log model: resuming and replaying only

    from ..schemas.log import FORMAT, FORMAT_VERSION, SessionLog
    if not path.is_file():
        raise UsageError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise UsageError(f"{path}: cannot be read ({e.strerror})") from None
    if len(raw) > MAX_LOG_BYTES:
        raise InputError(f"{path}: larger than {MAX_LOG_BYTES // 1_000_000} MB; not a hustings log")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; a hustings log is a JSON file") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                         "a hustings log is a JSON file") from None
    except ValueError as e:  # e.g. a number with more digits than Python converts
        raise InputError(f"{path}: not a hustings log ({e})") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply; not a hustings log") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a hustings log (it has no \"format\": \"{FORMAT}\")")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        age = ("newer than this hustings reads" if isinstance(version, int) and version > 1
               else "not one this hustings reads")
        raise InputError(f"{path}: format_version {json.dumps(version)} is {age} "
                         f"(it reads version {FORMAT_VERSION})")
    try:
        return SessionLog.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = first["loc"]
        if len(loc) >= 2 and loc[0] == "actions" and isinstance(loc[1], int):
            value = json.dumps(data["actions"][loc[1]])[:40]
            raise InputError(f"{path}: action {loc[1] + 1} is {value}: an action is a whole "
                             "number (its index among the legal ones) or a label") from None
        where = ".".join(str(p) for p in loc) or "the file"
        more = f" (and {e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        raise InputError(f"{path}: {where}: {first['msg'].lower()}{more}") from None


@dataclass(frozen=True)
class PackId:
    """The pack a session plays, as its log names it (schemas/log.py's PackRef)."""

    name: str
    version: str


@dataclass(frozen=True)
class ModId:
    """A mod a session applies, as its log names it (schemas/log.py's ModRef)."""

    name: str
    hash: str


def same_pack(recorded: Any, pack: PackId) -> bool:
    """A log's pack (from the file) is this one."""
    return (recorded.name, recorded.version) == (pack.name, pack.version)


def mod_refs(paths: list[Path]) -> list[ModId]:
    return [ModId(name=mod_name(p), hash=folder_hash(mod_root(p))) for p in paths]


def mod_root(path: Path) -> Path:
    return path.parent if path.name == "mod.yaml" else path


def mod_name(path: Path) -> str:
    """The name the mod's manifest gives itself (the folder name if it has none)."""
    from ruamel.yaml import YAML  # only a game with mods needs it

    try:
        manifest = YAML(typ="safe").load((mod_root(path) / "mod.yaml").read_text("utf-8"))
        return str(manifest["name"])
    except Exception:  # the pack loader has already reported a broken manifest
        return mod_root(path).name


def check_mods(log: SessionLog, given: list[ModId], path: Path) -> None:
    """A log replays only with the very mods it was played with, passed with --mod."""
    if [m.hash for m in log.mods] == [m.hash for m in given]:
        return
    recorded = ", ".join(f"{m.name} ({m.hash[:12]})" for m in log.mods) or "no mods"
    passed = ", ".join(f"{m.name} ({m.hash[:12]})" for m in given) or "no mods"
    raise UsageError(f"{path} was played with {recorded} but this command applies {passed}; "
                     "pass the same mod folders, in the same order, with --mod PATH")


def pack_ref(program: Program) -> PackId:
    return PackId(name=program.name, version=program.version)


# ---- the session ------------------------------------------------------------------
@dataclass(frozen=True)
class Mark:
    """What a human seat knew as it took a decision, kept to judge a later take-back: the
    generator's state, the cards it saw (a count per card: a copy arriving where it sees
    is news) and how many narration lines each player had received."""

    rng: int
    seen: Counter
    heard: tuple[int, ...]


@dataclass(frozen=True)
class TakeBack:
    """What taking back a seat's last decision would undo, and who must agree first."""

    player: str
    keep: int  # the actions kept: the decision taken back is action number `keep`
    undone: int  # how many actions go (that decision and all after it)
    ask: tuple[str, ...]  # the other human seats to ask (empty: the seat may do it alone)
    why: str  # why they are asked ("" when nobody is)


def seen_cards(obs: dict[str, Any]) -> Counter:
    """Every card an observation shows anywhere: the zones it sees, and what was shown to
    it ({card id: the zone it was in then}; a card shown again elsewhere is news too)."""
    seen: Counter = Counter()
    for cards in obs.get("zones", {}).values():
        if isinstance(cards, list):
            seen.update(cards)
    seen.update(f"shown {card} in {zone}" for card, zone in obs.get("shown", {}).items())
    return seen


@dataclass
class Session:
    """A game being played: its inputs, the actions taken so far and who took them."""

    program: Program
    pack: PackId
    seed: int
    options: dict[str, bool]
    mods: list[ModId]
    seats: dict[str, str]
    actions: list[int] = field(default_factory=list)
    deciders: list[str] = field(default_factory=list)
    marks: list[Mark | None] = field(default_factory=list)  # per action: a human's, or None
    game: Game | None = None
    shown: dict[str | None, int] = field(default_factory=dict)  # narration printed, per reader
    humans: dict[str, Agent] = field(default_factory=dict)  # one prompt per human seat
    # what `hustings play --resume FILE` needs besides the file: the pack and mods' folders
    resume_with: str = ""

    def human_seats(self) -> list[str]:
        return [p for p, kind in self.seats.items() if kind == HUMAN]

    def narration(self, reader: str | None) -> list[str]:
        """The narration `reader` receives (their observation's); None: a spectator of a
        game no person plays, who reads all of it."""
        if reader is None:
            return list(self.game.state.log)
        return self.observe(reader)["log"]

    def observe(self, player: str) -> dict[str, Any]:
        """`player`'s observation; the rules failing while making the pending options it
        holds (they are made on request) is the content's fault."""
        try:
            return self.game.observation(player)
        except RuleError as e:
            raise InputError(f"rule error while making {self.game.current_player()}'s "
                             f"options after {len(self.actions)} actions: {e}") from None

    def reader(self) -> str | None:
        """Whose narration the terminal prints now: the one human seat; with several at one
        screen, the one about to decide (None while an AI decides: it waits for them)."""
        humans = self.human_seats()
        if not humans:
            return None
        if len(humans) == 1:
            return humans[0]
        current = self.game.current_player()
        return current if current in humans else ""

    def closing_reader(self) -> str | None:
        """Whose narration ends the game on screen: the last person to decide."""
        humans = self.human_seats()
        done = [p for p in reversed(self.deciders) if p in humans]
        return done[0] if done else (humans[0] if humans else None)

    def narrate(self, reader: str | None = None) -> None:
        if reader == "":
            return
        for line in self.unread(reader):
            print(line)

    def unread(self, reader: str | None) -> list[str]:
        """The lines of `reader`'s narration not printed yet, counted as printed now (a
        human seat's prompt prints them as its recap)."""
        log = self.narration(reader)
        new = log[self.shown.get(reader, 0):]
        self.shown[reader] = len(log)
        return new

    def start(self) -> Game:
        try:
            self.game = Game.new(self.program, seed=self.seed, safe=True)
        except RuleError as e:
            raise InputError(f"the rules failed while setting up the game: {e}") from None
        self.actions, self.deciders, self.marks, self.shown = [], [], [], {}
        return self.game

    def mark(self, player: str) -> Mark | None:
        """What a human seat knows now (None for an AI seat: nobody asks its consent)."""
        if self.seats.get(player) != HUMAN:
            return None
        game = self.game
        obs = self.observe(player)
        heard = tuple(len(obs["log"]) if p == player else len(self.observe(p)["log"])
                      for p in self.program.players)
        return Mark(rng=game.state.rng, seen=seen_cards(obs), heard=heard)

    def apply(self, index: int, mark: bool = True) -> str:
        """Apply a legal action by index; return its label. `mark`: keep what a human
        decider knew (replays keep it only for decisions a take-back may reach)."""
        game = self.game
        player = game.current_player()
        label = options_of(game, f"after {len(self.actions)} actions")[index]
        known = self.mark(player) if mark else None
        try:
            game.apply_action(index)
        except RuleError as e:
            raise InputError(f"rule error after {len(self.actions)} actions "
                             f"({player}: {label}): {e}") from None
        self.actions.append(index)
        self.deciders.append(player)
        self.marks.append(known)
        return label

    def replay(self, actions: list[int | str], source: Path, narrate: bool = False,
               marked: set[int] | None = None) -> None:
        """Apply recorded actions, each checked: in range, legal, none past the game's end.
        `marked`: the actions (by place) whose decider's knowledge is kept; None: those a
        take-back may reach, found by replaying once more when people play (making the
        marks of every decision would cost ten times the replay)."""
        total = len(actions)
        for n, action in enumerate(actions, 1):
            game = self.game
            if game.is_terminal():
                raise InputError(f"{source}: the game ends after action {n - 1} but the log "
                                 f"has {total} actions")
            legal = options_of(game, f"after {n - 1} actions of {source}")
            if isinstance(action, int):
                if not 0 <= action < len(legal):
                    raise InputError(f"{source}: action {n} is {action} but only {len(legal)} "
                                     f"actions are legal (0 to {len(legal) - 1})")
                index = action
            else:
                try:
                    index = game.index_of(action)
                except IllegalAction:
                    shown = action if len(action) <= 60 else action[:57] + "..."
                    raise InputError(f"{source}: action {n} {shown!r} is not legal for "
                                     f"{game.current_player()} at that point") from None
            if narrate:
                self.narrate()
            self.apply(index, mark=marked is not None and n - 1 in marked)
        if marked is None and self.human_seats():
            self.rewind(len(self.actions))
        if not narrate:
            self.catch_up()

    def catch_up(self) -> None:
        """Count every line so far as printed (a resumed or rewound game)."""
        readers = [None, *self.human_seats()]
        self.shown = {r: len(self.narration(r)) for r in readers}

    def take_back(self, player: str) -> TakeBack | None:
        """What taking back `player`'s last decision (and all after it) means, or None if
        the seat has made none. The seat may do it alone only while no other human has
        decided since and nothing hidden reached it since: the generator unused (no draw
        from a bag, shuffle or die), no card come into its sight, no line told to it
        alone. Otherwise every other human seat must agree; a game with no other human
        seat asks nobody."""
        if player not in self.deciders:
            return None
        keep = len(self.deciders) - 1 - self.deciders[::-1].index(player)
        others = tuple(p for p in self.human_seats() if p != player)
        why = self.news_since(player, keep) if others else ""
        return TakeBack(player, keep, len(self.actions) - keep, others if why else (), why)

    def news_since(self, player: str, keep: int) -> str:
        """Why action `keep` (the player's) cannot be taken back alone: "" if it can."""
        later = [p for p in self.deciders[keep + 1:] if p != player and
                 self.seats.get(p) == HUMAN]
        if later:
            return f"{later[0]} has decided since"
        then, now = self.marks[keep], self.mark(player)
        if then is None or now is None:  # no record of what it knew: ask
            return "what the seat knew then is not known"
        if now.rng != then.rng:
            return "chance was drawn since (a shuffle, a draw or a die)"
        if now.seen - then.seen:
            return "cards hidden then have been seen since"
        if private_lines(self.program.players.index(player), then.heard, now.heard,
                         [self.narration(p) for p in self.program.players]):
            return "something was told to this seat alone since"
        return ""

    def undo(self, player: str) -> int:
        """Take back `player`'s last decision and all after it; return how many were undone
        (the caller has judged, with take_back(), whether it may)."""
        plan = self.take_back(player)
        if plan is None:
            return 0
        self.rewind(plan.keep)
        return plan.undone

    def rewind(self, keep: int) -> None:
        """Replay the game from its seed with its first `keep` actions, keeping what each
        human seat knew at its last decision among them (what a take-back reaches)."""
        kept = self.actions[:keep]
        last = {p: n for n, p in enumerate(self.deciders[:keep])}
        self.start()
        self.replay(kept, Path("(undo)"), marked=set(last.values()))

    def to_log(self) -> SessionLog:
        from ..schemas.log import FORMAT, FORMAT_VERSION, ModRef, PackRef, SessionLog

        return SessionLog(format=FORMAT, format_version=FORMAT_VERSION,
                          pack=PackRef(name=self.pack.name, version=self.pack.version),
                          seed=self.seed, options=self.options,
                          players=self.program.player_count,
                          mods=[ModRef(name=m.name, hash=m.hash) for m in self.mods],
                          seats=self.seats, actions=list(self.actions))

    def save(self, path: Path) -> None:
        text = json.dumps(self.to_log().model_dump()) + "\n"
        path.write_text(text, encoding="utf-8")


def private_lines(me: int, then: tuple[int, ...], now: tuple[int, ...],
                  logs: list[list[str]]) -> bool:
    """Whether player number `me` received, since `then`, a line some other player did not
    (the lines each received since, compared as multisets)."""
    mine = Counter(logs[me][then[me]:now[me]])
    return any(mine - Counter(log[then[i]:len(log)]) for i, log in enumerate(logs) if i != me)


# ---- choosing -----------------------------------------------------------------------
def ai_seed(seed: int, decision: int) -> int:
    """The randomness of an AI's decision number `decision`: a function of both, no state."""
    return rng.next_state((seed * 0x9E3779B97F4A7C15 + decision) & rng.MASK)[1]


def choose(session: Session, player: str) -> int:
    kind = session.seats.get(player, "random")
    game = session.game
    if kind == HUMAN:
        if player not in session.humans:  # kept: it numbers a decision asked again alike
            from .terminal.human import human_agent  # rich is imported only for a human

            session.humans[player] = human_agent(news=session.unread)
        return weigh(session.humans[player], game,
                     f"making {player}'s options after {len(session.actions)} actions")
    return weigh(make_agent(kind, ai_seed(session.seed, len(session.actions))), game,
                 f"the {kind} agent weighed {player}'s options after {len(session.actions)} "
                 "actions")


def options_of(game: Game, when: str) -> list[str]:
    """The labels of the pending decision; the rules failing while making them (they are
    made on request) is the content's fault."""
    try:
        return game.legal_actions()
    except RuleError as e:
        raise InputError(f"rule error while making {game.current_player()}'s options "
                         f"{when}: {e}") from None


def weigh(agent: Agent, game: Game, doing: str) -> int:
    """The agent's choice. An agent tries options on copies of the game, so the rules
    failing there fail in the real game too: the content's fault, not the agent's."""
    try:
        return agent(game)
    except RuleError as e:
        raise InputError(f"rule error while {doing}: {e}") from None


# ---- the loop --------------------------------------------------------------------------
@dataclass
class PlayArgs:
    """What `hustings play` was asked, after the command line is parsed and checked."""

    pack: Path | None
    options: dict[str, bool]
    mods: list[Path]
    seed: int | None
    seats: dict[str, str]
    quiet: bool = False
    log: Path | None = None
    replay: Path | None = None
    resume: Path | None = None
    language: str = "en"
    players: int | None = None  # --players N (None: the pack's default count)


def play(a: PlayArgs) -> int:
    session, recorded = open_session(a)
    session.resume_with = resume_arguments(a)
    if a.replay:
        session.replay(recorded.actions, a.replay, narrate=not a.quiet)
        if not session.game.is_terminal():
            raise InputError(f"{a.replay}: the log ends after {len(recorded.actions)} actions, "
                             "before the game does (resume it with --resume)")
    elif a.resume:
        session.replay(recorded.actions, a.resume)
        if not a.quiet:
            print(ui(session.program, "resumed {file}: {n} actions replayed", file=a.resume,
                     n=len(session.actions)))
    code = run_loop(session, a.quiet, a.resume or Path(f"hustings-{session.seed}.json"))
    if code != 0:
        return code
    finish(session, a.quiet)
    if a.log is not None:
        try:
            session.save(a.log)
        except OSError as e:
            raise InputError(f"--log {a.log}: the log could not be written ({e.strerror})") \
                from None
    return 0


def resume_arguments(a: PlayArgs) -> str:
    """` --pack P --mod M`: what the command that goes on with a saved game needs to be
    given again (the save records the seats, options and actions, not where the pack is)."""
    folders = ([("--pack", a.pack)] if a.pack is not None else []) + [("--mod", m) for m in a.mods]
    return "".join(f" {flag} {shlex.quote(str(path))}" for flag, path in folders)


def load_recorded(load: Callable[[], Program], source: Path | None) -> Program:
    """The pack as `load` compiles it with a session file's options: an option the pack
    does not declare is the file's fault (named as such), not the pack's."""
    try:
        return load()
    except ContentError as e:
        errors = e.report.errors
        if errors and all(d.code == "E176" for d in errors):  # the count asked for
            if source is None:
                raise UsageError(f"--players: {errors[0].message} ({errors[0].hint})") from None
            raise InputError(f"{source}: its count of players does not fit the pack: "
                             f"{errors[0].message}") from None
        if source is None or not errors or any(d.code != "E105" for d in errors):
            raise
        raise InputError(f"{source} was played with an option the pack does not declare: "
                         f"{errors[0].message} ({errors[0].hint})") from None


def shown_in(program: Program, pack: Path | None, language: str) -> Program:
    """The program shown in `language` (--lang): the game is the same in every language,
    so a session file records none and replays in any."""
    from ..dsl.loading import builtin_pack
    from ..interpreter.catalog import CatalogError
    from ..interpreter.translation import in_language
    from .wording import TOOLS_CATALOGS

    try:
        return in_language(program, pack or builtin_pack(), language, TOOLS_CATALOGS)
    except CatalogError as e:
        raise InputError(f"--lang {language}: {e}") from None


def open_session(a: PlayArgs) -> tuple[Session, SessionLog | None]:
    """Check everything the command line and a log ask before any game is played."""
    source = a.replay or a.resume
    recorded = read_log(source) if source else None
    if recorded is not None:
        if a.seed is not None:
            raise UsageError(f"{source} fixes the seed; --seed cannot change it")
        if a.options:
            raise UsageError(f"{source} fixes the options; --option cannot change them")
        if a.players is not None:
            raise UsageError(f"{source} fixes the number of players; --players cannot "
                             "change it")
    if a.log is not None:
        check_writable(a.log)
    refs = mod_refs(a.mods)
    if recorded is not None:
        check_mods(recorded, refs, source)
    options = dict(recorded.options) if recorded else a.options
    players = recorded.players if recorded else a.players
    program = load_recorded(lambda: load_pack(a.pack, options, a.mods, players), source)
    program = shown_in(program, a.pack, a.language)
    pack = pack_ref(program)
    if recorded is not None and not same_pack(recorded.pack, pack):
        raise InputError(f"{source} is a game of the pack {recorded.pack.name} "
                         f"{recorded.pack.version}, not {pack.name} {pack.version}")
    seats = seat_table(program, recorded.seats if recorded else {}, a.seats, source)
    seed = recorded.seed if recorded else a.seed
    if seed is None:
        seed = fresh_seed()
        note = f"seed {seed} (play this game again with --seed {seed})"
        print(note, file=sys.stderr if a.quiet else sys.stdout)
    session = Session(program, pack, seed, options, refs, seats)
    session.start()
    return session, recorded


def run_loop(session: Session, quiet: bool, default_save: Path) -> int:
    while not session.game.is_terminal():
        game = session.game
        player = game.current_player()
        try:
            if not quiet and session.reader() is None:  # a person's prompt prints its recap
                session.narrate(None)
            index = choose(session, player)
        except SaveRequest as r:
            save_and_say(session, r.path or default_save)
            continue
        except UndoRequest:
            take_back_asked(session, player)
            continue
        except QuitRequest:
            return quit_session(session, default_save)
        except (KeyboardInterrupt, EOFError) as stop:
            return interrupted(session, default_save, stop)
        except InputError as e:  # an AI seat met a rule error weighing its options
            raise kept(session, default_save, e) from None
        try:
            session.apply(index)
        except InputError as e:  # the move broke the rules: the game is as it was
            if session.seats.get(player) != HUMAN:
                raise kept(session, default_save, e) from None
            print(f"  {e}\n" + ui(session.program, "  the game is as it was before that "
                                     "move: choose another (or save, undo, quit)"))
            continue
    if not quiet:
        session.narrate(session.closing_reader())
    return 0


def take_back_asked(session: Session, player: str) -> None:
    """`undo` at the prompt: alone when the seat may (Session.take_back), otherwise each
    other person at this screen is asked in turn; one refusal keeps the game as it is."""
    program = session.program
    plan = session.take_back(player)
    if plan is None:
        print(ui(program, "  nothing to undo: {player} has made no decision yet",
                 player=seat(program, player)))
        return
    for other in plan.ask:
        try:
            answer = input(ui(program, "  {player} asks to take back their last decision "
                                       "({why}); {other}, do you agree? [y/N] ",
                              player=seat(program, player), why=plan.why,
                              other=seat(program, other)))
        except (EOFError, KeyboardInterrupt):
            answer = "n"
        if answer.strip().lower() not in ("y", "yes"):
            print(ui(program, "  {other} declines: the game goes on as it is",
                     other=seat(program, other)))
            return
    session.rewind(plan.keep)
    print(ui(program, "  undone: {player}'s last decision and {n} after it",
             player=seat(program, player), n=plan.undone - 1))


def seat(program: Program, player: str) -> str:
    """A seat as the prompt's notes name it: by its display name."""
    return player_name(program, player)


def kept(session: Session, path: Path, error: InputError) -> InputError:
    """The rules failing on an AI's move stop the game: when a person plays in it, their
    game so far (before that move) is saved first, and the error says where."""
    if HUMAN not in session.seats.values():
        return error
    try:
        session.save(path)
    except OSError:
        return error
    return InputError(f"{error}\n  the game before that move is saved in {path} "
                      f"(go on with: hustings play --resume {path}{session.resume_with})")


def save_and_say(session: Session, path: Path) -> None:
    try:
        check_writable(path)
        session.save(path)
    except (UsageError, OSError) as e:
        print(ui(session.program, "  not saved: {error}", error=e))
        return
    print(ui(session.program, "  saved to {path} (go on later with: {command})", path=path,
             command=f"hustings play --resume {path}{session.resume_with}"))


def quit_session(session: Session, default_save: Path) -> int:
    try:
        answer = input(ui(session.program, "save the game to {path} before leaving? [Y/n] ",
                          path=default_save))
    except (EOFError, KeyboardInterrupt):
        answer = "n"
    if answer.strip().lower() in ("", "y", "yes"):
        save_and_say(session, default_save)
    print(ui(session.program, "the game is left unfinished"))
    return 0


def interrupted(session: Session, default_save: Path, stop: BaseException) -> int:
    """Ctrl-C or the end of input at a prompt: save the game where it stands, exit 130."""
    program = session.program
    why = ui(program, "interrupted" if isinstance(stop, KeyboardInterrupt) else "no more input")
    print()
    try:
        session.save(default_save)
    except OSError as e:
        print(ui(program, "hustings: {why}; the game could not be saved to {path} ({error})",
                 why=why, path=default_save, error=e.strerror), file=sys.stderr)
        return INTERRUPTED
    print(ui(program, "hustings: {why}; the game is saved in {path} (go on with: {command})",
             why=why, path=default_save,
             command=f"hustings play --resume {default_save}{session.resume_with}"),
          file=sys.stderr)
    return INTERRUPTED


def finish(session: Session, quiet: bool) -> None:
    """Print the final map and the result; a game its rules end without recording any
    result gets a warning saying how to record one, not a silent `{}`."""
    if not quiet:
        print(final_map(session.game))
    result = session.game.result() or {}
    if not quiet and isinstance(result.get("winners"), list):  # a team won: say who
        program = session.game.program
        print(ui(program, "{team} win together: {members}",
                 team=team_name(program, str(result.get("team"))),
                 members=", ".join(player_name(program, p) for p in result["winners"])))
    print(json.dumps(result, sort_keys=True))
    if not result:
        print("hustings: warning: the game ended but its rules recorded no result: record "
              "one before it ends (`record winner as P`, or `record winner as none` for a "
              "draw)", file=sys.stderr)


def check_writable(path: Path) -> None:
    """Fail before the game, not after it, when a file cannot be written there."""
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"{path}: the folder {folder} does not exist")
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give a file name")


def seat_table(program: Program, recorded: dict[str, str], given: dict[str, str],
               source: Path | None) -> dict[str, str]:
    """Each player's agent: the command line over the log's seats over `random`."""
    for player, agent in recorded.items():
        problem = agent_problem(agent) if player in program.players else "no such seat"
        if problem:
            raise InputError(f"{source}: seat {player}={agent} is not a seat of this pack "
                             f"({', '.join(program.players)}) with an agent ({problem})")
    for player in given:
        if player not in program.players:
            raise UsageError(f"--seat {player}: the pack's seats are "
                             f"{', '.join(program.players)}")
    return {p: given.get(p) or recorded.get(p) or "random" for p in program.players}


# ---- what is printed ----------------------------------------------------------------
def final_map(game: Game) -> str:
    """Each player's places: those the pack's `agents: places:` function says the player won,
    or, without one, those the player leads in the first pool."""
    s = game.state
    won = game.program.agents.get("places")
    pool = next(iter(s.pools), None)
    program = game.program
    lines = [ui(program, "== Final map ==")]
    for player in program.players:
        if won:
            places = sorted(game.evaluate(won, player) or [])
        else:
            places = sorted(w for w, entry in s.pools.get(pool, {}).items()
                            if leader(holdings(entry)) == player)
        who = player_name(program, player)
        lines.append(f"{who}: {' '.join(places)}")
    return "\n".join(lines)
