"""Tool specs: SOP-Bench / Bedrock `toolSpec` lists and OpenAI function-tool lists.

Import gives an SOP with tools and no nodes (a tool library); each tool's JSON-Schema parameters
are kept verbatim. Export `toolspecs` writes `[{"toolSpec": {name, description, inputSchema:
{json: parameters}}}]`; export `openai-tools` writes the flat OpenAI `tools` array
`[{"type": "function", "function": {name, description, parameters}}]` of every tool of the SOP
(the tools of one node, as offered to the model at that node, are in the `dpa-prompts` bundle).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.model import SOP, Tool
from .base import FormatError, ImportResult
from .jsonutil import dump_json, read_json


def _items(data: Any, what: str) -> list:
    if isinstance(data, dict):  # Bedrock toolConfig, {"tools": [...]} or one spec
        data = (data.get("toolConfig") or data).get("tools", [data])
    if not isinstance(data, list) or not data:
        raise FormatError(f"{what}: expected a non-empty JSON list of tools", 1)
    return data


def _library(tools: list[Tool], fmt: str, notes: list[str]) -> ImportResult:
    names = [t.name for t in tools]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise FormatError(f"{fmt}: duplicate tool name '{dupes[0]}'")
    sop = SOP(id="tool-library", title="Imported tools", tools=tools)
    return ImportResult(sop, notes, fmt)


def import_toolspecs(text: str, source: str = "<paste>") -> ImportResult:
    notes: list[str] = []
    tools = []
    for index, item in enumerate(_items(read_json(text, "toolspecs"), "toolspecs")):
        spec = item.get("toolSpec") if isinstance(item, dict) else None
        if not isinstance(spec, dict) or not spec.get("name"):
            raise FormatError(f"toolspecs: item {index} has no toolSpec with a name")
        schema = dict((spec.get("inputSchema") or {}).get("json") or {})
        outside = {k: v for k, v in (spec.get("inputSchema") or {}).items()
                   if k != "json" and k not in schema}
        if outside:  # SOP-Bench sometimes puts `required` beside `json` instead of inside it
            schema.update(outside)
            notes.append(f"tool '{spec['name']}': moved {', '.join(outside)} into the "
                         "parameters schema")
        tools.append(Tool(name=str(spec["name"]), description=str(spec.get("description") or ""),
                          parameters=schema or {"type": "object", "properties": {}}))
    return _library(tools, "toolspecs", notes)


def import_openai_tools(text: str, source: str = "<paste>") -> ImportResult:
    tools = []
    for index, item in enumerate(_items(read_json(text, "openai-tools"), "openai-tools")):
        spec = item.get("function", item) if isinstance(item, dict) else None
        if not isinstance(spec, dict) or not spec.get("name"):
            raise FormatError(f"openai-tools: item {index} is not a function tool with a name")
        tools.append(Tool(name=str(spec["name"]), description=str(spec.get("description") or ""),
                          parameters=spec.get("parameters") or {"type": "object",
                                                                "properties": {}}))
    return _library(tools, "openai-tools", [])


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
