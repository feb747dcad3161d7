"""Announcements and reactions, durations, counter bounds, numbered tracks, dice and
random picks, named texts, and mods that build on procedures: proven on a tiny pack
(tests/minipack.py) that is no real game."""

from __future__ import annotations

from pathlib import Path

import pytest
from minipack import make_mod, make_pack

from hustings.dsl.loading import check_pack, load_pack
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import first_violation

SPITE = """
- {number: 1, title: One}
- {number: 2, title: Two}
- number: 3
  title: Spite
  event: |
    until end of round:
      whenever scored(who, n) if who == opponent:
        player gains n gold
- {number: 4, title: Four}
"""


def play(program, actions: list[str], seed: int = 1) -> Game:
    game = Game.new(program, seed)
    for action in actions:
        game.apply_action(action)
        assert first_violation(program, game.state, None) is None
    return game


def codes(loaded) -> list[str]:
    return [d.code for d in loaded.report.errors]


def test_a_lasting_reaction_reacts_to_the_opponent_until_its_duration_ends(tmp_path):
    program = load_pack(make_pack(tmp_path, SPITE))
    game = play(program, ["play Spite", "score"])
    assert game.state.counters["gold"] == {"ann": 4, "bob": 3}
    assert "  ann gains 1 gold — Spite" in game.state.log  # told with the card's title
    game = play(program, ["play Spite", "score", "score", "score"])
    assert game.state.counters["gold"]["ann"] == 4  # round 2: the reaction has ended
    assert game.state.reactions == []


def test_a_reaction_does_not_react_to_its_own_player(tmp_path):
    program = load_pack(make_pack(tmp_path, SPITE))
    game = play(program, ["play Spite", "pass", "score"])
    assert game.state.counters["gold"]["ann"] == 3


TWO_RULES = {
    "rules/20-first.yaml": """\
        reactions:
          first_word:
            whenever: scored
            if: amount > 0
            body: |
              say "first: {player} scored {amount}"
        """,
    "rules/30-second.yaml": """\
        reactions:
          second_word:
            whenever: scored
            body: |
              say "second: {player}"
        """,
}


def test_rule_reactions_run_in_load_order_then_lasting_ones(tmp_path):
    program = load_pack(make_pack(tmp_path, SPITE, rules=TWO_RULES))
    game = play(program, ["play Spite", "score"])
    log = game.state.log
    first, second = log.index("first: bob scored 1"), log.index("second: bob")
    assert first < second < log.index("  ann gains 1 gold — Spite")


USED_ONCE = """
- {number: 1, title: One}
- {number: 2, title: Two}
- number: 3
  title: Once
  event: |
    until used once:
      whenever scored(who, n) if who == opponent:
        player gains 5 gold
- number: 4
  title: Twice
  event: |
    until scored 2 times:
      player has bonus 1
"""


def test_until_used_once_reacts_once_and_only_when_its_condition_holds(tmp_path):
    program = load_pack(make_pack(tmp_path, USED_ONCE))
    game = play(program, ["play Once", "pass", "score", "score", "score", "score"])
    assert game.state.counters["gold"]["ann"] == 8  # once, for bob's first score only
    assert game.state.reactions == []


def test_an_effect_lasting_a_number_of_announcements_counts_them_down(tmp_path):
    program = load_pack(make_pack(tmp_path, USED_ONCE))
    game = play(program, ["play Twice", "pass", "score"])
    assert game.state.effects == [["bonus", "ann", 1, ["scored", 1]]]  # ann's score counted
    game.apply_action("score")  # bob: the second scored announcement ends it
    assert game.state.effects == []
    game.apply_action("score")
    assert game.state.counters["score"]["ann"] == 3  # 2 with the bonus, then 1


