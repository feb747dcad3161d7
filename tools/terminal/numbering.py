"""Option numbers that stay put while one decision is asked again and again.

A decision the rules ask several times over (spending points one at a time: "Where
do you place?" after each piece) offers a new list each time; numbered by position, one
place's option would be 31, then 29. Here an option keeps the number it was first shown with as long
as the same player is asked the same question with nothing else decided in between;
options no longer offered leave their numbers unused, and new ones take numbers after
the highest. Nothing is known of the game: a decision is its question, and "nothing
else decided" is the game's step count, advanced once per action.
"""

from __future__ import annotations

from dataclasses import replace

from .choices import Option


class Numbering:
    """The numbers shown by one seat's prompt, kept from one of its decisions to the next."""

    def __init__(self) -> None:
        self.player: str | None = None
        self.step = -2
        self.numbers: dict[str, dict[str, int]] = {}  # per question: label -> number

    def goes_on(self, player: str, step: int) -> bool:
        """Whether this decision follows straight on the seat's last one (only its own
        answer was applied since): the same run of decisions, e.g. one card's play."""
        return player == self.player and step == self.step + 1

    def number(self, player: str, step: int, question: str,
               options: list[Option]) -> tuple[list[Option], dict[int, str]]:
        """The options with their numbers, and those of this question offered earlier in
        the run and gone now ({number: label})."""
        if not self.goes_on(player, step):
            self.numbers = {}
        self.player, self.step = player, step
        known = self.numbers.get(question)
        if known is None:  # first asked: numbered by position, as the rules list them
            known = {o.label: o.index for o in options}
            self.numbers[question] = known
            return options, {}
        offered = {o.label for o in options}
        gone = {n: label for label, n in known.items() if label not in offered}
        numbered, used = [], set()
        for o in options:
            n = known.get(o.label)
            if n is None or n in used:  # new, or a label the rules offer twice
                n = max([*known.values(), *used], default=-1) + 1
                known.setdefault(o.label, n)
            used.add(n)
            numbered.append(replace(o, number=n))
        return numbered, gone
