"""`P always chooses`: a decision put to its player even when one option is offered, so
that being asked tells the others nothing. The shape it is for: after each move, the
rival may answer with a card from a hidden hand; asked only when holding it, the pause
alone would tell the mover what the rival holds."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter.errors import SaveError
from hustings.interpreter.game import Game, initial_state, ops_for
from hustings.interpreter.invariants import first_violation
from hustings.tools.reading.render import Renderer

MANIFEST = """\
name: answer
title: Answer
version: "1.0.0"
language: 2
players: [ann, bob]
counters:
  score: {}
zones:
  deck: {start: campaign, ordered_secret: true}
  hand: {per_player: true, hidden: true}
  discard: {}
entry: game
cards: [cards.yaml]
rules: rules
"""

# Five cards dealt from the deck's end, unshuffled: ann 5 and 4, bob 3 and 2; 1 stays in
# the deck. Card 1 is the only veto, so bob never holds it unless a test puts it there.
CARDS = "cards:\n" + "".join(
    f"  - {{number: {n}, title: {'Veto' if n == 1 else 'Plain'}, text: \"\"}}\n"
    for n in range(1, 6))

# bob's answer to each of ann's points, as a menu and as a pick from a list; {always} is
# "always " or nothing.
ANSWERS = {
    "menu": """\
        bob {always}chooses asking "Answer ann's point?":
          "veto with #{{c}}" for c in vetoes:
            transfer c to discard
            ann loses 1 score
          "let it stand":
            say "bob lets it stand"
""",
    "list": """\
        bob {always}chooses c from ["let it stand"] + vetoes asking "Answer ann's point?"
        if c != "let it stand":
          transfer c to discard
          ann loses 1 score
""",
}

RULES = """\
procedures:
  game:
    body: |
      for p in players:
        deal 2 from deck to hand of p
      repeat 2 times:
        ann gains 1 score
        say "ann scores"
        let vetoes = cards(hand of bob) where title of it == "Veto"
{answer}        ann chooses:
          "go on":
            say "on"
          "stop":
            finish
