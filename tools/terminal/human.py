"""A person at the prompt: picks an action by number or label, or asks the session for
something else (save, undo, quit) by raising one of tools/terminal/requests.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...interpreter.game import Game
from ..agents import Agent
from .requests import QuitRequest, SaveRequest, UndoRequest


def human_agent(show: Callable[[Game], None], read: Callable[[str], str] | None = None) -> Agent:
    def choose(game: Game) -> int:
        ask = read or input  # looked up per call, so a redirected input is honoured
        show(game)
        actions = game.legal_actions()
        for i, label in enumerate(actions):
            print(f"  {i:3d}. {label}")
        while True:
            try:
                answer = ask(f"{game.current_player()} > ").strip()
            except EOFError:
                raise SystemExit("no more input: the game is abandoned") from None
            if answer.isdigit() and int(answer) < len(actions):
                return int(answer)
            if answer in actions:
                return actions.index(answer)
            word, _, rest = answer.partition(" ")
            if word == "save":
                raise SaveRequest(Path(rest.strip()) if rest.strip() else None)
            if word == "undo":
                raise UndoRequest()
            if word == "quit":
                raise QuitRequest()
            if answer.startswith("?"):
                print(card_texts(game, answer[1:].strip()))
                continue
            print(f"  choose a number from 0 to {len(actions) - 1}, or type a label;"
                  " `? WORDS` shows the text of cards whose title has those words;"
                  " `save [FILE]`, `undo` and `quit` act on the game")

    return choose


def card_texts(game: Game, words: str) -> str:
    """The printed text of every card whose title holds `words` (any case)."""
    found = [c for c in game.program.cards.values()
             if words and words.lower() in c["title"].lower()]
    if not found:
        return f"  no card title holds {words!r}"
    return "\n".join(f"  {c['title']}: {c.get('text') or '(no text)'}" for c in found)
