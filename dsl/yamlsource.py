"""Reads content YAML safely, keeping the line and column of every node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from .diagnostics import Report, Source, did_you_mean


class YamlFile:
    """One parsed file: its data (round-trip nodes that know their positions) and text."""

    def __init__(self, path: Path, display: str, data: Any, text: str) -> None:
        self.path = path
        self.display = display
        self.data = data
        self.lines = text.splitlines()

    def key_source(self, *keys) -> Source:
        """Position of the deepest key (or item) of `keys` that exists."""
        node, line, col = self.data, 0, 0
        for k in keys:
            if isinstance(node, CommentedMap) and k in node:
                line, col = node.lc.key(k)
                node = node[k]
            elif isinstance(node, CommentedSeq) and isinstance(k, int) and k < len(node):
                line, col = node.lc.item(k)
                node = node[k]
            else:
                break
        return Source(self.display, line + 1, col + 1)

    def text_source(self, parent: CommentedMap, key: str) -> Source:
        """Where the text of a scalar value starts (inside a `|` block: its first line)."""
        line, col = parent.lc.value(key)
        raw = self.lines[line] if line < len(self.lines) else ""
        rest = raw[col:].lstrip()
        if rest[:1] in ("|", ">"):
            for nxt in range(line + 1, len(self.lines)):
                body = self.lines[nxt]
                if body.strip():
                    return Source(self.display, nxt + 1, len(body) - len(body.lstrip()) + 1)
            return Source(self.display, line + 2, 1)
        quote = 1 if rest[:1] in ('"', "'") else 0
        return Source(self.display, line + 1, col + 1 + quote)


def read_yaml(path: Path, display: str, report: Report) -> YamlFile | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        report.error(Source(display), "E100", f"cannot read file: {e.strerror}")
        return None
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = (e.problem or e.context or "invalid YAML").strip()
        report.error(Source(display, line, col), "E101", f"YAML syntax: {problem}",
                     "check the indentation and that every `key:` has a value")
        return None
    except Exception as e:  # any other parser failure is still the file's fault
        report.error(Source(display), "E101", f"YAML syntax: {e}")
        return None
    return YamlFile(path, display, data, text)


def validate(model: type[BaseModel], f: YamlFile, report: Report, data: Any = None,
             prefix: tuple = ()) -> Any:
    """Validate `data` (default: the whole file) against a schema model."""
    data = f.data if data is None else data
    try:
        return model.model_validate(plain(data))
    except ValidationError as e:
        for err in e.errors():
            loc = prefix + tuple(err["loc"])
            where = f.key_source(*loc)
            field = ".".join(str(p) for p in err["loc"]) or "(file)"
            hint = ""
            if err["type"] == "extra_forbidden":
                allowed = list(getattr(model, "model_fields", {}))
                hint = did_you_mean(str(err["loc"][-1]), allowed) or (
                    f"allowed fields: {', '.join(allowed)}")
                msg = f"unknown field '{err['loc'][-1]}'"
                code = "E102"
            elif err["type"] == "missing":
                msg, code = f"missing field '{field}'", "E103"
                hint = f"add `{err['loc'][-1]}:`"
            else:
                msg, code = f"{field}: {err['msg']}", "E104"
            report.error(where, code, msg, hint)
        return None


def plain(data: Any) -> Any:
    """Round-trip nodes to plain dicts and lists."""
    if isinstance(data, dict):
        return {str(k): plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
