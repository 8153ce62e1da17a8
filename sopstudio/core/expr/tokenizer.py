"""Hand-written tokenizer: text -> list of Token (kind, value, pos).

Kinds: ``num`` (int/float value), ``str`` (decoded string), ``name`` (tuple path),
``bname`` (a ``{braced}`` path), ``kw`` (keyword text), ``op`` (operator text), ``end``.
Names are ASCII identifiers joined by dots; a segment may be all digits (a list
index). Segments starting with ``__`` are refused so no dunder can ever be named.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import ExprSyntaxError, quoted

MAX_LENGTH = 10_000
MAX_NUMBER_DIGITS = 100

KEYWORDS = {
    "and", "or", "not", "in", "if", "else",
    "true", "false", "null", "True", "False", "None",
}
# Longest first so that '==' wins over '='.
OPERATORS = (
    "==", "!=", "<=", ">=", "&&", "||",
    "<", ">", "!", "+", "-", "*", "/", "%", "(", ")", "[", "]", ",",
)
_MISTAKES = {
    "=": "use '==' to compare",
    "&": "use '&&' or 'and'",
    "|": "use '||' or 'or'",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/", "0": "\0"}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")
_SPACE = frozenset(" \t\r\n")


class Token(NamedTuple):
    kind: str
    value: Any
    pos: int


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; the list always ends with an ``end`` token."""
    if len(text) > MAX_LENGTH:
        raise ExprSyntaxError(
            f"expression too long ({len(text)} characters; the limit is {MAX_LENGTH})", None, text[:80]
        )
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _SPACE:
            i += 1
        elif ch in _DIGITS:
            i = _number(text, i, tokens)
        elif ch in _IDENT_START:
            i = _name(text, i, tokens)
        elif ch == "'" or ch == '"':
            i = _string(text, i, tokens)
        elif ch == "{":
            i = _braced(text, i, tokens)
        else:
            i = _operator(text, i, tokens)
    tokens.append(Token("end", None, n))
    return tokens


def _fail(message: str, pos: int, text: str) -> ExprSyntaxError:
    return ExprSyntaxError(message, pos, text)


def _number(text: str, i: int, tokens: list[Token]) -> int:
    start = i
    i = _skip(text, i, _DIGITS)
    is_float = i < len(text) and text[i] == "."
    if is_float:
        if i + 1 >= len(text) or text[i + 1] not in _DIGITS:
            raise _fail("expected digits after the decimal point", i + 1, text)
        i = _skip(text, i + 1, _DIGITS)
    if i < len(text) and text[i] in _IDENT_START:
        raise _fail(f"invalid number {quoted(text[start:i + 1])}", start, text)
    raw = text[start:i]
    if len(raw) > MAX_NUMBER_DIGITS:
        raise _fail(f"number too long (more than {MAX_NUMBER_DIGITS} digits)", start, text)
    tokens.append(Token("num", float(raw) if is_float else int(raw), start))
    return i


def _skip(text: str, i: int, allowed: frozenset[str]) -> int:
    while i < len(text) and text[i] in allowed:
        i += 1
    return i


def _path(text: str, i: int) -> tuple[tuple[str, ...], int]:
    """Read ``ident(.segment)*`` at ``i``; a segment is an identifier or digits."""
    segments = []
    while True:
        seg_start = i
        i = _skip(text, i, _IDENT_CHARS)
        segment = text[seg_start:i]
        if not segment:
            raise _fail("expected a name after '.'", seg_start, text)
        if segment[0] in _DIGITS and not segment.isdigit():
            raise _fail(f"invalid name segment {quoted(segment)}", seg_start, text)
        if segment.startswith("__"):
            raise _fail(f"names starting with '__' are not allowed ({quoted(segment)})", seg_start,
                        text)
        segments.append(segment)
        if i < len(text) and text[i] == "." and i + 1 < len(text) and text[i + 1] in _IDENT_CHARS:
            i += 1
            continue
        if i < len(text) and text[i] == ".":
            raise _fail("expected a name after '.'", i + 1, text)
        break
    return tuple(segments), i


def _name(text: str, i: int, tokens: list[Token]) -> int:
    start = i
    path, i = _path(text, i)
    if len(path) == 1 and path[0] in KEYWORDS:
        tokens.append(Token("kw", path[0], start))
    else:
        tokens.append(Token("name", path, start))
    return i


def _braced(text: str, i: int, tokens: list[Token]) -> int:
    """``{status}`` or ``{ response.riskLevel }`` (JourneyBench style)."""
    start = i
    i = _skip(text, i + 1, _SPACE)
    if i >= len(text) or text[i] not in _IDENT_START:
        raise _fail("expected a name inside '{...}'", i, text)
    path, i = _path(text, i)
    i = _skip(text, i, _SPACE)
    if i >= len(text) or text[i] != "}":
        raise _fail("expected '}' to close the name", i, text)
    tokens.append(Token("bname", path, start))
    return i + 1


def _string(text: str, i: int, tokens: list[Token]) -> int:
    quote, start = text[i], i
    parts: list[str] = []
    i += 1
    while True:
        j = i
        while j < len(text) and text[j] != quote and text[j] != "\\":
            j += 1
        parts.append(text[i:j])
        if j >= len(text):
            raise _fail("unterminated string", start, text)
        if text[j] == quote:
            tokens.append(Token("str", "".join(parts), start))
            return j + 1
        char, i = _escape(text, j)
        parts.append(char)


def _escape(text: str, j: int) -> tuple[str, int]:
    """Decode the escape sequence whose backslash is at ``j``."""
    if j + 1 >= len(text):
        raise _fail("unterminated string", j, text)
    code = text[j + 1]
    if code in _ESCAPES:
        return _ESCAPES[code], j + 2
    if code == "u":
        digits = text[j + 2:j + 6]
        if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
            return chr(int(digits, 16)), j + 6
        raise _fail("expected four hex digits after '\\u'", j, text)
    raise _fail(f"unknown escape '\\{code}'", j, text)


def _operator(text: str, i: int, tokens: list[Token]) -> int:
    for op in OPERATORS:
        if text.startswith(op, i):
            tokens.append(Token("op", op, i))
            return i + len(op)
    ch = text[i]
    hint = _MISTAKES.get(ch)
    if hint:
        raise _fail(f"unexpected '{ch}': {hint}", i, text)
    raise _fail(f"unexpected character {ch!r}", i, text)
