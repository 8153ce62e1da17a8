"""Rasa flow conditions (pypred, Rasa's "Conditions" reference) translated to our expression
language: `slots.x` / `context.x` → `x`; `and or not`; `=` / `is` → `==`, `is not` / `!=` → `!=`;
comparisons; `true false null undefined empty`; `A contains B` → `contains(A, B)` (sets written
`{'a' 'b'}` become lists); `A matches "re"` → `matches(A, 're')` (the expression language's
`matches`). Nothing is evaluated here: a translation that does not parse is reported, not run.
"""

from __future__ import annotations

import re

from ._expr import syntax_error
from .base import quote

# `not (slots.x matches "re")`: the rejection of values that do not match a pattern.
_NOT_MATCHES = re.compile(r"""^\s*not\s*(?:\(\s*)?slots\.(\w+)\s+matches\s+(['"])(.*)\2\s*\)?\s*$""")


_TOKEN = re.compile(r"""\s*(?:(?P<str>'[^']*'|"[^"]*")|(?P<num>-?\d+(?:\.\d+)?)"""
                    r"""|(?P<op>==|!=|>=|<=|=|<|>|\(|\)|\{|\}|\[|\]|,)"""
                    r"""|(?P<word>[A-Za-z_][\w.]*))""")
_LITERALS = {"true": "true", "false": "false", "null": "null", "none": "null",
             "undefined": "null", "empty": "''"}


def translate_condition(text) -> tuple[str, bool]:
    """(our expression, True) for a pypred condition, or (the original text, False)."""
    if isinstance(text, bool):
        return ("true" if text else "false"), True
    source = str(text).strip()
    try:
        out = _binary_functions(_set_commas(_tokens(source)))
    except ValueError:
        return source, False
    result = _join(out)
    return (result, True) if syntax_error(result) is None else (source, False)


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text.rstrip()):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(text[pos:])
        pos = match.end()
        kind = match.lastgroup or ""
        value = match.group(kind)
        if kind == "str":
            out.append(quote(value[1:-1]))
        elif kind == "op":
            out.append({"=": "==", "{": "[", "}": "]"}.get(value, value))
        elif kind == "num":
            out.append(value)
        else:
            out.extend(_word(value, out))
    return out


def _word(word: str, before: list[str]) -> list[str]:
    low = word.lower()
    if low in ("and", "or", "not", "in", "contains", "matches"):
        if low == "not" and before and before[-1] == "==":  # `is not`
            before[-1] = "!="
            return []
        return [low]
    if low == "is":
        return ["=="]
    if low in _LITERALS:
        return [_LITERALS[low]]
    for prefix in ("slots.", "context."):
        if word.startswith(prefix):
            return [word[len(prefix):]]
    return [word]


def _join(tokens: list[str]) -> str:
    """Tokens as readable text: `(a == 1)`, `['x', 'y']`."""
    text = ""
    for token in tokens:
        if text and not text.endswith(("(", "[")) and token not in (")", "]", ","):
            text += " "
        text += token
    return text


def _set_commas(tokens: list[str]) -> list[str]:
    """pypred sets list their members without commas (`{'WARN' 'ERR'}`): add them."""
    out: list[str] = []
    depth = 0
    for token in tokens:
        if depth and out and out[-1] not in ("[", ",", "(") and token not in ("]", ",", ")"):
            out.append(",")
        out.append(token)
        depth += token == "["
        depth -= token == "]"
    return out


def _binary_functions(tokens: list[str]) -> list[str]:
    """`a contains b` → `contains(a, b)`; `a matches 'r'` → `matches(a, 'r')` (pypred infix)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("contains", "matches"):
            left = _pop_operand(out)
            right, i = _take_operand(tokens, i + 1)
            out.append(f"{token}({_join(left)}, {_join(right)})")
            continue
        out.append(token)
        i += 1
    return out


def _pop_operand(out: list[str]) -> list[str]:
    if not out:
        raise ValueError("missing operand")
    if out[-1] not in (")", "]"):
        return [out.pop()]
    depth, k = 0, len(out) - 1
    while k >= 0:
        depth += out[k] in (")", "]")
        depth -= out[k] in ("(", "[")
        if depth == 0:
            break
        k -= 1
    operand, out[k:] = out[k:], []
    return operand


def _take_operand(tokens: list[str], i: int) -> tuple[list[str], int]:
    if i >= len(tokens):
        raise ValueError("missing operand")
    if tokens[i] not in ("(", "["):
        return [tokens[i]], i + 1
    depth, k = 0, i
    while k < len(tokens):
        depth += tokens[k] in ("(", "[")
        depth -= tokens[k] in (")", "]")
        if depth == 0:
            return tokens[i:k + 1], k + 1
        k += 1
    raise ValueError("unbalanced parentheses")


def not_matching(text: str) -> tuple[str, str] | None:
    """(slot, pattern) when `text` rejects the values of a slot that do not match a pattern."""
    found = _NOT_MATCHES.match(text)
    return (found.group(1), found.group(3)) if found else None
