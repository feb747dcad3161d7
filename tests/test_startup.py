"""Start-up: `check` and `play` import only what they use, and the plain-dict call-graph
checks and travel distances that replaced networkx on that path agree with networkx."""

from __future__ import annotations

import random
import subprocess
import sys

import networkx as nx
import pytest

from hustings.dsl.graph import has_cycle, path_lengths, reachable

PROBE = """
import sys
from hustings.tools.cli import main
code = main({argv!r})
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
