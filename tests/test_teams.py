"""Teams (issue 36): players who win or lose together and share what the pack says, on the
test pack tests/packs/teams (four players, the Reds ann and cat, the Blues bob and dan):
check's diagnostics, the builtins, winning together in every tool that reads a result, a
per-team counter, a hand shown to the team (observation, determinization, boards), and
packs without teams as they were."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from hustings.dsl.loading import check_pack, load_pack
from hustings.dsl.scenarios import run_paths
from hustings.interpreter.determinize import determinize, unseen_zones
from hustings.interpreter.errors import RuleError, SaveError
from hustings.interpreter.game import Game
from hustings.interpreter.invariants import violations
from hustings.interpreter.teams import result_winners
from hustings.tools.adapters.encoding import returns
from hustings.tools.agents import WIN, make_agent, position_value, winning_chance
from hustings.tools.cli import main
from hustings.tools.simulation.records import read_records
from hustings.tools.simulation.summary import summarize
from hustings.tools.terminal.board import render_board
from hustings.tools.web.board import board_for

PACK = Path(__file__).parent / "packs" / "teams"
TEAMS = "teams:\n  reds: [ann, cat]\n  blues: [bob, dan]\n"
READING = """\
functions:
  side:
    params: [p]
    expr: team_of(p)
  partners:
    params: [p]
    expr: teammates(p)
  roster:
    params: [t]
    expr: team_members(t)
  sides:
    expr: teams
  reds_first:
    expr: first(team_members(reds))
