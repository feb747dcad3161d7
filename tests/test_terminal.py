"""The terminal game: the pack-declared board, the prompt, narration of events, `cards`."""

from __future__ import annotations

import re
import shutil

import pytest

from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.dsl.scenarios import Runner
from hustings.interpreter.game import Game
from hustings.schemas.scenario import Scenario
from hustings.tools.agents import random_agent
from hustings.tools.cli import main
from hustings.tools.terminal.board import render_board
from hustings.tools.terminal.choices import interpret, options_of
from hustings.tools.terminal.human import human_agent
from hustings.tools.terminal.requests import QuitRequest, SaveRequest, UndoRequest

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def program():
    return load_pack()


def played(program, actions: int, seed: int = 1) -> Game:
    game = Game.new(program, seed)
    agent = random_agent(seed)
    for _ in range(actions):
        if game.is_terminal():
            break
        game.apply_action(agent(game))
    return game


def scenario(setup: dict, run: dict, do: list[str]) -> Game:
    """A position from a scenario's setup, run and actions (the scenario runner's way)."""
    sc = Scenario.model_validate({"name": "terminal", "setup": setup, "run": run,
                                  "steps": [{"do": do}] if do else [{"expect": {}}]})
    out = Runner().run(sc, "tests/test_terminal.py")
    assert not out.failures, out.failures
    return out.game


def campaigning(cards=(70,)) -> Game:
    """Kennedy, holding The Old Nixon, is campaigning with its 4 CP."""
    return scenario({"vars": {"turn": 1}, "counters": {"momentum": {"kennedy": 1}},
                     "zones": {"hand:kennedy": list(cards)}},
                    {"procedure": "take_turn", "args": {"player": "kennedy"}},
                    ["The Old Nixon: campaign points", "campaign with The Old Nixon"])


# ---- the board ----------------------------------------------------------------
@pytest.mark.parametrize("width", [80, 120])
def test_board_snapshot(program, snapshot, width):
    board = render_board(played(program, 60), "kennedy", width)
    assert board == snapshot


@pytest.mark.parametrize("width", [50, 80, 100, 120, 160])
@pytest.mark.parametrize("actions", [0, 60, 400, 10_000])
def test_no_board_line_is_wider_than_the_terminal(program, width, actions):
    game = played(program, actions, seed=actions + width)
    for colour in (False, True):
        text = render_board(game, game.current_player() or "nixon", width, colour)
        widest = max(len(ANSI.sub("", line)) for line in text.splitlines())
        assert widest <= width


def test_colour_is_only_styling(program):
    game = played(program, 60)
    coloured = render_board(game, "kennedy", 120, colour=True)
    assert "\x1b[" in coloured  # the players' colours are there
    assert ANSI.sub("", coloured) == render_board(game, "kennedy", 120)


def test_board_shows_declared_values_and_no_internal_variables(program):
    game = played(program, 60)
    board = render_board(game, "kennedy", 120)
    for hidden in ("drawn", "start_player", "withhold_states", "reseed", "option_"):
        assert hidden not in board
    assert "Turn 2" in board and "Momentum" in board and "Rest cubes" in board
    kennedy_row = next(line for line in board.splitlines() if line.startswith("Kennedy "))
    led = game.evaluate("electoral_votes_led", "kennedy")
    assert kennedy_row.split()[1] == str(led)  # the pack's own function computes the total
    assert "Hand of Kennedy" in board and "Hand of Nixon" not in board


def test_the_hand_heading_is_one_line_however_narrow_the_hand():
    # Campaign Trail's hand shows number, title and state: four short cards make a table
    # narrower than "Hand of Democrat (Republican: 5 cards)", which must not wrap with it
    program = load_pack(builtin_pack().parent / "campaign-trail", {}, [])
    game = Game.new(program, seed=3, safe=False)
    game.state.zones["hand:democrat"] = [55, 10]
    game.state.zones["hand:republican"] = [1, 2, 3, 4, 5]
    board = render_board(game, "democrat", 140)
    assert "Hand of Democrat (Republican: 5 cards)" in board.splitlines()


def test_an_exhausted_candidate_card_looks_exhausted(program):
    game = played(program, 0)
    game.state.faces["201"] = "exhausted"
    rows = {line.split()[0]: line for line in render_board(game, "nixon", 120).splitlines()
            if line.split() and line.split()[0] in ("Kennedy", "Nixon")}
    assert rows["Kennedy"].endswith("exhausted") and rows["Nixon"].endswith("fresh")


