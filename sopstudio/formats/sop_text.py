"""`sop-text`: lossless, readable, indented text form of an SOP document.

Every mapping key sits on its own line (`key: value`), nesting is by indentation, list items start
with `- `, and every scalar is written as a JSON literal (strings in double quotes) so that types and
characters survive exactly: import(export(sop)) == sop. The first line is the header that lets the
format be recognised when pasted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.inputs import loads_json, strip_bom
from ..core.errors import LoadError
from ..core.io import parse_document, to_data
from ..core.model import SOP
from .base import FormatError, ImportResult

HEADER = "# sopstudio-text 1"
HEADER_RE = re.compile(r"^\s*#\s*sopstudio-text\b")
_BARE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*):(?:\s+(.*))?$")
INDENT = 2


# ---------------------------------------------------------------- export

def export_sop_text(sop: SOP) -> str:
    lines = [HEADER + "  (lossless; keep the indentation, values are JSON literals)"]
    lines += _dump_mapping(to_data(sop), 0)
    return "\n".join(lines) + "\n"


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _literal(key)


def _inline(value: Any) -> bool:
    """Scalars, empty containers and lists of numbers fit on the key's line."""
    if isinstance(value, (dict, list)) and value:
        return isinstance(value, list) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    return True


def _dump_mapping(data: dict, indent: int) -> list[str]:
    pad, lines = " " * indent, []
    for key, value in data.items():
        if _inline(value):
            lines.append(f"{pad}{_key(key)}: {_literal(value)}")
        else:
            lines.append(f"{pad}{_key(key)}:")
            lines += _dump_value(value, indent + INDENT)
    return lines


def _dump_value(value: Any, indent: int) -> list[str]:
    if isinstance(value, dict):
        return _dump_mapping(value, indent)
    pad, lines = " " * indent, []
    for item in value:
        if _inline(item):
            lines.append(f"{pad}- {_literal(item)}")
            continue
        inner = _dump_value(item, indent + INDENT)
        if isinstance(item, dict):  # first key on the dash line, like YAML
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines += inner[1:]
        else:
            lines.append(f"{pad}-")
            lines += inner
    return lines


# ---------------------------------------------------------------- import

def import_sop_text(text: str, source: str = "<paste>") -> ImportResult:
    text = strip_bom(text)  # a byte-order mark is no content (e.g. not part of a title)
    data = parse_tree(text)
    if not isinstance(data, dict):
        raise FormatError("expected 'key: value' lines at the top level", 1)
    try:
        return ImportResult(parse_document(data, source), [], "sop-text")
    except LoadError as error:
        raise FormatError(str(error)) from None


def parse_tree(text: str) -> Any:
    tokens = _tokens(text)
    if not tokens:
        raise FormatError("no content after the header", 1)
    parser = _Parser(tokens)
    value = parser.block(tokens[0][1])
    if parser.pos < len(tokens):
        lineno = tokens[parser.pos][0]
        raise FormatError("unexpected indentation", lineno)
    return value


def _tokens(text: str) -> list[list]:
    """[lineno, indent, is_item, rest] for each non-blank, non-comment line."""
    tokens = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise FormatError("tabs are not allowed in indentation", lineno)
        body = raw.lstrip(" ")
        indent = len(raw) - len(body)
        if body == "-" or body.startswith("- "):
            tokens.append([lineno, indent, True, body[1:].strip()])
        else:
            tokens.append([lineno, indent, False, body.rstrip()])
    return tokens


class _Parser:
    def __init__(self, tokens: list[list]):
        self.tokens, self.pos = tokens, 0

    def peek(self) -> list | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def block(self, indent: int) -> Any:
        token = self.peek()
        return self.sequence(indent) if token[2] else self.mapping(indent)

    def sequence(self, indent: int) -> list:
        items = []
        while (token := self.peek()) and token[1] == indent and token[2]:
            lineno, _, _, rest = token
            if not rest:
                self.pos += 1
                items.append(self.nested(lineno, indent, allow_same=False))
            elif _is_literal(rest):
                self.pos += 1
                items.append(_scalar(rest, lineno))
            else:  # "- key: value": the item is a mapping that starts on this line
                self.tokens[self.pos] = [lineno, indent + INDENT, False, rest]
                items.append(self.mapping(indent + INDENT))
        return items

    def mapping(self, indent: int) -> dict:
        data: dict = {}
        while (token := self.peek()) and token[1] == indent and not token[2]:
            lineno, _, _, rest = token
            key, value_text = _split_key(rest, lineno)
            if key in data:
                raise FormatError(f"duplicate key '{key}'", lineno)
            self.pos += 1
            if value_text:
                data[key] = _scalar(value_text, lineno)
            else:
                data[key] = self.nested(lineno, indent, allow_same=True)
        return data

    def nested(self, lineno: int, indent: int, allow_same: bool) -> Any:
        token = self.peek()
        deeper = token is not None and token[1] > indent
        same_list = allow_same and token is not None and token[1] == indent and token[2]
        if not (deeper or same_list):
            raise FormatError("expected an indented block after this line", lineno)
        return self.block(token[1])


def _is_literal(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # also too deep or too long a number: not ours to read
        return False
    return True


def _scalar(text: str, lineno: int) -> Any:
    try:
        return loads_json(text, f"line {lineno}")  # depth and number length: InputError
    except json.JSONDecodeError as error:  # only these have .msg
        raise FormatError(f"value is not a JSON literal ({error.msg}): {text[:40]}",
                          lineno) from None


def _split_key(text: str, lineno: int) -> tuple[str, str]:
    match = _KEY_LINE.match(text)
    if match:
        return match.group(1), (match.group(2) or "").strip()
    if text.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            key, end = None, 0
        if isinstance(key, str) and text[end:].startswith(":"):
            return key, text[end + 1:].strip()
    raise FormatError(f"expected 'key: value', got: {text[:40]}", lineno)
