"""Parse every expression of an SOP once: `bad-condition` for those that do not parse.

Expression sites are edge `when`s, node `set` values, `tool_when` guards and `tool_args` values.
Parsing is done by our own parser (never eval): text that is too long, calls a function the
language does not have, or names a dunder attribute is refused here too, so nothing a file says
can reach Python. Parsed expressions are kept on the context for the dataflow and coverage checks.
"""

from __future__ import annotations

from typing import Any

from ..expr import FUNCTIONS, MAX_LENGTH, ExprError, is_else, parse
from ..expr.ast import Call, Name, walk
from ..model import Edge, Node
from .context import Context

# Longer texts are refused before even tokenizing (the language's own limit, so the editor and
# validate agree): a 1 MB condition in a shared file is an attack, not a condition.
MAX_EXPRESSION_LENGTH = MAX_LENGTH


def edge_key(edge: Edge) -> tuple[Any, ...]:
    return ("when", id(edge))


def node_key(node: Node, kind: str, tool_or_var: str, param: str | None = None) -> tuple[Any, ...]:
    return (kind, id(node), tool_or_var, param)


def check_expressions(ctx: Context) -> None:
    """Parse all sites; store each parsed Expr in ctx.parsed (a bad one is stored as None)."""
    for edge in ctx.sop.edges:
        if edge.when is not None and not is_else(edge.when):
            owner = edge.source if edge.source in ctx.nodes else None
            ctx.parsed[edge_key(edge)] = _parse(ctx, edge.when, f"condition of edge {edge.id}",
                                                node=owner, edge=edge.id)
    for node in ctx.sop.nodes:
        _parse_node(ctx, node)


def _parse_node(ctx: Context, node: Node) -> None:
    for name, text in node.set.items():
        ctx.parsed[node_key(node, "set", name)] = _parse(
            ctx, text, f"assignment '{name}' of node {node.id}", node=node.id, variable=name)
    for tool, text in node.tool_when.items():
        ctx.parsed[node_key(node, "tool_when", tool)] = _parse(
            ctx, text, f"condition of tool {tool} in node {node.id}", node=node.id, tool=tool)
    for tool, mapping in node.tool_args.items():
        for param, text in mapping.items():
            ctx.parsed[node_key(node, "tool_args", tool, param)] = _parse(
                ctx, text, f"argument '{param}' of tool {tool} in node {node.id}",
                node=node.id, tool=tool)


def _parse(ctx: Context, text: str, what: str, **where: str | None) -> Any:
    problem, parsed = _try_parse(text)
    if problem:
        ctx.add("bad-condition", f"{what}: {problem}", **where)
        return None
    return parsed


def _try_parse(text: str) -> tuple[str | None, Any]:
    if not isinstance(text, str):
        return "not text", None
    if len(text) > MAX_EXPRESSION_LENGTH:
        return f"expression is {len(text):,} characters long (at most " \
               f"{MAX_EXPRESSION_LENGTH:,})", None
    try:
        parsed = parse(text)
    except ExprError as error:
        return _describe(error), None
    except RecursionError:
        return "expression is nested too deeply", None
    return _forbidden(parsed.node), parsed


def _describe(error: ExprError) -> str:
    return error.described()  # "column N: message", with an excerpt when the text is long


def _forbidden(root: Any) -> str | None:
    """A reason to refuse an expression that parsed but reaches outside the language.

    The parser already refuses unknown functions; checking again here keeps validation safe
    even if the language grows a looser parser.
    """
    for item in walk(root):
        if isinstance(item, Call) and item.func not in FUNCTIONS:
            return f"unknown function '{item.func}'"
        if isinstance(item, Name):
            bad = next((part for part in item.path if str(part).startswith("__")), None)
            if bad is not None:
                return f"name '{bad}' is not allowed"
    return None
