"""`type-mismatch`: a tool parameter fed a value whose declared type it does not take.

A parameter is fed by the same-named value unless `tool_args` maps it; when the mapping is a
plain name, that name feeds it. The value's declared type is that of a tool output of that name
or of the variable (`sop.variables`). Only types both sides declare are compared (an unknown or
undeclared type is not a mismatch), and an integer may feed a number. Each (tool, parameter,
source) pair is reported once, however many nodes call the tool: the check is linear in the
nodes' tool calls.
"""

from __future__ import annotations

from ..expr.ast import Name
from ..model import Node, Tool
from .context import Context
from .expressions import node_key

# JSON Schema type names (tool parameters) as the model's value types (outputs, variables).
_SCHEMA_TO_VALUE = {"string": "string", "integer": "integer", "number": "number",
                    "boolean": "boolean", "array": "list", "object": "object"}


def check_types(ctx: Context) -> None:
    seen: set[tuple[str, str, str]] = set()
    for node in ctx.nodes.values():
        for tool in ctx.node_tools(node):
            for param, wanted in _parameter_types(tool):
                source = _source(ctx, node, tool, param)
                if source is None or (tool.name, param, source) in seen:
                    continue
                seen.add((tool.name, param, source))
                _compare(ctx, node, tool, param, wanted, source)


def _parameter_types(tool: Tool) -> list[tuple[str, str]]:
    properties = tool.parameters.get("properties") or {}
    found = []
    for param, schema in properties.items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        if isinstance(kind, str) and kind in _SCHEMA_TO_VALUE:
            found.append((param, _SCHEMA_TO_VALUE[kind]))
    return found


def _source(ctx: Context, node: Node, tool: Tool, param: str) -> str | None:
    """The name whose value feeds `param`, or None if it is computed by an expression."""
    if param not in node.tool_args.get(tool.name, {}):
        return param
    parsed = ctx.parsed.get(node_key(node, "tool_args", tool.name, param))
    if parsed is not None and isinstance(parsed.node, Name) and len(parsed.node.path) == 1:
        return parsed.node.path[0]
    return None


def _compare(ctx: Context, node: Node, tool: Tool, param: str, wanted: str, source: str) -> None:
    declared = [(f"tool output '{source}'", output.type) for output in ctx.outputs.get(source, ())]
    variable = ctx.variables.get(source)
    if variable is not None:
        declared.append((f"variable '{source}'", variable.type))
    for what, given in declared:
        if given != wanted and not (given == "integer" and wanted == "number"):
            ctx.add("type-mismatch", f"tool {tool.name} takes parameter '{param}' as {wanted}, "
                    f"but {what} is declared {given}", node=node.id, tool=tool.name)
