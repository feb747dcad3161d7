"""`copies: N` on a card file (docs/dsl.md section 2.3): N distinct cards numbered up from
the file's `number`, each its own card in zones, saves, scenarios, observations and
`hustings cards`; the bounds and clashes of copies, each at its file, line and column."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest
from hidden import received
from minipack import MANIFEST, make_mod, make_pack, write

from hustings.dsl.pack import compile_pack, pack_cards
from hustings.interpreter.game import Game
from hustings.schemas.content import MAX_CARDS, MAX_COPIES
from hustings.tools.cli import main

# Cards 1-3 are the copies of Volunteers; the deck is dealt from its end, two to each
# player: ann holds 5 and 4, bob 3 and 2 (two copies), and copy 1 stays in the deck.
CARDS = """\
- number: 1
  title: Volunteers
  copies: 3
  text: Gain 1 score.
  event: |
    player gains 1 score
    say "{player} plays card {card}"
- number: 4
  title: Rally
  event: |
    player gains 2 score
- number: 5
  title: Fair
"""

# Hands are hidden and the deck is secret, so which copy is where is hidden information.
SECRET = MANIFEST.replace("deck: {start: campaign}", "deck: {start: campaign, ordered_secret: true}"
                          ).replace("hand: {per_player: true}",
                                    "hand: {per_player: true, hidden: true}")


def load(pack: Path, mods: tuple = ()):
    loaded = compile_pack(pack, {}, [Path(m) for m in mods])
    assert not loaded.report.errors, "\n".join(map(str, loaded.report.errors))
    return loaded.program


def errors(pack: Path, mods: tuple = ()) -> list:
    return compile_pack(pack, {}, [Path(m) for m in mods]).report.errors


def at(diagnostic) -> tuple:
    s = diagnostic.source
    return Path(s.path).name, s.line, s.column, diagnostic.code


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return make_pack(tmp_path, CARDS, manifest=SECRET)


# ---- the cards a file makes -----------------------------------------------------------
def test_a_file_with_copies_makes_distinct_cards_numbered_up_from_its_number(pack):
    program = load(pack)
    assert sorted(program.cards) == [1, 2, 3, 4, 5]
    assert [program.cards[n]["title"] for n in (1, 2, 3)] == ["Volunteers"] * 3
    assert all(program.cards[n]["number"] == n for n in (1, 2, 3))
    assert "copies" not in program.cards[1]  # the file's own field, not a property
    assert program.initial["zones"]["deck"] == [1, 2, 3, 4, 5]
    # the event is compiled once and run by every copy
    assert program.events[1] == program.events[2] == program.events[3] != program.events[4]


def test_one_copy_is_the_card_alone(tmp_path):
    single = load(make_pack(tmp_path / "a", "- {number: 7, title: Solo, copies: 1}\n"))
    plain = load(make_pack(tmp_path / "b", "- {number: 7, title: Solo}\n"))
    assert single.cards == plain.cards == {7: {"number": 7, "title": "Solo",
                                               "kind": "campaign", "text": ""}}


def test_copies_are_dealt_held_and_played_as_distinct_cards(pack):
    game = Game.new(load(pack), seed=3)
    assert game.state.zones["hand:ann"] == [5, 4]
    assert game.state.zones["hand:bob"] == [3, 2]
    assert game.state.zones["deck"] == [1]
    game.apply_action("pass")
    # the engine tells repeated labels apart: the second copy in hand is "(2)"
    assert game.legal_actions() == ["score", "play Volunteers", "play Volunteers (2)", "pass"]
    game.apply_action("play Volunteers (2)")
    assert game.state.zones["hand:bob"] == [3]
    assert game.state.zones["discard"] == [2]
    assert game.state.counters["score"]["bob"] == 1
    assert "bob plays card 2" in game.narration("bob")
    game.apply_action("pass")
    game.apply_action("play Volunteers")
    assert game.state.zones["discard"] == [2, 3]
    assert game.state.counters["score"]["bob"] == 2


def test_which_copy_a_hidden_hand_holds_is_not_told(pack):
    """Swapping the copy in bob's hidden hand with the copy in the secret deck changes
    nothing ann receives, and bob sees his own change."""
    game = Game.new(load(pack), seed=3)
    twin = game.fork()
    twin.state.zones["hand:bob"][1], twin.state.zones["deck"][0] = 1, 2
    assert received(twin, "ann") == received(game, "ann")
    assert game.observation("ann")["zones"]["hand:bob"] == 2
    assert received(twin, "bob") != received(game, "bob")
    assert twin.observation("bob")["zones"]["hand:bob"] == [3, 1]


def test_a_game_with_copies_saves_and_loads_to_the_same_game(pack):
    program = load(pack)
    game = Game.new(program, seed=5)
    for label in ("pass", "play Volunteers (2)", "score"):
        game.apply_action(label)
    text = game.save()
    again = Game.load(program, text)
    assert again.save() == text
    assert again.state.zones == game.state.zones
    for g in (game, again):
        g.apply_action("play Volunteers")
    assert again.save() == game.save()
    assert again.state.zones["discard"] == [2, 3]


def test_copies_play_byte_for_byte_as_one_file_per_card(tmp_path):
    """`copies: 3` is the same game as three files numbered 1 to 3: same seed and actions,
    the same state, log and observations."""
    spelled = CARDS.replace("  copies: 3\n", "").replace(
        "- number: 4", textwrap.dedent("""\
        - number: 2
          title: Volunteers
          text: Gain 1 score.
          event: |
            player gains 1 score
            say "{player} plays card {card}"
        - number: 3
          title: Volunteers
          text: Gain 1 score.
          event: |
            player gains 1 score
            say "{player} plays card {card}"
        - number: 4"""))
    games = [play_random(load(make_pack(tmp_path / name, cards, manifest=SECRET)), seed=11)
             for name, cards in (("copies", CARDS), ("files", spelled))]
    assert games[0].state.to_dict() == games[1].state.to_dict()
    for seat in ("ann", "bob"):
        assert received(games[0], seat) == received(games[1], seat)


def test_the_same_seed_and_actions_give_the_same_game(pack):
    program = load(pack)
    first, second = play_random(program, seed=2), play_random(program, seed=2)
    assert first.save() == second.save()
    assert first.is_terminal()


def play_random(program, seed: int) -> Game:
    game = Game.new(program, seed=seed)
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply_action(rng.randrange(game.num_actions()))
    return game


# ---- scenarios and tools name a copy by its number ----------------------------------
SCENARIO = """\
scenarios:
  - name: bob plays the third copy of Volunteers
    steps:
      - cards: [5, 1, 3, 2]
      - do: pass
      - expect:
          zones: {"hand:bob": [3, 2], deck: [4]}
      - do: "play Volunteers"
      - expect:
          zones: {discard: [3], "hand:bob": [DISCARDED_LEFT]}
          counters: {score: {bob: 1}}
          log: ["bob plays card 3"]
