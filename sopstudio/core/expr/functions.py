"""The built-in functions callable from expressions, and the value semantics they share.

Only the names in FUNCTIONS can be called; the parser checks the name and the
number of arguments, so an unknown function is a syntax error. Every function
checks its argument types and raises ExprEvalError with a plain message.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Callable, TypeGuard

from .errors import ExprEvalError

log = logging.getLogger(__name__)

MAX_ROUND_DIGITS = 100


def type_name(value: Any) -> str:
    """The JSON-ish name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def is_number(value: Any) -> TypeGuard[int | float]:
    """int or float but not bool (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def values_equal(a: Any, b: Any) -> bool:
    """``==`` semantics: never raises; ints and floats compare numerically; bool != 1."""
    ta, tb = type(a), type(b)
    if ta is tb and (ta is str or ta is int or ta is float or a is None):
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return False
    try:
        return bool(a == b)
    except Exception:
        log.debug("comparing a %s with a %s failed; taken as unequal", type(a).__name__,
                  type(b).__name__, exc_info=True)
        return False


def contains(container: Any, item: Any, what: str = "contains()") -> bool:
    """Substring test on strings, membership on lists, key test on objects."""
    if isinstance(container, str):
        if not isinstance(item, str):
            raise ExprEvalError(f"{what} on a string needs a string to look for, not {type_name(item)}")
        return item in container
    if isinstance(container, (list, tuple)):
        return any(values_equal(item, element) for element in container)
    if isinstance(container, Mapping):
        return isinstance(item, str) and item in container
    raise ExprEvalError(f"{what} needs a string, list or object, not {type_name(container)}")


def _len(value: Any) -> int:
    if isinstance(value, (str, list, tuple, Mapping)):
        return len(value)
    raise ExprEvalError(f"len() needs a string, list or object, not {type_name(value)}")


def _string_arg(func: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ExprEvalError(f"{func}() needs a string, not {type_name(value)}")
    return value


def _number_arg(func: str, value: Any) -> int | float:
    if not is_number(value):
        raise ExprEvalError(f"{func}() needs a number, not {type_name(value)}")
    return value


def _startswith(text: Any, prefix: Any) -> bool:
    return _string_arg("startswith", text).startswith(_string_arg("startswith", prefix))


def _endswith(text: Any, suffix: Any) -> bool:
    return _string_arg("endswith", text).endswith(_string_arg("endswith", suffix))


def _round(value: Any, digits: Any = None) -> int | float:
    number = _number_arg("round", value)
    if digits is None:
        if number != number or number in (float("inf"), float("-inf")):
            raise ExprEvalError(f"round() cannot round {number}")
        return round(number)
    if not isinstance(digits, int) or isinstance(digits, bool):
        raise ExprEvalError(f"round() needs a whole number of digits, not {type_name(digits)}")
    if abs(digits) > MAX_ROUND_DIGITS:
        raise ExprEvalError(f"round() digits must be between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")
    return round(number, digits)


def _extreme(func: str, args: tuple[Any, ...]) -> Any:
    """min/max over the arguments, or over one list argument."""
    items = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    if not items:
        raise ExprEvalError(f"{func}() of an empty list")
    if all(is_number(x) for x in items) or all(isinstance(x, str) for x in items):
        return min(items) if func == "min" else max(items)
    kinds = sorted({type_name(x) for x in items})
    raise ExprEvalError(f"{func}() needs all numbers or all strings, not {' and '.join(kinds)}")


def _min(*args: Any) -> Any:
    return _extreme("min", args)


def _max(*args: Any) -> Any:
    return _extreme("max", args)


# name -> (minimum arguments, maximum arguments or None for any, implementation)
FUNCTIONS: dict[str, tuple[int, int | None, Callable[..., Any]]] = {
    "len": (1, 1, _len),
    "lower": (1, 1, lambda s: _string_arg("lower", s).lower()),
    "upper": (1, 1, lambda s: _string_arg("upper", s).upper()),
    "contains": (2, 2, contains),
    "startswith": (2, 2, _startswith),
    "endswith": (2, 2, _endswith),
    "abs": (1, 1, lambda x: abs(_number_arg("abs", x))),
    "min": (1, None, _min),
    "max": (1, None, _max),
    "round": (1, 2, _round),
}
