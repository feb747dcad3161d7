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
