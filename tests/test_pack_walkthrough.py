"""Runs the chapter of docs/authoring.md that builds a game from an empty folder ("A game of
your own"), in order, in a fresh folder, the way tests/test_tutorial.py runs the mod chapters.

`<!-- pack-file: PATH -->` before a fenced block writes that block to PATH;
`<!-- pack-made: PATH -->` asserts that a command wrote PATH with exactly the block's text
(so the files the chapter shows as written by `hustings new pack` are the ones it writes);
`<!-- pack-run: exit=N -->` before a console block runs each `$ hustings ...` line, expects
exit code N from each and every other line of the block in the output.

The markers differ from the tutorial's (`file:`, `run:`), so each test runs its own chapters.
"""

from __future__ import annotations

import re
from pathlib import Path

from console_steps import run_console_block

DOC = Path(__file__).resolve().parents[1] / "docs" / "authoring.md"
TITLE = "## 11. A game of your own, from an empty folder"
STEP = re.compile(r"<!-- pack-(file|made|run): ([^>]*?) -->\n```\w*\n(.*?)```", re.S)
FENCE = re.compile(r"^```(\w+)$", re.M)


def chapter() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(TITLE)
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def steps() -> list[tuple[str, str, str]]:
    return STEP.findall(DOC.read_text(encoding="utf-8"))


def test_the_steps_are_all_in_the_chapter():
    assert steps() == STEP.findall(chapter())


def test_every_file_and_command_the_chapter_shows_is_a_step():
    """An opening fence with a language (a yaml file, a console session) must come right
    after a step marker: nothing shown to type is left unrun."""
    text = chapter()
    for fence in FENCE.finditer(text):
        before = text[:fence.start()].rstrip("\n").splitlines()[-1]
        assert re.fullmatch(r"<!-- pack-(file|made|run): [^>]*? -->", before), (
            f"a ```{fence.group(1)} block with no step marker after: {before!r}")


def test_the_chapter_builds_a_whole_game():
    kinds = [kind for kind, _, _ in steps()]
    assert kinds.count("file") >= 3 and kinds.count("made") >= 2 and kinds.count("run") >= 6
    commands = " ".join(body for kind, _, body in steps() if kind == "run")
    for command in ("hustings new pack", "hustings new card", "hustings check",
                    "hustings scenario", "hustings play", "hustings simulate"):
        assert f"$ {command}" in commands, command


def test_the_chapter_runs(tmp_path):
    for kind, arg, body in steps():
        target = tmp_path / arg.strip()
        if kind == "file":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")
            continue
        if kind == "made":
            assert target.is_file(), f"{arg.strip()} was not written"
            assert target.read_text(encoding="utf-8") == body, (
                f"{arg.strip()} as written differs from the chapter")
            continue
        run_console_block(arg, body, tmp_path)
