"""A pack or mod reads only regular files inside its own folder (issue 8, acceptance 3).

Each route by which content names a file is tried with a path leading out of
the folder: pack.yaml's `board:`, `rules:` and `cards:` entries, a mod's
`cards:` and `rules:`, absolute paths, and symlinks inside `cards/`. The file
outside holds a secret line that must never appear in any diagnostic or in
the output of `hustings check`. Pipes are never opened (a read would block).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hustings.dsl.loading import builtin_pack, check_pack
from hustings.tools.cli import main

SECRET = "secret-token: do-not-quote-me-0123456789"



@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A YAML file outside every pack, and a folder of them."""
    folder = tmp_path / "outside"
    folder.mkdir()
    path = folder / "secret.yaml"
    path.write_text(f"{SECRET}\nlocations: {{x: []}}\n")
    return path


def set_entry(pack: Path, key: str, value: str) -> None:
    manifest = pack / "pack.yaml"
    text = re.sub(rf"(?m)^{key}: .*$", f"{key}: {value}", manifest.read_text())
    manifest.write_text(text)


def refused(loaded, code: str = "E110") -> list:
    assert loaded.program is None
    found = [d for d in loaded.report.errors if d.code == code]
    assert found, [str(d) for d in loaded.report.errors]
    for d in loaded.report.diagnostics:
        assert SECRET not in str(d)
    return found


def check_output(path: Path, capsys, *extra: str) -> str:
    assert main(["check", "--pack", str(path), *extra]) == 1
    out = capsys.readouterr().out
    assert SECRET not in out and "do-not-quote" not in out
    return out


def test_board_cannot_be_an_absolute_path(pack, secret, capsys):
    set_entry(pack, "board", str(secret))
    (d,) = refused(check_pack(pack))
    assert d.source.path.endswith("pack.yaml") and d.source.line > 1
    check_output(pack, capsys)


def test_board_cannot_be_etc_passwd(pack):
    set_entry(pack, "board", "/etc/passwd")
    (d,) = refused(check_pack(pack))
    assert "root:" not in str(d)


def test_board_cannot_be_a_device(pack):
    set_entry(pack, "board", "/dev/zero")
    refused(check_pack(pack))


def test_board_cannot_climb_out_with_dotdot(pack, secret, capsys):
    set_entry(pack, "board", "../outside/secret.yaml")
    refused(check_pack(pack))
    check_output(pack, capsys)


def test_rules_cannot_climb_out(pack):
    set_entry(pack, "rules", "../../..")
    (d,) = refused(check_pack(pack))
    assert d.source.path.endswith("pack.yaml")


@pytest.mark.parametrize(("key", "value", "reason"), [
    ("rules", '"' + "x" * 300 + '"', "File name too long"),
    ("cards", '["cards", "' + "y" * 300 + '"]', "File name too long"),
])
def test_a_name_the_system_refuses_is_a_diagnostic(pack, key, value, reason, capsys):
    # it once reached a folder listing, which raised OSError out of `check`
    set_entry(pack, key, value)
    (d,) = refused(check_pack(pack), "E100")
    assert d.source.path.endswith("pack.yaml") and reason in d.message
    assert reason in check_output(pack, capsys)


def test_cards_entry_cannot_be_absolute(pack, secret):
    set_entry(pack, "cards", f"[cards, {secret}]")
    refused(check_pack(pack))


def test_cards_entry_cannot_climb_out(pack, secret, capsys):
    set_entry(pack, "cards", "[cards, ../outside]")
    refused(check_pack(pack))
    check_output(pack, capsys)


def test_a_symlink_in_cards_leading_out_is_refused(pack, secret, capsys):
    link = pack / "cards" / "999-link.yaml"
    link.symlink_to(secret)
    (d,) = refused(check_pack(pack))
    assert d.source.path.endswith("999-link.yaml")
    check_output(pack, capsys)


def test_a_symlinked_folder_leading_out_is_refused(pack, secret):
    (pack / "more").symlink_to(secret.parent)
    set_entry(pack, "cards", "[cards, more]")
    refused(check_pack(pack))


def test_a_symlink_inside_the_pack_is_followed(pack):
    original = pack / "cards" / "005-volunteers.yaml"
    moved = pack / "elsewhere.yaml"
    original.rename(moved)
    original.symlink_to(moved)
    loaded = check_pack(pack)
    assert not loaded.report.errors, [str(d) for d in loaded.report.errors]
    # the card behind the link is read, not skipped: it is in the program, as written
    assert loaded.program.cards[5]["title"] == "Volunteers"
    assert len(loaded.program.cards) == len(check_pack(builtin_pack()).program.cards)


def test_a_named_pipe_is_never_opened(pack):
    os.mkfifo(pack / "cards" / "998-pipe.yaml")
    (d,) = refused(check_pack(pack), "E111")  # returns at once: a read would block forever
    assert d.source.path.endswith("998-pipe.yaml")


def test_a_named_pipe_as_board_is_never_opened(pack):
    os.mkfifo(pack / "pipe.yaml")
    set_entry(pack, "board", "pipe.yaml")
    refused(check_pack(pack), "E111")


# ---- mods ----------------------------------------------------------------------------
def write_mod(root: Path, manifest: str) -> Path:
    folder = root / "mod"
    folder.mkdir()
    (folder / "mod.yaml").write_text(
        'name: m\nversion: "0.1"\nbase: {pack: "1960", versions: ["1.0.0"]}\n' + manifest)
    return folder


def test_a_mod_cards_entry_cannot_climb_out(tmp_path, secret, capsys):
    mod = write_mod(tmp_path, 'cards: ["../../outside"]\n')
    (d,) = refused(check_pack(mods=[mod]))
    assert d.source.path.endswith("mod.yaml") and d.source.line == 4
    check_output(builtin_pack(), capsys, "--mod", str(mod))


def test_a_mod_cards_entry_cannot_be_absolute(tmp_path, secret):
    mod = write_mod(tmp_path, f'cards: ["{secret}"]\n')
    refused(check_pack(mods=[mod]))


def test_a_mod_rules_entry_cannot_climb_out(tmp_path, secret):
    mod = write_mod(tmp_path, "rules: ../outside\n")
    (d,) = refused(check_pack(mods=[mod]))
    assert d.source.line == 4


def test_a_symlink_in_a_mods_cards_leading_out_is_refused(tmp_path, secret):
    mod = write_mod(tmp_path, "")
    (mod / "cards").mkdir()
    (mod / "cards" / "link.yaml").symlink_to(secret)
    (d,) = refused(check_pack(mods=[mod]))
    assert d.source.path.endswith("link.yaml")


# ---- what a diagnostic quotes ------------------------------------------------------------
def test_a_diagnostic_quotes_at_most_a_short_excerpt(pack, capsys):
    card = pack / "cards" / "901-long.yaml"
    card.write_text("number: 901\ntitle: Long\ncp: 2\nrest: 2\nicon: both\nissue: defense\n"
                    "state: NY\npersistent: null\ntext: t\nevent: |\n  say \"" + "z" * 300
                    + "\" + nosuch\n")
    out = check_output(pack, capsys)
    quoted = [line for line in out.splitlines() if "zzz" in line]
    assert quoted and all(len(line) <= 64 for line in quoted)


def test_a_file_that_is_not_yaml_is_never_quoted(pack, capsys):
    card = pack / "cards" / "902-broken.yaml"
    card.write_text(f"{SECRET}\n  - [unclosed: {{\n")
    loaded = check_pack(pack)
    assert any(d.code == "E101" for d in loaded.report.errors)
    check_output(pack, capsys)
