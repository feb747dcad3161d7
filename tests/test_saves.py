"""Saved games are untrusted input: versioned, validated for shape and meaning on load,
and refused with one message naming what is wrong. An exception of any kind inside
apply_action leaves the state exactly as it was.

Each corruption issue 8 lists has its own test below; tests/test_save_fuzz.py adds
seeded random corruptions.
"""

from __future__ import annotations

import gc
import json
import random
import re

import pytest

from hustings.dsl.loading import load_pack
from hustings.interpreter.errors import RuleError, SaveError
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import first_violation
from hustings.interpreter.machine import Machine
from hustings.interpreter.state import GameState, clone
from hustings.schemas.save import FORMAT_VERSION


@pytest.fixture(scope="module")
def program():
    return load_pack()


def play(program, seed: int, actions: int, safe: bool = False) -> Game:
    game = Game.new(program, seed=seed, safe=safe)
    agent = random.Random(seed)
    for _ in range(actions):
        game.apply_action(agent.randrange(len(game.legal_actions())))
    return game


def paused_at(program, opcode: str, seed: int = 11) -> Game:
    """A game paused at a decision offered by a `choose` or a `menu` instruction."""
    game = play(program, seed, 30)
    agent = random.Random(seed)
    while True:
        top = game.state.stack[-1]
        if program.blocks[top.block][top.pc - 1][0] == opcode:
            return game
        game.apply_action(agent.randrange(len(game.legal_actions())))


@pytest.fixture(scope="module")
def midgame(program) -> str:
    game = play(program, 11, 40)
    assert game.state.zones["hand:kennedy"] and game.state.zones["hand:nixon"]
    return game.save()


def corrupted(text: str, change) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def refused(program, text: str, pattern: str) -> str:
    with pytest.raises(SaveError) as info:
        Game.load(program, text)
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "\n" not in message and len(message) < 400
    return message


# ---- the save format ---------------------------------------------------------------


def test_a_save_names_its_format_and_pack(program, midgame):
    data = json.loads(midgame)
    assert data["format_version"] == FORMAT_VERSION
    from ruamel.yaml import YAML

    from hustings.dsl.loading import builtin_pack

    manifest = YAML(typ="safe").load((builtin_pack() / "pack.yaml").read_text("utf-8"))
    assert data["pack"] == {"name": program.name, "version": manifest["version"]}
    assert Game.load(program, midgame).save() == midgame


@pytest.mark.parametrize(("version", "pattern"), [
    (FORMAT_VERSION - 1, "older format"), (FORMAT_VERSION + 1, "newer format"),
    (None, "no format_version"), ("1", "no format_version"), (True, "no format_version"),
])
def test_other_format_versions_are_refused_clearly(program, midgame, version, pattern):
    def change(d):
        d["format_version"] = version

    refused(program, corrupted(midgame, change), pattern)
    refused(program, corrupted(midgame, lambda d: d.pop("format_version")), "no format_version")


def test_a_save_of_another_pack_is_refused(program, midgame):
    def change(d):
        d["pack"]["name"] = "1861"

    refused(program, corrupted(midgame, change), "pack '1861', not of '1960'")


@pytest.mark.parametrize(("text", "pattern"), [
    ("not json", "not JSON"), ("[1, 2]", "not a JSON object"), ("[" * 100_000, "nests|JSON"),
    ("x" * 40_000_000, "characters; at most"),
])
def test_text_that_is_no_save_is_refused(program, text, pattern):
    refused(program, text, pattern)


# ---- shape ------------------------------------------------------------------------------


def test_nan_and_infinity_are_refused(program, midgame):
    # issue 8: NaN was accepted
    for constant in ("NaN", "Infinity", "-Infinity"):
        text = midgame.replace('"steps":', f'"steps":{constant},"x":', 1)
        assert text != midgame
        refused(program, text, f"{constant} is not a number")


def test_true_is_not_a_number_and_floats_are_refused(program, midgame):
    def truthy(d):
        d["counters"]["momentum"]["kennedy"] = True

    refused(program, corrupted(midgame, truthy), r"counters\.momentum\.kennedy: .*integer")

    def floating(d):
        d["counters"]["momentum"]["kennedy"] = 1.5

    refused(program, corrupted(midgame, floating), "not an integer")


