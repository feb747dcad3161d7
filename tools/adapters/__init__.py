"""Any pack as a game of the reinforcement-learning ecosystems (optional extras).

openspiel.py registers a pack as a pyspiel game (`pip install 'hustings[openspiel]'`);
pettingzoo.py wraps one as a PettingZoo AEC environment (`pip install 'hustings[pettingzoo]'`).
encoding.py is their shared fixed-size view of a player's observation and action space.
"""
