"""Mutation testing of the modules that defend the engine, with mutmut (docs/testing.md).

    python -m hustings.tools.mutation                      # every module below, one by one
    python -m hustings.tools.mutation interpreter/rng.py   # some of them
    python -m hustings.tools.mutation --changed-since origin/main --time-limit 540   # CI

mutmut names a mutant after the module path of its file and needs the tests to import the
mutated copy; this repository's folders are installed as `hustings.*` through setup.py's
package map, which mutmut cannot follow. So each module is run in a staging folder laid out
as `src/hustings/<folder>/...` (mutmut strips the `src.` and puts `mutants/src` first on
sys.path, ahead of the editable install), beside copies of the tests and of the top-level
folders the tests read as files. Each module runs with only the test files that cover it,
and mutmut runs for each mutant only the tests that reached the mutated function.

Prints one line per module (mutants, killed, survived, timeout, score) and, with
`--survivors`, the name of each surviving mutant (`mutmut show NAME` in the module's
staging folder prints its diff). Exit status: 0, or 1 when a module's score is below
`--min-score`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("dsl", "interpreter", "schemas", "tools", "content")
# the top-level files and folders tests read as files (ROOT / "docs", the pyproject...)
AS_FILES = ("docs", "pyproject.toml", "setup.py", "README.md", *TOP_LEVEL)

# Each defended module, with the test files that cover it (a mutant runs only these).
# test_hostile_content.py is left out: its wall-clock ceilings fail under mutmut's tracing
# on a loaded machine, and test_defences.py / test_properties.py prove the same limits.
MODULES: dict[str, tuple[str, ...]] = {
    "interpreter/rng.py": ("test_properties.py",),
    "interpreter/budget.py": ("test_defences.py", "test_properties.py"),
    "tools/failures.py": ("test_defences.py",),  # test_cli_errors.py: whole commands, slow
    "interpreter/game.py": ("test_defences.py", "test_properties.py", "test_saves.py",
                            "test_observation.py"),
    "dsl/loading.py": ("test_defences.py", "test_confinement.py", "test_pack_cache.py",
                       "test_check.py"),
    "dsl/yamlsource.py": ("test_defences.py", "test_yaml_reading.py"),
    "interpreter/invariants.py": ("test_saves.py", "test_save_fuzz.py"),
    "interpreter/machine.py": ("test_defences.py", "test_properties.py", "test_blocks.py"),
    "tools/web/app.py": ("test_web_api.py",),
}


def stage(module: str, tests: tuple[str, ...], folder: Path) -> None:
    """A fresh staging folder for one module: the package under src/hustings, the tests,
    and a pyproject whose [tool.mutmut] names the module and its tests."""
    if folder.exists():
        shutil.rmtree(folder)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".venv", "mutants")
    for top in TOP_LEVEL:
        shutil.copytree(ROOT / top, folder / "src" / "hustings" / top, ignore=skip)
    for name in AS_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=skip)
        elif source.is_file():
            shutil.copy2(source, folder / name)
    shutil.copytree(ROOT / "tests", folder / "tests", ignore=skip)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    selection = ", ".join(json.dumps(f"tests/{t}") for t in tests if (ROOT / "tests" / t).exists())
    also = ", ".join(json.dumps(n) for n in AS_FILES)
    pyproject += (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f'only_mutate = ["src/hustings/{module}"]\n'
        f"also_copy = [{also}]\n"
        f"pytest_add_cli_args_test_selection = [{selection}]\n"
        # a test run tells the truth or it does not: no plugin state carried between mutants
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"]\n'
        "use_git_change_detection = false\n"
    )
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")


def run_module(module: str, folder: Path, children: int, deadline: float | None) -> dict:
    """Run mutmut on one staged module; its summary (and the survivors' names)."""
    # HUSTINGS_MUTATION: property tests report a failure at once, without shrinking it
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "HUSTINGS_MUTATION": "1"}
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    timeout = None if deadline is None else max(1.0, deadline - time.monotonic())
    log = folder / "mutmut.log"
    with open(log, "w", encoding="utf-8") as out:
        # its own process group: at the time limit mutmut goes with the children it forked
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            process.wait(timeout=timeout)
            finished = True
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            finished = False
    summary = {"module": module, "finished": finished, "mutants": 0, "killed": 0,
               "survived": 0, "timeout": 0, "other": 0, "survivors": []}
    listing = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"],
                             cwd=folder, env=env, capture_output=True, text=True, check=False)
    for line in listing.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name:
            continue
        summary["mutants"] += 1
        key = status if status in ("killed", "survived", "timeout") else "other"
        summary[key] += 1
        if status == "survived":
            summary["survivors"].append(name)
    return summary


def score(s: dict) -> float | None:
    """Killed (a timeout is a kill: the mutant made the tests hang) over all tried; None
    when none was tried (mutmut could not run the tests: its log in the staging folder)."""
    tried = s["killed"] + s["survived"] + s["timeout"]
    return 100.0 * (s["killed"] + s["timeout"]) / tried if tried else None


def changed_modules(ref: str) -> list[str]:
    """The defended modules a change since `ref` touched (itself, or its test files)."""
    out = subprocess.run(["git", "diff", "--name-only", ref, "--"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    touched = set(out)
    return [m for m, tests in MODULES.items()
            if m in touched or any(f"tests/{t}" in touched for t in tests)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hustings.tools.mutation",
                                description="mutation testing of the engine's defences")
    p.add_argument("modules", nargs="*", help=f"any of: {', '.join(MODULES)} (default: all)")
    p.add_argument("--changed-since", metavar="REF",
                   help="only the modules (or their test files) changed since this git ref")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/hustings-mutation"),
                   help="where the staging folders go (default: %(default)s)")
    p.add_argument("--children", type=int, default=2, help="mutants run at once (default 2)")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="stop (and report what was tried) after this long in all")
    p.add_argument("--min-score", type=float, default=0.0,
                   help="exit 1 when a module's score is below this percentage")
    p.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    p.add_argument("--json", type=Path, metavar="FILE", help="write the summaries as JSON")
    a = p.parse_args(argv)
    unknown = [m for m in a.modules if m not in MODULES]
    if unknown:
        p.error(f"not a defended module: {', '.join(unknown)} (choose from {', '.join(MODULES)})")
    modules = a.modules or list(MODULES)
    if a.changed_since:
        touched = changed_modules(a.changed_since)
        modules = [m for m in modules if m in touched]
    if not modules:
        print("mutation: no defended module changed; nothing to run")
        return 0
    deadline = None if a.time_limit is None else time.monotonic() + a.time_limit
    summaries, low = [], False
    for module in modules:
        if deadline is not None and time.monotonic() >= deadline:
            print(f"mutation: {module}: not run (time limit reached)")
            continue
        folder = a.workdir / module.replace("/", "_").removesuffix(".py")
        stage(module, MODULES[module], folder)
        s = run_module(module, folder, a.children, deadline)
        summaries.append(s)
        value = score(s)
        low |= s["finished"] and (value is None or value < a.min_score)
        part = "" if s["finished"] else " (stopped at the time limit: partial)"
        said = f"score {value:.1f}%" if value is not None else \
            f"no mutant tested: see {folder / 'mutmut.log'}"
        print(f"mutation: {module}: {s['mutants']} mutants, {s['killed']} killed, "
              f"{s['survived']} survived, {s['timeout']} timeout, {s['other']} other; "
              f"{said}{part}", flush=True)
        if a.survivors:
            for name in s["survivors"]:
                print(f"  survived: {name}")
    if a.json:
        a.json.write_text(json.dumps(summaries, indent=2), encoding="utf-8")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
