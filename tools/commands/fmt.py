"""`hustings fmt [--check] [PATH...]`: lay out content YAML canonically.

Files that are not content (outside any pack or mod folder and naming no content
schema) are skipped, so a pre-commit hook may hand over every YAML file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...dsl.loading import builtin_pack

NAME = "fmt"
HELP = "lay out content YAML canonically (--check: only report)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="files or folders (default: the built-in pack)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a file would change")


def run(args: argparse.Namespace) -> int:
    from ..formatting import FormatError, format_file, is_content, yaml_files

    paths = args.paths or [builtin_pack()]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"hustings fmt: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    files = [f for f in yaml_files(paths) if is_content(f)]
    changed = failed = 0
    for path in files:
        try:
            old, new = format_file(path)
        except (FormatError, OSError, UnicodeDecodeError) as e:
            print(f"{display(path)}: error: {e}", file=sys.stderr)
            failed += 1
            continue
        if new != old:
            changed += 1
            if not args.check:
                path.write_text(new, encoding="utf-8")
            print(f"{'would reformat' if args.check else 'reformatted'} {display(path)}")
    print(summary(len(files), changed, failed, args.check))
    return 1 if failed or (args.check and changed) else 0


def summary(total: int, changed: int, failed: int, check: bool) -> str:
    verb = "would be reformatted" if check else "reformatted"
    text = f"{total} content file{'s' * (total != 1)}: {changed} {verb}"
    return text + (f", {failed} with errors" if failed else "")


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
