"""A person at the prompt: picks an action by number, label (any case), unique prefix, or
filters a long list by typing part of a label; or asks the session for something else
(save, undo, quit) by raising one of tools/terminal/requests.py."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Group, RenderableType
from rich.text import Text

from ...interpreter.game import Game
from ..agents import Agent
from .board import render_board, to_text
from .choices import Option, interpret, option_list, option_text, options_of
from .look import player_name, player_style
from .requests import QuitRequest, SaveRequest, UndoRequest

HELP = "\n".join([
    "  a number, a label or its first letters (any case): picks that option",
    "  other text, or /TEXT: shows the options with words starting so",
    "  ? WORDS: the text of the cards whose title holds the words",
    "  save [FILE], undo, quit: act on the game",
])


def terminal_width() -> int:
    return max(40, min(160, shutil.get_terminal_size((80, 24)).columns))


def wants_colour() -> bool:
    return sys.stdout.isatty()


def human_agent(show: Callable[[Game], None] | None = None,
                read: Callable[[str], str] | None = None,
                width: int | None = None, colour: bool | None = None) -> Agent:
    """The board (or `show`), the options, then answers read until one picks an option."""

    last = {"board": "", "log": None}

    def choose(game: Game) -> int:
        ask = read or input  # looked up per call, so a redirected input is honoured
        w = width or terminal_width()
        tint = wants_colour() if colour is None else colour
        player = game.current_player()
        if show is not None:
            show(game)
        else:
            drawn = render_board(game, player, w, tint)
            print(drawn if drawn != last["board"] else "(the board is as above)")
            last["board"] = drawn
            heard = game.observation(player)["log"]  # this player's narration only
            # (making it makes the options: the rules failing there reach the play loop)
            told = to_text(recap(heard, last["log"]), w, tint)
            if told.strip():
                print(told)
            last["log"] = len(heard)
        options = options_of(game)
        print(to_text(decision(game, options, w), w, tint))
        while True:
            # End of input (EOFError) goes up to the play loop, which saves the game.
            answer = ask(f"{player_name(game.program, player)} > ").strip()
            word, _, rest = answer.partition(" ")
            if word.lower() in ("save", "undo", "quit") and not labelled(options, answer):
                raise request(word.lower(), rest.strip())
            if answer.startswith("?"):
                print(card_texts(game, answer[1:].strip()))
                continue
            if not answer:
                print(HELP)
                continue
            meaning = interpret(options, answer)
            if meaning.index is not None:
                return meaning.index
            heading, shown = "", meaning.subset
            if not shown:
                heading, shown = card_options(game, options, answer)
            if shown:
                if heading:
                    print(heading)
                print(to_text(Group(*[option_text(o) for o in shown]), w, tint))
                continue
            print(f"  nothing matches {answer!r}: choose a number from 0 to {len(options) - 1}")
            print(HELP)

    return choose


def card_options(game: Game, options: list[Option], answer: str) -> tuple[str, list[Option]]:
    """A card's number typed where an option's is wanted (the hand lists cards by their
    numbers): a line saying so and the options whose label names that card, to pick
    from by their own numbers (none if no card has the number or no option names it)."""
    if not (answer.isascii() and answer.isdigit()) or len(answer) > 9:
        return "", []
    card = game.program.cards.get(int(answer)) or {}
    title = str(card.get("title") or "")
    naming = [o for o in options if title and title.lower() in o.label.lower()]
    return f"  {int(answer)} is the number of the card {title}; the options naming it:", naming


def recap(heard: list[str], seen: int | None, most: int = 10) -> RenderableType:
    """What happened since this player's last choice (the latest lines of the narration
    they receive), under the board."""
    if seen is None:
        return Text("")
    new = heard[seen:]
    if not new:
        return Text("")
    lines = [Text("Since your last choice:", style="bold")]
    if len(new) > most:
        lines.append(Text(f"  … {len(new) - most} earlier lines above", style="dim"))
    lines.extend(Text("  " + line.strip()) for line in new[-most:])
    return Group(*lines)


def labelled(options: list[Option], answer: str) -> bool:
    return any(o.label.lower() == answer.lower() for o in options)


def request(word: str, rest: str) -> Exception:
    if word == "save":
        return SaveRequest(Path(rest) if rest else None)
    return UndoRequest() if word == "undo" else QuitRequest()


def decision(game: Game, options: list[Option], width: int) -> RenderableType:
    """Who decides and what they are asked, the decision's status (e.g. points left),
    then the options."""
    player = game.current_player()
    status = game.remarks()["status"]
    question = game.question()
    head = Text(player_name(game.program, player), style=player_style(game.program, player))
    head.append(f": {question}" if question else " to choose")
    if status:
        head.append(" — ")
        head.append(str(status), style="bold cyan")
    return Group(head, option_list(game, options, width))


def card_texts(game: Game, words: str) -> str:
    """The printed text of every card whose title holds `words` (any case)."""
    found = [c for c in game.program.cards.values()
             if words and words.lower() in c["title"].lower()]
    if not found:
        return f"  no card title holds {words!r}"
    return "\n".join(f"  {c['title']}: {c.get('text') or '(no text)'}" for c in found)