"""


def test_a_scenario_names_a_copy_by_its_number(pack, capsys):
    write(pack, {"scenarios/copies.yaml": SCENARIO.replace("DISCARDED_LEFT", "2")})
    assert main(["scenario", str(pack / "scenarios"), "--pack", str(pack)]) == 0
    # the same scenario expecting the other copy to be left fails: copies are told apart
    write(pack, {"scenarios/copies.yaml": SCENARIO.replace("DISCARDED_LEFT", "1")})
    assert main(["scenario", str(pack / "scenarios"), "--pack", str(pack)]) == 1
    assert "hand:bob" in capsys.readouterr().out


def test_a_scenario_naming_a_number_past_the_copies_is_refused(pack, capsys):
    write(pack, {"scenarios/copies.yaml": SCENARIO.replace("DISCARDED_LEFT", "6")})
    assert main(["scenario", str(pack / "scenarios"), "--pack", str(pack)]) == 1
    out = capsys.readouterr()
    assert "E503" in out.out + out.err


def test_hustings_cards_lists_each_copy(pack, capsys):
    assert main(["cards", "volunteers", "--pack", str(pack), "--width", "80"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if "Volunteers" in line]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert out.rstrip().endswith("3 cards")
    assert main(["cards", "2", "--pack", str(pack), "--width", "80"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 card")


def test_new_card_refuses_a_copys_number_and_says_whose_copy_it_is(pack, capsys):
    assert pack_cards(pack)[2] == ("Volunteers", f"{pack / 'cards.yaml'}, copy 2 of 3 of card 1")
    target = pack / "more" / "002-x.yaml"
    assert main(["new", "card", str(target), "--pack", str(pack)]) == 1
    err = capsys.readouterr().err
    assert "card number 2 is taken by 'Volunteers'" in err
    assert "copy 2 of 3 of card 1" in err and "the next free number is 6" in err
    assert not target.exists()


# ---- bounds and clashes, each at its spot ---------------------------------------------
@pytest.mark.parametrize("value, message, hint", [
    ("0", "greater than or equal to 1", f"`copies` is a whole number from 1 to {MAX_COPIES}"),
    ("-2", "greater than or equal to 1", f"`copies` is a whole number from 1 to {MAX_COPIES}"),
    (str(MAX_COPIES + 1), f"less than or equal to {MAX_COPIES}",
     f"`copies` is a whole number from 1 to {MAX_COPIES}"),
    ("three", "expected a whole number, got 'three'", "write the number in digits: `3`"),
    ("true", "expected a whole number", ""),
    ("2.5", "expected a whole number", ""),
])
def test_a_bad_copies_value_is_reported_at_the_value(tmp_path, value, message, hint):
    pack = make_pack(tmp_path, f"- number: 1\n  title: Volunteers\n  copies: {value}\n",
                     manifest=MANIFEST.replace("cards: [cards.yaml]", "cards: [cards.yaml, more]"))
    # a card in a file of its own, so the game has cards while the list file is refused
    write(pack, {"more/009-other.yaml": "number: 9\ntitle: Other\n"})
    found = errors(pack)
    assert [at(d) for d in found] == [("cards.yaml", 4, 13, "E104")]
    assert found[0].message.startswith("cards.0.copies: ") and message in found[0].message
    assert found[0].hint == hint


def test_a_bad_copies_value_in_a_one_card_file(tmp_path):
    pack = make_pack(tmp_path, "- {number: 9, title: Other}\n")
    write(pack, {"pack.yaml": MANIFEST.replace("cards: [cards.yaml]", "cards: [cards.yaml, more]"),
                 "more/001-v.yaml": "number: 1\ntitle: Volunteers\ncopies: 0\n"})
    found = errors(pack)
    assert [at(d) for d in found] == [("001-v.yaml", 3, 9, "E104")]
    assert found[0].message.startswith("copies: ")


def test_a_card_numbered_into_anothers_copies_is_used_twice(tmp_path):
    """The clash is reported at the second file's `number`, naming the copy it hits."""
    pack = make_pack(tmp_path, CARDS + "- number: 3\n  title: Late\n")
    found = errors(pack)
    assert [at(d) for d in found] == [("cards.yaml", 15, 5, "E106")]
    assert found[0].message == "card number 3 is used twice"
    assert found[0].hint.endswith("cards.yaml, copy 3 of 3 of card 1")