def test_another_view_draws_another_board_without_code(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack)
    manifest = pack / "pack.yaml"
    text = manifest.read_text()
    text = text[:text.index("\nview:")] + (
        "\nview:\n"
        "  players: {kennedy: {name: Jack}, nixon: {name: Dick}}\n"
        "  player_rows: [{label: Cubes in supply, counter: supply}]\n"
        "  groups: [{title: Topics, pool: issue, names: name}]\n")
    manifest.write_text(text)
    board = render_board(Game.new(load_pack(pack), 1), "nixon", 80)
    assert "Jack" in board and "Cubes in supply" in board and "Topics" in board
    assert "States" not in board and "Momentum" not in board


def test_a_view_naming_what_the_pack_lacks_is_E116(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack)
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("counter: rest_cubes", "counter: rest"))
    loaded = check_pack(pack)
    errors = [d for d in loaded.report.errors if d.code == "E116"]
    assert errors and "counter 'rest'" in errors[0].message
    assert errors[0].source.path.endswith("pack.yaml") and errors[0].source.line > 1


def marks_of(players: list[str], looks: dict) -> dict[str, str]:
    from types import SimpleNamespace

    from hustings.tools.terminal.look import player_marks
    return player_marks(SimpleNamespace(players=players, view={"players": looks}))


def test_a_players_short_mark_is_the_packs_where_it_gives_one():
    looks = {"usa": {"name": "USA", "short": "US"}, "ussr": {"name": "USSR", "short": "SU"}}
    assert marks_of(["usa", "ussr"], looks) == {"usa": "US", "ussr": "SU"}
    # without: the shortest distinct starts of the names
    assert marks_of(["usa", "ussr"], {"usa": {"name": "USA"}, "ussr": {"name": "USSR"}}) == {
        "usa": "USA", "ussr": "USS"}
    # a mark worked out for one player never repeats another's given mark
    looks = {"ann": {"name": "Ann", "short": "B"}, "bob": {"name": "Bob"}}
    assert marks_of(["ann", "bob"], looks) == {"ann": "B", "bob": "Bo"}


def test_the_boards_show_the_packs_short_marks(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace(
        "kennedy: {name: Kennedy, colour: blue}",
        "kennedy: {name: Kennedy, colour: blue, short: JFK}"))
    game = Game.new(load_pack(pack), 1)
    assert "JFK" in render_board(game, "nixon", 120)
    from hustings.tools.web.board import board_for
    shown = str(board_for(game, "nixon"))
    assert "'JFK'" in shown


@pytest.mark.parametrize("short, message", [
    ("N", "'nixon' and 'kennedy' have the same short mark 'N'"),
    ("' '", "the short mark of 'nixon' is blank"),
])
def test_two_players_with_one_short_mark_or_a_blank_one_is_E117(tmp_path, short, message):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    manifest = pack / "pack.yaml"
    text = manifest.read_text().replace("kennedy: {name: Kennedy, colour: blue}",
                                        "kennedy: {name: Kennedy, colour: blue, short: N}")
    manifest.write_text(text.replace("nixon: {name: Nixon, colour: red}",
                                     f"nixon: {{name: Nixon, colour: red, short: {short}}}"))
    errors = [d for d in check_pack(pack).report.errors if d.code == "E117"]
    assert [e.message for e in errors] == [message]
    row = next(i for i, line in enumerate(manifest.read_text().splitlines(), 1)
               if "nixon: {name: Nixon" in line)
    assert errors[0].source.path.endswith("pack.yaml") and errors[0].source.line == row


# ---- the prompt -----------------------------------------------------------------
def answer(game: Game, *answers: str) -> tuple[int, str]:
    """Run the human agent on scripted answers; the index picked and what was printed."""
    script = iter(answers)
    return human_agent(read=lambda prompt: next(script), width=80, colour=False)(game), ""


def test_a_number_picks_that_option(program):
    game = played(program, 0)
    assert answer(game, "1")[0] == 1


def test_labels_are_case_insensitive(program):
    game = played(program, 0)
    labels = game.legal_actions()
    assert answer(game, labels[1].upper())[0] == 1