def test_a_counter_stops_at_its_maximum_and_its_minimum(tmp_path):
    rules = {"rules/40-more.yaml": """\
        procedures:
          turn:
            params: [player]
            body: |
              player gains 9 score
              player loses 7 gold
        """}
    pack = make_pack(tmp_path, SPITE, rules=rules)
    (pack / "rules" / "10-game.yaml").write_text(
        (pack / "rules" / "10-game.yaml").read_text().replace("  turn:\n", "  unused_turn:\n"))
    loaded = check_pack(pack)
    assert not loaded.report.errors, loaded.report.errors
    game = Game.new(loaded.program, 1)
    assert game.is_terminal()
    assert game.state.counters["score"] == {"ann": 5, "bob": 5}
    assert game.state.counters["gold"] == {"ann": 0, "bob": 0}


def test_a_numbered_track_keeps_each_marker_between_its_ends(tmp_path):
    cards = """
    - {number: 1, title: One}
    - {number: 2, title: Two}
    - number: 3
      title: Heat
      event: |
        move opponent up 4 on heat
        move opponent up 4 on heat
        move player down 1 on heat
        say "heat {heat of opponent}"
    - {number: 4, title: Four}
    """
    game = play(load_pack(make_pack(tmp_path, cards)), ["play Heat"])
    assert game.state.counters["heat"] == {"ann": 0, "bob": 5}
    assert "heat 5" in game.state.log


DICE = """
- {number: 1, title: One}
- {number: 2, title: Two}
- number: 3
  title: Dice
  event: |
    let r = roll(6)
    say "rolled {r}"
    if r >= 5:
      opponent gains 1 score
- number: 4
  title: Pick
  event: |
    let c = random_pick(cards(hand of opponent))
    transfer c to discard
    say "took {c}"
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_die_is_deterministic_for_a_seed_and_between_one_and_its_sides(tmp_path, seed):
    program = load_pack(make_pack(tmp_path, DICE))
    logs = [play(program, ["play Dice"], seed).state.log for _ in range(2)]
    assert logs[0] == logs[1]
    rolled = int(next(line for line in logs[0] if line.startswith("rolled")).split()[1])
    assert 1 <= rolled <= 6


def test_a_forced_roll_and_a_forced_pick_decide_chance(tmp_path):
    program = load_pack(make_pack(tmp_path, DICE))
    game = Game.new(program, 1)
    game.state.forced_rolls.append(5)
    game.apply_action("play Dice")
    assert "rolled 5" in game.state.log and game.state.counters["score"]["bob"] == 1
    game = Game.new(program, 1)
    game.state.forced_picks.append(1)
    game.apply_action("play Pick")
    assert "took 1" in game.state.log and 1 in game.state.zones["discard"]


def test_a_forced_roll_the_die_cannot_show_is_a_rule_error(tmp_path):
    game = Game.new(load_pack(make_pack(tmp_path, DICE)), 1)
    game.state.forced_rolls.append(7)
    before = game.save()
    with pytest.raises(RuleError, match="forced roll of 7"):
        game.apply_action("play Dice")
    assert game.save() == before


def test_cancel_ends_the_latest_effect_of_that_name(tmp_path):
    cards = """
    - {number: 1, title: One}
    - {number: 2, title: Two}
    - number: 3
      title: Boost
      event: |
        until end of round:
          player has bonus 1
        until end of game:
          player has bonus 2
        cancel bonus of player
    - {number: 4, title: Four}
    """
    game = play(load_pack(make_pack(tmp_path, cards)), ["play Boost"])
    assert game.state.effects == [["bonus", "ann", 1, "round"]]


ASKING = """
- {number: 1, title: One}
- {number: 2, title: Two}
- number: 3
  title: Ask
  event: |
    until end of game:
      whenever scored(who, n) if who == opponent:
        player chooses:
          "take 2 gold":
            player gains 2 gold
          "take nothing":
            say "nothing"
