"""`hustings upgrade PATH [--check]`: rewrite a pack or mod to the current content language.

What each language version changed, and the rewrite that follows it, is in
docs/language-changes.md; the rewriting is tools/upgrading.py. After writing, the folder
is checked again, and whatever `check` still reports needs a human.

Exit status: 0 when the folder is (or, with --check, already was) in the current language
and checks clean; 1 when --check finds something to change, or `check` still reports an
error after the upgrade; 2 when the folder cannot be upgraded.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "upgrade"
HELP = "rewrite a pack or mod to the current content language (--check: only report)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, metavar="PATH",
                        help="a pack folder (with pack.yaml) or a mod folder (with mod.yaml)")
    parser.add_argument("--pack", type=Path, default=None, metavar="PATH",
                        help="for a mod: its base pack folder (default: the built-in pack "
                             "its mod.yaml names)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; say what would change, exit 1 if anything would")


def run(args: argparse.Namespace) -> int:
    from ...dsl.language import CURRENT
    from ..upgrading import UpgradeError, plan

    if not args.path.is_dir():
        print(f"hustings upgrade: {args.path}: no such folder (give a pack or mod folder)",
              file=sys.stderr)
        return 2
    try:
        up = plan(args.path, args.pack)
    except UpgradeError as e:
        print(f"hustings upgrade: {e}", file=sys.stderr)
        for d in e.diagnostics:
            print(d, file=sys.stderr)
        return 2
    if not up.texts and up.language == CURRENT:
        print(f"{args.path}: already in language {CURRENT}: nothing to change")
        return 0
    verb = "would change" if args.check else "changed"
    for line in up.changes:
        print(f"{verb} {line}")
    for note in up.human:
        print(f"needs a human: {note}")
    if args.check:
        print(f"{args.path}: {len(up.texts)} file(s) would change (run without --check to "
              "write them)")
        return 1
    for path, (_, new) in up.texts.items():
        path.write_text(new, encoding="utf-8")
    return _recheck(args.path, up.kind, args.pack)


def _recheck(folder: Path, kind: str, base: Path | None) -> int:
    """`check` of the upgraded folder: what it still reports is for a human to fix."""
    from ...dsl.pack import compile_pack
    from ..upgrading import base_of

    root, mods = (folder, []) if kind == "pack" else (base_of(folder, base), [folder])
    errors = compile_pack(root, {}, mods).report.errors
    for d in errors:
        print(f"needs a human: {d}")
    print(f"{folder}: upgraded; `hustings check` reports "
          f"{len(errors) or 'no'} error{'s' * (len(errors) != 1)}")
    return 1 if errors else 0
