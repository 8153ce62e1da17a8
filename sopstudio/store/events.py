"""Trace events <-> rows of the `steps` table, losslessly.

A text column (type, node, tool, text) holds its key only when the value is a string; a JSON
column (arguments, result) holds any JSON value, serialised, so a stored `null` differs from an
absent key (SQL NULL). Everything else goes to the `extra` JSON column, so decoding gives back a
dict equal to the one written.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .db import StoreError
from .redact import scrub_text

TEXT_COLUMNS = ("type", "node", "tool", "text")
JSON_COLUMNS = ("arguments", "result")
ORDER = ("type", "node", "tool", "arguments", "result", "text")


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def dump(value: Any, secrets: set[str]) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=_default)
    except (TypeError, ValueError) as error:
        raise StoreError(f"a trace event cannot be stored: {error}") from None
    return scrub_text(text, secrets)


def encode(run_id: int, seq: int, event: dict, secrets: set[str]) -> tuple:
    if not isinstance(event, dict):
        raise StoreError(f"a trace event must be a dict, got {type(event).__name__}")
    row: dict[str, Any] = {}
    extra = {}
    for key, value in event.items():
        if key in TEXT_COLUMNS and isinstance(value, str):
            row[key] = scrub_text(value, secrets)
        elif key in JSON_COLUMNS:
            row[key] = dump(value, secrets)
        else:
            extra[key] = value
    return (run_id, seq, row.get("type"), row.get("node"), row.get("tool"),
            row.get("arguments"), row.get("result"), row.get("text"),
            dump(extra, secrets) if extra else None)


def decode(row: tuple) -> dict:
    """Row (type, node, tool, arguments, result, text, extra) -> the event dict."""
    type_, node, tool, arguments, result, text, extra = row
    event: dict[str, Any] = {}
    for key, value in zip(ORDER, (type_, node, tool, arguments, result, text)):
        if value is None:
            continue
        event[key] = json.loads(value) if key in JSON_COLUMNS else value
    if extra:
        event.update(json.loads(extra))
    return event
