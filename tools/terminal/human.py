"""A person at the prompt: picks an action by number, label (any case), unique prefix, or
filters a long list by typing part of a label; or asks the session for something else
(save, undo, quit) by raising one of tools/terminal/requests.py.

Made for a screen of 80×24: the board once at the start of a run of decisions if it fits
(else a summary: the status, the players and the hand), what happened since the seat's
last decision (all of it), then the options — in pages when they do not fit — and last,
on the bottom lines, the question with what is left and the prompt. The board
is drawn again only when asked (`b`). Numbers stay put while one decision is asked again
(numbering.py); an option that gives up what is left asks first (choices.given_up).
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from ...interpreter.game import Game
from ..agents import Agent
from ..wording import ui
from .board import hand_lines, player_table, render_board, status_line, to_text
from .choices import Option, given_up, interpret, option_list, options_of
from .look import player_name, player_style
from .numbering import Numbering
from .requests import QuitRequest, SaveRequest, UndoRequest

HELP = "\n".join([
    "  a number, a label or its first letters (any case): picks that option",
    "  other text, or /TEXT: shows the options with words starting so",
    "  + / -: the next / previous page of options;  list: all the options again",
    "  b or board: the whole board;  log: what happened since your last decision",
    "  ? N: the text of card N;  ? WORDS: the cards whose title holds the words",
    "  save [FILE], undo, quit: act on the game",
])
COMMANDS = ("b", "board", "log", "list", "+", "-", "help")
YES = ("y", "yes")


def terminal_width() -> int:
    return max(40, min(160, shutil.get_terminal_size((80, 24)).columns))


def terminal_height() -> int:
    return max(10, shutil.get_terminal_size((80, 24)).lines)


def wants_colour() -> bool:
    return sys.stdout.isatty()


@dataclass
class Screen:
    """How one prompt prints: its width, height and whether in colour."""

    width: int
    height: int
    colour: bool

    def text(self, renderable: RenderableType) -> str:
        return to_text(renderable, self.width, self.colour)


@dataclass
class Listing:
    """The option lines on show, cut in pages that leave the question on screen."""

    pages: list[list[str]] = field(default_factory=list)
    page: int = 0
    below: int = 2  # the lines under the options: the question (and what is gone), the prompt
    program: Any = None  # whose catalog words the page notes (tools/wording.py)


def human_agent(read: Callable[[str], str] | None = None,
                width: int | None = None, colour: bool | None = None,
                height: int | None = None,
                news: Callable[[str], list[str]] | None = None) -> Agent:
    """A prompt for one seat. `news(player)`: the narration lines the seat has not been
    shown yet (the play session's); without it the prompt keeps count itself."""
    numbering = Numbering()
    heard: dict[str, int] = {}
    hands: dict[str, set[str]] = {}  # the cards in hand and shown, at the last decision

    def unread(game: Game, player: str) -> list[str]:
        if news is not None:
            return news(player)
        log = game.observation(player)["log"]  # this player's narration only
        new = log[heard.get(player, 0):]
        heard[player] = len(log)
        return new

    def choose(game: Game) -> int:
        ask = read or input  # looked up per call, so a redirected input is honoured
        screen = Screen(width or terminal_width(), height or terminal_height(),
                        wants_colour() if colour is None else colour)
        player = game.current_player()
        step = game.observation(player)["steps"]
        # (the observation makes the options: the rules failing there reach the play loop)
        starts = not numbering.goes_on(player, step)
        options, gone = numbering.number(player, step, game.prompt(), options_of(game))
        told = unread(game, player)
        listing = Listing(program=game.program)
        head = screen.text(decision_head(game))
        shown = listing_lines(game, options, screen)
        below = head.count("\n") + 2 + bool(gone)
        news = screen.text(recap(told, news_room(screen, below, len(shown)), game.program)) \
            if told else ""
        known = cards_in_sight(game, player)
        # the state first, then what changed: the news stays next to the question
        if starts:
            below = len(shown) + head.count("\n") + 3 + (news.count("\n") + 1 if news else 0)
            print(overview(game, player, screen, below))
        elif known - hands.get(player, known):  # a card drawn or shown within the run
            print(screen.text(Group(*hand_lines(game, game.observation(player), player))))
        hands[player] = known
        if news:
            print(news)
        show(listing, shown, screen, head, gone, news.count("\n") + 1 if news else 0)
        while True:
            # End of input (EOFError) goes up to the play loop, which saves the game.
            answer = ask(f"{player_name(game.program, player)} > ").strip()
            index = answered(game, answer, options, gone, listing, screen, told)
            if index is not None and confirmed(game, options, index, ask):
                return index
            print(footer(listing, head, gone, screen))

    return choose


def answered(game: Game, answer: str, options: list[Option], gone: dict[int, str],
             listing: Listing, screen: Screen, told: list[str]) -> int | None:
    """The option an answer picks, or None after printing what it asked for."""
    word, _, rest = answer.partition(" ")
    if word.lower() in ("save", "undo", "quit") and not labelled(options, answer):
        raise request(word.lower(), rest.strip())
    if answer.startswith("?"):
        print(card_texts(game, answer[1:].strip(), screen.width))
        return None
    if not answer or (answer.lower() in COMMANDS and not labelled(options, answer)):
        command(game, answer.lower(), options, listing, screen, told)
        return None
    meaning = interpret(options, answer, gone)
    if meaning.index is not None:
        return meaning.index
    if meaning.gone is not None:
        print(ui(game.program, "  {number} ({label}) is no longer offered: choose another",
                 number=answer.lstrip("0") or "0", label=meaning.gone))
        return None
    heading, subset = "", meaning.subset
    if not subset:
        heading, subset = card_options(game, options, answer)
    if subset:
        if heading:
            print(heading)
        set_pages(listing, listing_lines(game, subset, screen), screen)
        print("\n".join(listing.pages[0]))
        return None
    print(ui(game.program, "  nothing matches {answer}", answer=repr(answer)))
    print(ui(game.program, HELP))
    return None


def command(game: Game, word: str, options: list[Option], listing: Listing,
            screen: Screen, told: list[str]) -> None:
    """A word of the prompt's own (COMMANDS; nothing: the help)."""
    if word in ("b", "board"):
        print(render_board(game, game.current_player(), screen.width, screen.colour))
    elif word == "log":
        print(screen.text(recap(told, None, game.program)) if told else
              ui(game.program, "  nothing has happened since your last decision"))
    elif word == "list":
        set_pages(listing, listing_lines(game, options, screen), screen)
        print("\n".join(listing.pages[0]))
    elif word in ("+", "-"):
        turn_page(listing, 1 if word == "+" else -1, game)
    else:
        print(ui(game.program, HELP))


def turn_page(listing: Listing, by: int, game: Game) -> None:
    last = len(listing.pages) - 1
    if last == 0:
        print(ui(game.program, "  every option is on show"))
        return
    listing.page = min(last, max(0, listing.page + by))
    print("\n".join(listing.pages[listing.page]))


def confirmed(game: Game, options: list[Option], index: int,
              ask: Callable[[str], str]) -> bool:
    """Whether the pick stands: one that gives up what is left asks first (No by default)."""
    option = next(o for o in options if o.index == index)
    lost = given_up(option, options, game.remarks()["status"])
    if lost is None:
        return True
    answer = ask(ui(game.program, "  {label} gives up what is left ({lost}). Sure? [y/N] ",
                    label=option.label, lost=lost))
    if answer.strip().lower() in YES:
        return True
    print(ui(game.program, "  not done: still {lost}", lost=lost))
    return False


# ---- what is printed ------------------------------------------------------------------
def show(listing: Listing, lines: list[str], screen: Screen, head: str,
         gone: dict[int, str], above: int = 0) -> None:
    """The first page of options (under `above` lines of news), then the question."""
    listing.below = head.count("\n") + 2 + bool(gone) + above
    set_pages(listing, lines, screen)
    print("\n".join(listing.pages[0]))
    print(footer(listing, head, gone, screen))


def set_pages(listing: Listing, lines: list[str], screen: Screen) -> None:
    """Cut the lines in pages that fit above the question and the prompt (and a line the
    person's last answer takes)."""
    room = max(3, screen.height - listing.below - 1)
    if len(lines) <= room:
        listing.pages, listing.page = [lines], 0
        return
    room -= 1  # a line says which page this is
    cut = [lines[i:i + room] for i in range(0, len(lines), room)]
    total = len(cut)
    note = "  (page {n} of {total}: + next, - previous)"
    listing.pages = [[*page, ui(listing.program, note, n=n, total=total) if listing.program
                      else note.format(n=n, total=total)]
                     for n, page in enumerate(cut, 1)]
    listing.page = 0


def footer(listing: Listing, head: str, gone: dict[int, str], screen: Screen) -> str:
    """The bottom lines before the prompt: options no longer offered, then the question."""
    lines = []
    if gone:
        numbers = ", ".join(str(n) for n in sorted(gone))
        line = ui(listing.program, "  no longer offered: {numbers}", numbers=numbers) \
            if listing.program else f"  no longer offered: {numbers}"
        lines.append(line if len(line) <= screen.width else line[:screen.width - 1] + "…")
    lines.append(head)
    return "\n".join(lines)


def listing_lines(game: Game, options: list[Option], screen: Screen) -> list[str]:
    return screen.text(option_list(game, options, screen.width)).splitlines()


def overview(game: Game, player: str, screen: Screen, below: int) -> str:
    """The whole board if it fits above the options and the question, else a summary:
    the status line, the players and this player's hand."""
    whole = render_board(game, player, screen.width, screen.colour)
    if whole.count("\n") + 1 + below <= screen.height:
        return whole
    obs = game.observation(player)
    parts: list[RenderableType] = [status_line(game, obs, screen.width)]
    if game.program.view.get("player_rows"):
        parts.append(player_table(game, obs))
    parts.extend(hand_lines(game, obs, player))
    parts.append(Text(ui(game.program, "(b: the whole board)"), style="dim"))
    return screen.text(Group(*parts))


def cards_in_sight(game: Game, player: str) -> set[str]:
    """The cards of the seat's hands (as the view names them) and those shown to it."""
    obs = game.observation(player)
    zones = [obs["zones"].get(f"{zone}:{player}") for zone in game.program.view.get("hands", [])]
    held = {str(card) for cards in zones if isinstance(cards, list) for card in cards}
    return held | {f"shown {card} in {zone}" for card, zone in obs.get("shown", {}).items()}


MIN_PAGE = 6  # option lines a page keeps on screen however long the news


def news_room(screen: Screen, below: int, options: int) -> int:
    """The lines the news may take: what the question and a page of options leave."""
    return max(4, screen.height - below - 1 - min(options, MIN_PAGE + 1))


def recap(told: list[str], room: int | None = None, program: Any = None) -> RenderableType:
    """What happened since this player's last decision: every line of it, or when it
    is longer than `room` lines, its last lines and how to see all (`log`)."""
    if room is None or len(told) + 1 <= room:
        lines = [Text(said(program, "Since your last decision:"), style="bold")]
        lines.extend(Text("  " + line.strip()) for line in told)
        return Group(*lines)
    kept = told[len(told) - (room - 1):]
    lines = [Text(said(program, "Since your last decision ({n} lines more above: log shows "
                       "all):", n=len(told) - len(kept)), style="bold")]
    lines.extend(Text("  " + line.strip()) for line in kept)
    return Group(*lines)


def card_options(game: Game, options: list[Option], answer: str) -> tuple[str, list[Option]]:
    """A card's number typed where an option's is wanted (the hand lists cards by their
    numbers): a line saying so and the options whose label names that card, to pick
    from by their own numbers (none if no card has the number or no option names it)."""
    if not (answer.isascii() and answer.isdigit()) or len(answer) > 9:
        return "", []
    card = game.program.cards.get(int(answer)) or {}
    title = str(card.get("title") or "")
    naming = [o for o in options if title and title.lower() in o.label.lower()]
    return ui(game.program, "  {n} is the number of the card {title}; the options naming it:",
              n=int(answer), title=title), naming


def labelled(options: list[Option], answer: str) -> bool:
    return any(o.label.lower() == answer.lower() for o in options)


def request(word: str, rest: str) -> Exception:
    if word == "save":
        return SaveRequest(Path(rest) if rest else None)
    return UndoRequest() if word == "undo" else QuitRequest()


def decision_head(game: Game) -> Text:
    """Who decides and what they are asked, and the decision's status (e.g. points left)."""
    player = game.current_player()
    status = game.remarks()["status"]
    question = game.question()
    head = Text(player_name(game.program, player), style=player_style(game.program, player))
    head.append(ui(game.program, ": {question}", question=question) if question
                else ui(game.program, " to choose"))
    if status:
        head.append(" — ")
        head.append(str(status), style="bold cyan")
    return head


def decision(game: Game, options: list[Option], width: int) -> RenderableType:
    """Who decides and what they are asked, the decision's status (e.g. points left),
    then the options."""
    return Group(decision_head(game), option_list(game, options, width))


# ---- cards ------------------------------------------------------------------------------
def card_texts(game: Game, words: str, width: int = 80) -> str:
    """`? N`: the card numbered N (the number the hand shows); `? WORDS`: every card whose
    title holds the words (any case). Each with its number, title and printed text."""
    cards = game.program.cards
    wanted = words.removeprefix("#").strip()
    if wanted.isascii() and wanted.isdigit() and len(wanted) <= 9:
        card = cards.get(int(wanted))
        if not card:
            return ui(game.program, "  no card is numbered {n}", n=int(wanted))
        return card_line(int(wanted), card, width, game.program)
    if not wanted:
        return ui(game.program, "  ? N shows card N (the number beside it in the hand); "
                                "? WORDS searches titles")
    found = [(n, c) for n, c in cards.items() if wanted.lower() in str(c["title"]).lower()]
    if not found:
        return ui(game.program, "  no card title holds {words}", words=repr(wanted))
    return "\n".join(card_line(n, c, width, game.program) for n, c in found)


def card_line(number: int, card: dict, width: int, program: Any = None) -> str:
    """The card's number, title and text, wrapped between words under its first line."""
    text = f"#{number} {card['title']}: {card.get('text') or said(program, '(no text)')}"
    if cell_len(text) != len(text):  # wide letters (Japanese): cut by the columns they take
        return wrap_cells(text, width, "  ", "    ")
    return textwrap.fill(text, width=width, initial_indent="  ", subsequent_indent="    ")


def wrap_cells(text: str, width: int, first: str, rest: str) -> str:
    """`text` in lines of at most `width` terminal columns, a wide letter taking two: a
    language written without spaces is cut between any two letters."""
    lines, line = [], first
    for letter in text:
        if cell_len(line) + cell_len(letter) > width and line.strip():
            lines.append(line.rstrip())
            line = rest
        line += letter
    lines.append(line.rstrip())
    return "\n".join(lines)


def said(program: Any, text: str, **values: Any) -> str:
    """A note of the prompt's, in the game's language when there is a program to ask."""
    return ui(program, text, **values) if program is not None else text.format(**values)
