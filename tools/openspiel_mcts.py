"""OpenSpiel's own MCTS bot plays a pack to the end, through tools/adapters/openspiel.py.

    python -m hustings.tools.openspiel_mcts --pack PACK_FOLDER --games 20

Each seat is an `open_spiel.python.algorithms.mcts.MCTSBot` (the bot searches the true
state, as OpenSpiel's MCTS does on any game) with random rollouts cut after `--rollout`
actions, so a game of a few hundred decisions ends in minutes. Game i draws the
adapter's chance outcome (the hustings seed) `--seed + i`. A game that raises — a rule
error included: legal play must never drive a pack into one — is reported with its seed
and the action before it, and the run exits 1. Needs `pip install 'hustings[openspiel]'`.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Played:
    seed: int
    actions: int
    returns: list[float]
    problem: str | None = None


def mcts_bots(game, seed: int, simulations: int, rollout: int) -> list:
    """One MCTSBot a player, seeded from `seed`."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    bots = []
    for player in range(game.num_players()):
        rng = np.random.RandomState(seed * 7919 + player)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng,
                                                max_length=rollout)
        bots.append(mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations,
                                 evaluator=evaluator, solve=False, random_state=rng))
    return bots


def play_game(game, seed: int, simulations: int, rollout: int) -> Played:
    """One game from the chance outcome `seed` (mod the adapter's seeds), to its end."""
    state = game.new_initial_state()
    bots = mcts_bots(game, seed, simulations, rollout)
    actions = 0
    try:
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply_action(outcomes[seed % len(outcomes)])  # the game starts: rules run
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
            actions += 1
    except Exception as e:  # noqa: BLE001 - every failure is reported with its seed
        return Played(seed, actions, [], f"{type(e).__name__}: {e}")
    return Played(seed, actions, list(state.returns()))


def run_games(pack: Path | None, games: int, seed: int = 1, simulations: int = 4,
              rollout: int = 10, mods: list[Path] | None = None):
    """Register the pack as a pyspiel game and yield each Played in turn."""
    import pyspiel

    from ..dsl.loading import load_pack
    from .adapters.openspiel import register

    program = load_pack(pack, {}, list(mods or []))
    name = register(program, f"hustings_mcts_{program.name}".replace("-", "_"))
    game = pyspiel.load_game(name)
    for i in range(games):
        yield play_game(game, seed + i, simulations, rollout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hustings.tools.openspiel_mcts",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", type=Path, default=None, help="pack folder (default 1960)")
    parser.add_argument("--mod", type=Path, action="append", default=[], dest="mods")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=4, help="MCTS simulations a move")
    parser.add_argument("--rollout", type=int, default=10, help="actions a rollout plays")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("error: needs open_spiel: pip install 'hustings[openspiel]'", file=sys.stderr)
        return 2
    start, failed, wins = time.perf_counter(), 0, {}
    for played in run_games(args.pack, args.games, args.seed, args.simulations, args.rollout,
                            args.mods):
        if played.problem:
            failed += 1
            print(f"FAILED seed {played.seed} after {played.actions} actions: "
                  f"{played.problem}", flush=True)
            continue
        best = max(range(len(played.returns)), key=played.returns.__getitem__)
        wins[best] = wins.get(best, 0) + 1
        print(f"seed {played.seed}: {played.actions} actions, returns {played.returns}",
              flush=True)
    print(f"{args.games} games, {failed} failed, wins by seat {dict(sorted(wins.items()))}, "
          f"{time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