def test_copies_that_run_into_an_earlier_card_are_reported_at_copies(tmp_path):
    pack = make_pack(tmp_path, "- {number: 3, title: Early}\n- {number: 4, title: Later}\n"
                               "- number: 2\n  title: Volunteers\n  copies: 4\n")
    found = errors(pack)
    # one error for the file, though two of its copies clash
    assert [at(d) for d in found] == [("cards.yaml", 6, 5, "E106")]
    assert found[0].message == ("card number 3 is used twice: `copies: 4` numbers card 2's "
                                "copies 2 to 5")
    assert "give it fewer copies" in found[0].hint
    assert found[0].hint.startswith(f"also in {pack / 'cards.yaml'}")


def test_a_deck_past_the_card_limit_is_refused_at_the_copies_that_cross_it(tmp_path):
    count = MAX_CARDS // MAX_COPIES
    cards = "".join(f"- {{number: {1 + i * MAX_COPIES}, title: C{i}, copies: {MAX_COPIES}}}\n"
                    for i in range(count))
    assert not errors(make_pack(tmp_path / "full", cards))  # exactly the limit is fine
    pack = make_pack(tmp_path / "over", cards + f"- {{number: {MAX_CARDS + 1}, title: X}}\n"
                                                f"- {{number: {MAX_CARDS + 2}, title: Y}}\n")
    found = errors(pack)
    assert [at(d) for d in found] == [("cards.yaml", count + 2, 14, "E140")]
    assert f"more than the {MAX_CARDS:,}" in found[0].message
    assert "fewer `copies:`" in found[0].hint
    # crossing it with the copies of a card: reported at that card's `copies`
    cards = cards.rsplit("- ", 1)[0] + f"- {{number: {MAX_CARDS - 99}, title: A, copies: 99}}\n"
    cards += f"- {{number: {MAX_CARDS + 1}, title: B, copies: 2}}\n"
    found = errors(make_pack(tmp_path / "copies", cards))
    assert [at(d) for d in found] == [("cards.yaml", count + 2, 39, "E140")]