def test_sizes_are_bounded(program, midgame):
    def huge_int(d):
        d["vars"]["turn"] = 10**30

    def huge_index(d):
        d["history"][0] = 2**64

    def many_items(d):
        d["prevented"] = [1] * 200_000

    refused(program, corrupted(midgame, huge_int), "vars.turn")
    refused(program, corrupted(midgame, huge_index), "history.0")
    refused(program, corrupted(midgame, many_items), "prevented")


def test_the_history_holds_option_indices(program, midgame):
    assert all(type(i) is int and i >= 0 for i in json.loads(midgame)["history"])
    for bad in (-1, "campaign in PA", True, None, [0]):
        refused(program, corrupted(midgame, lambda d, bad=bad: d["history"].__setitem__(0, bad)),
                "history.0: Input should be")


def test_missing_and_unknown_keys_are_refused(program, midgame):
    refused(program, corrupted(midgame, lambda d: d.pop("zones")), "zones: Field required")
    refused(program, corrupted(midgame, lambda d: d.update(cheat=1)), "cheat: Extra inputs")


# ---- meaning: the corruptions issue 8 lists ----------------------------------------------


def test_a_card_in_two_hands_is_refused(program, midgame):
    # rule: R1.6 — every card is in exactly one place
    def change(d):
        d["zones"]["hand:nixon"].append(d["zones"]["hand:kennedy"][0])

    refused(program, corrupted(midgame, change), r"card \d+ is in two zones: hand:kennedy")


def test_lost_invented_and_repeated_cards_are_refused(program, midgame):
    refused(program, corrupted(midgame, lambda d: d["zones"]["hand:kennedy"].pop()),
            r"card \d+ is in no zone")
    refused(program, corrupted(midgame, lambda d: d["zones"]["discard"].append(999)),
            "card 999 in discard is not a card of the pack")

    def twice(d):
        hand = d["zones"]["hand:kennedy"]
        hand.append(hand[0])

    refused(program, corrupted(midgame, twice), r"card \d+ is 2 times in hand:kennedy")


def test_a_counter_below_its_floor_is_refused(program, midgame):
    def change(d):
        d["counters"]["momentum"]["kennedy"] = -1000

    refused(program, corrupted(midgame, change),
            "counters.momentum.kennedy is -1000; this counter never goes below 0")


def test_support_on_a_place_that_does_not_exist_is_refused(program, midgame):
    def change(d):
        d["pools"]["state"]["Atlantis"] = ["kennedy", 2]
        d["counters"]["supply"]["kennedy"] -= 2  # keep the pieces conserved

    refused(program, corrupted(midgame, change), "'Atlantis' is not a place of kind states")


def test_pieces_that_appear_or_vanish_are_refused(program, midgame):
    # rule: R1.7 — cubes move between supply, bag, rest zone and board, never created
    def change(d):
        d["counters"]["supply"]["nixon"] += 3

    refused(program, corrupted(midgame, change), "pieces of nixon are not conserved")

    def bag(d):
        d["bag"]["kennedy"] -= 1
        d["counters"]["supply"]["kennedy"] += 1  # moved, not lost: still a legal position

    Game.load(program, corrupted(midgame, bag))


def test_unknown_players_places_and_tracks_are_refused(program, midgame):
    def owner(d):
        d["pools"]["state"]["CA"] = ["eisenhower", 1]

    def token(d):
        d["tokens"]["kennedy"] = "Moon"

    def track(d):
        d["tracks"]["issue_track"] = ["defense", "defense", "economy"]

    refused(program, corrupted(midgame, owner), "owner 'eisenhower' is not a player")
    refused(program, corrupted(midgame, token), "'Moon', which is no place")
    refused(program, corrupted(midgame, track), "not an order of")
    refused(program, corrupted(midgame, lambda d: d["counters"].pop("momentum")),
            "counters: 'momentum' is missing")


@pytest.mark.parametrize("holder", ["eisenhower", None, 3, ["nixon", "nixon"], {"a": 1}])
def test_a_lasting_effect_held_by_no_player_is_refused(program, midgame, holder):
    # an effect's holder is any value to the save's schema (a variable could hold a list);
    # a list or a table there once crashed the check with a TypeError
    def effect(d):
        d["effects"].append(["debate_bonus", holder, 1, "turn"])

    refused(program, corrupted(midgame, effect), "effects: debate_bonus is held by .*not a player")


