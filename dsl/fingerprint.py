"""A content fingerprint of a folder: what a log records of the mods a game was played with.

SHA-256 over the folder's regular files, in the order of their relative paths, each
fed as its path, a NUL, its size and its bytes, so renaming, moving or editing any
file changes the fingerprint. Symbolic links and special files are skipped (they are
not content a mod may have: see the confinement rules).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def regular_files(root: Path) -> list[Path]:
    """The regular files under `root`, relative to it, sorted; links are not followed."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            path = Path(folder, name)
            if stat.S_ISREG(path.lstat().st_mode):
                found.append(path.relative_to(root))
    return sorted(found, key=lambda p: p.as_posix())


def folder_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for rel in regular_files(root):
        data = (root / rel).read_bytes()
        digest.update(rel.as_posix().encode("utf-8") + b"\0")
        digest.update(str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()
