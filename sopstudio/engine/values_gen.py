"""Typed default values for generated scenarios (user answers, tool outputs).

A variable with a `pattern` gets a string built from the regular expression's structure (parsed
with the standard library's regex parser, never evaluated as code) and checked with fullmatch.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The stdlib's regular-expression parser (Python 3.11+: re._parser), read to build a value that
# matches a variable's pattern; imported by name since typeshed does not declare it.
sre_parse = importlib.import_module("re._parser")

TYPE_DEFAULTS = {"integer": 1, "number": 1.5, "boolean": True}


def default_value(name: str, decl: Any) -> Any:
    enum = getattr(decl, "enum", None)
    if enum:
        return enum[0]
    kind = getattr(decl, "type", "string") or "string"
    if kind in TYPE_DEFAULTS:
        return TYPE_DEFAULTS[kind]
    if kind == "list":
        return []
    if kind == "object":
        return {}
    pattern = getattr(decl, "pattern", None)
    if pattern:
        sample = sample_pattern(pattern)
        if sample is not None:
            return sample
    return f"{name}_1"


def sample_pattern(pattern: str) -> str | None:
    """A short string matching `pattern`, or None if the pattern is beyond this sampler."""
    try:
        text = _render(sre_parse.parse(pattern))
        return text if re.fullmatch(pattern, text) else None
    except Exception:  # noqa: BLE001 - any unsupported construct: fall back to a plain value
        return None


def _render(parsed) -> str:
    out = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "IN":
            out.append(_from_class(arg))
        elif name == "ANY":
            out.append("a")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = arg
            out.append(_render(sub) * max(low, 1 if low == 0 else low))
        elif name == "SUBPATTERN":
            out.append(_render(arg[-1]))
        elif name == "BRANCH":
            out.append(_render(arg[1][0]))
        elif name in ("AT",):
            continue
        else:
            raise ValueError(name)
    return "".join(out)


def _from_class(items) -> str:
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            low, high = arg
            return "1" if low <= ord("1") <= high else chr(low)
        if name == "CATEGORY":
            return {"CATEGORY_DIGIT": "1", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " "}.get(
                str(arg), "a")
    raise ValueError("class")
