"""Maps for any game: a board's `map:` (links between locations of one kind), its checks
(E160-E165, W160, E340) and the builtins `adjacent`, `neighbours`, `distance` and `path`.

A small pack written to tmp (`march`: two players' tokens on five spaces) plays a card
whose choice is among the neighbours of the player's space; the other tests write the
same pack with another board and read the builtins through the pack's functions, or
check the board and look for each diagnostic at its file, line and column.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hustings.dsl.loading import check_pack, load_pack
from hustings.dsl.scenarios import run_paths
from hustings.interpreter.errors import RuleError
from hustings.interpreter.game import Game
from hustings.interpreter.maps import MAX_MAP_LINKS, MAX_MAP_PLACES

PACK_YAML = """\
name: march
title: March
version: "1"
language: 2
players: [red, blue]
zones:
  deck: {start: campaign}
"""

# a diamond a-b-d, a-c-d with a tail d-e; and a region, a place of another kind
DIAMOND = """\
locations:
  spaces:
    - {id: a}
    - {id: b}
    - {id: c}
    - {id: d}
    - {id: e}
  regions:
    - {id: north}
map:
  kind: spaces
  links:
    - [a, b]
    - [a, c]
    - [b, d]
    - [c, d]
    - [d, e]
tokens: {red: a, blue: e}
"""

# "nearer": a neighbour of the player's space from which the opponent is fewer links away
NEARER = ("player chooses s from neighbours(here) where distance(it, goal) < distance(here, "
          'goal) labelled "march to {s}" asking "March where?"')
CARDS = f"""\
cards:
  - number: 1
    title: Forced March
    text: Move to a neighbouring space nearer your opponent.
    event: |
      let here = location of player
      let goal = location of opponent
      {NEARER}
      move player to s
"""

RULES = """\
procedures:
  game:
    body: |
      resolve event of 1 for red
      for turn from 1 to 10:
        let p = blue
        if turn % 2 == 0:
          let p = red
        p chooses s from neighbours(location of p) labelled "{s}" asking "Where to?"
        move p to s
        if location of p == location of opponent of p:
          say "{p} catches {opponent of p}"
          record winner as p
          finish
      record winner as none
functions:
  adj: {params: [x, y], expr: "adjacent(x, y)"}
  near: {params: [x], expr: "neighbours(x)"}
  dist: {params: [x, y], expr: "distance(x, y)"}
  route: {params: [x, y], expr: "path(x, y)"}
"""

SCENARIO = """\
scenarios:
  - name: the march offers only the neighbours nearer the opponent, then the chase
    steps:
      - expect:
          player: red
          legal: ["march to b", "march to c"]
          illegal: ["march to d", "march to e", "march to a"]
      - do: "march to c"
      - expect:
          tokens: {red: c, blue: d}
          player: red
          legal: [a, d]
          illegal: [b, e, c]
      - do: d
      - expect:
          terminal: true
          result: {winner: red}
          log: ["red catches blue"]
