"""Where each node of a parse tree starts, recorded as the parser builds the tree.

Lark's `propagate_positions` gives every node its start and its end, each twice: where
its own first and last children are, and where the text it spans begins and ends once
keywords the tree leaves out and rules written inline are counted (`container_*`). The
compiler reads a node's start alone (`meta.line`, `meta.column`), so `record_starts`
swaps lark's wrapper for one that records the start the same way and skips the rest: a
third of the time a parse takes goes to positions, and this halves it.

It reaches into how lark builds its trees (`_parse_tree_builder`, `_callbacks`); a lark
whose builder differs keeps its own wrapper, whole. tests/test_parser_tables.py checks
that every node of every effect text of the built-in packs starts where lark says.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from lark import Lark, Token, Tree
from lark.parse_tree_builder import PropagatePositions


class _Starts:
    """Wraps a rule's tree builder: the node built starts where its first child that has
    a place in the text starts (for a child written inline, where its text starts), as
    lark's PropagatePositions has it."""

    __slots__ = ("build",)

    def __init__(self, build: Any) -> None:
        self.build = build

    def __call__(self, children: list) -> Any:
        node = self.build(children)
        if isinstance(node, Tree):
            for child in children:
                if isinstance(child, Tree):
                    meta = child.meta
                    if meta.empty:
                        continue
                    line = getattr(meta, "container_line", meta.line)
                    column = getattr(meta, "container_column", meta.column)
                elif isinstance(child, Token):
                    line, column = child.line, child.column
                else:
                    continue
                meta = node.meta
                if meta.empty:  # a node passed up from an inline rule keeps its own start
                    meta.line, meta.column, meta.empty = line, column, False
                meta.container_line, meta.container_column = line, column
                break
        return node


def record_starts(parser: Lark) -> Lark:
    """`parser`, its trees given start positions only (see the module's comment)."""
    try:
        builder = parser._parse_tree_builder
        callbacks = parser._callbacks
        rules = builder.rule_builders
        make = builder.tree_class
    except AttributeError:
        return parser
    if parser.options.transformer is not None or any(
            PropagatePositions not in chain for _, chain in rules):
        return parser
    for rule, chain in rules:
        build = partial(make, rule.alias or rule.options.template_source or rule.origin.name)
        for wrap in chain:
            build = _Starts(build) if wrap is PropagatePositions else wrap(build)
        callbacks[rule] = build  # the parser's own table: it calls these from now on
    return parser
