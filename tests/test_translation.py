"""1960 in Japanese (issue #35): message catalogs, a program shown in another language, and
a whole game in which every text a player is shown is translated.

What may stay in Latin letters in a Japanese game (docs/translation.md): numbers, the
abbreviation CP, the states' postal codes (the board's map labels), the pack's short name,
a single capital (a name's initial: ジョン・F・ケネディ) and the terminal's command words
(b, log). Any other run of Latin letters is English left
untranslated, and fails the test with the text it was found in.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hustings.dsl.loading import builtin_pack, load_pack
from hustings.interpreter.catalog import MAX_BYTES, CatalogError, load, parse
from hustings.interpreter.game import Game
from hustings.interpreter.translation import in_language, translated
from hustings.tools.cli import main
from hustings.tools.terminal.board import render_board
from hustings.tools.terminal.human import Screen, decision_head, overview, recap
from hustings.tools.wording import TOOLS_CATALOGS

SEED = 3
BOARD_EVERY = 40  # boards are slow to draw: every 40th decision, and at the end
LATIN = re.compile(r"[A-Za-z]+")
ALLOWED = {"CP", "b", "log"}


@pytest.fixture(scope="module")
def english():
    return load_pack(builtin_pack())


@pytest.fixture(scope="module")
def japanese(english):
    return in_language(english, builtin_pack(), "ja", TOOLS_CATALOGS)


def write(tmp_path: Path, text: str | bytes, name: str = "ja.po") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


# ---- the loader: what it takes, and each refusal ------------------------------------------
def test_a_catalog_keeps_plain_texts_and_templates_in_the_translations_order(tmp_path):
    path = write(tmp_path, 'msgid "Hello"\nmsgstr "こんにちは"\n\n'
                           'msgid "{a} gives {b}"\nmsgstr "{b}を{a}が渡す"\n\n'
                           'msgid "untranslated"\nmsgstr ""\n')
    catalog = load(path)
    assert catalog.language == "ja"
    assert catalog.text("Hello") == "こんにちは"
    assert catalog.text("untranslated") == "untranslated"  # the English shows
    assert catalog.template(["", " gives ", ""]) == ["", 1, "を", 0, "が渡す"]


def test_a_missing_catalog_is_refused_with_its_path(tmp_path):
    with pytest.raises(CatalogError) as e:
        load(tmp_path / "nope.po")
    assert e.value.where == f"{tmp_path / 'nope.po'}:1:1"
    assert "cannot read" in e.value.message


def test_a_catalog_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = write(tmp_path, b"#" * (MAX_BYTES + 1))
    with pytest.raises(CatalogError) as e:
        load(path)
    assert "over the limit" in e.value.message
    with pytest.raises(CatalogError):
        parse(b"#" * (MAX_BYTES + 1), "x.po", "ja")


def test_a_catalog_not_in_utf8_is_refused_at_its_line(tmp_path):
    path = write(tmp_path, b'msgid "a"\nmsgstr "\xff"\n')
    with pytest.raises(CatalogError) as e:
        load(path)
    assert e.value.where.endswith(":2:1")
    assert "UTF-8" in e.value.message


def test_a_malformed_entry_is_refused_at_its_line(tmp_path):
    path = write(tmp_path, 'msgid "a"\nmsgstr "b"\n\nnonsense here\n')
    with pytest.raises(CatalogError) as e:
        load(path)
    assert e.value.where.endswith(":4:1")
    assert "msgid" in e.value.hint


def test_a_plural_entry_is_refused(tmp_path):
    path = write(tmp_path, 'msgid "card"\nmsgid_plural "cards"\nmsgstr[0] "枚"\n')
    with pytest.raises(CatalogError) as e:
        load(path)
    assert "plural" in e.value.message


def test_a_translation_naming_a_part_its_english_lacks_is_refused(tmp_path):
    path = write(tmp_path, 'msgid "x"\nmsgstr "y"\n\nmsgid "{a} wins"\nmsgstr "{b}の勝ち"\n')
    with pytest.raises(CatalogError) as e:
        load(path)
    assert e.value.where.startswith(f"{path}:4")
    assert "{b}" in e.value.message


def test_a_translation_with_an_unmatched_brace_is_refused(tmp_path):
    path = write(tmp_path, 'msgid "{a} wins"\nmsgstr "{a}の勝ち}"\n')
    with pytest.raises(CatalogError) as e:
        load(path)
    assert "brace" in e.value.message


def test_a_catalog_with_too_many_entries_is_refused(tmp_path, monkeypatch):
    import hustings.interpreter.catalog as catalog

    monkeypatch.setattr(catalog, "MAX_ENTRIES", 2)
    path = write(tmp_path, "".join(f'msgid "m{i}"\nmsgstr "t"\n\n' for i in range(3)))
    with pytest.raises(CatalogError) as e:
        load(path)
    assert "entries" in e.value.message


# ---- a language for a game -------------------------------------------------------------
def test_a_pack_without_the_languages_catalog_says_how_to_make_one(english, tmp_path):
    with pytest.raises(CatalogError) as e:
        in_language(english, tmp_path, "ja")
    assert "hustings translate extract" in e.value.hint
    assert in_language(english, tmp_path, "en") is english  # the pack's own words


def test_play_with_an_unknown_language_is_an_error_not_a_traceback(capsys):
    code = main(["play", "--seed", "1", "--quiet", "--lang", "xx"])
    assert code != 0
    assert "no catalog for 'xx'" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [SEED, 11])
def test_the_game_is_the_same_in_every_language(english, japanese, seed):
    """Same seed, same actions: the same state but for what is shown (log, labels)."""
    en, ja = Game.new(english, seed=seed), Game.new(japanese, seed=seed)
    rng = random.Random(seed)
    while not en.is_terminal():  # the whole game: every event, debate and Election Day
        assert en.num_actions() == ja.num_actions()
        index = rng.randrange(en.num_actions())
        en.apply_action(index)
        ja.apply_action(index)
    a, b = en.state.to_dict(), ja.state.to_dict()
    # what the rules decide by; a paused frame's variables may hold a text made to be
    # shown (a card's title), in the language it is shown in
    for key in ("rng", "history", "vars", "counters", "pools", "zones", "tokens", "tracks",
                "bag", "result", "steps"):
        assert a[key] == b[key], key
    assert ja.is_terminal() and en.result() == ja.result()
    assert en.state.log != ja.state.log


def test_a_template_in_the_rules_is_shown_with_its_parts_reordered(english):
    from hustings.interpreter.catalog import Catalog, add

    catalog = Catalog("ja")
    add(catalog, "{winner} wins the initiative check", "[{winner}] INITIATIVE", None, "t.po:1")
    game = Game.new(translated(english, catalog), seed=SEED)
    assert any(re.fullmatch(r"\[\w+\] INITIATIVE", line) for line in game.state.log)


# ---- the acceptance test: a whole game, every shown text translated ----------------------
def untranslated(text: str, allowed: set[str]) -> list[str]:
    """The runs of Latin letters in `text` that are English: not allowed, and not one
    capital (a name's initial, as Japanese writes ジョン・F・ケネディ)."""
    return [w for w in LATIN.findall(text)
            if w not in allowed and not (len(w) == 1 and w.isupper())]


def test_a_1960_game_plays_to_the_end_in_japanese_with_every_text_translated(japanese):
    program = japanese
    allowed = ALLOWED | {k for k in program.locations if len(k) == 2 and k.isupper()}
    allowed |= set(LATIN.findall(program.name))
    game = Game.new(program, seed=SEED)
    rng = random.Random(SEED)
    found: dict[str, str] = {}

    def look(text: str) -> None:
        for w in untranslated(text, allowed):
            found.setdefault(w, text)

    decisions = 0
    while not game.is_terminal():
        player = game.current_player()
        look(game.prompt())
        for label in game.legal_actions():
            look(label)
        remarks = game.remarks()
        for note in [remarks["status"], *remarks["notes"]]:
            look(note or "")
        if decisions % BOARD_EVERY == 0:
            look(render_board(game, player, 100, False))
            look(overview(game, player, Screen(100, 24, False), 6))
            look(Screen(100, 24, False).text(decision_head(game)))
        game.apply_action(rng.randrange(game.num_actions()))
        decisions += 1
    for player in program.players:
        log = game.observation(player)["log"]
        for line in log:
            look(line)
        look(Screen(100, 24, False).text(recap(log[-5:], None, program)))
        look(render_board(game, player, 100, False))
    assert game.result() is not None
    assert decisions > 100
    assert not found, "untranslated: " + "; ".join(f"{w!r} in {t[:120]!r}"
                                                    for w, t in list(found.items())[:10])



# ---- the tools: extraction and the check -----------------------------------------------
@pytest.fixture()
def small_pack(tmp_path):
    import shutil

    folder = tmp_path / "ttt"
    shutil.copytree(builtin_pack().parent / "tic-tac-toe", folder)
    return folder


def test_extract_writes_the_packs_texts_and_keeps_translations(small_pack, capsys):
    assert main(["translate", "extract", str(small_pack), "--lang", "ja"]) == 0
    path = small_pack / "locale" / "ja.po"
    catalog = load(path)
    english = load_pack(small_pack)
    shown = next(iter(english.names.values()))
    assert shown in catalog.lines and not catalog.plain  # every text, none translated yet
    text = path.read_text(encoding="utf-8")
    marked = text.replace(f'msgid "{shown}"\nmsgstr ""', f'msgid "{shown}"\nmsgstr "訳"', 1)
    path.write_text(marked + '\nmsgid "kept word"\nmsgstr "残る"\n', encoding="utf-8")
    assert main(["translate", "extract", str(small_pack), "--lang", "ja"]) == 0
    again = load(path)
    assert again.text(shown) == "訳" and again.text("kept word") == "残る"
    assert set(catalog.lines) <= set(again.lines)
    assert "translated" in capsys.readouterr().out


def test_extract_refuses_a_folder_without_a_pack_and_a_bad_language(tmp_path, capsys):
    assert main(["translate", "extract", str(tmp_path), "--lang", "ja"]) == 2
    assert "not a pack folder" in capsys.readouterr().err
    assert main(["translate", "extract", str(builtin_pack()), "--lang", "../x"]) == 2
    assert "not a language code" in capsys.readouterr().err


def test_check_refuses_a_bad_catalog_and_warns_of_an_unknown_text(small_pack, capsys):
    main(["translate", "extract", str(small_pack), "--lang", "ja"])
    path = small_pack / "locale" / "ja.po"
    base = path.read_text(encoding="utf-8")
    path.write_text(base + '\nmsgid "Not in this pack"\nmsgstr "x"\n', encoding="utf-8")
    assert main(["check", str(small_pack)]) == 0
    out = capsys.readouterr().out
    assert f"{path}:" in out and "warning[W701]" in out and "Not in this pack" in out
    path.write_text(base + '\nmsgid "{a} wins {b}"\nmsgstr "{b}の勝ち"\n', encoding="utf-8")
    assert main(["check", str(small_pack)]) == 0
    out = capsys.readouterr().out
    assert "warning[W702]" in out and "leaves out {a}" in out
    path.write_text(base + '\nmsgid "{a} wins"\nmsgstr "{b}"\n', encoding="utf-8")
    assert main(["check", str(small_pack)]) == 1
    out = capsys.readouterr().out
    assert "error[E701]" in out and "{b}" in out and "failed" in out


def test_the_shipped_catalogs_load_and_the_1960_one_translates_every_text(english):
    from hustings.tools.commands.translate import pack_texts

    catalog = load(builtin_pack() / "locale" / "ja.po")
    missing = [m for m in pack_texts(builtin_pack(), english) if m not in catalog.plain]
    assert not missing, f"untranslated in content/1960/locale/ja.po: {missing[:5]}"
    for folder in (Path(__file__).resolve().parents[1] / "interpreter" / "locale",
                   TOOLS_CATALOGS):
        assert load(folder / "ja.po").plain


def test_every_narration_template_of_the_engine_has_its_japanese():
    from hustings.interpreter.narration import LINES
    from hustings.interpreter.plurals import COUNTED
    from hustings.interpreter.translation import engine_catalog

    catalog = engine_catalog("ja")
    missing = [t for t in [*LINES.values(), COUNTED] if t not in catalog.plain]
    assert not missing, f"interpreter/locale/ja.po lacks {missing}"


# ---- the web: a language chosen for a new game -------------------------------------------
def test_the_web_offers_the_packs_languages_and_shows_a_game_in_the_one_chosen():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from hustings.tools.web.app import create_app

    with TestClient(create_app(limit=4)) as client:
        assert client.get("/api/setup").json()["languages"] == ["en", "ja"]
        bad = client.post("/api/games", json={"seats": {"kennedy": "human"}, "lang": "xx"})
        assert bad.status_code == 400 and "lang must be one of en, ja" in bad.json()["error"]
        made = client.post("/api/games", json={"seats": {"kennedy": "human",
                                                         "nixon": "random"},
                                               "seed": SEED, "lang": "ja"})
        assert made.status_code == 201, made.text
        board = client.get(f"/api/games/{made.json()['id']}").json()
        text = str(board)
        assert "ケネディ" in text and "イニシアチブ" in text
        assert "Kennedy wins the initiative" not in text
        english = client.post("/api/games", json={"seats": {"kennedy": "human",
                                                            "nixon": "random"},
                                                  "seed": SEED})
        shown = str(client.get(f"/api/games/{english.json()['id']}").json())
        assert "ケネディ" not in shown and "Kennedy" in shown


def test_a_cards_text_in_japanese_fits_the_terminals_columns(japanese):
    from rich.cells import cell_len

    from hustings.tools.terminal.human import card_texts

    game = Game.new(japanese, seed=SEED)
    shown = card_texts(game, "1", 80)
    assert "大ヒューストン牧師協会" in shown and "テキサス" in shown
    lines = shown.splitlines()
    assert len(lines) > 2 and all(cell_len(line) <= 80 for line in lines)
    assert "".join(line.strip() for line in lines).endswith("イベントを阻止する。")
    assert card_texts(game, "999", 80) == "  999番のカードはありません"