"""


def write_pack(root: Path, board: str = DIAMOND, rules: str = RULES,
               cards: str = CARDS) -> Path:
    files = {"pack.yaml": PACK_YAML, "board.yaml": board, "rules/game.yaml": rules,
             "cards/cards.yaml": cards}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def board_of(spaces: list[str], links: str, extra: str = "") -> str:
    rows = "".join(f"    - {{id: {s}}}\n" for s in spaces)
    return (f"locations:\n  spaces:\n{rows}  regions:\n    - {{id: north}}\n"
            f"map:\n  kind: spaces\n{links}{extra}tokens: {{red: {spaces[0]}, blue: "
            f"{spaces[-1]}}}\n")


def pairs(*links: str) -> str:
    return "  links:\n" + "".join(f"    - [{a}, {b}]\n" for a, b in (x.split("-")
                                                                      for x in links))


@pytest.fixture(scope="module")
def diamond(tmp_path_factory) -> Game:
    return Game.new(load_pack(write_pack(tmp_path_factory.mktemp("march"))), seed=1)


def game_on(tmp_path: Path, board: str) -> Game:
    return Game.new(load_pack(write_pack(tmp_path, board)), seed=1)


# ---- the builtins' values ------------------------------------------------------------
def test_the_program_carries_each_places_neighbours_in_board_order(diamond):
    assert diamond.program.map_kind == "spaces"
    assert diamond.program.map_links == {"a": ["b", "c"], "b": ["a", "d"], "c": ["a", "d"],
                                         "d": ["b", "c", "e"], "e": ["d"]}


def test_neighbours_adjacent_and_distance_on_a_diamond(diamond):
    assert diamond.evaluate("near", "d") == ["b", "c", "e"]
    assert diamond.evaluate("near", "e") == ["d"]
    assert [diamond.evaluate("adj", "d", x) for x in "abcde"] == [False, True, True, False,
                                                                  True]
    assert [diamond.evaluate("dist", "a", x) for x in "abcde"] == [0, 1, 1, 2, 3]
    assert [diamond.evaluate("dist", x, "a") for x in "abcde"] == [0, 1, 1, 2, 3]


def test_a_tie_between_shortest_paths_goes_to_the_earliest_places_in_board_order(diamond):
    # a-b-d-e and a-c-d-e are both shortest: b comes before c on the board
    assert diamond.evaluate("route", "a", "e") == ["a", "b", "d", "e"]
    assert diamond.evaluate("route", "e", "a") == ["e", "d", "b", "a"]
    assert diamond.evaluate("route", "c", "b") == ["c", "a", "b"]
    assert diamond.evaluate("route", "d", "d") == ["d"]


def test_the_tie_break_follows_board_order_not_the_order_links_are_written(tmp_path):
    # the same diamond with c listed before b on the board: the path now goes through c
    board = board_of(["a", "c", "b", "d", "e"], pairs("a-b", "a-c", "b-d", "c-d", "d-e"))
    game = game_on(tmp_path, board)
    assert game.evaluate("route", "a", "e") == ["a", "c", "d", "e"]
    assert game.evaluate("near", "a") == ["c", "b"]


def test_a_line(tmp_path):
    line = ["l1", "l2", "l3", "l4", "l5"]
    game = game_on(tmp_path, board_of(line, pairs("l1-l2", "l2-l3", "l3-l4", "l4-l5")))
    assert game.evaluate("dist", "l1", "l5") == 4
    assert game.evaluate("route", "l5", "l1") == ["l5", "l4", "l3", "l2", "l1"]
    assert game.evaluate("near", "l1") == ["l2"]
    assert game.evaluate("near", "l3") == ["l2", "l4"]
    assert game.evaluate("adj", "l1", "l5") is False


def test_a_ring_goes_the_short_way_round_and_breaks_the_tie_by_board_order(tmp_path):
    ring = pairs("r1-r2", "r2-r3", "r3-r4", "r4-r5", "r5-r6", "r6-r1")
    game = game_on(tmp_path, board_of([f"r{i}" for i in range(1, 7)], ring))
    assert game.evaluate("dist", "r1", "r5") == 2
    assert game.evaluate("route", "r1", "r5") == ["r1", "r6", "r5"]
    # r4 is three steps either way: the way through r2 (before r6 on the board) is taken
    assert game.evaluate("dist", "r1", "r4") == 3
    assert game.evaluate("route", "r1", "r4") == ["r1", "r2", "r3", "r4"]
    assert game.evaluate("near", "r1") == ["r2", "r6"]
    assert game.evaluate("adj", "r6", "r1") is True


def test_places_in_separate_parts_are_at_no_distance_and_have_no_path(tmp_path):
    # red on a, blue on b: the tokens share a part, and c-d is the other
    board = board_of(list("acdb"), pairs("a-b", "c-d"), "  connected: false\n")
    game = game_on(tmp_path, board)
    assert game.evaluate("dist", "a", "d") is None
    assert game.evaluate("route", "a", "d") == []
    assert game.evaluate("dist", "c", "d") == 1
    assert game.evaluate("adj", "b", "c") is False


def test_neighbour_lists_build_the_same_map_as_pairs(tmp_path):
    lists = ("  neighbours:\n    a: [b, c]\n    b: [d, a]\n    c: [a, d]\n"
             "    d: [e, c, b]\n    e: [d]\n")
    game = game_on(tmp_path, board_of(list("abcde"), lists))
    assert game.program.map_links == {"a": ["b", "c"], "b": ["a", "d"], "c": ["a", "d"],
                                      "d": ["b", "c", "e"], "e": ["d"]}
    assert game.evaluate("route", "a", "e") == ["a", "b", "d", "e"]


def test_the_list_neighbours_gives_is_the_rules_own(diamond):
    first = diamond.evaluate("near", "a")
    first.append("e")  # a rule changing its list changes neither the map nor the next list
    assert diamond.evaluate("near", "a") == ["b", "c"]


@pytest.mark.parametrize("function, args, bad", [
    ("near", ["north"], "north"), ("dist", ["a", "north"], "north"),
    ("dist", ["zz", "a"], "zz"), ("adj", ["north", "a"], "north"), ("adj", ["a", 5], 5),
    ("route", ["a", "north"], "north"), ("route", ["north", "a"], "north"),
])
def test_a_place_off_the_map_is_a_rule_error_naming_it(diamond, function, args, bad):
    with pytest.raises(RuleError, match=f"{bad!r} is not on the map .the map joins the spaces"):
        diamond.evaluate(function, *args)


# ---- a card with a choice among neighbours, played through a scenario ---------------
def test_a_card_choosing_among_neighbours_plays_through_its_scenario(tmp_path):
    pack = write_pack(tmp_path / "march")
    path = tmp_path / "scenarios.yaml"
    path.write_text(SCENARIO)
    outcomes, report = run_paths([path], pack)
    assert not report.errors
    assert [o.failures for o in outcomes] == [[]]


def test_the_scenario_fails_when_a_neighbour_is_offered_that_is_not_one(tmp_path):
    pack = write_pack(tmp_path / "march")
    path = tmp_path / "scenarios.yaml"
    path.write_text(SCENARIO.replace('illegal: ["march to d"', 'legal: ["march to d"]\n'
                                     '          illegal: ["march to b"'))
    outcomes, _ = run_paths([path], pack)
    assert outcomes[0].failures


# ---- the checks, each at its position --------------------------------------------------
def diagnostics(root: Path, code: str) -> list[tuple[int, int, str, str]]:
    report = check_pack(root).report
    return [(d.source.line, d.source.column, d.message, d.hint)
            for d in report.diagnostics if d.code == code]


def line_col(text: str, needle: str, nth: int = 1) -> tuple[int, int]:
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def test_a_sound_map_checks_clean(tmp_path):
    report = check_pack(write_pack(tmp_path)).report
    assert not report.diagnostics


def test_e160_the_maps_kind_is_not_a_kind_of_location(tmp_path):
    board = DIAMOND.replace("kind: spaces", "kind: spacse")
    found = diagnostics(write_pack(tmp_path, board), "E160")
    assert found == [(*line_col(board, "spacse"), "map: 'spacse' is not a kind of location",
                      "did you mean `spaces`?")]


def test_e161_a_link_to_a_missing_place_gets_a_did_you_mean(tmp_path):
    board = DIAMOND.replace("[d, e]", "[d, ee]")
    found = diagnostics(write_pack(tmp_path, board), "E161")
    assert found == [(*line_col(board, "ee"), "map: there is no location 'ee' among the "
                      "spaces", "did you mean `e`?")]


def test_e161_a_link_to_a_place_of_another_kind_names_both_kinds(tmp_path):
    board = DIAMOND.replace("[d, e]", "[north, e]")
    found = diagnostics(write_pack(tmp_path, board), "E161")
    assert found == [(*line_col(board, "north", 2), "map: 'north' is one of the regions, not "
                      "of the spaces", "a map joins locations of one kind (`kind: spaces`)")]


def test_e161_a_neighbour_list_of_a_missing_place_points_at_its_key(tmp_path):
    lists = "  neighbours:\n    a: [b]\n    b: [a]\n    x: [a]\n"
    board = board_of(["a", "b"], lists)
    found = diagnostics(write_pack(tmp_path, board), "E161")
    assert [f[:3] for f in found] == [(*line_col(board, "x: [a]"),
                                       "map: there is no location 'x' among the spaces")]


def test_e162_a_place_linked_to_itself(tmp_path):
    board = DIAMOND.replace("[d, e]\n", "[d, e]\n    - [c, c]\n")
    found = diagnostics(write_pack(tmp_path, board), "E162")
    assert found == [(*line_col(board, "[c, c]"), "map: 'c' is linked to itself",
                      "a link joins two different places: name the other end")]


def test_e162_a_place_in_its_own_neighbour_list(tmp_path):
    board = board_of(["a", "b"], "  neighbours:\n    a: [b, a]\n    b: [a]\n")
    found = diagnostics(write_pack(tmp_path, board), "E162")
    assert found == [(*line_col(board, "a]\n"), "map: 'a' lists itself as its neighbour",
                      "take 'a' out of its own list")]


def test_w160_a_pair_given_twice_either_way_round_is_warned_and_the_pack_still_loads(
        tmp_path):
    board = DIAMOND.replace("[d, e]\n", "[d, e]\n    - [e, d]\n")
    root = write_pack(tmp_path, board)
    found = diagnostics(root, "W160")
    assert found == [(*line_col(board, "[e, d]"), "map: the link [e, d] is given twice "
                      f"(first at line {line_col(board, '[d, e]')[0]})",
                      "delete one of them: a link is two-way")]
    assert load_pack(root).map_links["e"] == ["d"]


def test_w160_a_neighbour_listed_twice_and_a_link_in_both_forms(tmp_path):
    lists = "  links:\n    - [a, b]\n  neighbours:\n    b: [c, c, a]\n    c: [b]\n"
    board = board_of(["a", "b", "c"], lists)
    found = diagnostics(write_pack(tmp_path, board), "W160")
    assert [f[:3] for f in found] == [
        (*line_col(board, "c, a]"), "map: 'b' lists 'c' twice"),
        (*line_col(board, "a]\n    c:"), "map: the link between 'b' and 'a' is given twice: "
         f"in `links:` too (line {line_col(board, '[a, b]')[0]})"),
    ]


def test_e163_a_one_way_neighbour_list_names_both_ends_and_the_fix(tmp_path):
    lists = "  neighbours:\n    a: [b, c]\n    b: [a]\n    c: [b]\n"
    board = board_of(["a", "b", "c"], lists)
    found = diagnostics(write_pack(tmp_path, board), "E163")
    assert found == [
        (*line_col(board, "c]\n    b:"), "map: 'a' lists 'c' as a neighbour, but 'c' does "
         "not list 'a': links are two-way", "add 'a' to the neighbours of 'c', or take 'c' "
         "out of those of 'a'"),
        (*line_col(board, "b]\n"), "map: 'c' lists 'b' as a neighbour, but 'b' does not "
         "list 'c': links are two-way", "add 'c' to the neighbours of 'b', or take 'b' out "
         "of those of 'c'"),
    ]


def test_e163_a_neighbour_with_no_list_of_its_own(tmp_path):
    board = board_of(["a", "b"], "  neighbours:\n    a: [b]\n")
    found = diagnostics(write_pack(tmp_path, board), "E163")
    assert [f[2] for f in found] == ["map: 'a' lists 'b' as a neighbour, but 'b' has no "
                                     "neighbours list: links are two-way"]


def test_e164_a_map_in_parts_names_each_part_in_board_order(tmp_path):
    board = board_of(list("abcdef"), pairs("a-c", "b-d", "d-f"))
    found = diagnostics(write_pack(tmp_path, board), "E164")
    assert found == [(*line_col(board, "map:"), "the map is in 3 separate parts: [a, c], "
                      "[b, d, f], [e]", "link the parts (`links:`), or write `connected: "
                      "false` under `map:` if they are meant to be apart")]


def test_e164_is_not_said_of_a_map_declared_in_parts(tmp_path):
    board = board_of(list("abcdef"), pairs("a-c", "b-d", "d-f"), "  connected: false\n")
    assert check_pack(write_pack(tmp_path, board)).report.diagnostics == []


def test_e164_shortens_a_long_list_of_parts(tmp_path):
    spaces = [f"s{i}" for i in range(12)]
    board = board_of(spaces, pairs("s0-s1"))
    (found,) = diagnostics(write_pack(tmp_path, board), "E164")
    assert found[2] == ("the map is in 11 separate parts: [s0, s1], [s2], [s3], [s4], [s5], "
                        "[s6], [s7], [s8] and 3 more")


def test_e165_a_map_of_more_places_than_its_tables_are_bounded_for(tmp_path):
    spaces = [f"s{i}" for i in range(MAX_MAP_PLACES + 1)]
    board = board_of(spaces, "  links: []\n")
    found = diagnostics(write_pack(tmp_path, board), "E165")
    assert [f[:3] for f in found] == [(*line_col(board, "map:"), f"the map has "
                                       f"{MAX_MAP_PLACES + 1:,} places, more than the "
                                       f"{MAX_MAP_PLACES:,} a map may have")]
    assert not diagnostics(tmp_path, "E164")  # the check stops there: no walk of the parts


def test_e165_a_map_of_more_written_links_than_its_bound(tmp_path):
    # pairs and neighbour-list entries count together, duplicates too: they are all read
    links = pairs(*["a-b"] * (MAX_MAP_LINKS - 1))
    board = board_of(["a", "b"], links + "  neighbours:\n    a: [b]\n    b: [a]\n")
    found = diagnostics(write_pack(tmp_path, board), "E165")
    assert [f[:3] for f in found] == [(*line_col(board, "map:"), f"the map has "
                                       f"{MAX_MAP_LINKS + 1:,} links, more than the "
                                       f"{MAX_MAP_LINKS:,} a map may have")]
    assert not diagnostics(tmp_path, "W160")  # nothing else is looked at


def test_e340_a_map_builtin_without_a_map(tmp_path):
    board = DIAMOND[:DIAMOND.index("map:")] + "tokens: {red: a, blue: e}\n"
    root = write_pack(tmp_path, board)
    rules = (root / "rules" / "game.yaml").read_text()
    found = diagnostics(root, "E340")
    assert (*line_col(rules, "neighbours(location of p)"),
            "neighbours() reads the board's map, and the board declares none") \
        in [f[:3] for f in found]
    assert {f[2].split("(")[0] for f in found} == {"adjacent", "neighbours", "distance",
                                                   "path"}


def test_e320_a_map_builtin_given_a_place_of_another_kind(tmp_path):
    rules = RULES + '  off: {params: [], expr: "neighbours(north)"}\n'
    root = write_pack(tmp_path, rules=rules)
    found = diagnostics(root, "E320")
    assert [f[2] for f in found] == ["type mismatch: what neighbours() is given must be one "
                                     "of the spaces, not 'north' (one of the regions)"]


MISUSE = """\
  misuse:
    body: |
      move red to path(a, e)
      for s in neighbours(a):
        place 1 influence support for red in s
      if distance(a, e) == north:
        say "far"
