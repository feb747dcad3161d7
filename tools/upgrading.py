"""Rewriting a pack or a mod to the current content language (`hustings upgrade`).

`plan` reads a pack or mod folder and works out every change its declared language needs
to reach `dsl.language.CURRENT` (docs/language-changes.md): the new text of each file it
changes (ruamel.yaml round trip, so comments, quoting and flow style stay), a line per
change, and a note for whatever needs a human. It writes nothing: the command writes the
texts, or with --check only lists them. A folder already in the current language plans
nothing, so running the upgrade twice changes nothing the second time.

The content is first loaded as `check` loads it (bounded, confined to its folder): what
a version's change needs to know (here, whether language-1 rules move a token the board
does not give) is what `check` finds, and a folder `check` cannot read is not edited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from ..dsl.diagnostics import Diagnostic, Report
from ..dsl.language import CURRENT, change
from ..dsl.loading import BUILTIN_PACKS
from ..dsl.pack import compile_pack
from ..dsl.yamlsource import plain, read_yaml
from .formatting import FormatError, dump, load, marks

# Diagnostics that stop a load before effect text is compiled: after one of them, `check`
# has not looked at the rules, so it cannot say which changes they need.
_BEFORE_RULES = ("E1", "E6")


class UpgradeError(Exception):
    """The folder cannot be upgraded; the message says why and what to do."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


@dataclass
class Upgrade:
    folder: Path
    kind: str  # "pack" or "mod"
    language: int  # as declared (1 when the manifest says none)
    texts: dict[Path, tuple[str, str]] = field(default_factory=dict)  # path: (old, new)
    changes: list[str] = field(default_factory=list)
    human: list[str] = field(default_factory=list)


@dataclass
class _Files:
    """The YAML files of the folder `root` an upgrade reads or edits, each loaded once and
    written back once. Each is first read as `check` reads content (inside `root`, a
    regular file, bounded in size and nesting, no aliases), then again keeping comments."""

    root: Path
    data: dict[Path, Any] = field(default_factory=dict)
    text: dict[Path, str] = field(default_factory=dict)

    def get(self, path: Path) -> Any:
        if path not in self.data:
            report = Report()
            if read_yaml(path, str(path), report, self.root) is None:
                raise UpgradeError(f"{path}: `hustings check` cannot read it:", report.errors)
            self.text[path] = path.read_text(encoding="utf-8")
            try:
                self.data[path] = load(self.text[path])
            except FormatError as e:
                raise UpgradeError(f"{path}: {e}") from None
            if not isinstance(self.data[path], CommentedMap):
                raise UpgradeError(f"{path}: expected a mapping of keys")
        return self.data[path]

    def texts(self) -> dict[Path, tuple[str, str]]:
        out = {}
        for path, data in self.data.items():
            new = dump(data)
            lost = marks(self.text[path]) - marks(new)
            if lost:  # never write a file that would lose a comment
                raise UpgradeError(f"{path}: rewriting it would lose the comment "
                                   f"{next(iter(lost))!r}; upgrade it by hand "
                                   "(docs/language-changes.md)")
            out[path] = (self.text[path], new)
        return out


def plan(folder: Path, base: Path | None = None) -> Upgrade:
    """What upgrading the pack or mod `folder` changes; `base` is a mod's base pack folder
    (default: the built-in pack its mod.yaml names)."""
    kind, manifest_path = _manifest(folder)
    files = _Files(folder)
    manifest = files.get(manifest_path)
    language = _declared(manifest, manifest_path)
    up = Upgrade(folder, kind, language)
    if language == CURRENT:
        return up
    root, mods = (folder, []) if kind == "pack" else (_base(folder, manifest, base), [folder])
    found = compile_pack(root, {}, mods).report.errors
    # E151 in a mod's base pack is the base's to upgrade; the recheck reports it.
    moves = [d for d in found if d.code == "E151" and _inside(d.source.path, folder)]
    stopped = [d for d in found if d.code.startswith(_BEFORE_RULES) and d.code != "E151"]
    if stopped and not moves:
        raise UpgradeError("`hustings check` stops before the rules, so the upgrade cannot "
                           "tell what they need; fix these first, then upgrade again:",
                           stopped)
    if language < change("tokens").version and moves:
        _give_tokens(up, files, kind, root, manifest_path)
    _bump(up, manifest, manifest_path)
    up.texts = {p: t for p, t in files.texts().items() if t[0] != t[1]}
    return up


def _inside(shown: str, folder: Path) -> bool:
    """Whether the file a diagnostic names (by its displayed path) lies in `folder`."""
    return Path(shown).resolve().is_relative_to(folder.resolve())


