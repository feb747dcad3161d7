"""Players that pick actions: random, greedy (one step of look-ahead) and a human at a prompt."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..interpreter.game import Game
from ..interpreter.state import clone

Agent = Callable[[Game], int]


def random_agent(seed: int) -> Agent:
    rng = random.Random(seed)
    return lambda game: rng.randrange(len(game.legal_actions()))


def score(game: Game, player: str) -> float:
    """A rough standing: value of places led, support, momentum; the pack's own numbers."""
    s, p = game.state, game.program
    total = 0.0
    for pool, held in s.pools.items():
        for where, (owner, count) in held.items():
            value = p.locations[where].get("ev") or 3
            weight = value * (1.0 + 0.25 * min(count, 4)) if pool == "state" else 4.0 * count
            total += weight if owner == player else -weight
    for name, table in s.counters.items():
        if name == "momentum":
            for who, n in table.items():
                total += 3.0 * n if who == player else -3.0 * n
    return total


def greedy_agent(seed: int, breadth: int = 24) -> Agent:
    """Try each legal action on a copy of the state and keep the best-scoring one."""
    rng = random.Random(seed)

    def choose(game: Game) -> int:
        actions = game.legal_actions()
        me = game.current_player()
        indices = list(range(len(actions)))
        if len(indices) > breadth:
            indices = sorted(rng.sample(indices, breadth))
        best, best_score = indices[0], float("-inf")
        for i in indices:
            trial = Game(game.program, clone(game.state), safe=False)
            trial.apply_action(i)
            value = score(trial, me) + rng.random() * 0.01
            if value > best_score:
                best, best_score = i, value
        return best

    return choose


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
            if answer.startswith("?"):
                print(card_texts(game, answer[1:].strip()))
                continue
            print(f"  choose a number from 0 to {len(actions) - 1}, or type a label;"
                  " `? WORDS` shows the text of cards whose title has those words")

    return choose


def card_texts(game: Game, words: str) -> str:
    """The printed text of every card whose title holds `words` (any case)."""
    found = [c for c in game.program.cards.values()
             if words and words.lower() in c["title"].lower()]
    if not found:
        return f"  no card title holds {words!r}"
    return "\n".join(f"  {c['title']}: {c.get('text') or '(no text)'}" for c in found)


AGENTS = {"random": random_agent, "greedy": greedy_agent}
