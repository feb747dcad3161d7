"""The tiny two-player pack of the language tests: it lives in the tools (the hostile
inputs of `bench --hostile` are built on it too); this module keeps the tests' import."""

from hustings.tools.minipack import BOARD, MANIFEST, RULES, make_mod, make_pack, write

__all__ = ["BOARD", "MANIFEST", "RULES", "make_mod", "make_pack", "write"]
