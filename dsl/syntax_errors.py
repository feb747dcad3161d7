"""A text the parser refuses, explained in the designer's words: where, what was
expected (named as written, not as the grammar's terminals), and a hint that names the
form to write, a misspelt keyword or card text's own wording where it was used.

Each finder below looks at the line and the unexpected token and answers a `Found`, or
None to let the next one try; the order in `_unexpected_token` is from the most certain
reading to the least.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import NamedTuple

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError

from .diagnostics import Source, did_you_mean
from .parser import TAB_LEN, DslSyntaxError, parser


def explain(e: DedentError | UnexpectedInput, body: str, source: Source) -> DslSyntaxError:
    """The error to report for the parser's exception `e` on `body`."""
    if isinstance(e, DedentError):
        line, col, hint = _bad_dedent(body)
        return DslSyntaxError(source.at(line, col),
                              "this line's indentation matches no enclosing block", hint)
    return _syntax_error(e, body, source)


_READABLE = {
    "_NL": "end of line", "_INDENT": "indented block", "_DEDENT": "end of block",
    "NAME": "a name", "NUMBER": "a number", "STRING": "a quoted string", "$END": "end of text",
}


@lru_cache(maxsize=1)
def literals() -> dict[str, str]:
    """Terminal name -> the text it matches, for the grammar's fixed words and signs."""
    return {t.name: t.pattern.value for t in parser().terminals if t.pattern.type == "str"}


@lru_cache(maxsize=1)
def statement_words() -> set[str]:
    """Keywords that can start a statement (`move`, `place`, `if` ...)."""
    accepts = parser().parse_interactive("", start="start").accepts()
    lits = literals()
    return {lits[t] for t in accepts if t in lits and lits[t].isalpha()}


def _keyword_typo(word: str) -> str | None:
    """The grammar's word (`support`, `whenever`, `labelled` ...) that `word` misses by a
    single letter (one added, dropped, changed or two swapped), if any. Only words of five
    letters or more: shorter names (`here`, `left`, `card`) are too often near a keyword."""
    if len(word) < 5:
        return None
    low = word.lower()
    for keyword in sorted(literals().values()):
        if len(keyword) >= 5 and keyword.isalpha() and _one_edit_apart(low, keyword):
            return keyword
    return None


def _one_edit_apart(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = len(os.path.commonprefix([a, b]))
    if len(a) == len(b):
        changed = a[i + 1:] == b[i + 1:]
        swapped = a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1]
        return changed or swapped
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return short[i:] == long[i + 1:]  # one letter added or dropped


def _readable(term: str) -> str:
    if term in _READABLE:
        return _READABLE[term]
    lit = literals().get(term)
    return f"'{lit}'" if lit is not None else term.lower()


def _expected(terms) -> str:
    names = sorted({_readable(t) for t in terms})
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")


def _syntax_error(e: UnexpectedInput, body: str, source: Source) -> DslSyntaxError:
    line, col = max(getattr(e, "line", 1) or 1, 1), max(getattr(e, "column", 1) or 1, 1)
    lines = body.split("\n")
    if isinstance(e, UnexpectedToken):
        return _unexpected_token(e, lines, source, line, col)
    if isinstance(e, UnexpectedCharacters):
        rest = _line(lines, line)[col:]
        if e.char in ".;" and not _code(rest):  # `P gains 1 point.`
            stop = "a full stop" if e.char == "." else "a semicolon"
            return DslSyntaxError(source.at(line, col), "a statement ends with its line, "
                                  f"not with {stop}", f"remove the '{e.char}'")
        if e.char == '"':
            return DslSyntaxError(source.at(line, col), "a quoted string is never closed",
                                  'end it with `"` on the same line')
        return DslSyntaxError(source.at(line, col), f"unexpected character {e.char!r}",
                              "names are letters, digits and '_'; text goes in double quotes")
    if isinstance(e, UnexpectedEOF):
        return DslSyntaxError(source.at(line, col), "the text ends too early",
                              "finish the statement")
    return DslSyntaxError(source.at(line, col), str(e))


