"""The files of a new pack (`hustings new pack`): the smallest game that is whole.

Players take turns in seat order; on a turn a player draws two cards from a shared deck,
plays one for its event (each scores points) and discards the other; the first to reach
the target wins. It has no board (a pack may have none), a per-player hidden hand, a deck
that refills from the discard pile, a counter, a decision each turn and a result with a
winner, and a scenario that proves a turn and the end. Every card scores at least one
point, so a game always ends by round `target`.

The files are built here as text (no template files to ship), so an installed wheel
writes the same pack as a checkout.
"""

from __future__ import annotations

import re

MAX_PLAYERS = 8
DEFAULT_PLAYERS = ("red", "blue")
# Display colours given to the seats in order (the web board and terminal read them).
COLOURS = ("red", "blue", "green", "orange", "purple", "teal", "brown", "grey")
# Names the skeleton's own files declare or read: a player may not take one.
SKELETON_NAMES = frozenset({
    "points", "target", "deck", "hand", "discard", "action", "game", "turn", "round",
    "players", "player", "opponent", "card", "cards", "it", "other", "held", "c", "location",
    "leader", "original", "standing", "who",
})
ID = re.compile(r"[a-z][a-z0-9_]*\Z")
PACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")

PACK = """\
# A pack made by `hustings new pack`: a race to {target} points with a shared deck.
# docs/authoring.md ("A game of your own") grows it; docs/dsl.md lists every field.
name: {name}
title: "{title}"
version: "0.1.0"
language: {language}
players: [{players}]

counters:
  points: {{doc: "points scored; the first to reach the target wins"}}
variables:
  target: {target}
zones:
  deck: {{start: action, ordered_secret: true, refill_from: discard,
         doc: "the draw pile, shuffled; refilled from the discard pile"}}
  hand: {{per_player: true, hidden: true, doc: "the cards a player holds"}}
  discard: {{doc: "played and discarded cards"}}
nouns:
  points: {{one: point, other: points}}
card_kinds:
  action: {{doc: "a card drawn from the deck and played for its event", events: true}}

entry: game
cards: [cards]
rules: rules
view:
  players:
{seats}
  status:
    - {{label: Target, variable: target}}
  player_rows:
    - {{label: Points, counter: points}}
    - {{label: Hand, zone: hand}}
  hands: [hand]
  card_columns: [number, title, text]
agents:
  value: standing   # what the greedy and ismcts agents try to raise (rules/10-game.yaml)
  scale: 5          # a lead of this much is a clear one
"""

RULES = """\
procedures:
  game:
    doc: "Players take turns in seat order; the first to reach the target wins."
    body: |
      shuffle deck
      for r from 1 to target:
        for p in players:
          do turn(player: p)
          if points of p >= target:
            say "{p} reaches {points of p} points and wins"
            record winner as p
            finish
      say "nobody reached {target} points: a draw"
      record winner as none

  turn:
    params: [player]
    doc: "Draw two cards, play one for its event, discard the other."
    body: |
      deal 2 from deck to hand of player
      let held = cards(hand of player)
      player chooses c from held labelled "play {title of c}" asking "Which card do you play?"
      transfer c to discard
      resolve event of c for player
      for other in cards(hand of player):
        transfer other to discard

functions:
  standing:
    params: [who]
    doc: "How good the game looks for `who`, for the agents: their points."
    expr: points of who
"""

CARDS = (
    ("001-step.yaml", 1, "Step", "Gain 1 point.", "player gains 1 points"),
    ("002-stride.yaml", 2, "Stride", "Gain 2 points.", "player gains 2 points"),
    ("003-sprint.yaml", 3, "Sprint", "Gain 3 points.", "player gains 3 points"),
)

CARD = """\
number: {number}
title: {title}
kind: action
text: {text}
event: |
  {event}
"""

SCENARIO = """\
# Run with `hustings scenario {name}/scenarios`; docs/scenarios.md has every key.
scenarios:
  - name: "a turn: draw two cards, play one, discard the other"
    run: {{procedure: turn, args: {{player: {first}}}}}
    steps:
      - cards: [2, 3]
      - expect:
          player: {first}
          legal: ["play Stride", "play Sprint"]
      - do: "play Sprint"
      - expect:
          counters: {{points: {{{first}: 3}}}}
          zones: {{"hand:{first}": [], discard: [2, 3]}}
          terminal: true

  - name: "the first to reach the target wins"
    setup:
      counters: {{points: {{{first}: {before}}}}}
    steps:
      - cards: [1, 2]
      - do: "play Step"
      - expect:
          terminal: true
          result: {{winner: {first}}}
          log: ["{first_name} reaches {target} points and wins"]
"""


class SkeletonError(ValueError):
    """The name or players asked for cannot make a pack (a usage error)."""


def parse_players(text: str) -> list[str]:
    """`--players a,b,c` as a list of seat ids, checked: 2 to MAX_PLAYERS distinct names that
    the language reads as plain names."""
    from ..dsl.syntax_errors import literals

    players = [p.strip() for p in text.split(",")]
    if any(not p for p in players):
        raise SkeletonError(f"--players {text!r}: a name is empty; write names between commas, "
                            "as in --players ann,bob")
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise SkeletonError(f"--players: {len(players)} given; a pack has 2 to {MAX_PLAYERS}")
    keywords = set(literals().values())
    for p in players:
        if not ID.match(p):
            raise SkeletonError(f"--players: {p!r} is not a name the rules can use; use lower "
                                "case letters, digits and _, starting with a letter")
        if p in keywords or p in SKELETON_NAMES:
            raise SkeletonError(f"--players: {p!r} is a word the rules already use; "
                                f"choose another, such as {p}_1")
    twice = sorted({p for p in players if players.count(p) > 1})
    if twice:
        raise SkeletonError(f"--players: {', '.join(twice)} given twice; each seat needs its "
                            "own name")
    return players


def check_name(name: str, from_folder: bool = False) -> str:
    """`name` if it can be a pack's name; `from_folder`: it is the folder's, not --name's."""
    if not PACK_NAME.match(name):
        what = f"the folder's name {name!r}" if from_folder else f"--name {name!r}"
        fix = "; give one with --name" if from_folder else ""
        raise SkeletonError(f"{what}: a pack name is letters, digits, '.', '-' and '_', "
                            f"starting with a letter or digit{fix}")
    return name


def display(player: str) -> str:
    return player.replace("_", " ").capitalize()


def pack_files(name: str, players: list[str] | tuple[str, ...] = DEFAULT_PLAYERS,
               target: int = 5) -> dict[str, str]:
    """Every file of the new pack, by its path inside the pack folder."""
    seats = "\n".join(f'    {p}: {{name: "{display(p)}", colour: {COLOURS[i]}}}'
                      for i, p in enumerate(players))
    title = display(name.replace("-", " ").replace(".", " "))
    from ..dsl.language import CURRENT

    files = {"pack.yaml": PACK.format(name=name, title=title, players=", ".join(players),
                                      target=target, seats=seats, language=CURRENT),
             "rules/10-game.yaml": RULES}
    for file, number, card_title, text, event in CARDS:
        files[f"cards/{file}"] = CARD.format(number=number, title=card_title, text=text,
                                             event=event)
    files["scenarios/game.yaml"] = SCENARIO.format(name=name, first=players[0],
                                                   first_name=display(players[0]),
                                                   target=target, before=target - 1)
    return files
