"""Errors the interpreter raises. None of them leaves a half-applied action behind."""

import re


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


# Python's names for the kinds of value content handles, in the language's words.
_KINDS = {"NoneType": "none", "int": "a number", "str": "a text", "list": "a list",
          "dict": "a table", "bool": "true or false", "tuple": "a list"}
# Python's messages for the usual mix-ups of kinds, and what to say instead.
_PLAIN = [
    (re.compile(r"'(.+)' not supported between instances of '(\w+)' and '(\w+)'"),
     lambda op, a, b: f"cannot compare {a} with {b} ({op})"),
    (re.compile(r"unsupported operand type\(s\) for (.+): '(\w+)' and '(\w+)'"),
     lambda op, a, b: f"cannot work out {a} {op} {b}"),
    (re.compile(r'can only concatenate (\w+) \(not "(\w+)"\) to \w+'),
     lambda a, b: f"cannot add {b} to {a}"),
    (re.compile(r"'(\w+)' object cannot be interpreted as an integer"),
     lambda a: f"{a} is not a whole number"),
    (re.compile(r"argument of type '(\w+)' is not iterable"),
     lambda a: f"`in` looks through a list or a text, not {a}"),
    (re.compile(r"unhashable type: '(\w+)'"),
     lambda a: f"{a} cannot be looked up: a name, a number or a card is wanted"),
    (re.compile(r"object of type '(\w+)' has no len\(\)"),
     lambda a: f"{a} has no length: a list is wanted"),
]


def in_plain_words(e: Exception) -> str:
    """A Python error raised by content's values, said in the language's words where it
    is one of the usual mix-ups (none compared with a number, a list added to a number);
    any other keeps its kind."""
    text = str(e)[:200]
    if isinstance(e, KeyError) and len(e.args) == 1:  # a table looked up with a wrong name
        return f"nothing is called {e.args[0]!r:.80} here"
    if isinstance(e, TypeError):
        for pattern, say in _PLAIN:
            m = pattern.fullmatch(text)
            if m:
                return say(*(_KINDS.get(g, g) for g in m.groups()))
    return f"{type(e).__name__}: {text}"
