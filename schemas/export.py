"""Writes the content models as JSON Schema files for editors.

Content files name their schema in a first-line comment
(`# yaml-language-server: $schema=...`) so editors validate and complete them.

The generic schemas allow any extra field on a card or a location. With a pack's
manifest (`hustings schema --pack PATH`), the card schemas list the pack's
`card_fields` and the board schema its `board_fields`, with their types and allowed
values, and refuse any other field, so an editor completes and checks them too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .content import Board, Card, CardList, FieldDef, PackManifest, RulesFile
from .mod import ModCard, ModCardList, ModManifest, ModRulesFile
from .scenario import ScenarioFile

SCHEMAS: dict[str, type[BaseModel]] = {
    "pack": PackManifest,
    "board": Board,
    "card": Card,
    "cardlist": CardList,
    "rules": RulesFile,
    "scenario": ScenarioFile,
    "mod": ModManifest,
    "modcard": ModCard,
    "modcardlist": ModCardList,
    "modrules": ModRulesFile,
}

# The schema files shipped with the package: what content files and `new card` refer to.
# `hustings schema` never writes here by itself (an installed package is not a work folder);
# it writes to the folder it is given (by default ./schemas/json under the current folder).
DEFAULT_FOLDER = Path(__file__).resolve().parent / "json"


def schema_text(model: type[BaseModel] | dict) -> str:
    schema = model if isinstance(model, dict) else model.model_json_schema()
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path, manifest: PackManifest | None = None,
                  places: dict[str, list[str]] | None = None) -> list[Path]:
    """Write every schema; with a pack's manifest, its card and board fields are in them."""
    schemas = (pack_schemas(manifest, places or {}) if manifest is not None
               else {name: model.model_json_schema() for name, model in SCHEMAS.items()})
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas.items():
        path = folder / f"{name}.schema.json"
        path.write_text(schema_text(schema))
        written.append(path)
    return written


# ---- a pack's own fields ---------------------------------------------------------
_JSON_TYPES = {"int": {"type": "integer"}, "str": {"type": "string"},
               "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}}


def pack_schemas(manifest: PackManifest, places: dict[str, list[str]]) -> dict[str, dict]:
    """Every schema, the card and board ones with the pack's declared fields.

    `places` holds the location ids by kind: a `kind_of` field's values are listed."""
    out = {name: model.model_json_schema() for name, model in SCHEMAS.items()}
    if manifest.card_fields:
        _card_fields(out["card"], manifest, places)
        _card_fields(out["modcard"], manifest, places)
        _card_fields(out["cardlist"]["$defs"]["Card"], manifest, places)
        _card_fields(out["modcardlist"]["$defs"]["ModCard"], manifest, places)
    _board_fields(out["board"], manifest, places)
    return out


def field_schema(spec: FieldDef, places: dict[str, list[str]]) -> dict[str, Any]:
    """A declared field as JSON Schema: its type, the allowed values, null when optional."""
    element = (spec.items or "str") if spec.type == "list" else spec.type
    one: dict[str, Any] = dict(_JSON_TYPES[element])
    allowed = list(spec.values) if spec.values is not None else None
    if spec.kind_of is not None:
        allowed = [*places[spec.kind_of], *(allowed or [])] if spec.kind_of in places else None
    if allowed is not None:
        one = {**one, "enum": allowed}
    schema = {"type": "array", "items": one} if spec.type == "list" else one
    if spec.doc:
        schema = {**schema, "description": spec.doc}
    return {"anyOf": [schema, {"type": "null"}]} if spec.optional else schema


def _card_fields(schema: dict, manifest: PackManifest, places: dict[str, list[str]]) -> None:
    """Add the declared card fields; refuse others; a field of some kinds only (`kinds`)
    is allowed (or, if not optional, required) on cards of those kinds."""
    default_kind = Card.model_fields["kind"].default
    rules = []
    for name, spec in manifest.card_fields.items():
        schema["properties"][name] = field_schema(spec, places)
        of_kind: dict[str, Any] = {"properties": {"kind": {"enum": spec.kinds}}}
        if spec.kinds is not None and default_kind not in spec.kinds:
            of_kind["required"] = ["kind"]
        if spec.kinds is not None:
            rules.append({"if": {"required": [name], "not": {"properties": {name: {
                "type": "null"}}}}, "then": of_kind})
        if not spec.optional:
            rules.append({"if": of_kind, "then": {"required": [name]}} if spec.kinds
                         is not None else {"required": [name]})
    schema["additionalProperties"] = False
    if rules:
        schema["allOf"] = rules


def _board_fields(schema: dict, manifest: PackManifest, places: dict[str, list[str]]) -> None:
    """A location schema per declared kind: its fields typed, no others."""
    location = schema["$defs"]["Location"]
    kinds = {}
    for kind, fields in manifest.board_fields.items():
        declared = {**location, "properties": dict(location["properties"]),
                    "additionalProperties": False, "title": f"Location ({kind})"}
        required = list(location.get("required", []))
        for name, spec in fields.items():
            declared["properties"][name] = field_schema(spec, places)
            if not spec.optional:
                required.append(name)
        declared["required"] = required
        schema["$defs"][f"Location_{kind}"] = declared
        kinds[kind] = {"type": "array", "items": {"$ref": f"#/$defs/Location_{kind}"}}
    if kinds:
        schema["properties"]["locations"] = {**schema["properties"]["locations"],
                                             "properties": kinds}
