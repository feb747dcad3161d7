"""Writes the content models as JSON Schema files for editors.

Content files name their schema in a first-line comment
(`# yaml-language-server: $schema=...`) so editors validate and complete them.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from .content import Board, Card, CardList, PackManifest, RulesFile
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


def schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in SCHEMAS.items():
        path = folder / f"{name}.schema.json"
        path.write_text(schema_text(model))
        written.append(path)
    return written
