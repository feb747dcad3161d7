"""A tiny two-player pack written into a folder: the smallest pack that has each feature,
for the language tests and the hostile inputs of `bench --hostile`.

It knows nothing of any real game: two players take turns for three rounds, each
choosing to score, play a card from hand as an event, or pass. The deck is dealt
unshuffled from its end: with cards 1-4, ann holds 4 and 3, bob 2 and 1. Tests add rules,
cards and mods to it, so each feature is proven on the smallest pack that has it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

MANIFEST = """\
name: mini
title: Mini
version: "1.0.0"
players: [ann, bob]
counters:
  score: {max: 5}
  gold: {start: 3}
tracks:
  heat: {min: 0, max: 5}
variables:
  round: 0
durations:
  round: "until the end of the round"
announcements:
  scored: {params: [player, amount], doc: "a player scored"}
  round_ended: {params: [number]}
effects:
  bonus: "score added to each scoring"
texts:
  round_heading: {params: [n], text: "== Round {n} =="}
zones:
  deck: {start: campaign}
  hand: {per_player: true}
  discard: {}
entry: game
board: board.yaml
cards: [cards.yaml]
rules: rules
"""

BOARD = """\
locations:
  spaces:
    - {id: A}
    - {id: B}
"""

RULES = """\
procedures:
  game:
    body: |
      for p in players:
        deal 2 from deck to hand of p
      for r from 1 to 3:
        set round to r
        say round_heading(r)
        for p in players:
          do turn(player: p)
        announce round_ended(number: r)
        expire round effects
  turn:
    params: [player]
    body: |
      player chooses:
        "score":
          do score(player: player, amount: 1 + bonus of player)
        "play {title of c}" for c in cards(hand of player):
          transfer c to discard
          resolve event of c for player
        "pass":
          say "{player} passes"
  score:
    params: [player, amount]
    body: |
      player gains amount score
      announce scored(player: player, amount: amount)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def make_pack(root: Path, cards: str = "", rules: dict[str, str] | None = None,
              manifest: str = MANIFEST) -> Path:
    """The mini pack in `root / "mini"`; `cards` is the YAML list under `cards:`, dedented;
    `rules` adds rules files (name -> text)."""
    pack = root / "mini"
    body = textwrap.indent(textwrap.dedent(cards), "  ") if cards.strip() else "  []\n"
    write(pack, {"pack.yaml": manifest, "board.yaml": BOARD, "rules/10-game.yaml": RULES,
                 "cards.yaml": "cards:\n" + body, **(rules or {})})
    return pack


def make_mod(root: Path, name: str, files: dict[str, str], setup: str = "") -> Path:
    """A mod of the mini pack in `root / name`; `setup` is YAML under `setup:` (dedented)."""
    mod = root / name
    head = f'name: {name}\nversion: "1"\nbase: {{pack: mini, versions: ["1.0.0"]}}\n'
    if setup.strip():
        head += "setup:\n" + textwrap.indent(textwrap.dedent(setup), "  ")
    write(mod, {"mod.yaml": head, **files})
    return mod