def test_a_unique_prefix_is_accepted(program):
    game = campaigning()
    labels = game.legal_actions()
    assert answer(game, "CAMPAIGN IN NEW YORK")[0] == labels.index("campaign in New York")
    assert answer(game, "END CAMP", "y")[0] == labels.index("end campaigning")


def test_an_ambiguous_prefix_shows_the_options_it_fits(capsys):
    game = campaigning()
    labels = game.legal_actions()
    picked, _ = answer(game, "campaign in n", "campaign in new york")
    assert labels[picked] == "campaign in New York"
    out = capsys.readouterr().out
    shown = out.split("Kennedy: Where do you campaign?")[1]  # what the first answer listed
    assert "campaign in New Jersey" in shown and "campaign in New Hampshire" in shown
    assert "campaign in Pennsylvania" not in shown


def test_filter_then_pick(capsys):
    game = campaigning()
    labels = game.legal_actions()
    capsys.readouterr()
    number = labels.index("campaign in Pennsylvania")
    script = iter(["/penn", str(number)])
    human = human_agent(read=lambda prompt: next(script), width=80, colour=False)
    assert labels[human(game)] == "campaign in Pennsylvania"
    out = capsys.readouterr().out.split("end campaigning")[-1]  # what came after the list
    assert f"{number}. campaign in Pennsylvania — " in out
    assert "campaign in New York" not in out  # the filter showed only the matching options


def test_plain_text_matching_no_label_filters(program):
    game = campaigning()
    meaning = interpret(options_of(game), "penn")
    assert meaning.index is None
    assert {o.label for o in meaning.subset} >= {"campaign in Pennsylvania"}
    assert all("Pennsylvania" in o.label for o in meaning.subset)


def test_a_card_number_from_the_hand_shows_the_options_naming_that_card(program, capsys):
    # the hand is listed by card number; 70 is no option's number here
    game = scenario({"vars": {"turn": 1}, "zones": {"hand:kennedy": [70, 36]}},
                    {"procedure": "take_turn", "args": {"player": "kennedy"}}, [])
    labels = game.legal_actions()
    assert len(labels) <= 70
    script = iter(["70", "The Old Nixon: event"])
    human = human_agent(read=lambda prompt: next(script), width=80, colour=False)
    assert labels[human(game)] == "The Old Nixon: event"
    out = capsys.readouterr().out
    told = "70 is the number of the card The Old Nixon; the options naming it:"
    assert told in out
    shown = out[out.index(told):]  # what the answer 70 printed
    naming = [f"{i}. {label}" for i, label in enumerate(labels) if "The Old Nixon" in label]
    assert len(naming) >= 2 and all(line in shown for line in naming)
    assert "Henry Luce" not in shown and "nothing matches" not in shown


@pytest.mark.parametrize(("typed", "index"), [
    ("²", None), ("١", None), ("9" * 5000, None), ("0" * 5000 + "1", 1)])
def test_digits_that_are_no_option_number_never_crash_the_prompt(program, typed, index):
    # '²' passes str.isdigit() but not int(), and int() refuses 5,000 digits
    options = options_of(played(program, 0))
    meaning = interpret(options, typed)
    assert meaning.index == index and (index is not None or meaning.subset == [])


def test_save_undo_and_quit_are_requests(program):
    game = played(program, 0)
    with pytest.raises(SaveRequest) as saved:
        answer(game, "save mine.json")
    assert str(saved.value.path) == "mine.json"
    with pytest.raises(UndoRequest):
        answer(game, "undo")
    with pytest.raises(QuitRequest):
        answer(game, "QUIT")


# ---- what a decision shows ------------------------------------------------------------
def test_campaigning_shows_cp_left_and_each_option_cost_without_changing_labels():
    game = campaigning()
    before = game.save()
    remarks = game.remarks()
    assert game.save() == before  # asking changes nothing
    assert remarks["status"] == "4 CP left"
    assert game.observation("kennedy")["pending"]["status"] == "4 CP left"
    assert "status" not in game.observation("nixon")["pending"]
    pending = game.state.pending
    notes = dict(zip(pending["options"], remarks["notes"], strict=True))
    assert notes["campaign in New York"] == "1 CP"  # Kennedy stands in Massachusetts (East)
    assert notes["campaign in Texas"] == "travel 1 + 1 CP"
    assert notes["campaign in Oregon"] == "travel 2 + 1 CP"
    assert notes["campaign in California"] == "travel 2 + 1 CP per support check"  # Nixon
    assert notes["travel to California"] == "travel 2 CP"
    assert "campaign in Pennsylvania" in pending["options"]  # labels stay as logs show them