def test_a_negative_frame_position_is_refused(program, midgame):
    # issue 8: -5 ran an instruction counted from the block's end
    def change(d):
        d["stack"][-1][1] = -5

    refused(program, corrupted(midgame, change), "position -5 is outside its block")

    def past_end(d):
        d["stack"][-1][1] = 10_000

    refused(program, corrupted(midgame, past_end), "position 10000 is outside its block")


def test_a_jump_to_any_block_is_refused(program, midgame):
    n_blocks = len(program.blocks)
    original = json.loads(midgame)["stack"][-1][0]
    accepted = []
    for block in range(n_blocks):
        if block == original:
            continue

        def change(d, block=block):
            d["stack"][-1][0] = block

        try:
            Game.load(program, corrupted(midgame, change))
            accepted.append(block)
        except SaveError:
            pass
    assert not accepted, f"frames jumped to blocks {accepted[:5]} were accepted"

    def missing(d):
        d["stack"][-1][0] = n_blocks + 5

    refused(program, corrupted(midgame, missing), f"block {n_blocks + 5} does not exist")


def test_a_forged_option_label_is_refused(program, midgame):
    def change(d):
        d["pending"]["options"][0] = "win the election"

    refused(program, corrupted(midgame, change), "not the one the rules offer")


def test_a_forged_branch_payload_is_refused(program):
    game = paused_at(program, "menu")
    text = game.save()
    payloads = game.state.pending["payloads"]
    assert payloads[0][0] == "branch"

    def other_block(d):
        d["pending"]["payloads"][0][1] = 0

    def other_value(d):
        d["pending"]["payloads"][0][2] = "x"
        d["pending"]["payloads"][0][3] = 12345

    refused(program, corrupted(text, other_block), "not the one the rules offer")
    refused(program, corrupted(text, other_value), "not the one the rules offer")


def test_a_forged_bound_value_is_refused(program):
    game = paused_at(program, "choose")
    text = game.save()
    assert game.state.pending["payloads"][0][0] == "bind"

    def change(d):
        d["pending"]["payloads"][0][2] = 4242

    refused(program, corrupted(text, change), "not the one the rules offer")

    def fewer(d):
        del d["pending"]["options"][-1]
        del d["pending"]["payloads"][-1]

    refused(program, corrupted(text, fewer), "not the one the rules offer")


def test_a_result_set_mid_game_is_refused(program, midgame):
    def change(d):
        d["result"] = {"winner": "kennedy"}

    refused(program, corrupted(midgame, change), "result is set while the game is still going")


def test_a_pending_player_who_does_not_exist_is_refused(program, midgame):
    def change(d):
        d["pending"]["player"] = "eisenhower"

    refused(program, corrupted(midgame, change), "'eisenhower' is not a player")


def test_a_pending_decision_without_rules_running_is_refused(program, midgame):
    def empty_stack(d):
        d["stack"], d["envs"] = [], []

    def no_pending(d):
        d["pending"] = None

    refused(program, corrupted(midgame, empty_stack), "rules have ended")
    refused(program, corrupted(midgame, no_pending), "paused without a pending decision")


def test_frames_must_share_or_own_their_variables_as_the_machine_does(program, midgame):
    def bad_env(d):
        d["stack"][-1][2] = len(d["envs"]) + 3

    def own_env(d):
        d["envs"].append(dict(d["envs"][d["stack"][-1][2]]))
        d["stack"][-1][2] = len(d["envs"]) - 1

    data = json.loads(midgame)
    refused(program, corrupted(midgame, bad_env), "environment that does not exist")
    if not data["stack"][-1][3]:  # the top frame is a block inside a procedure
        refused(program, corrupted(midgame, own_env), "variables of its own")


def test_a_finished_game_loads_and_a_result_is_kept(program):
    game = play(program, 3, 0)
    agent = random.Random(3)
    while not game.is_terminal():
        game.apply_action(agent.randrange(len(game.legal_actions())))
    loaded = Game.load(program, game.save())
    assert loaded.is_terminal() and loaded.result() == game.result()


# ---- rollback ---------------------------------------------------------------------------


