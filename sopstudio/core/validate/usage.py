"""Tools and variables: unknown ones that nodes name, and declared ones that nothing uses.

A declared variable counts as used when an expression reads it (by first segment), when a called
tool has a parameter of that name that `tool_args` does not map, or when a node's text mentions
it as `{name}`. Being asked does not count: asking the user for something never used is waste.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..expr import suggest
from ..model import Node
from .context import Context
from .expressions import node_key

_TEMPLATE = re.compile(r"\{\s*([A-Za-z_]\w*)")


def check_usage(ctx: Context) -> None:
    for node in ctx.nodes.values():
        _check_node_tools(ctx, node)
        _check_asks(ctx, node)
    _check_unused_tools(ctx)
    _check_unused_variables(ctx)


def _hint(name: str, candidates: Iterable[str]) -> str:
    guess = suggest(name, sorted(candidates))
    return f" — did you mean '{guess}'?" if guess else ""


def _check_node_tools(ctx: Context, node: Node) -> None:
    for name in node.tools:
        if name not in ctx.tools:
            ctx.add("unknown-tool", f"node {node.id} calls tool '{name}', which the SOP does not "
                    f"define{_hint(name, ctx.tools)}", node=node.id, tool=name)
    for field in ("tool_when", "tool_args"):
        for name in getattr(node, field):
            if name not in node.tools:
                ctx.add("unknown-tool", f"{field} of node {node.id} names tool '{name}', which "
                        f"the node does not call{_hint(name, node.tools)}", node=node.id, tool=name)
    for name, mapping in node.tool_args.items():
        tool = ctx.tools.get(name)
        known = set(tool.parameter_names()) if tool else set()
        for param in mapping:
            if tool and param not in known:
                ctx.add("unknown-parameter", f"tool_args of node {node.id} maps parameter "
                        f"'{param}', which tool {name} does not have{_hint(param, known)}",
                        node=node.id, tool=name, variable=param)


def _check_asks(ctx: Context, node: Node) -> None:
    for name in node.ask:
        if name not in ctx.variables:
            ctx.add("unknown-variable", f"node {node.id} asks for '{name}', which is not a "
                    f"declared variable{_hint(name, ctx.variables)}", node=node.id, variable=name)


def _check_unused_tools(ctx: Context) -> None:
    called = {name for node in ctx.nodes.values() for name in node.tools}
    for name in ctx.tools:
        if name not in called:
            ctx.add("unused-tool", f"tool {name} is defined but no node calls it", tool=name)


def _used_names(ctx: Context) -> set[str]:
    used: set[str] = set()
    for parsed in ctx.parsed.values():
        if parsed is not None:
            used |= parsed.roots()
    for node in ctx.nodes.values():
        for tool in ctx.node_tools(node):
            # A parameter reads its same-named variable unless mapped to an expression that
            # parsed; a broken mapping is already an error, so don't pile a warning on it.
            used.update(p for p in tool.parameter_names()
                        if ctx.parsed.get(node_key(node, "tool_args", tool.name, p)) is None)
        for text in (node.say or "", node.instructions, *node.steps):
            used.update(_TEMPLATE.findall(text))
    return used


def _check_unused_variables(ctx: Context) -> None:
    used = _used_names(ctx)
    asked = {name for node in ctx.nodes.values() for name in node.ask}
    for name in ctx.variables:
        if name not in used:
            detail = "asked but never read" if name in asked else "never asked or read"
            ctx.add("unused-variable", f"variable {name} is {detail}", variable=name)