"""


@pytest.fixture(scope="module")
def program():
    return load_pack(PACK)


def copy(tmp_path: Path, teams: str | None = None, players: str | None = None,
         extra: str = "", reading: bool = False) -> Path:
    """The test pack in tmp_path, with other teams, players or pack.yaml lines."""
    folder = tmp_path / "teams"
    shutil.copytree(PACK, folder)
    manifest = folder / "pack.yaml"
    text = manifest.read_text()
    if teams is not None:
        text = text.replace(TEAMS, teams)
    if players is not None:
        text = text.replace("players: [ann, bob, cat, dan]", f"players: {players}")
    manifest.write_text(text + extra)
    if reading:
        (folder / "rules" / "20-reading.yaml").write_text(READING)
    return folder


def line_of(folder: Path, text: str, after: str = "") -> int:
    """The line of pack.yaml holding `text`, the first after a line starting `after`."""
    lines = (folder / "pack.yaml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(after))
    return next(i for i, line in enumerate(lines[start:], start + 1) if text in line)


def codes(folder: Path, options: dict[str, bool] | None = None) -> list:
    return check_pack(folder, options).report.diagnostics


def play_out(program, seed: int) -> Game:
    game = Game.new(program, seed=seed)
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply_action(rng.randrange(game.num_actions()))
    return game


# ---- check -----------------------------------------------------------------------------
def test_the_test_pack_checks_and_seats_two_teams(program):
    assert check_pack(PACK).report.diagnostics == []
    assert program.teams == {"reds": ["ann", "cat"], "blues": ["bob", "dan"]}
    assert program.team_counters == ["money"]
    assert program.zones["hand"].shown_to_team and not program.zones["discard"].shown_to_team


@pytest.mark.parametrize(("teams", "code", "message", "hint", "where"), [
    ("teams:\n  reds: [ann, cta]\n  blues: [bob, dan]\n", "E170",
     "team 'reds' names 'cta', who is not a player", "did you mean `cat`?", "reds:"),
    ("teams:\n  reds: []\n  blues: [bob, dan]\n", "E170",
     "team 'reds' names no player", "list its players", "reds:"),
    ("teams:\n  reds: [ann, cat]\n  blues: [bob, cat]\n", "E171",
     "'cat' is in team 'reds' and again in team 'blues'", "one team at most", "blues:"),
    ("teams:\n  reds: [ann, ann]\n", "E171",
     "'ann' is listed twice in team 'reds'", "one team at most", "reds:"),
    ("teams:\n  money: [ann, cat]\n", "E172",
     "team 'money' has the name of something else of the pack", "a name of its own", "money: ["),
    ("teams:\n  dan: [ann, cat]\n", "E172",
     "team 'dan' has the name of something else of the pack", "a name of its own", "dan: ["),
    ("teams:\n  by_count:\n    7: {reds: [ann, cat]}\n", "E173",
     "teams for 7 players, but a game of the pack seats 4", "number of players", "7:"),
    ("player_count: {min: 2, max: 4}\nteams:\n  by_count:\n    5: {reds: [ann, cat]}\n",
     "E173", "teams for 5 players, but a game of the pack seats 2 to 4", "number of players",
     "5:"),
    ("player_count: {min: 3, max: 4}\nteams:\n  by_count:\n    2: {reds: [ann, bob]}\n",
     "E173", "teams for 2 players, but a game of the pack seats 3 to 4", "number of players",
     "2:"),
])
def test_a_wrong_team_is_reported_where_it_is_written(tmp_path, teams, code, message, hint,
                                                        where):
    folder = copy(tmp_path, teams=teams)
    found = [d for d in codes(folder) if d.code == code]
    assert [d.message for d in found] == [message]
    assert hint in found[0].hint
    assert found[0].source.path.endswith("pack.yaml")
    assert found[0].source.line == line_of(folder, where, "teams:")
    assert found[0].source.column > 1
    with pytest.raises(Exception, match=code):
        load_pack(folder)


def test_a_team_of_one_is_a_warning_and_the_pack_still_plays(tmp_path):
    folder = copy(tmp_path, teams="teams:\n  reds: [ann, cat]\n  blues: [bob]\n")
    found = codes(folder)
    assert [(d.code, d.severity) for d in found] == [("W170", "warning")]
    assert found[0].message == "team 'blues' has one player, 'bob'"
    assert found[0].source.line == line_of(folder, "blues:", "teams:")
    assert load_pack(folder).teams == {"reds": ["ann", "cat"], "blues": ["bob"]}


@pytest.mark.parametrize(("extra", "message", "where"), [
    ("pools:\n  marks: {kind: spaces, pieces: money}\n",
     "counter 'money' holds a player's pieces, so it cannot be per team", "money: {"),
    ("", "zone 'discard' is shown to teams, but it is not hidden per player", "discard:"),
])
def test_sharing_what_cannot_be_shared_is_an_error(tmp_path, extra, message, where):
    folder = copy(tmp_path, extra=extra)
    if not extra:
        manifest = folder / "pack.yaml"
        manifest.write_text(manifest.read_text().replace(
            'discard: {doc:', 'discard: {shown_to_team: true, doc:'))
    found = [d for d in codes(folder) if d.code == "E174"]
    assert [d.message for d in found] == [message]
    assert found[0].source.line == line_of(folder, where)


BY_COUNT = """\
teams:
  by_count:
    4: {reds: [ann, cat], blues: [bob, dan]}
    6: {reds: [ann, cat], blues: [bob, dan], greens: [eve, fay]}
options:
  six: {players: [eve, fay], doc: "two more players, the Greens"}
