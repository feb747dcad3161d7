"""Content is read with libyaml's parser when it is installed (dsl/yamlsource.py): the data,
the value types and every line and column must be what the pure-Python loader gives, or
diagnostics would point somewhere else."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from hustings.dsl import yamlsource
from hustings.dsl.diagnostics import Report
from hustings.dsl.yamlsource import fast_load, read_yaml

CONTENT = Path(__file__).resolve().parent.parent / "content"

needs_c = pytest.mark.skipif(yamlsource.CParser is None,
                             reason="ruamel.yaml.clib (libyaml's parser) is not installed")


def differences(pure, fast, path="") -> list[str]:
    """Where the two readings differ: type, value, keys or any position."""
    if type(pure) is not type(fast):
        return [f"{path}: {type(pure).__name__} != {type(fast).__name__}"]
    if isinstance(pure, CommentedMap):
        if list(pure) != list(fast):
            return [f"{path}: keys {list(pure)} != {list(fast)}"]
        if (pure.lc.line, pure.lc.col) != (fast.lc.line, fast.lc.col):
            return [f"{path}: mapping at {pure.lc.line},{pure.lc.col}"]
        out = []
        for k in pure:
            if pure.lc.data.get(k) != fast.lc.data.get(k):
                out.append(f"{path}.{k}: at {pure.lc.data.get(k)} != {fast.lc.data.get(k)}")
            out += differences(pure[k], fast[k], f"{path}.{k}")
        return out
    if isinstance(pure, CommentedSeq):
        if len(pure) != len(fast):
            return [f"{path}: {len(pure)} items != {len(fast)}"]
        out = []
        for i, (a, b) in enumerate(zip(pure, fast, strict=True)):
            if pure.lc.data.get(i) != fast.lc.data.get(i):
                out.append(f"{path}[{i}]: at {pure.lc.data.get(i)} != {fast.lc.data.get(i)}")
            out += differences(a, b, f"{path}[{i}]")
        return out
    return [] if pure == fast else [f"{path}: {pure!r} != {fast!r}"]


SAMPLES = {
    "scalars": "a: 1\nb: -0x1F\nc: 1.5\nd: yes\ne: ~\nf: 'q'\ng: \"x: y\"\nh: 2026-01-02\n",
    "blocks": "text: |\n  one\n    two\nfold: >-\n  a\n  b\nafter: 3\n",
    "flow": "m: {a: [1, 2, {b: c}], d: []}\nl: [x, {y: z}]\n",
    "nested": "top:\n  - name: a\n    items:\n      - 1\n      - [2, 3]\n  - b\n",
    "merge": "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n",
    "empty": "",
}


@needs_c
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_c_parser_reads_what_the_pure_one_does(name):
    text = SAMPLES[name]
    assert differences(YAML(typ="rt").load(text), fast_load(text)) == []


@needs_c
def test_every_shipped_content_file_reads_the_same_both_ways():
    files = sorted(CONTENT.rglob("*.yaml"))
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert differences(YAML(typ="rt").load(text), fast_load(text), path.name) == []


@pytest.mark.parametrize("text, code, line", [
    ("a: 1\n\tb: 2\n", "E101", 2),        # a tab
    ("a: [1, 2\nb: 3\n", "E101", 1),      # an unclosed bracket
    ("a: 1\na: 2\n", "E101", 2),          # a duplicate key
])
def test_broken_yaml_is_reported_by_the_pure_loader_at_its_line(tmp_path, text, code, line):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    report = Report()
    assert read_yaml(path, "broken.yaml", report) is None
    (diagnostic,) = report.errors
    assert diagnostic.code == code
    assert diagnostic.source.line == line