def _unexpected_token(e: UnexpectedToken, lines: list[str], source: Source,
                      line: int, col: int) -> DslSyntaxError:
    # Lark's accepting state of `expr` lists nothing: only the end of the text is wanted
    token, expected = e.token, set(e.expected or ()) or {"$END"}
    expect = f"expected {_expected(expected)}"
    if token.type in ("_INDENT", "_DEDENT", "_NL", "$END"):
        return _layout_error(token.type, lines, source, line, col, expect, expected)
    text = _line(lines, line)
    found = _out_of_place(str(token), text, lines, line, col, expected)
    if found is None:
        found = _misworded(token, text, col, expected, expect)
    if found is None and not e.expected:
        return DslSyntaxError(source.at(line, col), f"unexpected {str(token)!r}: the "
                              "expression is complete before it", "remove it, or join it "
                              "on with an operator (`of`, `+`, `==`, `and` ...)")
    if found is None:
        return DslSyntaxError(source.at(line, col), f"unexpected {str(token)!r}", expect)
    wants = found.wants
    return DslSyntaxError(source.at(line, found.column), found.message, found.hint,
                          wants=(wants[0], wants[1], source.at(line, wants[2])) if wants else None)


def _layout_error(kind: str, lines: list[str], source: Source, line: int, col: int,
                  expect: str, expected: set[str]) -> DslSyntaxError:
    """An indentation, a line end or the text's end where the statement wanted more."""
    if kind == "_INDENT":
        # The token sits at the end of the line before; the culprit is the next line.
        nxt = _next_code_line(lines, line)
        indent = len(lines[nxt - 1]) - len(lines[nxt - 1].lstrip()) if nxt else 0
        return DslSyntaxError(
            source.at(nxt or line, indent + 1 if nxt else col),
            "this line is indented, but the line above does not end with ':'",
            "only a line ending in ':' (if, for, repeat, until ..., a menu option) opens "
            "an indented block; line it up with the line above")
    if kind == "_DEDENT":
        return DslSyntaxError(source.at(line, col), "the block ends too early", expect)
    if kind == "_NL":
        text = _line(lines, line)
        hint = (_no_amount(text) if expected == {"NAME"} else None) or (
            "end the line with ':', which opens the indented block below it"
            if expected == {"COLON"} else expect)
        return DslSyntaxError(source.at(line, col), "unexpected end of line", hint)
    last = max((n for n, text in enumerate(lines, 1) if _code(text)), default=1)
    end = len(lines[last - 1].split("#")[0].rstrip()) + 1 if lines else 1
    return DslSyntaxError(source.at(last, end), "the text ends too early", expect)


def _no_amount(text: str) -> str | None:
    """`P gains cash`: the name was read as the amount, and the line ended where the
    name was wanted. The statement with its amount in place."""
    code = _code(text).rstrip()
    verb = re.search(r"\b(gains|loses|pays|add|subtract)\s+(?=[A-Za-z_]\w*(\s|$))", code)
    if verb is None:
        return None
    rest = code[verb.end():]
    after = rest.split()[0]
    if after == "support" and verb.group(1) in ("add", "subtract"):
        return (f"`{verb.group(1)}` takes an amount and the pool's name before `support`: "
                f"write `{code[:verb.end()]}N NAME {rest}`")
    if after in literals().values():
        return None
    return f"`{verb.group(1)}` takes an amount, then a name: write `{code[:verb.end()]}N {rest}`"


class Found(NamedTuple):
    """What a finder below makes of an unexpected token: where the error is, what, the
    hint, and for a `whenever` the announcement the compiler is to check (kind, the
    word, its column)."""

    column: int
    message: str
    hint: str
    wants: tuple[str, str, int] | None = None


