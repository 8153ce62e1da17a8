"""A small JSON-Schema subset checker for tool arguments (MARCO "parameter rules").

Supported keywords: type (one or a list), enum, const, pattern, required, properties,
additionalProperties (false or a schema), items, minItems/maxItems, minimum/maximum,
exclusiveMinimum/exclusiveMaximum, minLength/maxLength. Anything else is ignored (permissive),
which is the safe direction for a guardrail: it never rejects a value the schema would accept.
`jsonschema` is not a dependency of the project; this covers what tool specs use.
"""

from __future__ import annotations

from typing import Any

from ..core.expr.errors import ExprEvalError
from ..core.expr.functions import compiled_pattern

_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
    or isinstance(v, float) and v.is_integer(),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def schema_errors(value: Any, schema: Any, where: str = "value") -> list[str]:
    """Human-readable rule failures of `value` against `schema` (empty list: valid)."""
    if not isinstance(schema, dict):
        return []
    wanted = schema.get("type")
    if wanted is not None:
        names = wanted if isinstance(wanted, list) else [wanted]
        if not any(_TYPES.get(n, lambda v: True)(value) for n in names):
            return [f"{where} must be of type {' or '.join(map(str, names))}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where} must be one of {', '.join(map(repr, schema['enum']))}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where} must be {schema['const']!r}")
    if isinstance(value, str):
        errors += _string_errors(value, schema, where)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        errors += _number_errors(value, schema, where)
    elif isinstance(value, list):
        errors += _array_errors(value, schema, where)
    elif isinstance(value, dict):
        errors += object_errors(value, schema, where)
    return errors


def _string_errors(value: str, schema: dict, where: str) -> list[str]:
    errors = []
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(f"{where} must have at least {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{where} must have at most {schema['maxLength']} characters")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        # RE2, as matches() uses: a pattern from a file never costs more than linear time on a
        # value a model wrote; a broken pattern is the validator's business, not the model's
        try:
            if compiled_pattern(pattern).search(value) is None:
                errors.append(f"{where} must match the pattern {pattern}")
        except ExprEvalError:
            pass
    return errors


def _number_errors(value: float, schema: dict, where: str) -> list[str]:
    rules = (("minimum", lambda b: value < b, "at least"), ("maximum", lambda b: value > b,
                                                           "at most"),
             ("exclusiveMinimum", lambda b: value <= b, "greater than"),
             ("exclusiveMaximum", lambda b: value >= b, "less than"))
    return [f"{where} must be {words} {schema[key]}" for key, broken, words in rules
            if isinstance(schema.get(key), (int, float)) and not isinstance(schema[key], bool)
            and broken(schema[key])]


def _array_errors(value: list, schema: dict, where: str) -> list[str]:
    errors = []
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{where} must have at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{where} must have at most {schema['maxItems']} items")
    items = schema.get("items")
    for i, item in enumerate(value):
        errors += schema_errors(item, items, f"{where}[{i}]")
    return errors


def object_errors(value: dict, schema: dict, where: str = "arguments") -> list[str]:
    errors = [f"{where} is missing the required '{name}'"
              for name in schema.get("required") or [] if name not in value]
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            errors += schema_errors(item, properties[name], f"'{name}'")
        elif extra is False:
            errors.append(f"'{name}' is not a parameter")
        elif isinstance(extra, dict):
            errors += schema_errors(item, extra, f"'{name}'")
    return errors
