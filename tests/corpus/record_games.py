"""Record seeded games of a pack as an engine plays them: each decision's player, menu and
choice, the result and where the tokens ended. Not a test: run it with an older engine on
the Python path to keep what that engine did, e.g. for the engine of commit 2b424eb

    git archive 2b424eb dsl interpreter schemas tools content | tar -x -C /tmp/old/hustings
    PYTHONPATH=/tmp/old python tests/corpus/record_games.py tests/corpus/PACK > OUT.json

tests/test_language_versions.py replays the choices on today's engine and compares.
"""

import json
import random
import sys

from hustings.dsl.pack import load_pack
from hustings.interpreter.game import Game


def record(pack: str, seeds: range) -> list[dict]:
    program = load_pack(pack)
    games = []
    for seed in seeds:
        game = Game.new(program, seed)
        pick = random.Random(seed)
        choices = []
        while not game.is_terminal():
            actions = game.legal_actions()
            label = actions[pick.randrange(len(actions))]
            choices.append([game.current_player(), label, actions])
            game.apply_action(label)
        games.append({"seed": seed, "choices": choices, "result": game.result(),
                      "tokens": dict(game.state.tokens)})
    return games


if __name__ == "__main__":
    print(json.dumps({"games": record(sys.argv[1], range(1, 4))}, separators=(",", ":")))