def test_preempting_and_triggering_show_the_momentum_they_cost():
    # rule: R4.10, R4.12 -- the momentum each costs, beside what the player has
    kennedy_has = {"vars": {"turn": 1}, "counters": {"momentum": {"kennedy": 3, "nixon": 2}},
                   "zones": {"hand:kennedy": [70]}}
    game = scenario(kennedy_has, {"procedure": "take_turn", "args": {"player": "kennedy"}},
                    ["The Old Nixon: campaign points"])
    remarks = game.remarks()
    assert game.prompt() == "Preempt the event of The Old Nixon?"
    assert remarks["status"] == "you have 3 momentum"
    assert remarks["notes"] == ["2 momentum", None]
    free = {**kennedy_has, "effects": [["free_preempt", "kennedy", 1, "turn"]]}
    game = scenario(free, {"procedure": "take_turn", "args": {"player": "kennedy"}},
                    ["The Old Nixon: campaign points"])
    assert game.remarks()["notes"] == ["free", None]
    game = scenario(kennedy_has, {"procedure": "take_turn", "args": {"player": "kennedy"}},
                    ["The Old Nixon: campaign points", "do not preempt",
                     "position with The Old Nixon", "end positioning"])
    assert game.prompt() == "Trigger the event of The Old Nixon?"
    assert game.remarks() == {"status": "you have 2 momentum", "notes": ["1 momentum", None]}


def test_a_tax_in_momentum_is_noted_on_the_options_it_applies_to():
    # rule: R4.3 -- an event tax (Jackie Kennedy) and a campaign tax (Nixon's Knee) show
    # on the options they charge, and only there; with none, nothing is noted
    taxed = {"vars": {"turn": 1}, "counters": {"momentum": {"kennedy": 3}},
             "zones": {"hand:kennedy": [70]},
             "effects": [["event_tax", "kennedy", 1, "turn"], ["campaign_tax", "kennedy", 2,
                                                                 "turn"]]}
    run = {"procedure": "take_turn", "args": {"player": "kennedy"}}
    game = scenario(taxed, run, [])
    notes = dict(zip(game.legal_actions(), game.remarks()["notes"], strict=True))
    assert notes["The Old Nixon: event"] == "pays 1 momentum"
    assert notes["The Old Nixon: campaign points"] is None
    game = scenario(taxed, run, ["The Old Nixon: campaign points", "do not preempt"])
    notes = dict(zip(game.legal_actions(), game.remarks()["notes"], strict=True))
    assert notes == {"campaign with The Old Nixon": "pays 2 momentum",
                     "advertise with The Old Nixon": None, "position with The Old Nixon": None}
    untaxed = scenario({**taxed, "effects": []}, run, [])
    assert untaxed.remarks()["notes"] == [None] * untaxed.num_actions()


def test_adding_or_removing_support_shows_how_much_is_left():
    # an event's "may add 3 state support" counts down as each cube goes on
    setup = {"vars": {"turn": 1}, "zones": {"hand:kennedy": [95]}, "clear": ["state"]}
    run = {"procedure": "take_turn", "args": {"player": "kennedy"}}
    game = scenario(setup, run, ['"A Time for Greatness": event'])
    assert game.prompt() == "Where do you add state support?"
    assert game.remarks()["status"] == "3 to add"
    game.apply_action("add state support in NY")
    assert game.remarks()["status"] == "2 to add"
    setup = {"vars": {"turn": 1}, "zones": {"hand:nixon": [9]}, "clear": ["state"],
             "support": {"state": {"TX": ["kennedy", 3], "OH": ["kennedy", 2]}}}
    game = scenario(setup, {"procedure": "take_turn", "args": {"player": "nixon"}},
                    ["Baptist Ministers: event"])
    assert game.remarks()["status"] == "5 to remove"


def test_a_long_option_list_is_grouped_by_region(capsys):
    game = campaigning()
    answer(game, "0")
    out = capsys.readouterr().out
    assert "Kennedy: Where do you campaign? — 4 CP left" in out  # the rules' `asking`
    assert "campaign in … — 1 CP" in out and "campaign in … — travel 2 + 1 CP" in out
    listed = out.split("Where do you campaign?")[0].splitlines()  # the list comes first
    east = next(line for line in listed if line.strip().startswith("East"))
    assert " NY " in east + " " and " CA " not in east + " "
    assert max(len(line) for line in out.splitlines()) <= 80