# ---- the folder and its manifest -------------------------------------------------
def _manifest(folder: Path) -> tuple[str, Path]:
    if (folder / "mod.yaml").is_file():
        return "mod", folder / "mod.yaml"
    if (folder / "pack.yaml").is_file():
        return "pack", folder / "pack.yaml"
    raise UpgradeError(f"{folder}: no pack.yaml or mod.yaml there (give a pack or mod "
                       "folder)")


def _declared(manifest: CommentedMap, path: Path) -> int:
    language = manifest.get("language", 1)
    if language.__class__ is not int or language < 1:
        raise UpgradeError(f"{path}: `language` must be a whole number from 1 to "
                           f"{CURRENT}, not {language!r:.40}")
    if language > CURRENT:
        raise UpgradeError(f"{path}: written in language {language}, newer than this "
                           f"hustings knows (1 to {CURRENT}); install a newer one")
    return language


def base_of(folder: Path, base: Path | None = None) -> Path:
    """The base pack folder of the mod `folder` (see `_base`)."""
    return _base(folder, _Files(folder).get(folder / "mod.yaml"), base)


def _base(folder: Path, manifest: CommentedMap, base: Path | None) -> Path:
    """A mod's base pack: the folder given, else the built-in pack of the name it gives."""
    if base is not None:
        if not (base / "pack.yaml").is_file():
            raise UpgradeError(f"--pack {base}: no pack.yaml there")
        return base
    named = manifest.get("base")
    name = named.get("pack") if isinstance(named, dict) else None
    builtin = {p.name: p for p in BUILTIN_PACKS.iterdir() if (p / "pack.yaml").is_file()}
    if not isinstance(name, str) or name not in builtin:
        raise UpgradeError(f"{folder}: its base pack {name!r:.40} is not built in; give "
                           "its folder with --pack PATH")
    return builtin[name]


# ---- language 2: every moved player has a token ------------------------------------
def _give_tokens(up: Upgrade, files: _Files, kind: str, root: Path,
                 manifest_path: Path) -> None:
    """Give each player without a token the board's first place: for a pack in its board
    file's `tokens:`, for a mod in its `board: {tokens: ...}`."""
    # A pack's board is edited; a mod's base pack is only read.
    pack_files = files if kind == "pack" else _Files(root)
    pack = pack_files.get(root / "pack.yaml")
    board_path = root / str(pack.get("board", "board.yaml"))  # read inside `root` only
    board = pack_files.get(board_path)
    given = dict(plain(board.get("tokens") or {}))
    if kind == "mod":
        mod_board = files.get(manifest_path).get("board")
        if isinstance(mod_board, dict):
            given.update(plain(mod_board.get("tokens") or {}))
    players = [p for p in plain(pack.get("players") or []) if p not in given]
    place = _first_place(plain(board))
    if not players or place is None:
        return
    if kind == "pack":
        target, path = _tokens_map(board), board_path
    else:
        mod_board = files.get(manifest_path).setdefault("board", CommentedMap())
        target, path = _tokens_map(mod_board), manifest_path
    for p in players:
        target[p] = place
    who = " and ".join(players)
    up.changes.append(f"{_shown(path)}: tokens: {who} start on {place} (language 2: "
                      f"{change('tokens').now})")
    up.human.append(f"{who} now start on {place}; in language 1 they stood nowhere until "
                    "their first move. If a rule reads where a token stands before it "
                    f"moves, or the board shows tokens, choose their starting places in "
                    f"{_shown(path)}")


def _first_place(board: dict) -> str | None:
    """The first place tokens may stand on: of the kind travel is over, else of the
    first kind of place the board lists."""
    locations = board.get("locations") or {}
    travel = board.get("travel") or {}
    kind = travel.get("kind") if isinstance(travel, dict) else None
    kinds = [kind] if kind in locations else list(locations)
    for k in kinds:
        for loc in locations.get(k) or []:
            if isinstance(loc, dict) and isinstance(loc.get("id"), str):
                return loc["id"]
    return None


def _tokens_map(parent: CommentedMap) -> CommentedMap:
    tokens = parent.get("tokens")
    if not isinstance(tokens, CommentedMap):
        tokens = CommentedMap()
        tokens.fa.set_flow_style()
        parent["tokens"] = tokens
    return tokens


# ---- the declared version ------------------------------------------------------
def _bump(up: Upgrade, manifest: CommentedMap, path: Path) -> None:
    if "language" in manifest:
        manifest["language"] = CURRENT
    else:  # beside the content's own version, where the schema lists it
        keys = list(manifest)
        at = keys.index("version") + 1 if "version" in keys else len(keys)
        manifest.insert(at, "language", CURRENT)
    up.changes.append(f"{_shown(path)}: language: {up.language} -> {CURRENT}")


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
