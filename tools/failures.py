"""How the command line ends: one place maps every failure to a message and an exit status.

    0  done            1  the input is wrong (content, a log, a save, a path)
    2  usage error     3  a bug in hustings (details written to a file)
  130  interrupted (Ctrl-C)

Only an unexpected exception is a bug: it prints one line naming the file that holds
the traceback, unless `--debug` asks for the traceback itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..dsl.diagnostics import ContentError

USAGE, INPUT, BUG, INTERRUPTED = 2, 1, 3, 130


class UsageError(Exception):
    """The command line asks for something impossible or contradictory (exit 2)."""


class InputError(Exception):
    """A file the user gave (a log, a save, content) is wrong (exit 1)."""


def guarded(command: Callable[[], int], argv: list[str], debug: bool) -> int:
    """Run `command`, turning every way it can fail into a message and an exit status."""
    try:
        return command()
    except UsageError as e:
        return fail(f"hustings: error: {e}", USAGE)
    except InputError as e:
        return fail(f"hustings: {e}", INPUT)
    except ContentError as e:
        for d in e.report.errors:
            print(d, file=sys.stderr)
        return INPUT
    except KeyboardInterrupt:
        return fail("hustings: interrupted", INTERRUPTED)
    except BrokenPipeError:  # `hustings ... | head`: the reader left; nothing to report
        sys.stderr.close()
        return 0
    except OSError as e:
        if e.filename is None:
            return crashed(argv, debug)
        # a file the system will not open for us (missing, unreadable, a name too long)
        name = str(e.filename)
        name = name if len(name) <= 80 else name[:77] + "..."
        return fail(f"hustings: cannot use {name}: {e.strerror or e}", INPUT)
    except Exception:
        return crashed(argv, debug)


def crashed(argv: list[str], debug: bool) -> int:
    """The exception being handled is a bug: its traceback, in a file unless `debug`."""
    if debug:
        import traceback

        traceback.print_exc()
        return BUG
    where = write_crash_report(argv)
    kind = sys.exc_info()[0].__name__
    return fail(f"hustings: internal error ({kind}): this is a bug in hustings, not in your "
                f"input; the details are in {where} (please attach it to a bug report, "
                "or rerun with --debug)", BUG)


def fail(message: str, code: int) -> int:
    print(message, file=sys.stderr)
    return code


def write_crash_report(argv: list[str]) -> str:
    """Write the current exception's traceback to a file in the temp folder; return its path."""
    import tempfile  # here, not at start-up: only a crash needs them
    import traceback
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("hustings")
    except PackageNotFoundError:
        release = "unknown"
    text = (f"hustings {release}, Python {sys.version.split()[0]}\n"
            f"command: hustings {' '.join(argv)}\n\n{traceback.format_exc()}")
    try:
        with tempfile.NamedTemporaryFile("w", prefix="hustings-crash-", suffix=".txt",
                                         delete=False, encoding="utf-8") as out:
            out.write(text)
            return out.name
    except OSError:
        return "(nowhere: the temp folder is not writable)"
