"""Does a text look like an SOP written as pseudocode at all? Refuse what clearly is not.

Rule: the text must not be markup or JSON, at least one line must read as an action (ask, call,
say, set, terminate, go to), and at least half of the non-blank lines must be placed (an action,
an `if`/`else`/`on failure` header, or a step we can keep). Otherwise any file (a licence, an SVG)
would turn into an SOP of instruction-only steps.
"""

from __future__ import annotations

import re

from ..base import FormatError
from . import words
from .lines import Line, is_header

_MARKUP = re.compile(r"^\s*(?:<[?!A-Za-z/]|[{\[]\s*(?:\"|\{|\[|$))")
_ACTIONS = ("end", "ask", "message", "knowledge", "tool", "set")


def check_shape(text: str, lines: list[Line]) -> None:
    """Raise a FormatError naming the first line that does not fit when `lines` are no SOP."""
    first = lines[0]
    if _MARKUP.match(text.lstrip("\ufeff").lstrip()):
        _refuse(first, "markup or JSON")
    kinds = [_kind(line.text) for line in lines]
    placed = [kind != "instruction" for kind in kinds]
    if not any(kind in _ACTIONS or kind == "goto" for kind in kinds):
        _refuse(first, "no line reads as an action (ask / call / say / terminate)")
    if sum(placed) * 2 < len(lines):
        stray = next(line for line, ok in zip(lines, placed) if not ok)
        _refuse(stray, f"only {sum(placed)} of {len(lines)} lines read as steps or branches")


def _kind(text: str) -> str:
    if is_header(text):
        return "header"
    if words.goto_target(text) is not None:
        return "goto"
    body = words.split_annotation(text)[0]
    return words.kind_of(words.split_compound(body)[0]) if body else "instruction"


def _refuse(line: Line, why: str) -> None:
    shown = line.text if len(line.text) <= 40 else line.text[:37] + "..."
    raise FormatError(f"'{shown}' does not look like an SOP in text form ({why})", line.lineno)
