"""Playing in a terminal: the board a person sees, the prompt they answer."""
