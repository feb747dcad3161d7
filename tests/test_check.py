"""`hustings check`: every problem reported at its file, line and column."""

from __future__ import annotations

from hustings.dsl.loading import builtin_pack, check_pack
from hustings.tools.cli import main


def card_file(pack, number: int):
    return next((pack / "cards").glob(f"{number:03d}-*.yaml"))


def break_event(pack, number: int, event: str):
    """Add a new card numbered 900+number whose event is `event`; return (path, its line)."""
    path = pack / "cards" / f"{900 + number}-broken.yaml"
    text = (f"number: {900 + number}\ntitle: Broken\ncp: 2\nrest: 2\nicon: both\n"
            f"issue: defense\nstate: NY\npersistent: null\ntext: A test card.\n"
            f"event: |\n{event}")
    path.write_text(text)
    return path, text.splitlines().index("event: |") + 2  # first line of the event text


def codes(loaded):
    return [(d.code, d.source.line, d.source.column) for d in loaded.report.errors]


def test_clean_pack_checks_ok(capsys):
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "97 campaign cards" in out and "16 endorsement cards" in out
    assert "2 candidate cards" in out


def test_the_summary_counts_each_declared_kind_of_the_pack(capsys):
    # Campaign Trail declares its own kinds; only politick cards have events, and its
    # action kind does not ask every card for one, so no card is listed as missing one.
    pack = builtin_pack("campaign-trail")
    assert main(["check", "--pack", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "90 action cards, 37 with events, 0 dirty cards, 12 candidate cards, 30 topic " \
        "cards" in out
    assert "without an event" not in out and "campaign cards" not in out
    # its Dirty Politics cards and Libertarian player come with options: checked too
    assert "also checked with --option dirty_politics --option third_party" in out
    assert "24 dirty cards" in out


def test_cards_an_option_brings_are_checked_with_it_off(tmp_path, capsys):
    import shutil

    pack = tmp_path / "ct"
    shutil.copytree(builtin_pack("campaign-trail"), pack,
                    ignore=shutil.ignore_patterns("scenarios"))
    dirty = pack / "cards" / "dirty-politics.yaml"
    text = dirty.read_text()
    broken = text.replace("    trick: bribes\n", "    trick: bribes\n    event: |\n"
                          "      player gains 1 nonsense_counter\n", 1)
    assert broken != text
    dirty.write_text(broken)
    line = broken.splitlines().index("      player gains 1 nonsense_counter") + 1
    assert main(["check", str(pack)]) == 1  # dirty_politics is off by default
    out = capsys.readouterr().out
    assert f"dirty-politics.yaml:{line}:22: error[E304]" in out
    assert "failed: 1 error" in out
    # named off on the command line, the option stays off: that run checks what it names
    assert main(["check", str(pack), "--option", "dirty_politics=off"]) == 0
    assert "also checked with --option third_party " in capsys.readouterr().out


def test_a_kind_declared_with_events_lists_the_cards_still_without_one(pack, capsys):
    card = card_file(pack, 5)
    card.write_text(card.read_text().replace("event: |", "event: null\nold: |"))
    text = card.read_text()
    card.write_text(text[:text.index("old: |")])
    assert main(["check", "--pack", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "note: cards without an event yet: 5" in out
    assert "97 campaign cards, 96 with events" in out


def test_unknown_state_points_at_the_word(pack):
    path, line = break_event(pack, 5, "  move player to XX\n")
    loaded = check_pack(pack)
    assert loaded.program is None
    assert ("E315", line, 18) in codes(loaded)


def test_misspelt_state_gets_a_hint(pack):
    break_event(pack, 5, "  move player to Ma\n")
    loaded = check_pack(pack)
    assert any("did you mean `MA`" in d.hint for d in loaded.report.errors)


def test_dsl_syntax_error_names_what_was_expected(pack):
    path, line = break_event(pack, 5, "  player gains 1\n")
    loaded = check_pack(pack)
    (err,) = loaded.report.errors
    assert err.code == "E201" and err.source.line == line
    assert err.hint == "expected a name"


def test_yaml_syntax_error_has_a_position(pack):
    path = card_file(pack, 5)
    path.write_text(path.read_text().replace("cp: 2", "cp: [2"))
    loaded = check_pack(pack)
    assert loaded.report.errors[0].code == "E101"
    assert loaded.report.errors[0].source.path.endswith(path.name)


def test_unknown_field_is_reported_with_a_hint(pack):
    (pack / "pack.yaml").write_text((pack / "pack.yaml").read_text().replace("entry:", "entri:"))
    loaded = check_pack(pack)
    err = next(d for d in loaded.report.errors if d.code == "E102")
    assert "entri" in err.message and "entry" in err.hint


def test_several_broken_files_are_all_reported(pack, capsys):
    break_event(pack, 5, "  move player to XX\n")
    break_event(pack, 6, "  kennedy gains 1 momentumm\n")
    assert main(["check", "--pack", str(pack)]) == 1
    out = capsys.readouterr().out
    assert "error[E315]" in out and "error[E304]" in out
    assert "^" in out  # a caret under the spot


def test_recursive_procedures_are_unbounded_loops(pack):
    rules = pack / "rules" / "90-loop.yaml"
    rules.write_text("procedures:\n  ping:\n    body: |\n      do pong\n"
                     "  pong:\n    body: |\n      do ping\n")
    loaded = check_pack(pack)
    assert any(d.code == "E401" for d in loaded.report.errors)


def test_github_format(pack, capsys):
    break_event(pack, 5, "  move player to XX\n")
    assert main(["check", "--pack", str(pack), "--format", "github"]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("::error file=") and ",line=" in line and ",col=" in line


# ---- every stage of every file in one run -------------------------------------------------
def test_one_check_reports_every_stage_of_every_file(pack, capsys):
    """A schema error in one card no longer hides effect-text errors in other files."""
    bad_card = card_file(pack, 5)
    bad_card.write_text(bad_card.read_text().replace("cp: 2", "cp: two"))
    bad_schema = card_file(pack, 6)
    bad_schema.write_text(bad_schema.read_text().replace("number: 6", "number: six"))
    bad_event, line = break_event(pack, 5, "  move player to XX\n")
    rules = pack / "rules" / "20-activity.yaml"
    rules.write_text(rules.read_text().replace("do play_event(", "do play_evnt(", 1))
    assert main(["check", "--pack", str(pack)]) == 1
    out = capsys.readouterr().out
    for path, code in [(bad_card, "E104"), (bad_schema, "E104"), (bad_event, "E315"),
                       (rules, "E302")]:
        assert f"{path}:" in out and f"error[{code}]" in out, (path, code, out)
    assert f"{bad_event}:{line}:18: error[E315]: unknown name 'XX'" in out
    assert "did you mean `play_event`?" in out
    assert "warning[W401]" not in out  # a file left out may hold the only call


def test_names_of_a_file_that_failed_are_not_reported_again(pack):
    """A card that failed its schema is left out, but its number is no unknown card; a
    rules file that failed still names its procedures."""
    broken = card_file(pack, 5)
    broken.write_text(broken.read_text().replace("title:", "titel:"))
    rules = pack / "rules" / "95-helper.yaml"
    rules.write_text("procedures:\n  helper:\n    params: [who]\n    bodyy: |\n      stop\n")
    break_event(pack, 6, "  prevent 5\n  do helper(who: player)\n")
    loaded = check_pack(pack)
    assert loaded.program is None
    assert sorted({c for c, _, _ in codes(loaded)}) == ["E102", "E103"]


def test_the_pack_folder_may_be_named_without_pack(capsys):
    assert main(["check", str(builtin_pack())]) == 0
    assert ": ok:" in capsys.readouterr().out


def test_a_mod_named_as_the_pack_is_pointed_to_mod(capsys):
    mod = builtin_pack().parent / "mods" / "short-campaign"
    assert main(["check", str(mod)]) == 2
    err = capsys.readouterr().err
    assert "is a mod" in err and f"--mod {mod}" in err


def test_checking_twice_for_the_options_parses_each_text_once(monkeypatch, capsys):
    from hustings.dsl import parser

    parsed: list[tuple[str, str]] = []
    real = parser._parse

    def counting(text, source, start):
        parsed.append((text, start))
        return real(text, source, start)

    monkeypatch.setattr(parser, "_parse", counting)
    assert main(["check", str(builtin_pack("campaign-trail"))]) == 0
    assert "also checked with" in capsys.readouterr().out
    assert parsed and len(parsed) == len(set(parsed))
    assert parser._TREES is None  # the trees are let go afterwards
