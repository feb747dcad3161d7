"""The pack cache (dsl/packcache.py): an unchanged pack loads from it as it compiled.

A cached load gives the very program, report and counts a compile gives; any change
to a file of the pack, a mod or the options is a miss; a damaged or hostile entry is a
miss, never an error or anything run; a pack with errors is not kept.
"""

from __future__ import annotations

import json
import os
import random
import shutil

import pytest

from hustings.dsl import packcache
from hustings.dsl.loading import builtin_pack, check_pack, load_pack
from hustings.interpreter.game import Game


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("HUSTINGS_CACHE", str(folder))
    return folder


def entries(folder) -> list:
    return sorted(folder.glob("*.json")) if folder.exists() else []


def played(program, seed: int) -> str:
    game = Game.new(program, seed, safe=False)
    rnd = random.Random(seed)
    while not game.is_terminal():
        game.apply_action(rnd.randrange(game.num_actions()))
    return game.save()


def test_a_cached_load_is_the_compiled_pack(cache):
    first = check_pack()
    assert len(entries(cache)) == 1
    second = check_pack()
    assert second.program == first.program and second.stats == first.stats
    assert second.report == first.report
    for seed in (1, 2):
        assert played(second.program, seed) == played(first.program, seed)


def test_the_cached_program_plays_as_a_fresh_compile(cache, monkeypatch):
    cached = load_pack()
    load_pack()  # from the cache now
    monkeypatch.setenv("HUSTINGS_CACHE", "off")
    fresh = load_pack()
    assert fresh == cached
    assert played(cached, 5) == played(fresh, 5)


def test_a_name_read_back_is_one_string_object(cache):
    """A compiled program holds a copy of a player's name at every place the content names
    it; read back from the cache, all are one object (compared by identity first)."""
    fresh = check_pack().program  # compiled, then read back as it was kept
    cached = load_pack()  # from the cache
    for program in (fresh, cached):
        seats = program.players
        where = [owner for owner, _ in program.initial["pools"]["state"].values()]
        assert where and all(any(o is seat for seat in seats) for o in where)


def test_any_change_is_a_miss(cache, tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    check_pack(pack)
    check_pack(pack, {"restricted_positioning": True})
    assert len(entries(cache)) == 2
    card = next((pack / "cards").glob("*.yaml"))
    card.write_text(card.read_text() + "\n")
    check_pack(pack)
    assert len(entries(cache)) == 3


def test_a_damaged_or_hostile_entry_is_a_miss(cache):
    program = load_pack()
    (entry,) = entries(cache)
    for text in ("{", "[]", '{"@": "os.system", "x": 1}', json.dumps({"@": "Loaded"}),
                 '{"(": [1], "x": 2}', "x" * 100):
        entry.write_text(text)
        assert load_pack() == program  # compiled again, and kept again
        assert json.loads(entry.read_text())["@"] == "Loaded"


def test_a_pack_with_errors_is_not_kept(cache, tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(builtin_pack(), pack, ignore=shutil.ignore_patterns("scenarios"))
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("entry:", "entry: nowhere\nx_entry:"))
    assert check_pack(pack).program is None
    assert entries(cache) == []


def test_nothing_is_kept_when_the_cache_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("HUSTINGS_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_pack()
    assert list(tmp_path.iterdir()) == []


def test_clear_empties_the_folder(cache):
    load_pack()
    assert packcache.clear() == 1
    assert entries(cache) == []


def test_only_the_latest_entries_are_kept(cache, monkeypatch):
    monkeypatch.setattr(packcache, "KEEP", 2)
    cache.mkdir()
    for k in range(3):
        (cache / f"{k}.json").write_text("{}")
        os.utime(cache / f"{k}.json", (1_000 + k, 1_000 + k))  # 0 is the oldest
    (cache / "x.1.tmp").write_text("{")  # a writer stopped half-way long ago
    os.utime(cache / "x.1.tmp", (1_000, 1_000))
    load_pack()
    assert len(entries(cache)) == 2 and not (cache / "0.json").exists()
    assert not (cache / "x.1.tmp").exists()
