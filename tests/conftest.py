"""Fixtures the test files share."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hustings.dsl.pack import builtin_pack


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A writable copy of the built-in 1960 pack (its scenarios left out), to break."""
    target = tmp_path / "pack"
    shutil.copytree(builtin_pack(), target, ignore=shutil.ignore_patterns("scenarios"))
    return target