def _out_of_place(word: str, text: str, lines: list[str], line: int, col: int,
                  expected: set[str]) -> Found | None:
    """A sound word in the wrong spot: after `whenever`, where a block should start, `=`
    as a statement, a pick from a list with a block, a clause out of its order."""
    named = _after_whenever(text, col)
    if named is not None:  # the compiler says which announcements there are
        return Found(col, f"unexpected {word!r} in a `whenever`", WHENEVER_FORM,
                     ("announcement", named[1], named[0]))
    if "_NL" in expected and _ends_block_opener(lines, line, col):
        return Found(col, "expected an indented block after ':'",
                     "indent the lines that belong to it")
    assigned = re.match(r"\s*(set\s+)?([A-Za-z_]\w*)\s*$", text[:col - 1]) \
        if word == "=" else None
    if assigned and assigned.group(1):  # `set x = 3`
        return Found(col, "`set` gives a name its value with `to`",
                     f"write `set {assigned.group(2)} to {_code(text[col:]) or '...'}`")
    if assigned:  # `x = 2` as a statement
        name = assigned.group(2)
        return Found(col, f"'{name} = ...' is not a statement",
                     f"give a new name a value with `let {name} = ...`, change one with "
                     f"`set {name} to ...`; compare with `==`")
    stepped = re.match(r"\s*([A-Za-z_]\w*)\s*([-+*])=(.*)", text) \
        if word in "+-*" else None
    if stepped:  # `x += 1`
        name, op, value = stepped.group(1), stepped.group(2), _code(stepped.group(3))
        return Found(col, f"'{op}=' is not in the language",
                     f"write `set {name} to {name} {op} {value or '...'}`")
    if word == ":" and re.search(_PICK, text):
        return Found(col, "a pick from a list opens no block", "end the line without ':'; "
                     "the lines after it, indented like it, read the name it binds")
    if word in CLAUSE_ORDER:
        return Found(col, f"'{word}' is out of place here", CLAUSE_ORDER[word])
    if word == "for" and "RSQB" in expected and _in_comprehension(text[:col - 1]):
        # `[... for a in A for b in B]`
        return Found(col, "a list comprehension has one `for`",
                     "nest one in another, `[[EXPR for b in B] for a in A]`, or loop with "
                     "`for` statements")
    listed = re.search(r"([\w\"]+)\s*$", text[:col - 1]) if word == "," else None
    if listed and "_NL" in expected:  # `... in OH, PA`
        items = f"{listed.group(1)}, {_code(text[col:])}"
        return Found(col, "unexpected ','", f"several things are a list in brackets: "
                     f"`[{items}]`")
    after = re.search(r"([\w\"]+)\s*,\s*$", text[:col - 1])
    if after and any(literals().get(t) == "at" for t in expected):  # `add ... in OH, PA`
        items = f"{after.group(1)}, {_code(text[col - 1:])}"
        return Found(col, f"unexpected {word!r}", f"several things are a list in brackets, "
                     f"`[{items}]`; after a comma here comes `at most N per NAME`")
    return None


def _in_comprehension(head: str) -> bool:
    """`head` stops inside brackets that already hold a `for` (a list comprehension's)."""
    opened: list[int] = []
    for at, char in enumerate(head):
        if char == "[":
            opened.append(at)
        elif char == "]" and opened:
            opened.pop()
    return bool(opened) and re.search(r"\bfor\b", head[opened[-1]:]) is not None


