"""Tic-tac-toe written as plain Python: the yardstick `hustings bench` measures against.

It has the interface the agents use on a hustings game (legal_actions, apply_action,
is_terminal, current_player, result), so `bench` drives it with the very same random
agent, the same way: list the legal actions, pick one at random, apply it. The ratio
of the two speeds says what running rules as data costs against rules as code, per
decision, for the cheapest game there is.
"""

from __future__ import annotations

PLAYERS = ("x", "o")
SQUARES = tuple(f"{col}{row}" for row in "123" for col in "abc")  # a1 b1 c1 a2 ... c3
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class IllegalMove(ValueError):
    """A move that is not legal now: the game is unchanged."""


class TicTacToe:
    def __init__(self) -> None:
        self.board: list[str | None] = [None] * 9
        self.moves = 0
        self.winner: str | None = None

    def current_player(self) -> str | None:
        return None if self.is_terminal() else PLAYERS[self.moves % 2]

    def is_terminal(self) -> bool:
        return self.winner is not None or self.moves == 9

    def legal_actions(self) -> list[str]:
        """The empty squares, by name, in board order; none once the game is over."""
        if self.is_terminal():
            return []
        return [SQUARES[i] for i, mark in enumerate(self.board) if mark is None]

    def num_actions(self) -> int:
        """How many squares are empty (none once the game is over), as Game.num_actions."""
        return 0 if self.is_terminal() else self.board.count(None)

    def apply_action(self, action: str | int) -> None:
        """Mark a square, given by its name or its index among the legal actions."""
        legal = self.legal_actions()
        if isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < len(legal):
                raise IllegalMove(f"no action number {action}: {len(legal)} are legal")
            action = legal[action]
        if action not in legal:
            raise IllegalMove(f"{action!r} is not legal now; legal: {', '.join(legal)}")
        square = SQUARES.index(action)
        player = PLAYERS[self.moves % 2]
        self.board[square] = player
        self.moves += 1
        if any(square in line and all(self.board[i] == player for i in line)
               for line in LINES):
            self.winner = player

    def result(self) -> dict[str, str | None] | None:
        """{"winner": "x" | "o" | None (a draw)} once the game is over."""
        return {"winner": self.winner} if self.is_terminal() else None
