"""Reading untrusted input: one bounded, streaming reader and one guarded JSON parser.

Every file or stream the app reads as a document (the native loader, every importer, standard
input, CSV test sets) goes through `read_text`: it reads in chunks and stops at a size cap (so
`/dev/zero` ends with one clear line instead of exhausting memory), checks UTF-8 as it goes and
drops a leading byte-order mark. `loads_json` parses JSON with the limits Python itself has made
into crashes: nesting depth (a 100k-deep array is a RecursionError in the parser and in every
walker after it) and the length of integers (Python refuses to convert more than 4,300 digits).
Failures are `InputError`s: one line, exit code 2 ("unreadable", DESIGN §9).

Limits: `SOPSTUDIO_MAX_INPUT` (bytes, default 50 MiB) and `MAX_JSON_DEPTH` (100 levels; real
documents use under 20).
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
from typing import IO, Any

from .errors import LoadError

DEFAULT_MAX_INPUT = 50 * 1024 * 1024
MAX_JSON_DEPTH = 100
CHUNK = 1 << 20
TOO_DEEP = f"nested too deeply (more than {MAX_JSON_DEPTH} levels)"
BOM = "\ufeff"
# A JSON string literal (unrolled loop: no backtracking), and everything but brackets.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")  # one pass removes exactly one level


class InputError(LoadError):
    """Input that cannot be read within the limits: exit code 2. `reason` is the message
    without the source, for callers that name the source themselves."""

    exit_code = 2

    def __init__(self, source: str, reason: str, detail: str | None = None):
        self.source, self.reason = source, reason
        self.detail = detail or reason  # for a file that cannot be opened: just why
        super().__init__(f"{source}: {reason}")


def max_input() -> int:
    """The size cap in bytes: $SOPSTUDIO_MAX_INPUT when it is a positive integer."""
    raw = os.environ.get("SOPSTUDIO_MAX_INPUT", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_INPUT


def reason(error: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, in words a user knows (no Python exception names)."""
    if isinstance(error, UnicodeDecodeError):
        return "not a text file (not UTF-8)"
    if isinstance(error, IsADirectoryError):
        return "is a directory"
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, PermissionError):
        return "permission denied"
    return (error.strerror or str(error)).lower()


def read_text(path: str | os.PathLike[str], source: str | None = None) -> str:
    """The UTF-8 text of a file ('-': standard input), BOM dropped, at most `max_input()`
    bytes; `InputError` ("<source>: cannot read file (...)") otherwise."""
    source = source or str(path)
    try:
        if str(path) == "-":
            return read_stream(sys.stdin.buffer, source)
        with open(path, "rb") as handle:
            return read_stream(handle, source)
    except (OSError, UnicodeDecodeError) as error:
        why = reason(error)
        raise InputError(source, f"cannot read file ({why})", why) from None


def read_stream(stream: IO[bytes], source: str) -> str:
    """Read a binary stream in chunks, decoding as it goes (a bad byte stops the read)."""
    cap = max_input()
    decoder = codecs.getincrementaldecoder("utf-8-sig")()  # -sig: drops a leading BOM
    parts, total = [], 0
    while True:
        chunk = stream.read(min(CHUNK, cap + 1 - total))
        if not chunk:
            break
        total += len(chunk)
        if total > cap:
            raise InputError(source, f"input is larger than {cap:,} bytes (the limit; set "
                                     f"SOPSTUDIO_MAX_INPUT to raise it)")
        parts.append(decoder.decode(chunk))
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


def strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


def json_depth_exceeded(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether valid JSON `text` nests deeper than `limit`, in C-speed passes: strings are cut
    out, then innermost bracket pairs are removed once per level (a flat document takes a
    few passes; at most `limit` are made)."""
    brackets = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return False
        shorter = _INNERMOST.sub("", brackets)
        if shorter == brackets:
            return False  # unbalanced: not valid JSON, the parser says so
        brackets = shorter
    return bool(brackets)


def loads_json(text: str, source: str) -> Any:
    """Parse JSON within the limits. A syntax error is a `json.JSONDecodeError` (callers word it
    with its line); too deep or too long a number is an `InputError`."""
    text = strip_bom(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InputError(source, TOO_DEEP) from None
    except ValueError as error:  # int() refuses very long digit strings
        raise InputError(source, f"a number is too long ({_digits_hint(error)})") from None
    if json_depth_exceeded(text):
        raise InputError(source, TOO_DEEP)
    return data


def _digits_hint(error: ValueError) -> str:
    found = re.search(r"limit \((\d+) digits\)", str(error))
    return f"more than {found.group(1)} digits" if found else "out of range"
