"""The built-in functions callable from expressions, and the value semantics they share.

Only the names in FUNCTIONS can be called; the parser checks the name and the
number of arguments, so an unknown function is a syntax error. Every function
checks its argument types and raises ExprEvalError with a plain message.

``matches(text, pattern)`` uses RE2 (the ``google-re2`` wheel): its automaton runs in time
linear in the text whatever the pattern, so a shared SOP cannot hang a run with a pattern built
for catastrophic backtracking, as Python's ``re`` can be made to. Patterns are compiled once
(cached); a literal pattern is checked when the expression is parsed (see parser.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Callable, TypeGuard

import re2

from .errors import ExprEvalError, quoted, shorten

log = logging.getLogger(__name__)

MAX_ROUND_DIGITS = 100
MAX_PATTERN_LENGTH = 1_000
# RE2 compiles into a bounded automaton; this caps the memory one pattern may take.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = 8 << 20
_RE2_OPTIONS.log_errors = False  # a bad pattern is reported to the user, not logged by RE2


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


def _list_arg(func: str, value: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise ExprEvalError(f"{func}() needs a list, not {type_name(value)}")
    return value


def pattern_problem(pattern: Any) -> str | None:
    """Why ``pattern`` is not a usable ``matches()`` pattern, or None if it is."""
    if not isinstance(pattern, str):
        return f"matches() needs a string pattern, not {type_name(pattern)}"
    try:
        _compiled(pattern)
    except ExprEvalError as error:
        return error.message
    return None


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ExprEvalError(f"pattern too long (more than {MAX_PATTERN_LENGTH} characters)")
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as error:
        reason = error.args[0] if error.args else "not a valid pattern"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        # RE2's reason quotes the pattern's tail again: shortened too
        raise ExprEvalError(f"bad pattern {quoted(pattern)}: {shorten(reason)}") from None


def compiled_pattern(pattern: str) -> Any:
    """The RE2 form of `pattern` (linear-time matching; ExprEvalError when it is not valid):
    `matches()`, the JSON Schema `pattern` checks and Rasa e2e tests' `text_matches` share it."""
    return _compiled(pattern)


def _matches(text: Any, pattern: Any) -> bool:
    """True when ``pattern`` matches somewhere in ``text`` (anchor it with ^ and $)."""
    problem = pattern_problem(pattern)
    if problem:
        raise ExprEvalError(problem)
    return _compiled(pattern).search(_string_arg("matches", text)) is not None


def _count(items: Any, *value: Any) -> int:
    """count(list): how many items are true; count(list, v): how many equal v."""
    elements = _list_arg("count", items)
    if value:
        return sum(1 for x in elements if values_equal(x, value[0]))
    return sum(1 for x in elements if x)


def _sum(items: Any) -> int | float:
    total: int | float = 0
    for x in _list_arg("sum", items):
        if not is_number(x):
            raise ExprEvalError(f"sum() needs a list of numbers, found {type_name(x)}")
        total += x
    return total


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
    "matches": (2, 2, _matches),
    "count": (1, 2, _count),
    "sum": (1, 1, _sum),
    "any": (1, 1, lambda xs: any(bool(x) for x in _list_arg("any", xs))),
    "all": (1, 1, lambda xs: all(bool(x) for x in _list_arg("all", xs))),
}