def _misworded(token, text: str, col: int, expected: set[str], expect: str) -> Found | None:
    """A word that is not the language's: card wording, a misspelt keyword, a TODO left
    in, a name of two words."""
    word = str(token)
    card_text = _card_wording(text, col, word)  # before a guess: `places` is not `pays`
    if card_text is not None:
        return card_text
    keywords = [literals()[t] for t in expected if t in literals()]
    close = did_you_mean(word, keywords)
    if close:
        return Found(col, f"unexpected {word!r}", f"{close} {expect}")
    missing = _missing_word(word, text, col, keywords, expect)
    if missing is not None:
        return missing
    if text.strip().upper().startswith("TODO") or word == "TODO":
        at = col if word == "TODO" else len(text) - len(text.lstrip()) + 1
        return Found(at, "this is still a TODO placeholder",
                     "write it in the effect language (docs/dsl.md lists every form)")
    if keywords and set(keywords) <= {"add", "subtract"}:  # `P may place ...`
        return Found(col, f"'{word}' cannot follow `may` or `must`", _after_may(word))
    # `player scores ...`: the first word may be the subject of a statement, so only a
    # keyword one letter off it is suggested (`mov` is `move`, `player` is not `place`)
    subject = any(literals().get(t) == "chooses" for t in expected)
    first = _misspelt_statement_word(text, col, near_only=subject)
    if first is not None:
        start, wrong, hint = first
        return Found(start, f"'{wrong}' does not start a statement", hint)
    typo = _keyword_typo(word) if token.type == "NAME" else None
    if typo is not None:  # `state suport of p`: a keyword misspelt where a name can't go
        return Found(col, f"unexpected {word!r}", f"did you mean `{typo}`? {expect}")
    before = re.search(r"\b\d+\s+([A-Za-z_]\w*)\s+$", text[:col - 1])
    if token.type == "NAME" and "_NL" in expected and before \
            and before.group(1) not in literals().values():  # `gains 2 gold coins`
        return Found(col, f"unexpected {word!r}",
                     f"a name is one word: end the line after `{before.group(1)}` ({expect})")
    bare = _without_articles(_code(text))
    if bare != _code(text):  # `until the end of the turn:`
        return Found(col, f"unexpected {word!r}", "effect text names things without "
                     f"articles: write `{bare}` ({expect})")
    return _side_by_side(token, text, col, keywords, expect)


def _missing_word(word: str, text: str, col: int, keywords: list[str],
                  expect: str) -> Found | None:
    """A statement short of one word, shown with the word in place: `to` (`move p OH`),
    the `if` of `A if COND else B`, `labelled` before a pick's label, a pool's name
    before `support`; or a ':' that opens no block."""
    head, tail = _code(text[:col - 1]).strip(), _code(text[col - 1:]).strip()
    value = re.match(r'[\w"\[(]', word) and word != "TODO"
    if "to" in keywords and value:
        return Found(col, f"unexpected {word!r}: `to` comes before it",
                     f"write `{head} to {tail}` ({expect})")
    if "if" in keywords and value and re.search(r"\belse\b", tail):
        return Found(col, f"unexpected {word!r}: a value chosen by a condition is "
                     "`A if COND else B`", f"write `{head} if {tail}` ({expect})")
    if word.startswith('"') and re.search(_PICK, head) \
            and "labelled" not in head:
        return Found(col, "a pick's label follows `labelled`",
                     f"write `{head} labelled {tail}`")
    if "support" in keywords and head.endswith(" support"):
        return Found(col, "the pool's name goes before `support`",
                     f"write `{head.removesuffix(' support')} NAME support {tail}`, NAME "
                     "a pool of the pack")
    if head in ("else", "elif") and "chooses" in keywords:  # read as a player's name
        return Found(text.index(head) + 1, f"`{head}` with no `if` just above it",
                     f"`{head}` goes right after the lines of an `if` block (or an `elif`'s), "
                     "at the indentation of that `if`")
    if word == ":" and not tail[1:].strip() and not re.match(_OPENS_BLOCK, head):
        return Found(col, "only a line that opens a block ends with ':'",
                     "remove the ':' (`if`, `for`, `repeat`, `while`, `until`, `whenever`, "
                     "a menu and its options open blocks)")
    return None


# A pick from a list: `P chooses x from LIST ...`.
_PICK = r"\bchooses\s+\w+\s+from\b"

# The first words of a line that opens a block (a menu's option is a quoted text).
_OPENS_BLOCK = r'(?:if|elif|else|for|repeat|while|until|whenever|"|\w+\s+(?:may\s+)?chooses)\b'