"""


def test_teams_by_count_follow_the_number_of_seated_players(tmp_path):
    folder = copy(tmp_path, teams=BY_COUNT, players="[ann, bob, cat, dan, eve, fay]",
                  reading=True)
    four = load_pack(folder)
    assert four.players == ["ann", "bob", "cat", "dan"]
    assert four.teams == {"reds": ["ann", "cat"], "blues": ["bob", "dan"]}
    six = load_pack(folder, {"six": True})
    assert six.teams == {"reds": ["ann", "cat"], "blues": ["bob", "dan"],
                         "greens": ["eve", "fay"]}
    game = Game.new(six, seed=1)
    assert game.evaluate("sides") == ["reds", "blues", "greens"]
    assert game.evaluate("partners", "eve") == ["fay"]
    assert Game.new(four, seed=1).evaluate("sides") == ["reds", "blues"]


def test_every_table_is_checked_whatever_the_count_seated(tmp_path):
    folder = copy(tmp_path, teams=BY_COUNT.replace("greens: [eve, fay]", "greens: [eve, fey]"),
                  players="[ann, bob, cat, dan, eve, fay]")
    found = [d for d in codes(folder) if d.code == "E170"]  # four seated: the six table too
    assert [d.message for d in found] == ["team 'greens' names 'fey', who is not a player"]
    assert found[0].source.line == line_of(folder, "6: {", "teams:")


def test_effect_text_names_a_team_of_another_count_but_no_unknown_one(tmp_path):
    folder = copy(tmp_path, teams=BY_COUNT, players="[ann, bob, cat, dan, eve, fay]")
    (folder / "rules" / "20-reading.yaml").write_text(
        "functions:\n  g:\n    expr: greens\n  h:\n    expr: purples\n")
    found = [d for d in codes(folder) if d.severity == "error"]
    assert [(d.code, d.message) for d in found] == [("E315", "unknown name 'purples'")]


# ---- the builtins ----------------------------------------------------------------------
def test_the_builtins_name_teams_members_and_mates(tmp_path):
    program = load_pack(copy(tmp_path, reading=True))
    game = Game.new(program, seed=1)
    assert [game.evaluate("side", p) for p in program.players] == ["reds", "blues", "reds",
                                                                   "blues"]
    assert game.evaluate("partners", "ann") == ["cat"]
    assert game.evaluate("partners", "dan") == ["bob"]
    assert game.evaluate("roster", "blues") == ["bob", "dan"]
    assert game.evaluate("roster", "cat") == ["ann", "cat"]  # a player: their team
    assert game.evaluate("sides") == ["reds", "blues"]
    assert game.evaluate("reds_first") == "ann"


def test_a_player_in_no_team_is_a_team_of_one(tmp_path):
    program = load_pack(copy(tmp_path, players="[ann, bob, cat, dan, eve]", reading=True))
    game = Game.new(program, seed=1)
    assert game.evaluate("side", "eve") is None
    assert game.evaluate("partners", "eve") == []
    assert game.evaluate("roster", "eve") == ["eve"]


@pytest.mark.parametrize(("function", "arg", "message"), [
    ("side", "zed", "team_of() needs a seated player, not 'zed'"),
    ("partners", 3, "teammates() needs a seated player, not '3'"),
    ("roster", "purples", "team_members() needs a team, not 'purples' (teams: reds, blues)"),
])
def test_a_builtin_given_no_player_or_team_is_a_rule_error(tmp_path, function, arg, message):
    game = Game.new(load_pack(copy(tmp_path, reading=True)), seed=1)
    with pytest.raises(RuleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        game.evaluate(function, arg)


# ---- winning together ------------------------------------------------------------------
def test_a_teams_members_win_together_in_the_result_and_the_narration(program):
    game = play_out(program, 3)
    result = game.result()
    team = result["team"]
    assert result["winners"] == program.teams[team] and result["winner"] in result["winners"]
    assert result_winners(result) == program.teams[team]
    shown = {"reds": "the Reds win together: ann and cat",
             "blues": "the Blues win together: bob and dan"}[team]
    assert "  " + shown in game.state.log
    losers = [p for p in program.players if p not in result["winners"]]
    for p in result["winners"]:
        assert winning_chance(game, p) == 1.0 and position_value(game, p) == WIN
    for p in losers:
        assert winning_chance(game, p) == 0.0 and position_value(game, p) == -WIN
    assert returns(game) == [1.0 if p in result["winners"] else -1.0 for p in program.players]


def test_a_tie_names_no_team(program):
    result = play_out(program, 5).result()  # the two teams end with equal money
    assert result["money"]["reds"] == result["money"]["blues"]
    assert result["winner"] is None and "team" not in result and "winners" not in result
    assert result_winners(result) == []


def test_simulate_counts_a_win_for_every_member(tmp_path, program):
    out = tmp_path / "teams.jsonl"
    seats = [a for p in program.players for a in ("--seat", f"{p}=random")]
    assert main(["simulate", "--pack", str(PACK), "--games", "8", *seats, "--out",
                 str(out)]) == 0
    records = read_records(out)
    summary = summarize(records)
    reds = sum(r.get("winners") == ["ann", "cat"] for r in records)
    blues = sum(r.get("winners") == ["bob", "dan"] for r in records)
    assert reds + blues + summary["ties"] == 8 and reds and blues
    sides = summary["sides"]
    assert sides["ann"]["wins"] == sides["cat"]["wins"] == reds
    assert sides["bob"]["wins"] == sides["dan"]["wins"] == blues
    assert summary["agents"]["random"]["wins"] == 2 * (reds + blues)


def test_play_names_the_winning_team_at_the_end(capsys, program):
    assert main(["play", "--pack", str(PACK), "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    result = json.loads(out[-1])
    assert out[-2] == {"reds": "the Reds win together: ann, cat",
                       "blues": "the Blues win together: bob, dan"}[result["team"]]
    assert main(["play", "--pack", str(PACK), "--seed", "3", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines() == [json.dumps(result, sort_keys=True)]


def test_the_web_board_names_teams_for_the_result(program):
    game = play_out(program, 3)
    board = board_for(game, "bob")
    assert board["teams"] == [{"id": "reds", "name": "the Reds", "members": ["ann", "cat"]},
                              {"id": "blues", "name": "the Blues", "members": ["bob", "dan"]}]
    assert board["result"]["team"] == game.result()["team"]


# ---- what a team shares ------------------------------------------------------------------
def test_the_scenarios_of_the_test_pack_pass():
    outcomes, report = run_paths([PACK / "scenarios"])
    assert not report.errors
    assert len(outcomes) == 3 and all(o.ok for o in outcomes), \
        [o.failures for o in outcomes if not o.ok]


def test_a_per_team_counter_changes_for_the_whole_team_and_stays_sound(program):
    game = Game.new(program, seed=5)
    rng = random.Random(5)
    while not game.is_terminal():
        game.apply_action(rng.randrange(game.num_actions()))
        money = game.state.counters["money"]
        assert money["ann"] == money["cat"] and money["bob"] == money["dan"]
        assert not list(violations(program, game.state))


def test_a_save_whose_team_counter_differs_between_members_is_refused(program):
    game = Game.new(program, seed=2)
    data = json.loads(game.save())
    data["counters"]["money"]["ann"] = 3
    with pytest.raises(SaveError, match="money is one value per team, but team reds reads"):
        Game.load(program, json.dumps(data))
    assert Game.load(program, game.save()).state.to_json() == game.state.to_json()


def test_a_mate_sees_the_hand_and_the_other_team_only_its_size(program):
    game = Game.new(program, seed=4)
    zones = game.state.zones
    for viewer, mate, rivals in (("ann", "cat", ("bob", "dan")), ("dan", "bob", ("ann", "cat"))):
        seen = game.observation(viewer)["zones"]
        assert seen[f"hand:{mate}"] == zones[f"hand:{mate}"]
        for rival in rivals:
            assert seen[f"hand:{rival}"] == len(zones[f"hand:{rival}"])
        assert seen["deck"] == len(zones["deck"])


def test_determinization_keeps_the_mates_hand_and_deals_the_other_teams(program):
    game = Game.new(program, seed=4)
    assert unseen_zones(program, game.state, "cat") == ["deck", "hand:bob", "hand:dan"]
    hidden = sorted(c for k in ("deck", "hand:bob", "hand:dan") for c in game.state.zones[k])
    moved = 0
    for n in range(10):
        world = determinize(game, "cat", random.Random(n))
        zones = world.state.zones
        assert zones["hand:ann"] == game.state.zones["hand:ann"]
        assert zones["hand:cat"] == game.state.zones["hand:cat"]
        assert sorted(c for k in ("deck", "hand:bob", "hand:dan") for c in zones[k]) == hidden
        moved += zones["hand:bob"] != game.state.zones["hand:bob"]
        assert world.observation("cat")["zones"] == game.observation("cat")["zones"]
    assert moved >= 5


def test_a_determinization_for_a_player_never_depends_on_the_other_teams_cards(program):
    game = Game.new(program, seed=6)
    other = game.fork()
    bob, dan = other.state.zones["hand:bob"], other.state.zones["hand:dan"]
    bob[0], dan[0] = dan[0], bob[0]  # the Blues' cards swapped: nothing ann may know
    one = determinize(game, "ann", random.Random(1))
    two = determinize(other, "ann", random.Random(1))
    assert one.state.to_json() == two.state.to_json()
    agent = make_agent("greedy", 3)
    assert agent(game) == agent(other)


def test_the_boards_show_a_mates_hand_and_never_the_other_teams(program):
    game = Game.new(program, seed=4)
    zones = game.state.zones
    board = board_for(game, "ann")
    hand = board["hands"][0]
    assert [c["number"] for c in hand["cards"]] == zones["hand:ann"]
    assert [(m["player"], [c["number"] for c in m["cards"]]) for m in hand["mates"]] == \
        [("cat", zones["hand:cat"])]
    sent = json.dumps(board_for(game, "bob"))
    for card in zones["hand:ann"] + zones["hand:cat"]:
        title = program.cards[card]["title"]
        assert f'"title": "{title}"' not in sent
    screen = render_board(game, "ann", width=120)
    assert "Hand of cat" in screen
    assert "Hand of ann" not in render_board(game, "bob", width=120)


# ---- packs without teams ---------------------------------------------------------------
def test_a_pack_without_teams_has_none_and_writes_its_result_as_before():
    tic = load_pack(Path(__file__).parents[1] / "content" / "tic-tac-toe")
    assert tic.teams == {} and tic.team_counters == []
    for seed in range(3):
        result = play_out(tic, seed).result()
        assert set(result) == {"winner"}
        assert result_winners(result) == ([result["winner"]] if result["winner"] else [])


TUG_RULES = """\
procedures:
  game:
    body: |
      for r from 1 to 5:
        ann chooses:
          "pull":
            ann gains 1 tug
          "wait":
            say "ann waits"
      record winner as none
