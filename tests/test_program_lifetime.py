"""A program's compiled parts live on the program and go with it.

Tables of programs kept by the modules once kept every program alive (what they held,
compiled code and segments, refers back to its program), so a tool that loads many
packs — the content fuzzer, a server loading mods — grew by about a megabyte a pack."""

from __future__ import annotations

import gc
import pickle
import random
import weakref

from minipack import make_pack

from hustings.dsl.loading import load_pack
from hustings.interpreter.determinize import determinize
from hustings.interpreter.game import Game, prepare
from hustings.interpreter.invariants import first_violation

CARDS = "- {number: 1, title: One}\n- {number: 2, title: Two}\n- {number: 3, title: Three}\n"


def played(pack) -> weakref.ref:
    """A program loaded, prepared, played with the invariants and a determinization,
    then dropped: a weak reference to it."""
    program = load_pack(pack)
    prepare(program)
    game = Game.new(program, 3)
    for _ in range(4):
        assert first_violation(program, game.state) is None
        determinize(game, "ann", random.Random(1))
        game.apply_action(game.legal_actions()[0])
    return weakref.ref(program)


def test_a_program_no_longer_used_is_freed_with_all_made_from_it(tmp_path):
    refs = [played(make_pack(tmp_path / str(k), CARDS)) for k in range(3)]
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_a_program_pickles_without_what_this_process_compiled(tmp_path):
    program = load_pack(make_pack(tmp_path, CARDS))
    prepare(program)
    assert program.__dict__.get("_made")  # compiled code: it does not pickle
    copy = pickle.loads(pickle.dumps(program))
    assert "_made" not in copy.__dict__ and copy == program
    games = [Game.new(p, 1) for p in (program, copy)]  # the copy compiles its own
    for game in games:
        game.apply_action(game.legal_actions()[0])
    assert games[0].state.to_json() == games[1].state.to_json()