def _side_by_side(token, text: str, col: int, keywords: list[str], expect: str) -> Found | None:
    """`score p` where an expression ends: two names with nothing between them, most
    often a property read without its `of`, or a comparison without its operator
    (`leader of OH p`, `where region west`). Not where a keyword may follow (`move p OH`
    wants its `to`)."""
    head, word = text[:col - 1], str(token)
    prev = re.search(r"(?<![\w.])([A-Za-z_]\w*)\s+$", head)
    words = literals().values()
    if token.type != "NAME" or prev is None or prev.group(1) in words or word in words \
            or any(k.isalpha() for k in keywords):
        return None
    first = prev.group(1)
    read = re.search(r"\b([A-Za-z_]\w*\s+of\s+[A-Za-z_]\w*)\s+$", head)
    if read is not None:
        hint = f"compare with an operator: `{read.group(1)} == {word}`"
    elif re.search(r"\bwhere\s+\w+\s+$", head):
        hint = f"`where` reads each item as `it`: `{first} of it == {word}`"
    else:
        hint = f"write `{first} of {word}`, or put an operator between the two"
    return Found(col, f"unexpected {word!r} right after the name `{first}`", f"{hint} ({expect})")


WHENEVER_FORM = ("write `whenever NAME:`, `whenever NAME(a, b):` or `whenever NAME(a, b) "
                 "if COND:` (docs/dsl.md, section 7.2)")

# Where a keyword goes, for one written out of its place (a decision's clauses, `has`).
CLAUSE_ORDER = {
    "asking": 'a menu asks right after `chooses` (`P chooses asking "..." noting "...":`); '
              'a pick from a list last (`P chooses x from LIST labelled "..." asking "..."`)',
    "has": "`P has EFFECT` starts a lasting effect, a statement of its own; a condition "
           "reads one with `EFFECT of P > 0` (docs/dsl.md, section 7), or compares values",
    "labelled": 'only a pick from a list is labelled, right after its list and before any '
                '`asking` (`P chooses x from LIST labelled "..." asking "..."`); a menu\'s '
                'options are labelled by their own text',
}


def _after_whenever(text: str, col: int) -> tuple[int, str] | None:
    """The column and text of the word after `whenever`, when the unexpected token
    follows it (`whenever a card is played:` reads like card text, but `a` is no
    announcement)."""
    m = re.match(r"(\s*whenever\b\s*)(\"[^\"]*\"?|[^\s(:]*)", text)
    return (m.end(1) + 1, m.group(2)) if m and col > m.end(1) else None


def _ends_block_opener(lines: list[str], line: int, col: int) -> bool:
    """Whether the token is the first on its line and the line before ends with ':'."""
    text = _line(lines, line)
    if text[:col - 1].strip():
        return False
    prev = _prev_code_line(lines, line)
    return prev is not None and lines[prev - 1].split("#")[0].rstrip().endswith(":")