def test_any_exception_inside_an_action_rolls_back(program, monkeypatch):
    # issue 8: an exception other than RuleError skipped the rollback
    game = play(program, 5, 25, safe=True)
    before = game.save()
    reference = Game.load(program, before)
    calls = {"n": 0}

    class Boom(Exception):
        """An exception the machine does not turn into a RuleError (as a bug would raise)."""

    real = Machine.decide

    def failing(self, *args, **kwargs):
        # at the next decision, late in the action: history, variables and board changed
        calls["n"] += 1
        raise Boom("boom")

    monkeypatch.setattr(Machine, "decide", failing)
    with pytest.raises(Boom, match="boom"):  # it propagates as it is
        game.apply_action(0)
    assert calls["n"] == 1
    assert game.save() == before
    monkeypatch.setattr(Machine, "decide", real)
    # the rolled-back game plays on exactly as an untouched copy does
    game.apply_action(0)
    reference.apply_action(0)
    assert game.save() == reference.save()
    assert game.save() != before


def test_a_rule_error_rolls_back_too(program, monkeypatch):
    game = play(program, 6, 20, safe=True)
    before = game.save()

    def broken(self, *args, **kwargs):
        raise RuleError("content bug", "somewhere.yaml:1:1")

    monkeypatch.setattr(Machine, "decide", broken)
    with pytest.raises(RuleError):
        for i in range(len(game.legal_actions())):
            game.apply_action(i)
    assert game.save() == before


def test_clone_shares_nothing_with_the_original(program):
    game = play(program, 7, 60)
    state = game.state
    before = game.save()
    copy = clone(state)
    assert Game(program, copy).save() == before
    for value in copy.vars.values():
        if isinstance(value, list):
            value.append("x")
    for f in copy.stack:
        f.env["__x"] = 1
        if f.items is not None:
            f.items.append("x")
    if copy.pending:
        copy.pending["options"].append("x")
        copy.pending["prompt"] = "x"
    copy.result = copy.result or {}
    assert game.save() == before


def test_a_copy_shares_payloads_only_while_their_values_are_scalars():
    # nothing changes a payload once offered, so a copy may share it; a list value could
    # be changed where it was bound, so a payload holding one is copied
    state = GameState()
    scalars = [["bind", "x", 1], ["branch", 4, "s", "CA"]]
    state.pending = {"player": "a", "prompt": "p", "options": None, "payloads": scalars}
    assert clone(state).pending["payloads"] is scalars
    lists = [["bind", "x", [1, 2]], ["bind", "x", [3]]]
    state.pending["payloads"] = lists
    copied = clone(state).pending["payloads"]
    assert copied == lists and copied[0][2] is not lists[0][2]
    for broken in (None, 7, [7], [[]], {"a": 1}):  # a broken save's: copied whole, no crash
        state.pending["payloads"] = broken
        assert clone(state).pending["payloads"] == broken


def test_a_dropped_fork_is_freed_at_once_without_the_garbage_collector(program):
    # a paused state does not hold the machine that paused it (that would be a cycle)
    game = play(program, 7, 40)
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            fork = game.fork()
            fork.apply_action(0)
            fork.legal_actions()
        del fork
        gc.set_debug(gc.DEBUG_SAVEALL)
        assert gc.collect() == 0
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_loaded_save_passes_every_invariant_at_every_step(program):
    game = Game.new(program, seed=2, safe=False)
    agent = random.Random(2)
    while not game.is_terminal():
        loaded = Game.load(program, game.save())
        assert first_violation(program, loaded.state) is None
        game.apply_action(agent.randrange(len(game.legal_actions())))


@pytest.mark.parametrize("spoil", [
    lambda s: s.tracks["issue_track"].__setitem__(0, ["defense", "defense"]),
    lambda s: s.tracks["issue_track"].__setitem__(0, None),
    lambda s: s.zones["discard"].append({"card": 28}),
    lambda s: s.zones["discard"].append([28]),
])
def test_the_invariants_name_any_value_the_rules_could_be_led_to_store(program, spoil):
    # after each action of a loaded game; what once made the check itself raise TypeError
    game = Game.new(program, seed=2, safe=False)
    spoil(game.state)
    problem = first_violation(program, game.state)
    assert problem is not None and ("issue_track" in problem or "discard" in problem), problem