- {number: 4, title: Four}
"""


def test_a_reaction_that_asks_a_decision_saves_and_resumes_there(tmp_path):
    program = load_pack(make_pack(tmp_path, ASKING, rules=TWO_RULES))
    game = play(program, ["play Ask", "score"])
    assert game.current_player() == "ann" and "take 2 gold" in game.legal_actions()
    loaded = Game.load(program, game.save())
    for g in (game, loaded):
        g.apply_action("take 2 gold")
        for action in ["score", "score", "score", "score"]:
            g.apply_action(action)
            if g.legal_actions() and g.legal_actions()[0] == "take 2 gold":
                g.apply_action("take nothing")
    assert loaded.save() == game.save()
    assert game.state.counters["gold"]["ann"] == 5


def test_a_reaction_for_the_whole_game_may_be_written_in_a_mod(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    mod = make_mod(tmp_path, "tithe", {"rules/tithe.yaml": """\
        reactions:
          tithe:
            whenever: scored
            if: amount >= 1
            body: |
              player loses 1 gold
        """})
    game = play(load_pack(pack, mods=[mod]), ["score", "score"])
    assert game.state.counters["gold"] == {"ann": 2, "bob": 2}


@pytest.mark.parametrize("event, code", [
    ("until end of round:\n  whenever scoredd:\n    say \"x\"", "E330"),
    ("announce scored(player: player)", "E331"),
    ("announce scored(player: player, amount: 1, extra: 2)", "E331"),
    ("whenever scored:\n  say \"x\"", "E332"),
    ("until end of round:\n  whenever scored:\n    say \"x\"", "E333"),
    ("until used once:\n  player has bonus 1", "E334"),
    ("until scoredd 2 times:\n  player has bonus 1", "E330"),
])
def test_mistakes_with_reactions_are_diagnostics_at_their_place(tmp_path, event, code):
    body = "".join(" " * 6 + line + "\n" for line in event.splitlines())
    cards = "- {number: 1, title: One}\n- number: 2\n  title: Broken\n  event: |\n" + body
    loaded = check_pack(make_pack(tmp_path, cards))
    assert code in codes(loaded), loaded.report.errors
    found = next(d for d in loaded.report.errors if d.code == code)
    assert found.source.path.endswith("cards.yaml") and found.source.line >= 5


def test_a_rules_reaction_to_an_unknown_announcement_is_a_diagnostic(tmp_path):
    rules = {"rules/20-x.yaml": "reactions:\n  x:\n    whenever: scord\n    body: |\n"
             "      say \"x\"\n"}
    loaded = check_pack(make_pack(tmp_path, SPITE, rules=rules))
    found = [d for d in loaded.report.errors if d.code == "E330"]
    assert found and found[0].source.line == 3 and "scored" in found[0].hint


@pytest.mark.parametrize("where", ["card", "rules"])
def test_an_announcement_like_none_is_told_those_there_are(tmp_path, where):
    # no near name to suggest: the hint lists the pack's announcements, with their values
    card = "until end of round:\n  whenever applause(who):\n    say \"x\""
    rules = {"rules/20-x.yaml": "reactions:\n  x:\n    whenever: applause\n    body: |\n"
             "      say \"x\"\n"}
    body = "".join(" " * 6 + line + "\n" for line in card.splitlines())
    cards = "- {number: 1, title: One}\n- number: 2\n  title: Broken\n  event: |\n" + body
    loaded = check_pack(make_pack(tmp_path, SPITE, rules=rules) if where == "rules"
                        else make_pack(tmp_path, cards))
    found = [d for d in loaded.report.errors if d.code == "E330"]
    assert found and found[0].hint.startswith(
        "the rules announce round_ended(number), scored(player, amount); ")
    assert found[0].hint.endswith("declare a new one under `announcements:` in pack.yaml "
                                  "(or a mod's setup)")


# ---- mods building on procedures and functions --------------------------------------

SCORE_WORDS = {
    "rules/ext.yaml": """\
        procedures:
          score:
            extends: after
            body: |
              say "after {player} scored {amount}"
          turn:
            extends: before
            body: |
              say "before {player}'s turn"
        """,
}


def test_a_mod_extends_procedures_before_and_after_without_copying_them(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    mod = make_mod(tmp_path, "words", SCORE_WORDS)
    game = play(load_pack(pack, mods=[mod]), ["score"])
    log = game.state.log
    assert log.index("before ann's turn") < log.index("after ann scored 1")
    assert game.state.counters["score"]["ann"] == 1  # the original still ran


def test_two_mods_may_extend_the_same_procedure(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    one = make_mod(tmp_path, "one", SCORE_WORDS)
    two = make_mod(tmp_path, "two", {"rules/ext.yaml": """\
        procedures:
          score:
            extends: after
            body: |
              player gains 1 gold
        """})
    game = play(load_pack(pack, mods=[one, two]), ["score"])
    assert "after ann scored 1" in game.state.log
    assert game.state.counters["gold"]["ann"] == 4


def test_a_replacement_may_call_the_original(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    mod = make_mod(tmp_path, "double", {"rules/r.yaml": """\
        procedures:
          score:
            replaces: true
            body: |
              do original(player: player, amount: amount * 2)
        functions:
          worth:
            params: [who]
            expr: score of who
        """})
    game = play(load_pack(pack, mods=[mod]), ["score"])
    assert game.state.counters["score"]["ann"] == 2


def test_a_function_extension_wraps_the_original_value(tmp_path):
    rules = {"rules/20-fn.yaml": """\
        functions:
          worth:
            params: [who]
            expr: score of who
        procedures:
          show:
            params: [who]
            body: |
              say "worth {worth(who)}"
        """}
    pack = make_pack(tmp_path, SPITE, rules=rules)
    text = (pack / "rules" / "10-game.yaml").read_text()
    (pack / "rules" / "10-game.yaml").write_text(
        text.replace('          say "{player} passes"', '          do show(who: player)'))
    mod = make_mod(tmp_path, "rich", {"rules/f.yaml": """\
        functions:
          worth:
            extends: true
            expr: original + gold of who
        """})
    game = play(load_pack(pack, mods=[mod]), ["pass"])
    assert "worth 3" in game.state.log


def test_extending_a_missing_procedure_is_a_diagnostic(tmp_path):
    mod = make_mod(tmp_path, "bad", {"rules/b.yaml": """\
        procedures:
          scor:
            extends: after
            body: |
              say "x"
        """})
    loaded = check_pack(make_pack(tmp_path, SPITE), mods=[mod])
    assert "E604" in codes(loaded) and "score" in loaded.report.errors[0].hint


def test_an_extension_with_other_parameters_is_a_diagnostic(tmp_path):
    mod = make_mod(tmp_path, "bad", {"rules/b.yaml": """\
        procedures:
          score:
            extends: before
            params: [who]
            body: |
              say "y"
        """})
    loaded = check_pack(make_pack(tmp_path, SPITE), mods=[mod])
    assert codes(loaded) == ["E611"]


def test_a_mod_rewords_a_text_and_declares_state_of_its_own(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    mod = make_mod(tmp_path, "loud", {"rules/l.yaml": """\
        procedures:
          score:
            extends: after
            body: |
              move player up 1 on fame
              put 1 at position 1 on ladder
        """}, setup="""\
        texts:
          round_heading: {params: [n], text: "*** ROUND {n} ***"}
        tracks:
          fame: {min: 0, max: 2}
          ladder: [1, 2]
        counters:
          score: {max: 3}
        zones:
          vault: {}
        durations:
          season: "a season"
        announcements:
          fame_gained: {params: [player]}
        """)
    mod_yaml = mod / "mod.yaml"
    mod_yaml.write_text(mod_yaml.read_text().replace("ladder: [1, 2]", "ladder: [a, b]")
                        .replace("put 1 at", "put b at"))
    (mod / "rules" / "l.yaml").write_text(
        (mod / "rules" / "l.yaml").read_text().replace("put 1 at", "put b at"))
    loaded = check_pack(pack, mods=[mod])
    assert not loaded.report.errors, loaded.report.errors
    game = play(loaded.program, ["score", "score", "score", "score", "score", "score"])
    assert "*** ROUND 1 ***" in game.state.log
    assert game.state.counters["fame"] == {"ann": 2, "bob": 2}
    assert game.state.counters["score"] == {"ann": 3, "bob": 3}
    assert game.state.tracks["ladder"] == ["b", "a"]
    assert "vault" in game.state.zones


def test_a_counter_starting_outside_its_bounds_is_a_diagnostic(tmp_path):
    pack = make_pack(tmp_path, SPITE)
    mod = make_mod(tmp_path, "rich", {}, setup="counters:\n  gold: {max: 2}\n")
    loaded = check_pack(pack, mods=[mod])
    assert "E609" in codes(loaded)


def test_texts_appear_in_the_log(tmp_path: Path):
    game = play(load_pack(make_pack(tmp_path, SPITE)), [])
    said = [line for line in game.state.log if not line.startswith("  ")]  # not changes
    assert said[0] == "== Round 1 =="


def test_an_observation_shows_a_lasting_reaction_but_not_the_variables_it_keeps(tmp_path):
    cards = SPITE.replace("    until end of round:", "    let seen = cards(hand of opponent)\n"
                          "    until end of round:")
    game = play(load_pack(make_pack(tmp_path, cards)), ["play Spite"])
    assert game.state.reactions[0][3]["seen"] == [2, 1]
    shown = game.observation("bob")["reactions"]
    assert shown == [{"announcement": "scored", "card": 3, "lasts": "round", "uses": None}]
    assert "seen" not in str(game.observation("bob"))


def test_declared_card_kinds_refuse_a_misspelt_kind_and_a_mod_adds_one(tmp_path):
    manifest = __import__("minipack").MANIFEST.replace(
        "entry: game", "card_kinds: {campaign: \"the deck\"}\nentry: game")
    four = "- {number: 4, title: Four}"
    cards = SPITE.replace(four, "- {number: 4, title: Four, kind: campain}")
    loaded = check_pack(make_pack(tmp_path, cards, manifest=manifest))
    found = [d for d in loaded.report.errors if d.code == "E121"]
    assert found and "campaign" in found[0].hint
    assert (found[0].source.line, found[0].source.column) == (11, 36)
    pack = make_pack(tmp_path / "ok", SPITE.replace("- {number: 4, title: Four}",
                                                    "- {number: 4, title: Four, kind: bonus}"),
                     manifest=manifest.replace("  discard: {}\n",
                                               "  discard: {}\n  bonus_pile: {start: bonus}\n"))
    mod = make_mod(tmp_path, "bonus", {}, setup="card_kinds: {bonus: \"bonus cards\"}\n")
    assert "E121" in codes(check_pack(pack))
    assert not check_pack(pack, mods=[mod]).report.errors


def either_end(until: str) -> str:
    """Card 3 sets up a reaction for `until` and scores at once (its first use)."""
    return f"""
