"""Reading JSON input for the JSON-based formats with one clear, line-numbered error."""

from __future__ import annotations

import json
from typing import Any

from ..core.inputs import loads_json
from .base import FormatError


def read_json(text: str, what: str) -> Any:
    """Parse within core.inputs' limits (depth, integer length: `InputError`, exit 2)."""
    try:
        return loads_json(text, what)
    except json.JSONDecodeError as error:
        raise FormatError(f"{what}: not valid JSON ({error.msg}, column {error.colno})",
                          error.lineno) from None


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