# Card text's verbs the language words otherwise (`P adds 2 ...`, `draw 2 cards`,
# `for each state in ...`): the word, as the statement's first or second -> what to write.
_ADD = "`P must add N NAME support in PLACES` (or `may add`)"
_SUBTRACT = "`P must subtract N NAME support from Q in PLACES` (or `may subtract`)"
_DEAL = "`deal N from ZONE to ZONE`, or `transfer CARD to ZONE` for one card"
_PLACE = "`place N NAME support for P in PLACE`"
CARD_VERBS = {
    "add": _ADD, "adds": _ADD, "subtract": _SUBTRACT, "subtracts": _SUBTRACT,
    "draw": _DEAL, "draws": _DEAL, "discard": _DEAL, "discards": _DEAL,
    "each": "`for NAME in LIST:` (no `each`: the name stands for each item in turn)",
    "both": "`for p in players:` and the statement for `p` on the indented line below",
    # a statement that starts with its verb, written as card text says it (`P places ...`)
    "places": _PLACE + " (the statement starts with its verb)",
    "removes": "`remove N NAME support from P in PLACE` (the statement starts with its verb)",
    "moves": "`move P to PLACE` for a token, `move P up N on TRACK` for a track (the "
             "statement starts with its verb)",
    "transfers": "`transfer CARD to ZONE` (the statement starts with its verb)",
    "deals": _DEAL,
    "shuffles": "`shuffle ZONE` (the statement starts with its verb)",
    "flips": '`flip CARD to "FACE"` (the statement starts with its verb)',
    "reveals": "`reveal ZONE to P` (the statement starts with its verb)",
    "shows": "`show CARDS to P` (the statement starts with its verb)",
    "tells": '`tell P "TEXT"` (the statement starts with its verb)',
    "prevents": "`prevent CARD` (the statement starts with its verb)",
}
# A statement whose subject comes first, begun with its verb (`gain 1 point`).
SUBJECT_FIRST = {
    "gain": "`P gains N NAME` (`player gains 1 point`)",
    "lose": "`P loses N NAME` (`opponent loses 1 point`)",
    "pay": "`P pays N NAME`",
    "choose": "`P chooses x from LIST` or a menu, `P chooses:` with its options below",
}
ARTICLES = ("the", "a", "an")
# Card text's comparisons (`if X is more than 2`): the words after `is`, or the word
# itself -> the operator to write.
COMPARISONS = {
    "is more than": ">", "is greater than": ">", "is less than": "<", "is fewer than": "<",
    "is at least": ">=", "is at most": "<=", "is not in": "not in", "is in": "in",
    "is not": "!=", "is": "==", "equals": "==",
}


_IN_WORDS = r"\b(" + "|".join(sorted(COMPARISONS, key=len, reverse=True)) + r")\b"


def _card_wording(text: str, col: int, word: str) -> Found | None:
    """Card text written as effect text: a comparison in words, `leads`, `for each` or
    `no more than` after a statement, a card verb, a statement begun with an article or
    with the verb of a statement whose subject comes first."""
    compared = _comparison(text, col, word)
    if compared is not None:
        return compared
    tail = text[col - 1:].lower()
    looped = re.match(r"for (each|every)\b", tail)
    if looped:  # `P gains 1 point for each state in ...`
        return Found(col, f"'{looped.group(0)}' after a statement is card wording; "
                     "effect text loops first", "write `for s in LIST:` with the statement "
                     "indented below it, or count in place of the number: `P gains "
                     "count(LIST) NAME`")
    said = re.match(r"(no|not) more than\b", tail)
    if said:  # `..., no more than 1 per state`
        rest = _code(text[col - 1 + said.end():]) or "N per NAME"
        return Found(col, f"'{text[col - 1:col - 1 + said.end()]}' is card wording; "
                     "effect text says `at most`", f"write `at most {rest}`")
    verb = _card_verb(text, col)
    if verb is not None:
        start, wrong, form = verb
        return Found(start, f"'{wrong}' is card wording; effect text says it another way",
                     f"write {form} (docs/dsl.md)")
    joined = _joined(text, col, word)
    if joined is not None:
        return joined
    m = re.match(r"(\s*)([A-Za-z_]\w*)\s+(\S.*)", text)
    words_before = len(text[:col - 1].split())  # the unexpected token is word N + 1
    if m is None or not 1 <= words_before <= 2:
        return None
    first, rest = m.group(2), m.group(3).split("#")[0].rstrip()
    if first.lower() in ARTICLES:
        return Found(len(m.group(1)) + 1, f"'{first}' is card wording; effect text names "
                     "things without articles", f"write `{rest}`")
    if first.lower() in SUBJECT_FIRST and words_before == 1:
        return Found(len(m.group(1)) + 1, f"'{first}' needs who {first.lower()}s before it",
                     f"write {SUBJECT_FIRST[first.lower()]}")
    return None


