"""Fixtures the test files share, and the environment every test runs in."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hustings.dsl.loading import builtin_pack

# Every test compiles the packs it loads (and so do the commands it runs): the pack cache
# is proven by its own tests (test_pack_cache.py), which turn it on in a folder of theirs.
os.environ["HUSTINGS_CACHE"] = "off"


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A writable copy of the built-in 1960 pack (its scenarios left out), to break."""
    target = tmp_path / "pack"
    shutil.copytree(builtin_pack(), target, ignore=shutil.ignore_patterns("scenarios"))
    return target


# The longest tests, started first: under `python -m pytest -n 2` pytest-xdist hands each
# worker a first block of tests, then the rest a few at a time to whichever is free, so a
# long test near the end of the collection is a tail the other worker waits through (the
# web non-interference tests were, by their file's name). Started first, they fall in the
# first block of one worker while the other takes the short tests. Names (test functions,
# any parameters) in rough order of their CPU time; a name no longer there is not found.
LONGEST_FIRST = (
    "test_fmt.py::test_fmt_twice_equals_fmt_once_on_every_content_file",
    "test_engine_properties.py::test_invariants_hold_after_every_action_of_random_games",
    "test_tutorial.py::test_the_tutorial_runs",
    "test_web_browser.py::test_whole_game_through_the_page",
    "test_content_fuzz.py::test_sixty_mutants_never_crash",
    "test_web_secrets.py::test_no_reply_of_a_whole_game_carries_the_seed_or_the_generator",
    "test_web_secrets.py::test_what_a_seat_may_not_know_changes_no_byte_of_its_json",
    "test_fmt.py::test_built_in_pack_is_canonical",
    "test_web_browser.py::test_clicking_a_state_campaigns_there",
    "test_bench.py::test_start_up_is_timed_in_a_cache_of_its_own",
    "test_yaml_reading.py::test_every_shipped_content_file_reads_the_same_both_ways",
    "test_cli_session.py::test_save_quit_resume_and_undo_end_byte_identical",
    "test_cli.py::test_greedy_beats_random_more_often_than_not",
    "test_genericity.py::test_no_card_title_of_the_second_game_in_any_python_file_outside_tests",
    "test_campaign_trail.py::test_its_scenario_files_run_on_it_without_naming_the_pack",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the longest tests to the front, in LONGEST_FIRST's order; the rest keep theirs.
    Every worker sorts the same collection the same way, as pytest-xdist requires."""
    def rank(item: pytest.Item) -> int:
        name = item.nodeid.split("/")[-1].split("[")[0]
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # a stable sort: the order within each rank stays
