"""Every content file (packs and mods) validates against the exported JSON Schema it
names on its first line, and the exported schema files are current."""

from __future__ import annotations

import json

import jsonschema
import pytest
from ruamel.yaml import YAML

from hustings.dsl.loading import builtin_pack
from hustings.schemas.export import DEFAULT_FOLDER, SCHEMAS, schema_text

CONTENT = builtin_pack().parent  # content/: the built-in packs and the example mods


def content_files():
    for path in sorted(CONTENT.rglob("*.yaml")):
        yield pytest.param(path, id=str(path.relative_to(CONTENT)))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_exported_schema_is_current(name):
    path = DEFAULT_FOLDER / f"{name}.schema.json"
    assert path.read_text() == schema_text(SCHEMAS[name]), "run `hustings schema`"


@pytest.mark.parametrize("path", list(content_files()))
def test_content_file_validates_against_its_schema(path):
    first = path.read_text().splitlines()[0]
    assert "$schema=" in first, "the first line names the file's JSON Schema"
    reference = first.split("$schema=")[1].strip()
    schema_name = reference.rsplit("/", 1)[1]
    assert (path.parent / reference).resolve() == (DEFAULT_FOLDER / schema_name).resolve()
    schema = json.loads((DEFAULT_FOLDER / schema_name).read_text())
    data = YAML(typ="safe").load(path.read_text())
    jsonschema.validate(data, schema)


def test_the_content_files_checked_include_every_pack_and_mod():
    """The test above runs once per file found: a glob that matched nothing (a moved
    folder, a renamed suffix) would pass it silently."""
    files = {param.values[0] for param in content_files()}
    manifests = {*CONTENT.glob("*/pack.yaml"), *CONTENT.glob("mods/*/mod.yaml")}
    assert len({m.parent for m in CONTENT.glob("*/pack.yaml")}) >= 3  # the built-in packs
    assert manifests and manifests <= files
    # and the rules each pack holds beside its manifest, not only the manifests
    for manifest in CONTENT.glob("*/pack.yaml"):
        assert any(f.parent != manifest.parent and manifest.parent in f.parents for f in files)