def _after_may(word: str) -> str:
    """What to write for `P may WORD ...`: only support is added or subtracted so."""
    low = word.lower()
    if low in ("choose", "chooses"):
        return ('a choice is `P chooses asking "...":` with its options below it, or `P '
                'chooses x from LIST`; no `may` (an option can do nothing)')
    if low in CARD_VERBS and low not in ("add", "adds", "subtract", "subtracts"):
        return f"write {CARD_VERBS[low]}, with no `may` or `must`"
    return (f"write {_ADD} or {_SUBTRACT}; {_PLACE} places support with no choice of "
            "where")


def _joined(text: str, col: int, word: str) -> Found | None:
    """Card text's joins: `if COND then STATEMENT`, `STATEMENT and STATEMENT`, and a
    quantifier before a kind (`in each issue`, `in any region`)."""
    head = _code(text[:col - 1]).strip()
    tail = _code(text[col - 1 + len(word):]).strip()
    low = word.lower()
    if low == "then" and head.startswith(("if ", "elif ")):
        return Found(col, "'then' is card wording; a condition ends with ':'",
                     f"write `{head}:` with `{tail or 'the statement'}` on the next line, "
                     "indented")
    if low in ("if", "unless") and _starts_statement(head):  # `P gains 1 x if COND`
        cond = tail if low == "if" else f"not ({tail})"
        return Found(col, "a condition after its statement is card wording; effect text "
                     "puts it first", f"write `if {cond}:` with `{head}` on the next line, "
                     "indented")
    if low == "and" and _starts_statement(tail):
        return Found(col, "one statement a line: 'and' joins conditions, not statements",
                     f"end the line before 'and' and put `{tail}` on a line of its own")
    quantifier = re.search(r"\b(each|every|any|all)\s+$", text[:col - 1], re.IGNORECASE)
    if quantifier and re.fullmatch(r"[A-Za-z_]\w*", word):
        kind = word if word.endswith("s") else f"{word}s"
        return Found(quantifier.start(1) + 1, f"'{quantifier.group(1)} {word}' is card "
                     "wording; effect text names the list",
                     f"write the kind's own name (`{kind}`, if the pack calls it so), or a "
                     f"list `[A, B]`; to act on each in turn, loop: `for x in LIST:`")
    return None


# The words that follow a statement's subject (`P gains ...`, `P may add ...`).
_SUBJECT_VERBS = ("gains", "loses", "pays", "chooses", "may", "must", "has")


def _starts_statement(text: str) -> bool:
    """Whether `text` reads as a statement: its verb first, or a subject and its verb."""
    words = text.split()
    if not words:
        return False
    return words[0] in statement_words() or (
        len(words) > 1 and words[1] in _SUBJECT_VERBS)


def _comparison(text: str, col: int, word: str) -> Found | None:
    """`if X is more than 2:` or `if P leads PLACE:` at the unexpected `is`, `equals`
    or `leads`: the comparison to write, its two sides taken from the line."""
    low = word.lower()
    if low not in ("is", "equals", "leads"):
        return None
    start = col - 1
    head = re.sub(r"^\s*(?:(?:if|elif|while)\s+)?", "", text[:start]).strip()
    if " where " in head:  # a property of each item is read `NAME of it`
        head = head.rsplit(" where ", 1)[-1].strip()
        head = f"{head} of it" if re.fullmatch(r"[A-Za-z_]\w*", head) else head
    tail = _inside_brackets(text[start:].split("#")[0]).rstrip().removesuffix(":").rstrip()
    phrase = next((p for p in sorted(COMPARISONS, key=len, reverse=True)
                   if re.match(re.escape(p) + r"\b", tail.lower())), None)
    head = _without_articles(head)
    if low == "leads":
        phrase, right = "leads", _without_articles(tail[len("leads"):].strip())
        written = f"leader of {right or 'PLACE'} == {head or 'P'}"
    elif phrase is None:
        return None
    else:
        right = _without_articles(tail[len(phrase):].strip())
        # the line's later comparisons in words, written likewise (`... or B is Q`)
        right = "".join(part if n % 2 else re.sub(_IN_WORDS, lambda m: COMPARISONS[m[1]], part)
                        for n, part in enumerate(re.split(r'("[^"]*")', right)))
        written = f"{head or 'X'} {COMPARISONS[phrase]} {right or 'Y'}"
    says = "asks `leader of PLACE`" if low == "leads" else \
        f"compares with `{COMPARISONS[phrase]}`"
    return Found(col, f"'{tail[:len(phrase)]}' is card wording; effect text {says}",
                 f"write `{written}` (docs/dsl.md)")