"""


def test_e320_what_the_map_builtins_give_is_known_to_the_checks(tmp_path):
    # path gives a list, neighbours places of the map's kind, distance a number
    rules = RULES.replace("functions:", MISUSE + "functions:")
    root = write_pack(tmp_path, rules=rules)
    (root / "pack.yaml").write_text(PACK_YAML + "pools:\n  influence: {kind: regions}\n")
    found = diagnostics(root, "E320")
    assert [f[:3] for f in found] == [
        (*line_col(rules, "path(a, e)"),
         "type mismatch: where a token moves must be a place, not a list"),
        (*line_col(rules, "s\n      if"), "type mismatch: where to place influence support "
         "must be one of the regions, not `s` (one of the spaces)"),
        (*line_col(rules, "distance(a, e) =="), "type mismatch: `==` compares a number with "
         "'north' (one of the regions)"),
    ]


OWN_DISTANCE = """\
procedures:
  game:
    body: |
      record winner as red
functions:
  distance: {params: [x, y], expr: "7"}
  far: {params: [], expr: "distance(a, e)"}
"""


def test_e608_a_function_named_like_a_map_builtin_is_free_only_without_a_map(tmp_path):
    no_map = DIAMOND[:DIAMOND.index("map:")] + "tokens: {red: a, blue: e}\n"
    root = write_pack(tmp_path / "no-map", no_map, OWN_DISTANCE, "cards: []\n")
    assert check_pack(root).report.errors == []
    assert Game.new(load_pack(root)).evaluate("far") == 7  # the pack's own, not the builtin
    with_map = write_pack(tmp_path / "map", DIAMOND, OWN_DISTANCE, "cards: []\n")
    errors = check_pack(with_map).report.errors
    assert [(d.code, d.message) for d in errors] == [
        ("E608", "'distance' is a builtin function: it cannot be defined or replaced")]


def test_travel_packs_compile_without_a_map():
    from hustings.dsl.loading import builtin_pack

    program = load_pack(builtin_pack())
    assert program.map_kind is None and program.map_links == {}
    assert program.travel_cost  # 1960's travel: is read as before


def test_the_map_of_the_reference_checks_clean_and_means_what_it_says(tmp_path):
    """docs/dsl.md, section 2.2: the example board, pairs and neighbour lists together."""
    reference = (Path(__file__).resolve().parents[1] / "docs" / "dsl.md").read_text()
    section = reference[reference.index("#### Maps: `map:`"):]
    board = re.search(r"```yaml\n(.*?)```", section, flags=re.S).group(1)
    root = write_pack(tmp_path, board + "tokens: {red: ford, blue: keep}\n",
                      OWN_DISTANCE.replace("  distance:", "  d:").replace("a, e", "ford, keep"),
                      "cards: []\n")
    assert check_pack(root).report.diagnostics == []
    assert load_pack(root).map_links == {"ford": ["mill", "hill"], "mill": ["ford", "keep"],
                                         "hill": ["ford", "keep"], "keep": ["mill", "hill"]}
