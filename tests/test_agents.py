"""Agents: the pack's value function, greedy and ISMCTS legality and determinism, and how
ISMCTS deals the cards its player cannot see."""

from __future__ import annotations

import shutil

import pytest

from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter.determinize import determinize, unseen_slots
from hustings.interpreter.game import Game
from hustings.interpreter.state import clone
from hustings.tools.agents import AGENTS, make_agent, parse_agent, position_value


@pytest.fixture(scope="module")
def program():
    return load_pack()


def advance(game: Game, steps: int, seed: int = 0) -> Game:
    """Play `steps` random actions so the game is past its opening."""
    agent = make_agent("random", seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        game.apply_action(agent(game))
    return game


def test_the_pack_declares_its_value_function(program):
    assert program.agents["value"] in program.functions
    game = advance(Game.new(program, seed=4), 60)
    values = {p: position_value(game, p) for p in program.players}
    # 1960's value is a difference of the two sides' standing: one's lead is the other's deficit
    assert values[program.players[0]] == -values[program.players[1]]
    assert any(v != 0 for v in values.values())


def test_a_finished_game_is_worth_most_to_its_winner(program):
    game = Game.new(program, seed=2, safe=False)
    advance(game, 10_000, seed=2)
    winner = game.result()["winner"]
    loser = next(p for p in program.players if p != winner)
    assert position_value(game, winner) > 0 > position_value(game, loser)


def test_a_missing_value_function_is_a_diagnostic(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("value: position_value",
                                                     "value: position_valu"))
    loaded = check_pack(pack)
    assert loaded.program is None
    [error] = [d for d in loaded.report.errors if d.code == "E120"]
    assert "position_valu" in error.message and error.source.line > 1


def test_agent_specs_parse_and_reject_nonsense():
    assert parse_agent("ismcts:iterations=5,depth=1") == ("ismcts", {"iterations": 5, "depth": 1})
    assert set(AGENTS) >= {"random", "greedy", "ismcts"}
    with pytest.raises(ValueError, match="unknown agent"):
        parse_agent("clever")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_agent("ismcts:fast")
    with pytest.raises(ValueError, match="does not take"):
        make_agent("greedy:iterations=3", 1)


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:iterations=1e400", "iterations must be a whole number from 1 to 1,000,000, not inf"),
    ("ismcts:iterations=2.5", "iterations must be a whole number"),
    ("ismcts:iterations=0", "iterations must be a whole number"),
    ("ismcts:seconds=nan", "seconds must be a number from 0.001 to 3,600, not nan"),
    ("ismcts:exploration=inf", "exploration must be a number"),
    ("ismcts:depth=-1", "depth must be a whole number"),
    ("greedy:breadth=0", "breadth must be a whole number from 1 to 10,000, not 0"),
])
def test_agent_settings_out_of_bounds_are_refused(spec, message):
    # iterations=1e400 was taken as infinity: the search never ended
    with pytest.raises(ValueError, match=message):
        make_agent(spec, 1)


def decisions(program, spec: str, seed: int, steps: int) -> list[str]:
    """The labels an agent picks for both sides over the first `steps` decisions."""
    game = Game.new(program, seed=seed, safe=True)
    agents = {p: make_agent(spec, seed * 10 + i) for i, p in enumerate(program.players)}
    chosen = []
    for _ in range(steps):
        if game.is_terminal():
            break
        before = game.save()
        index = agents[game.current_player()](game)
        assert game.save() == before  # thinking never changes the real game
        assert 0 <= index < len(game.legal_actions())
        chosen.append(game.legal_actions()[index])
        game.apply_action(index)
    return chosen


@pytest.mark.parametrize("spec", ["greedy", "ismcts:iterations=4"])
def test_agents_are_legal_and_deterministic(program, spec):
    first = decisions(program, spec, seed=5, steps=40)
    assert len(first) == 40
    assert decisions(program, spec, seed=5, steps=40) == first


def test_ismcts_search_depends_on_its_seed(program):
    runs = {tuple(decisions(program, "ismcts:iterations=6", seed=s, steps=30)) for s in (1, 2, 3)}
    assert len(runs) > 1