# ---- narration ----------------------------------------------------------------------
def test_an_event_narrates_each_change_naming_the_card():
    # rule: R4.7 (losses stop at zero: Kennedy had 2 and loses 2; Nixon had none to lose)
    game = scenario({"vars": {"turn": 1}, "counters": {"momentum": {"kennedy": 2, "nixon": 0}}},
                    {"procedure": "resolve_card_event", "args": {"player": "nixon", "card": 70}},
                    [])
    assert "  Kennedy loses 2 momentum — The Old Nixon" in game.state.log
    assert not any(line.startswith("  Nixon loses") for line in game.state.log)


def test_support_changes_are_narrated_once_per_place(program):
    game = played(program, 10_000, seed=0)
    told = [line for line in game.state.log if " — " in line]
    titles = {c["title"] for c in program.cards.values()}
    assert told and all(line.rsplit(" — ", 1)[1] in titles for line in told)
    support = [line for line in told if line.startswith("  ") and " support in " in line]
    assert support and all(" → " in line for line in support)
    # a run of cubes an event places in one state is one line, not one per cube
    assert all(a != b for a, b in zip(support, support[1:], strict=False))
    # the narration stays readable in volume: each decision told with what it changes, a
    # few lines each (990 lines for 273 decisions)
    assert len(game.state.log) < 5 * len(game.state.history)


def test_the_result_explains_withheld_states():
    game = scenario({"vars": {"turn": 9}, "clear": ["state"],
                     "support": {"state": {"AL": ["kennedy", 3], "LA": ["kennedy", 4]}},
                     "zones": {"election_day_events:nixon": [33]}},
                    {"procedure": "election_day"}, [])
    said = [line for line in game.state.log if "withholds" in line]
    assert said and "Alabama" in said[0] and "Louisiana" not in said[0]


