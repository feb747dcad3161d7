"""Reading compiled cards back for designers: render, outline, effect graph, interactions.

Nothing here compiles or runs content; it reads a compiled `Program` and says what
a card does, for `hustings explain`, `graph` and `interactions`.
"""
