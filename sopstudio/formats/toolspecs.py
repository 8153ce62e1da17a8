"""Tool specs: SOP-Bench / Bedrock `toolSpec` lists and OpenAI function-tool lists.

`parse_tool_specs` is the one parser of tool specifications (the store's `library import` uses
it too). It accepts a JSON list of specs, `{"tools": [...]}`, the Bedrock
`{"toolConfig": {"tools": [...]}}` wrapper, or one spec alone; each spec is a Bedrock
`{"toolSpec": {name, description, inputSchema: {json: schema}}}` (a `required` that SOP-Bench
puts beside `json` is moved into the schema, with a note), an OpenAI function tool (nested
`{"type": "function", "function": {...}}` or the flat Responses-API form), or our own `Tool`.

Import gives an SOP with tools and no nodes (a tool library); each tool's JSON-Schema parameters
are kept verbatim. Export `toolspecs` writes `[{"toolSpec": {name, description, inputSchema:
{json: parameters}}}]`; export `openai-tools` writes the flat OpenAI `tools` array
`[{"type": "function", "function": {name, description, parameters}}]` of every tool of the SOP
(the tools of one node, as offered to the model at that node, are in the `dpa-prompts` bundle).
"""

from __future__ import annotations

from collections import Counter
import re
from typing import Any

from pydantic import ValidationError

from ..core.model import SOP, Tool
from .base import FormatError, ImportResult
from .detect import is_function_tool, is_toolspec
from .jsonutil import dump_json, read_json


_EMPTY_SCHEMA = {"type": "object", "properties": {}}


_SHAPES = {"toolspecs": (is_toolspec, 'a {"toolSpec": {...}} object'),
           "openai-tools": (is_function_tool, 'a function tool ({"type": "function", '
                                              '"function": {...}} or name + parameters)')}


def parse_tool_specs(data: Any, what: str = "tools",
                     shape: str | None = None) -> tuple[list[Tool], list[str]]:
    """Tools (and notes for the author) from parsed JSON in any accepted form; the one parser
    behind both imports and the store's `library import`. Raises FormatError naming the item.

    `shape` ("toolspecs" / "openai-tools") demands that form of every item: `--from toolspecs`
    on a flowchart with a `name` must not make the whole file one tool."""
    notes: list[str] = []
    items = _items(data, what)
    if shape is not None:
        check, wanted = _SHAPES[shape]
        bad = next((i for i, item in enumerate(items) if not check(item)), None)
        if bad is not None:
            raise FormatError(f"{what}: item {bad} is not {wanted}", 1)
    tools = [_tool(item, f"{what}: item {index}", notes) for index, item in enumerate(items)]
    return tools, notes


def _items(data: Any, what: str) -> list:
    if isinstance(data, dict):  # Bedrock toolConfig, {"tools": [...]} or one spec
        config = data.get("toolConfig")
        data = (config if isinstance(config, dict) else data).get("tools", [data])
    if not isinstance(data, list) or not data:
        raise FormatError(f"{what}: expected a non-empty JSON list of tools", 1)
    return data


def _tool(item: Any, where: str, notes: list[str]) -> Tool:
    if not isinstance(item, dict):
        raise FormatError(f"{where}: expected an object")
    if "toolSpec" in item:
        return _bedrock(item["toolSpec"], where, notes)
    if item.get("type") == "function" or "function" in item:
        spec = item.get("function", item)
        if not isinstance(spec, dict) or not spec.get("name"):
            raise FormatError(f"{where}: is not a function tool with a name")
        return _validate({"name": spec["name"], "description": spec.get("description") or "",
                          "parameters": _schema(spec.get("parameters"), where)}, where)
    if "name" in item:  # our own Tool object: every field kept
        return _validate(item, where)
    raise FormatError(f"{where}: not a tool specification (no toolSpec, function or name)")


def _bedrock(spec: Any, where: str, notes: list[str]) -> Tool:
    if not isinstance(spec, dict) or not spec.get("name"):
        raise FormatError(f"{where}: has no toolSpec with a name")
    wrapper = spec.get("inputSchema") or {}
    if not isinstance(wrapper, dict):
        raise FormatError(f"{where}: inputSchema must be an object")
    schema = dict(_schema(wrapper.get("json"), where))
    outside = {k: v for k, v in wrapper.items() if k != "json" and k not in schema}
    if outside:  # SOP-Bench sometimes puts `required` beside `json` instead of inside it
        schema.update(outside)
        notes.append(f"tool '{spec['name']}': moved {', '.join(outside)} into the "
                     "parameters schema")
    return _validate({"name": spec["name"], "description": spec.get("description") or "",
                      "parameters": schema}, where)


def _schema(schema: Any, where: str) -> dict:
    """The JSON-Schema of the parameters, verbatim; an empty object schema when absent."""
    if not schema:
        return dict(_EMPTY_SCHEMA)
    if not isinstance(schema, dict):
        raise FormatError(f"{where}: the parameter schema must be an object")
    return schema


def _validate(fields: dict, where: str) -> Tool:
    try:
        return Tool.model_validate({**fields, "name": str(fields["name"]),
                                    "description": str(fields.get("description") or "")})
    except ValidationError as error:
        first = error.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(tool)"
        raise FormatError(f"{where}: {loc}: {first['msg']}") from None


def _library(tools: list[Tool], fmt: str, notes: list[str]) -> ImportResult:
    counts = Counter(t.name for t in tools)  # list.count per name was quadratic
    dupes = sorted(n for n, c in counts.items() if c > 1)
    if dupes:
        raise FormatError(f"{fmt}: duplicate tool name '{dupes[0]}'")
    sop = SOP(id="tool-library", title="Imported tools", tools=tools)
    return ImportResult(sop, notes, fmt)


def import_toolspecs(text: str, source: str = "<paste>") -> ImportResult:
    tools, notes = parse_tool_specs(read_json(text, "toolspecs"), "toolspecs", "toolspecs")
    return _library(tools, "toolspecs", notes)


def import_openai_tools(text: str, source: str = "<paste>") -> ImportResult:
    tools, notes = parse_tool_specs(read_json(text, "openai-tools"), "openai-tools",
                                    "openai-tools")
    return _library(tools, "openai-tools", notes)


def function_name(name: str) -> str:
    """OpenAI function names allow only letters, digits, `_` and `-` (64 at most)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "tool"


def openai_tool(tool: Tool) -> dict:
    return {"type": "function",
            "function": {"name": function_name(tool.name), "description": tool.description,
                         "parameters": tool.parameters}}


def _require_tools(sop: SOP, fmt: str) -> None:
    """An empty list would not import back (nor mean anything to a tool runner): refuse."""
    if not sop.tools:
        raise FormatError(f"{fmt}: SOP '{sop.id}' has no tools, so there is nothing to export")


def export_openai_tools(sop: SOP) -> str:
    _require_tools(sop, "openai-tools")
    return dump_json([openai_tool(t) for t in sop.tools])


def export_toolspecs(sop: SOP) -> str:
    _require_tools(sop, "toolspecs")
    return dump_json([{"toolSpec": {"name": t.name, "description": t.description,
                                    "inputSchema": {"json": t.parameters}}} for t in sop.tools])