# ---- hustings cards -----------------------------------------------------------------
def test_cards_lists_matching_cards_as_a_table(capsys):
    assert main(["cards", "old", "nixon", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "The Old Nixon" in out and "Economy" in out and "loses 3" in out
    assert out.strip().endswith("1 card")
    assert "CP" in out.splitlines()[1] and "Issue" in out.splitlines()[1]


def test_cards_filters_by_number_and_field(capsys):
    assert main(["cards", "cp=5", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "John F." in out and "Richard M." in out and out.strip().endswith("2 cards")
    assert main(["cards", "70", "--width", "100"]) == 0
    assert "The Old Nixon" in capsys.readouterr().out
    assert main(["cards", "no-such-card-anywhere"]) == 1


def test_a_scripted_human_plays_a_whole_game_with_every_way_of_answering(program, capsys):
    game = Game.new(program, 11)
    rival = random_agent(11)
    turn = {"n": 0}
    pending: list[str] = []

    def read(prompt: str) -> str:
        """Answers in turn: a number, a label in capitals, a filter then its number."""
        if prompt.endswith("[y/N] "):  # giving up what is left: yes
            return "y"
        if pending:
            return pending.pop(0)
        labels = game.legal_actions()
        turn["n"] += 1
        pick = turn["n"] % len(labels)
        way = turn["n"] % 3
        if way == 1:
            return labels[pick].upper()
        if way == 2:
            pending.append(str(pick))
            return "/" + labels[pick].split()[-1]
        return str(pick)

    human = human_agent(read=read, width=80, colour=False)
    while not game.is_terminal():
        who = game.current_player()
        index = human(game) if who == "kennedy" else rival(game)
        game.apply_action(index)
        capsys.readouterr()  # keep the captured output small
    assert game.result()["winner"] in ("kennedy", "nixon", None)
    assert turn["n"] > 50


def test_the_card_being_resolved_is_on_the_status_line():
    game = campaigning()
    top = render_board(game, "kennedy", 120).splitlines()[0]
    assert top.endswith("Playing The Old Nixon")
    assert "Playing" not in render_board(Game.new(game.program, 1), "kennedy", 120)


def test_a_board_of_many_regions_shows_every_value_in_a_wide_terminal():
    # Campaign Trail's nine regions do not fit at 140 columns with each state's name: the
    # columns fall back to ids, so no state's electoral votes or voters are cut off.
    program = load_pack(builtin_pack("campaign-trail"))
    game = Game.new(program, seed=3)
    for width in (110, 140, 200):
        text = render_board(game, "democrat", width)
        assert max(len(line) for line in text.splitlines()) <= width
        college = text.split("Voters")[0].split("Electoral College")[1]
        assert "…" not in college, width
        for state in program.kinds["states"]:
            ev = program.locations[state]["ev"]
            assert re.search(rf"\b{state}\b[A-Za-z .]* {ev:>2} ", college), (width, state)


# ---- an 80×24 screen: numbers that stay put, giving up, pages, cards by number --------
def positioning() -> Game:
    """Kennedy, holding The Old Nixon, is positioning with its 4 CP."""
    return scenario({"vars": {"turn": 1}, "counters": {"momentum": {"kennedy": 1}},
                     "zones": {"hand:kennedy": [70]}},
                    {"procedure": "take_turn", "args": {"player": "kennedy"}},
                    ["The Old Nixon: campaign points", "position with The Old Nixon"])


def scripted(*answers: str, height: int = 24, news=None):
    """A prompt answering from a script (the prompts asked are kept in `.asked`)."""
    script = iter(answers)
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(script)

    human = human_agent(read=read, width=80, height=height, colour=False, news=news)
    human.asked = asked
    return human


def test_numbers_stay_put_while_a_decision_is_asked_again(capsys):
    game = campaigning()
    labels = game.legal_actions()
    ny, ak = labels.index("campaign in New York"), labels.index("campaign in Alaska")
    human = scripted("campaign in Texas", str(ak), str(ny))
    game.apply_action(human(game))  # travel 1 + 1 CP: 2 CP left, Alaska out of reach
    moved = game.legal_actions()
    assert "campaign in Alaska" not in moved and moved.index("campaign in New York") != ny
    capsys.readouterr()
    assert game.legal_actions()[human(game)] == "campaign in New York"  # by its first number
    out = capsys.readouterr().out
    assert f"  {ak} (campaign in Alaska) is no longer offered: choose another" in out
    assert re.search(rf"no longer offered: .*\b{ak}\b", out)
    assert f"{ny} NY" in out  # listed under its first number


def test_a_new_decision_numbers_from_zero_again():
    from hustings.tools.terminal.choices import Option
    from hustings.tools.terminal.numbering import Numbering

    def options(*labels: str) -> list[Option]:
        return [Option(i, label, None, None) for i, label in enumerate(labels)]

    def numbers(numbering, player, step, question, *labels):
        shown, gone = numbering.number(player, step, question, options(*labels))
        return [o.number for o in shown], gone

    run = Numbering()
    assert numbers(run, "p", 5, "q?", "a", "b", "c") == ([0, 1, 2], {})
    # asked again straight after its own answer: kept, gone and new
    assert numbers(run, "p", 6, "q?", "c", "d") == ([2, 3], {0: "a", 1: "b"})
    # another question within the run numbers itself; back to the first, its numbers hold
    assert numbers(run, "p", 7, "how many?", "1", "2") == ([0, 1], {})
    assert numbers(run, "p", 8, "q?", "d", "a") == ([3, 0], {1: "b", 2: "c"})
    # someone else decided in between (a step skipped), or another seat is asked: afresh
    assert numbers(run, "p", 10, "q?", "d", "a") == ([0, 1], {})
    assert numbers(run, "r", 11, "q?", "a", "d") == ([0, 1], {})
    # a label the rules offer twice gets two numbers
    assert numbers(run, "r", 12, "t?", "x", "x") == ([0, 1], {})
    assert sorted(numbers(run, "r", 13, "t?", "x", "x")[0]) == [1, 2]


def test_giving_up_unspent_cp_asks_first_and_no_keeps_the_decision(capsys):
    game = positioning()
    labels = game.legal_actions()
    end = labels.index("end positioning")
    human = scripted(str(end), "n", str(end), "")
    with pytest.raises(StopIteration):
        human(game)  # declined, asked again: the script runs out before any pick stands
    out = capsys.readouterr().out
    confirm = "  end positioning gives up what is left (4 CP left). Sure? [y/N] "
    assert human.asked == ["Kennedy > ", confirm, "Kennedy > ", confirm, "Kennedy > "]
    assert "not done: still 4 CP left" in out
    assert out.rstrip().endswith("Kennedy: Which issue do you position on? — 4 CP left")
    assert scripted(str(end), "Y")(game) == end
    assert scripted("issue support in Economy")(game) == labels.index("issue support in Economy")


@pytest.mark.parametrize("status, options, gives", [
    ("1 CP left", [("issue support in x", False), ("end", True)], "1 CP left"),
    ("0 of 6 voters placed", [("a voter in x", False), ("stop", True)], "0 of 6 voters placed"),
    ("0 CP left", [("issue support in x", False), ("end", True)], None),  # nothing is left
    (None, [("issue support in x", False), ("end", True)], None),  # nothing is counted
    ("you have 2 momentum", [("preempt", True), ("do not preempt", True)], None),  # yes/no
    ("3 to add", [("add in x", False), ("add in y", False)], None),  # no option stops
])
def test_what_an_option_gives_up_comes_from_the_shape_of_the_decision(status, options, gives):
    from hustings.tools.terminal.choices import Option, given_up

    made = [Option(i, label, None, None, plain) for i, (label, plain) in enumerate(options)]
    last = made[-1]
    assert given_up(last, made, status) == gives
    assert given_up(made[0], made, status) is None or made[0].plain


def test_a_long_list_comes_in_pages_that_keep_the_question_on_screen(capsys):
    game = campaigning()
    human = scripted("+", "+", "-", "list", "end campaigning", "y")
    human(game)
    out = capsys.readouterr().out
    parts = out.split("Kennedy: Where do you campaign? — 4 CP left\n")
    first, second, again = parts[0], parts[1], parts[3]
    assert "(page 1 of 2: + next, - previous)" in first and "end campaigning" not in first
    assert "(page 2 of 2: + next, - previous)" in second and "end campaigning" in second
    assert "(page 1 of 2" in again
    # a page with the question and the prompt fits 24 lines
    assert all(len(part.splitlines()) + 2 <= 24 for part in parts[1:])
    assert len(first.split("(b: the whole board)")[-1].splitlines()) + 2 <= 24
    tall = scripted("end campaigning", "y", height=200)
    tall(game)
    assert "(page" not in capsys.readouterr().out


def test_b_draws_the_whole_board_and_log_repeats_the_news(capsys):
    game = campaigning()
    told = ["first line", "second line"] + [f"line {n}" for n in range(30)]
    sent = iter([told])
    human = scripted("b", "log", "campaign in New York", news=lambda p: next(sent, []))
    human(game)
    out = capsys.readouterr().out
    assert render_board(game, "kennedy", 80) in out
    # news longer than an 80x24 screen holds: its last lines under the board, `log` all
    assert out.count("  line 29") == 2 and out.count("  first line") == 1
    assert "Since your last decision (" in out and "lines more above: log shows all" in out
    assert out.index("  first line") > out.index("lines more above")  # from `log`
    assert out.index("  line 29") < out.index("Kennedy: Where do you campaign?")


@pytest.mark.parametrize("typed, shows", [
    ("? 63", ['#63 "Give Me A Week": The Nixon player loses 2 momentum']),
    ("? #70", ["#70 The Old Nixon: The Nixon player loses 1 momentum"]),
    ("? 999", ["no card is numbered 999"]),
    ("? old nixon", ["#70 The Old Nixon:"]),
    ("? nixon", ["#70 The Old Nixon:", "#89 The New Nixon:", "#20 Nixon Egged in Michigan:"]),
    ("? no such title", ["no card title holds 'no such title'"]),
])
def test_question_mark_shows_a_card_by_the_hands_number_or_by_title(capsys, typed, shows):
    game = campaigning()
    scripted(typed, "campaign in New York")(game)
    out = capsys.readouterr().out
    assert all(s in out for s in shows), out[-600:]
    assert max(len(line) for line in out.splitlines()) <= 80


def test_question_mark_finds_a_campaign_trail_card_by_its_number():
    from hustings.tools.terminal.human import card_texts

    game = Game.new(load_pack(builtin_pack("campaign-trail")), seed=3)
    text = card_texts(game, "6")
    assert text.startswith("  #6 ") and "#16 " not in text and "#60 " not in text
    found = card_texts(game, "backlash").splitlines()
    titled = [line for line in found if not line.startswith("    ")]
    assert len(titled) >= 2 and all(re.match(r"  #\d+ ", line) for line in titled)