functions:
  standing:
    params: [p]
    expr: tug of p
"""


def test_a_shared_track_ending_the_game_credits_the_end_players_team(tmp_path):
    folder = copy(tmp_path, extra="tracks:\n  tug: {min: -2, max: 2, start: 0, shared: "
                                  "{max: ann, min: bob, ends_game: true}}\n")
    (folder / "rules" / "10-game.yaml").write_text(TUG_RULES)
    program = load_pack(folder)
    game = Game.new(program, seed=1)
    game.apply_action("pull")
    game.apply_action("pull")
    assert game.result() == {"winner": "ann", "team": "reds", "winners": ["ann", "cat"]}
    assert game.state.log[-2:] == ["  tug reaches 2: ann wins",
                                   "  the Reds win together: ann and cat"]
    waited = Game.new(program, seed=1)
    for _ in range(5):
        waited.apply_action("wait")
    assert waited.result() == {"winner": None}  # no team named when nobody wins


@pytest.mark.parametrize(("change", "problem"), [
    ({"winners": ["ann", "bob"]}, "result: winner 'ann' has the team entries"),
    ({"team": "blues"}, "result: winner 'ann' has the team entries"),
    ({"winner": "bob"}, "result: winner 'bob' has the team entries"),
])
def test_a_finished_save_whose_team_result_is_not_its_winners_is_refused(program, change,
                                                                         problem):
    game = play_out(program, 1)
    assert game.result()["winner"] == "ann"
    data = json.loads(game.save())
    data["result"].update(change)
    with pytest.raises(SaveError, match=problem):
        Game.load(program, json.dumps(data))
    assert Game.load(program, game.save()).result() == game.result()
