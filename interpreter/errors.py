"""Errors the interpreter raises. None of them leaves a half-applied action behind."""


class IllegalAction(ValueError):
    """A player asked for an action that is not legal now."""


class RuleError(RuntimeError):
    """The rules program did something impossible (a bug in the content).

    `where` names the content file, line and column of the instruction.
    """

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where


class SaveError(ValueError):
    """A saved game was refused: it is malformed, of another format or pack, or describes
    a position the rules could never reach. The message names the first thing wrong."""
