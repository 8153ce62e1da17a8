"""Read tool specifications into `Tool` models. Pure: no database.

Accepted (a JSON list of these, or an object with a `tools` list, or one of them alone):
- SOP-Bench / Amazon Bedrock: `{"toolSpec": {"name", "description", "inputSchema": {"json": {...}}}}`
- OpenAI chat-completions function tools: `{"type": "function", "function": {"name",
  "description", "parameters"}}`, and the flat Responses-API form `{"type": "function", "name",
  "description", "parameters"}`
- our own `Tool` objects (`{"name", "description", "parameters", ...}`).
The parameter schema is kept verbatim.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.model import Tool
from .db import StoreError


def read_tool_specs(path: str | os.PathLike) -> list[Tool]:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise StoreError(f"{path}: cannot read file ({error.__class__.__name__})") from None
    except json.JSONDecodeError as error:
        raise StoreError(f"{path}: line {error.lineno}: not valid JSON ({error.msg})") from None
    return parse_tool_specs(data, str(path))


def parse_tool_specs(data: Any, source: str = "<memory>") -> list[Tool]:
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    elif isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise StoreError(f"{source}: expected a list of tool specifications")
    return [_one(item, f"{source}: [{index}]") for index, item in enumerate(data)]


def _one(item: Any, where: str) -> Tool:
    if not isinstance(item, dict):
        raise StoreError(f"{where}: expected an object")
    if isinstance(item.get("toolSpec"), dict):
        spec = item["toolSpec"]
        schema = (spec.get("inputSchema") or {}).get("json")
        fields = {"name": spec.get("name"), "description": spec.get("description", "")}
    elif item.get("type") == "function" and isinstance(item.get("function"), dict):
        spec = item["function"]
        schema = spec.get("parameters")
        fields = {"name": spec.get("name"), "description": spec.get("description", "")}
    elif item.get("type") == "function":
        schema = item.get("parameters")
        fields = {"name": item.get("name"), "description": item.get("description", "")}
    elif "name" in item:
        return _validate(item, where)
    else:
        raise StoreError(f"{where}: not a tool specification (no toolSpec, function or name)")
    if schema is not None:
        if not isinstance(schema, dict):
            raise StoreError(f"{where}: the parameter schema must be an object")
        fields["parameters"] = schema
    return _validate(fields, where)


def _validate(fields: dict, where: str) -> Tool:
    try:
        return Tool.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(tool)"
        raise StoreError(f"{where}: {loc}: {first['msg']}") from None
