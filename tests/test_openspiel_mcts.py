"""OpenSpiel's own MCTS bot plays packs to the end through the adapter
(tools/openspiel_mcts.py; skipped without the `openspiel` extra). The long run:
`python -m hustings.tools.openspiel_mcts --games 20` (1960), and with
`--pack content/campaign-trail`.
"""

from __future__ import annotations

import pytest
from minipack import MANIFEST, make_pack

from hustings.dsl.loading import builtin_pack

pytest.importorskip("pyspiel", reason="needs `pip install 'hustings[openspiel]'`")

from hustings.tools.openspiel_mcts import main, run_games  # noqa: E402


@pytest.mark.parametrize(("pack", "games"), [("tic-tac-toe", 3), ("1960", 1)])
def test_mcts_plays_whole_games_with_zero_sum_returns(pack, games):
    played = list(run_games(builtin_pack(pack), games, seed=3, simulations=2, rollout=5))
    assert len(played) == games
    for p in played:
        assert p.problem is None, p.problem
        assert p.actions >= 5 and sum(p.returns) == pytest.approx(0.0)


# Every turn offers a choice that breaks the rules: MCTS's rollouts take it.
BROKEN = """\
procedures:
  game:
    body: |
      for r from 1 to 3:
        for p in players:
          p chooses:
            "wait":
              say "{p} waits"
            "break the rules":
              let x = fail("broken on purpose")
      record winner as none
"""


def test_a_game_that_fails_is_reported_with_its_seed_and_the_run_fails(tmp_path, capsys):
    # the action space declared: the adapter would otherwise find it by random games
    manifest = MANIFEST + "agents: {max_actions: 2}\n"
    pack = make_pack(tmp_path, rules={"rules/10-game.yaml": BROKEN}, manifest=manifest)
    assert main(["--pack", str(pack), "--games", "2", "--seed", "9"]) == 1
    out = capsys.readouterr().out
    assert "FAILED seed 9 after" in out and "broken on purpose" in out
    assert "2 games, 2 failed" in out


def test_the_command_summarises_the_games(capsys):
    assert main(["--pack", str(builtin_pack("tic-tac-toe")), "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("actions, returns") == 2 and "2 games, 0 failed" in out