def test_options_do_not_hide_a_deck_past_the_limit(tmp_path):
    manifest = MANIFEST + "options:\n  big: {default: false}\n"
    cards = f"- {{number: {MAX_CARDS + 1}, title: Always}}\n" + "".join(
        f"- {{number: {1 + i * MAX_COPIES}, title: C{i}, copies: {MAX_COPIES}, option: big}}\n"
        for i in range(MAX_CARDS // MAX_COPIES))
    found = errors(make_pack(tmp_path, cards, manifest=manifest))
    assert [d.code for d in found] == ["E140"]


def test_card_fields_may_not_declare_copies(tmp_path):
    manifest = MANIFEST + "card_fields:\n  copies: {type: int}\n"
    found = errors(make_pack(tmp_path, "- {number: 1, title: A}\n", manifest=manifest))
    assert [d.code for d in found] == ["E130"]
    assert "'copies' is a field every one has" in found[0].message


# ---- mods change a card file as a whole --------------------------------------------------
def test_a_mod_removing_a_card_removes_all_its_copies(pack, tmp_path):
    mod = make_mod(tmp_path, "fewer", {}, "")
    write(mod, {"mod.yaml": (mod / "mod.yaml").read_text() + "remove: [1]\n"})
    assert sorted(load(pack, (mod,)).cards) == [4, 5]


def test_a_mod_cannot_remove_one_copy_and_is_told_why(pack, tmp_path):
    mod = make_mod(tmp_path, "one-less", {})
    write(mod, {"mod.yaml": (mod / "mod.yaml").read_text() + "remove: [2]\n"})
    found = errors(pack, (mod,))
    assert [at(d) for d in found] == [("mod.yaml", 4, 10, "E604")]
    assert found[0].hint.startswith("card 2 is copy 2 of card 1 (`copies: 3`)")


def test_a_mod_replacing_a_card_sets_its_copies(pack, tmp_path):
    two = make_mod(tmp_path, "two", {"cards/001.yaml": "number: 1\nreplaces: 1\ntitle: Helpers\n"
                                                        "copies: 2\n"})
    program = load(pack, (two,))
    assert sorted(program.cards) == [1, 2, 4, 5]
    assert program.cards[2]["title"] == "Helpers"
    one = make_mod(tmp_path, "one", {"cards/001.yaml": "number: 1\nreplaces: 1\ntitle: Solo\n"})
    assert sorted(load(pack, (one,)).cards) == [1, 4, 5]


def test_a_mod_card_on_a_copys_number_is_used_twice(pack, tmp_path):
    mod = make_mod(tmp_path, "clash", {"cards/002.yaml": "number: 2\ntitle: Intruder\n"})
    found = errors(pack, (mod,))
    assert [at(d) for d in found] == [("002.yaml", 1, 1, "E106")]
    assert "copy 2 of 3 of card 1" in found[0].hint


def test_observations_name_copies_by_number_only(pack):
    """A seat's view of a copy is its number: the title is read from the pack's cards."""
    game = Game.new(load(pack), seed=1)
    seen = game.observation("bob")
    assert seen["zones"]["hand:bob"] == [3, 2]
    assert "copies" not in json.dumps(seen)


def test_copies_of_a_card_that_starts_with_its_owner_start_in_the_owners_zone(tmp_path):
    manifest = MANIFEST.replace("  discard: {}\n", "  discard: {}\n"
                                "  tableau: {per_player: true, start: perk}\n")
    perks = "- {number: 20, title: Perk, kind: perk, owner: OWNER, copies: 2}\n"
    program = load(make_pack(tmp_path / "ok", CARDS + perks.replace("OWNER", "bob"),
                             manifest=manifest))
    assert program.initial["zones"]["tableau:bob"] == [20, 21]
    assert program.initial["zones"]["tableau:ann"] == []
    # an owner who is no player is told once, at the file, not once a copy
    found = errors(make_pack(tmp_path / "bad", CARDS + perks.replace("OWNER", "zed"),
                             manifest=manifest))
    assert [d.code for d in found] == ["E108"]
    assert found[0].message.startswith("card 20 starts in its owner's zone")


def test_effect_text_may_name_the_copies_of_a_card_whose_file_is_broken(tmp_path):
    """A card file that fails its schema still tells which numbers it would make, so a
    card naming one of its copies has no error of its own (only the file's is shown)."""
    manifest = MANIFEST.replace("cards: [cards.yaml]", "cards: [cards.yaml, more]")
    pack = make_pack(tmp_path, "- number: 9\n  title: Mover\n  event: |\n"
                               "    transfer 3 to discard\n", manifest=manifest)
    write(pack, {"more/001-v.yaml": "number: 1\ntitle: Volunteers\ncopies: 3\ntext: [a]\n"})
    assert [at(d) for d in errors(pack)] == [("001-v.yaml", 4, 7, "E104")]
    write(pack, {"more/001-v.yaml": "number: 1\ntitle: Volunteers\ncopies: 2\ntext: [a]\n"})
    assert sorted(d.code for d in errors(pack)) == ["E104", "E321"]


def test_copies_share_no_list_of_a_field(tmp_path):
    pack = make_pack(tmp_path, "- {number: 1, title: Tour, copies: 2, stops: [A, B]}\n")
    cards = load(pack).cards
    assert cards[1]["stops"] == cards[2]["stops"] == ["A", "B"]
    assert cards[1]["stops"] is not cards[2]["stops"]


def test_a_pack_whose_every_card_is_refused_gets_no_second_error_for_reading_a_title(tmp_path):
    from minipack import make_pack

    from hustings.dsl.loading import check_pack

    loaded = check_pack(make_pack(tmp_path, '- {number: "x", title: One}\n'))
    codes = [d.code for d in loaded.report.errors]
    assert codes and "E316" not in codes  # the rules' `title of c` is no unknown property
