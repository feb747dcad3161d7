"""Start-up: `check`, `play` and each further command import only what they use, and the
plain-dict call-graph checks and travel distances that replaced networkx on that path agree
with networkx."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from hustings.dsl.graph import has_cycle, path_lengths, reachable

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys
from hustings.tools.cli import main
try:
    code = main({argv!r})
except SystemExit as e:  # --help, or a usage error
    code = e.code
print("IMPORTED", sorted(m for m in {modules!r} if m in sys.modules), code)
"""
HEAVY = ["networkx", "rich", "hustings.tools.commands.explain", "hustings.tools.reading.outline",
         "hustings.dsl.scenarios", "hustings.schemas.save", "hustings.schemas.mod",
         "hustings.dsl.standalone"]


@pytest.mark.parametrize("argv", [["check"], ["play", "--quiet", "--seed", "1"]])
def test_check_and_play_import_only_what_they_use(argv):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, modules=HEAVY)],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "IMPORTED [] 0"


def test_the_other_commands_are_still_there_when_named():
    proc = subprocess.run([sys.executable, "-c", PROBE.format(
        argv=["explain", "2"], modules=["hustings.tools.commands.explain"])],
        capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "IMPORTED ['hustings.tools.commands.explain'] 0"


FURTHER = ["hustings.tools.commands.explain", "hustings.tools.commands.fmt",
           "hustings.tools.commands.simulate", "hustings.tools.commands.fuzz_saves", "networkx",
           "rich"]


@pytest.mark.parametrize("argv, imported", [
    (["fmt", "--check", "content/1960/pack.yaml"], ["hustings.tools.commands.fmt"]),
    (["fuzz-saves", "--help"], ["hustings.tools.commands.fuzz_saves"]),
])
def test_a_further_command_imports_its_own_module_alone(argv, imported):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, modules=FURTHER)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip().splitlines()[-1].startswith(f"IMPORTED {imported!r}"), proc.stderr


def test_the_list_of_commands_imports_none_of_their_libraries():
    """`hustings --help` imports every command's module, and only that."""
    heavy = ["networkx", "rich", "pydantic", "ruamel.yaml", "lark", "hustings.tools.formatting",
             "hustings.tools.reading.outline", "hustings.tools.fuzzing"]
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=["--help"], modules=heavy)],
                          capture_output=True, text=True, cwd=ROOT)
    assert "explain" in proc.stdout and "fuzz-saves" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "IMPORTED [] 0"


@pytest.mark.parametrize("word", ["fuzz_saves", "explian"])
def test_a_misnamed_command_is_told_every_command(word):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=[word], modules=[])],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip().splitlines()[-1] == "IMPORTED [] 2"
    assert "'explain'" in proc.stderr and "'fuzz-saves'" in proc.stderr and "'soak'" in proc.stderr


def random_links(rng: random.Random) -> list[tuple[str, str]]:
    names = [f"n{i}" for i in range(rng.randrange(2, 12))]
    return [(rng.choice(names), rng.choice(names)) for _ in range(rng.randrange(1, 20))]


@pytest.mark.parametrize("seed", range(30))
def test_path_lengths_are_networkx_shortest_paths(seed):
    links = random_links(random.Random(seed))
    g = nx.Graph()
    g.add_edges_from(links)
    expected = {a: dict(d) for a, d in nx.all_pairs_shortest_path_length(g)}
    got = path_lengths(links)
    assert got == expected
    assert list(got) == list(expected)  # the same order too


@pytest.mark.parametrize("seed", range(30))
def test_cycles_and_reach_are_networkx_s(seed):
    rng = random.Random(seed)
    links = random_links(rng)
    graph: dict[str, list[str]] = {}
    for a, b in links:
        graph.setdefault(b, [])
        graph.setdefault(a, []).append(b)
    g = nx.DiGraph(links)
    assert has_cycle(graph) == (not nx.is_directed_acyclic_graph(g))
    roots = rng.sample(sorted(graph), 2)
    assert reachable(graph, roots) == set(roots).union(*(nx.descendants(g, r) for r in roots))


COLLECTOR = """
import gc
from hustings.tools.collector import STARTUP_OBJECTS, collect_after_startup
usual = gc.get_threshold()
collect_after_startup()
first = gc.get_stats()[0]["collections"]
kept = [[] for _ in range(STARTUP_OBJECTS // 2)]
quiet = gc.get_stats()[0]["collections"] == first and gc.get_freeze_count() == 0
kept += [[] for _ in range(STARTUP_OBJECTS)]
frozen = gc.get_freeze_count()
a, b = [], []
a.append(b), b.append(a)  # a cycle, made and dropped after the start
del a, b
print(quiet, frozen >= STARTUP_OBJECTS, gc.get_threshold() == usual, gc.collect() >= 2)
"""


def test_the_collector_waits_for_the_start_then_sets_it_aside():
    """No collection while the first objects are made; at the first, all that is held is
    frozen and Python's thresholds come back, so later garbage is still collected."""
    proc = subprocess.run([sys.executable, "-c", COLLECTOR], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.split() == ["True", "True", "True", "True"], proc.stderr


@pytest.mark.parametrize("argv, quiet", [(None, True), (["--version"], False)])
def test_only_a_process_started_as_the_command_quiets_the_collector(argv, quiet):
    """main() from the command line (argv None), not main([...]) called by a script."""
    probe = ("import gc, sys\nsys.argv = ['hustings', '--version']\n"
             "from hustings.tools.cli import main\nfrom hustings.tools.collector import "
             f"STARTUP_OBJECTS\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
             "print(gc.get_threshold()[0] == STARTUP_OBJECTS)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.split()[-1] == str(quiet), proc.stderr