def test_determinizing_deals_only_unseen_cards_and_keeps_zone_sizes(program):
    import random

    game = advance(Game.new(program, seed=8), 40)
    me = program.players[0]
    slots = unseen_slots(program, game.state, me)
    assert slots  # the opponent's hand and the deck are unseen
    hidden_keys = {key for key, _ in slots}
    assert any(key.endswith(":" + program.players[1]) for key in hidden_keys)
    assert not any(key.endswith(":" + me) for key in hidden_keys)
    dealt = determinize(game, me, random.Random(3)).state
    changed = False
    for key, cards in game.state.zones.items():
        assert len(dealt.zones[key]) == len(cards)
        if key not in hidden_keys:
            assert dealt.zones[key] == cards  # what the player sees stays put
        changed |= dealt.zones[key] != cards
    assert changed
    for key, i in slots:  # each place keeps its card kind (a deck of one kind stays so)
        assert (program.cards[dealt.zones[key][i]]["kind"]
                == program.cards[game.state.zones[key][i]]["kind"])
    unseen_before = sorted(game.state.zones[k][i] for k, i in slots)
    assert sorted(dealt.zones[k][i] for k, i in slots) == unseen_before
    assert dealt.rng != game.state.rng  # chance is sampled afresh


def test_the_search_shuffles_as_random_shuffle_does():
    # the same draws, so a search deals what it dealt before its shuffle was written out
    import random

    from hustings.interpreter.determinize import shuffle

    for size in (0, 1, 2, 3, 17, 64, 100, 257):
        mine, theirs = list(range(size)), list(range(size))
        a, b = random.Random(size), random.Random(size)
        for _ in range(5):
            shuffle(mine, a)
            b.shuffle(theirs)
            assert mine == theirs
        assert a.random() == b.random()  # and leave the generator in the same place


def test_determinizing_deals_each_kind_among_its_own_places_in_a_mixed_zone(program):
    # a zone holding two kinds of card deals each kind among that kind's places only
    import random

    from hustings.interpreter.determinize import deal_unseen

    game = advance(Game.new(program, seed=8), 40)
    me, rival = program.players
    state = clone(game.state)
    hand = state.zones[f"hand:{rival}"]
    kinds = {program.cards[c]["kind"] for c in program.cards}
    assert len(kinds) > 1
    other = next(c for c in state.zones["endorsement_deck"])
    hand.append(other)  # one card of another kind among the campaign cards
    state.zones["endorsement_deck"].remove(other)
    before = list(hand)
    deal_unseen(program, state, me, random.Random(4))
    assert len(hand) == len(before)
    for was, now in zip(before, hand, strict=True):
        assert program.cards[was]["kind"] == program.cards[now]["kind"]


GUESSED_WRONG = """\
- {number: 1, title: Bomb, event: "while true, at most 3 times:\\n  say \\"tick\\""}
- {number: 2, title: Two}
- {number: 3, title: Three}
- {number: 4, title: Four}
- {number: 5, title: Five}
- {number: 6, title: Six}
"""


def test_a_search_drops_a_guessed_deal_that_breaks_the_rules(tmp_path):
    # the Bomb stays in the secret deck in every real game, but a search guessing the
    # unseen cards may deal it into bob's hidden hand, and the rules fail if he plays it
    from minipack import MANIFEST, make_pack

    manifest = MANIFEST.replace("deck: {start: campaign}",
                                "deck: {start: campaign, ordered_secret: true}")
    manifest = manifest.replace("hand: {per_player: true}",
                                "hand: {per_player: true, hidden: true}")
    program = load_pack(make_pack(tmp_path, GUESSED_WRONG, manifest=manifest))
    game = Game.new(program, seed=1, safe=False)
    assert 1 in game.state.zones["deck"] and 1 not in game.state.zones["hand:bob"]
    searcher = make_agent("ismcts:iterations=300", 5)
    while not game.is_terminal():
        player = game.current_player()
        index = searcher(game) if player == "ann" else 0
        assert 0 <= index < game.num_actions()
        game.apply_action(index)
    assert 1 in game.state.zones["deck"]  # the real game never dealt it