"""


def make(tmp_path: Path, always: bool, chooser: str = "menu") -> Path:
    pack = tmp_path / ("always" if always else "plain") / chooser
    answer = ANSWERS[chooser].format(always="always " if always else "")
    files = {"pack.yaml": MANIFEST, "cards.yaml": CARDS,
             "rules/10-game.yaml": RULES.format(answer=answer)}
    for name, text in files.items():
        path = pack / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pack


def start(pack: Path, bob_holds_veto: bool) -> Game:
    """The game at ann's first decision; with `bob_holds_veto` the deck is stacked (before
    the deal, as a shuffle could have left it) so that bob is dealt the veto, card 1."""
    program = load_pack(pack)
    state = initial_state(program, 1)
    if bob_holds_veto:
        state.zones["deck"] = [2 if c == 1 else 1 if c == 2 else c for c in state.zones["deck"]]
    game = Game(program, state)
    game.machine.push(program.procedures[program.entry].block, {}, call=True)
    game.start()
    return game


def annes_views(game: Game) -> list[str]:
    """Every observation ann receives through the game, bob always letting her point stand
    and ann going on."""
    seen = []
    while not game.is_terminal() and len(seen) < 12:
        seen.append(json.dumps(game.observation("ann"), sort_keys=True))
        # the invariants run the decision again by the interpreted ops (ops.py), where play
        # ran the compiled blocks (blocks.py): both must put the one option to bob
        assert first_violation(game.program, game.state, ops_for(game.program)) is None
        if game.current_player() == "bob":
            labels = game.legal_actions()
            game.apply_action(labels.index("let it stand"))
        else:
            game.apply_action(0)
    return seen


@pytest.mark.parametrize("chooser", ["menu", "list"])
def test_an_always_decision_tells_the_mover_nothing_of_the_hidden_hand(tmp_path, chooser):
    pack = make(tmp_path, always=True, chooser=chooser)
    assert not check_pack(pack).report.errors
    holding = annes_views(start(pack, bob_holds_veto=True))
    empty = annes_views(start(pack, bob_holds_veto=False))
    assert holding == empty
    assert any('"player": "bob"' in view for view in holding)  # bob was asked both times


@pytest.mark.parametrize("chooser", ["menu", "list"])
def test_without_always_the_pause_tells_the_mover_what_the_rival_holds(tmp_path, chooser):
    """The leak `always` closes: a one-option decision is taken at once, so ann sees bob
    asked only when he holds the veto."""
    pack = make(tmp_path, always=False, chooser=chooser)
    holding = annes_views(start(pack, bob_holds_veto=True))
    empty = annes_views(start(pack, bob_holds_veto=False))
    assert holding != empty
    assert not any('"player": "bob"' in view for view in empty)


@pytest.mark.parametrize("chooser", ["menu", "list"])
def test_one_option_is_put_to_the_player_and_taking_it_plays_on(tmp_path, chooser):
    game = start(make(tmp_path, always=True, chooser=chooser), bob_holds_veto=False)
    assert game.current_player() == "bob"
    assert game.legal_actions() == ["let it stand"]
    game.apply_action(0)
    assert game.current_player() == "ann"
    assert game.state.counters["score"]["ann"] == 1


def test_a_held_answer_is_offered_beside_the_pass(tmp_path):
    game = start(make(tmp_path, always=True), bob_holds_veto=True)
    assert game.legal_actions() == ["veto with #1", "let it stand"]
    game.apply_action(0)
    assert game.state.counters["score"]["ann"] == 0
    assert 1 in game.state.zones["discard"]


@pytest.mark.parametrize("chooser", ["menu", "list"])
@pytest.mark.parametrize("always", [True, False])
def test_the_reading_tools_write_the_decision_as_it_was_written(tmp_path, chooser, always):
    program = load_pack(make(tmp_path, always=always, chooser=chooser))
    block = program.blocks[program.procedures["game"].block]
    renderer = Renderer(program)
    sentences = [renderer.statement(ins) for ins in _walk(program, block)
                 if ins[0] in ("menu", "choose")]
    bobs = [s for s in sentences if s.startswith("bob ")]
    assert len(bobs) == 1
    assert bobs[0].startswith("bob always chooses" if always else "bob chooses")


def _walk(program, block):
    """Every instruction of a block and of the blocks it starts."""
    for ins in block:
        yield ins
        for part in ins[1:]:
            if isinstance(part, int) and 0 <= part < len(program.blocks) and ins[0] in (
                    "for", "repeat", "while"):
                yield from _walk(program, program.blocks[part])


def test_a_one_option_decision_saves_and_loads_only_where_written_always(tmp_path):
    game = start(make(tmp_path, always=True), bob_holds_veto=False)
    text = game.save()
    again = Game.load(game.program, text)
    assert again.legal_actions() == ["let it stand"]
    # The same pause in the pack without `always` is no decision the rules would offer.
    plain = load_pack(make(tmp_path, always=False))
    with pytest.raises(SaveError, match="pending: 1 options"):
        Game.load(plain, text)


def test_campaign_trail_asks_a_rival_about_change_of_plans_holding_it_or_not():
    """Ruling 33 of Campaign Trail: after the acting party's first card play, the rival is
    asked about Change of Plans whether or not its hidden hand holds one, so the acting
    party's view is the same byte for byte either way."""
    program = load_pack(builtin_pack("campaign-trail"))
    responses = [c for c, fields in program.cards.items()
                 if fields.get("politick") == "change_of_plans"]
    game = Game.new(program, seed=5)
    rng = random.Random(5)
    while not (game.current_player() == "democrat" and game.state.vars["acting"] == "democrat"
               and game.state.pending["prompt"].startswith("Which card do you play")
               and not set(responses) & set(game.state.zones["hand:republican"])):
        game.apply_action(rng.randrange(game.num_actions()))
    # the twin: the same game but for one card of the republican's hand, a Change of Plans
    # from a deck the democrat cannot see
    twin = Game.load(program, game.save())
    deck = next(z for z in ("august", "september", "october")
                if set(responses) & set(twin.state.zones[z]))
    swapped = next(c for c in twin.state.zones[deck] if c in responses)
    hand = twin.state.zones["hand:republican"]
    given = hand[0]
    twin.state.zones[deck] = [given if c == swapped else c for c in twin.state.zones[deck]]
    twin.state.zones["hand:republican"] = [swapped, *hand[1:]]
    play = next(i for i, label in enumerate(game.legal_actions()) if " fundraise" in label
                or " register" in label)
    for g in (game, twin):
        g.apply_action(play)
    assert game.current_player() == twin.current_player() == "republican"
    assert twin.legal_actions()[0].endswith("Change of Plans against Democrat")
    assert game.legal_actions() == ["let Democrat go on"]
    assert game.observation("democrat") == twin.observation("democrat")
    for g in (game, twin):
        g.apply_action(g.legal_actions().index("let Democrat go on"))
    assert game.observation("democrat") == twin.observation("democrat")