- {{number: 1, title: One}}
- {{number: 2, title: Two}}
- number: 3
  title: Either
  event: |
    until {until}:
      whenever scored(who, n):
        player gains 5 gold
    do score(player: player, amount: 1)
- {{number: 4, title: Four}}
"""


@pytest.mark.parametrize("until, gold", [
    ("end of round", 13),  # ann's score and bob's: the round has not ended
    ("end of round or used once", 8),  # ann's score used it up
    ("end of round or used 3 times", 13),  # two uses, then the round ended it
    ("used 3 times", 18),  # and in round 2, ann's score is its third use
])
def test_a_reaction_lasts_until_its_duration_ends_or_it_is_used_up(tmp_path, until, gold):
    program = load_pack(make_pack(tmp_path, either_end(until)))
    game = play(program, ["play Either", "score", "score"])  # the last: round 2, ann
    assert game.state.counters["gold"]["ann"] == gold


def test_an_effect_cannot_be_used_up_even_with_a_duration(tmp_path):
    cards = either_end("end of round or used once").replace(
        "      whenever scored(who, n):\n        player gains 5 gold\n",
        "      player has bonus 1\n")
    loaded = check_pack(make_pack(tmp_path, cards))
    assert codes(loaded) == ["E334"]


def test_explain_reads_a_duration_with_uses_as_it_is_written(tmp_path):
    from hustings.tools.reading.outline import listing
    from hustings.tools.reading.render import Renderer

    program = load_pack(make_pack(tmp_path, either_end("end of round or used 2 times")))
    text = "\n".join(listing(program, program.events[3], Renderer(program)))
    assert "until end of round or used 2 times: whenever scored(who, n):" in text