def _without_articles(text: str) -> str:
    """`text` without the words `the`, `a` and `an` outside quotes."""
    parts = re.split(r'("[^"]*")', text)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"\b(?:the|a|an)\b\s*", "", parts[i], flags=re.IGNORECASE)
    return "".join(parts).strip()


def _inside_brackets(text: str) -> str:
    """`text` up to a closing bracket it did not open (`... west)` of `count(... west)`)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if depth < 0:
            return text[:i]
    return text


def _card_verb(text: str, col: int) -> tuple[int, str, str] | None:
    """The column, word and form to write of a card-text verb that the statement starts
    with or goes on with after its subject, at or before the unexpected token."""
    for m in re.finditer(r"[A-Za-z_]\w*", text):
        if m.start() >= col or len(text[:m.start()].split()) > 1:
            return None  # past the error, or no longer the first or second word
        form = CARD_VERBS.get(m.group().lower())
        # the verb is the unexpected token, or the word right before it
        if form is not None and (m.start() + 1 == col or not text[m.end():col - 1].strip()):
            return m.start() + 1, m.group(), form
    return None


def _misspelt_statement_word(text: str, col: int,
                             near_only: bool = False) -> tuple[int, str, str] | None:
    """`mov player to X`: the first word is a near miss of a statement keyword (with
    `near_only`, one letter off it)."""
    m = re.match(r"(\s*)([A-Za-z_]\w*)\s+$", text[:col - 1])
    if not m or m.group(2) in literals().values():
        return None
    word = m.group(2)
    if near_only:
        near = sorted(w for w in statement_words() if _one_edit_apart(word.lower(), w))
        hint = f"did you mean `{near[0]}`?" if near else None
    else:
        hint = did_you_mean(word, statement_words())
    return (len(m.group(1)) + 1, word, hint) if hint else None


def _line(lines: list[str], line: int) -> str:
    """Line `line` (1-based) of the text, "" past its end (Lark counts a last newline)."""
    return lines[line - 1] if line <= len(lines) else ""


def _code(text: str) -> str:
    return text.split("#")[0].strip()


def _next_code_line(lines: list[str], line: int) -> int | None:
    for i in range(line, len(lines)):
        if _code(lines[i]):
            return i + 1
    return None


def _prev_code_line(lines: list[str], line: int) -> int | None:
    for i in range(line - 2, -1, -1):
        if _code(lines[i]):
            return i + 1
    return None


def _bad_dedent(body: str) -> tuple[int, int, str]:
    """The first line whose indentation closes a block to a level that was never opened."""
    stack = [0]
    depth = 0  # inside brackets, line starts are not indentation
    for n, raw in enumerate(body.split("\n"), start=1):
        code = _code(raw)
        if not code:
            continue
        wide = raw.expandtabs(TAB_LEN)
        indent = len(wide) - len(wide.lstrip())
        if depth == 0:
            popped = None
            while indent < stack[-1]:
                popped = stack.pop()
            if indent > stack[-1] and popped is not None:
                return n, len(raw) - len(raw.lstrip()) + 1, (
                    f"indent it by {stack[-1]} or {popped} spaces, like the block it belongs to")
            if indent > stack[-1]:
                stack.append(indent)
        depth = max(0, depth + code.count("(") + code.count("[")
                    - code.count(")") - code.count("]"))
    return 1, 1, "check the indentation"
