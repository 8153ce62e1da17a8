"""Thin wrappers over pygraphviz: parse DOT with graphviz's own error message, draw SVG/PNG.

Graphviz prints syntax errors ("syntax error in line 4 near '}'") on the C-level stderr and
pygraphviz only raises "Invalid Input", so parsing briefly captures file descriptor 2.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from contextlib import contextmanager

from .base import FormatError

_LOCK = threading.Lock()
_LINE = re.compile(r"line (\d+)")


def _pgv():
    try:
        import pygraphviz
    except ImportError as error:  # pragma: no cover - a declared dependency
        raise FormatError(f"pygraphviz is not available ({error})") from None
    return pygraphviz


@contextmanager
def _captured_stderr():
    """Yield a list that receives what C code wrote to fd 2 meanwhile."""
    captured: list[str] = []
    with _LOCK, tempfile.TemporaryFile(mode="w+b") as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read().decode("utf-8", "replace"))


def parse_dot(text: str):
    pgv = _pgv()
    with _captured_stderr() as err:
        try:
            graph = pgv.AGraph(string=text)
        except (pgv.DotError, ValueError, TypeError):
            graph = None
    if graph is None:
        message = " ".join((err[0] if err else "").split()) or "not a valid DOT graph"
        message = re.sub(r"^Error:\s*(<stdin>:\s*)?", "", message)
        match = _LINE.search(message)
        line = int(match.group(1)) if match else None
        message = re.sub(r"\s*(?:in\s+)?line \d+", "", message).strip(" :")
        raise FormatError(f"DOT: {message}", line)
    return graph


def draw(dot_text: str, fmt: str) -> bytes:
    """Lay out with dot and render; `draw(format=...)` avoids the 3.11 path bug (DESIGN §11)."""
    from ..core.layout import prepare_drawing  # dot's work bounded as on the canvas

    graph = parse_dot(dot_text)
    with _captured_stderr():
        try:
            prog, args = prepare_drawing(graph)
            return graph.draw(format=fmt, prog=prog, args=args)
        except (OSError, ValueError) as error:
            raise FormatError(f"cannot render {fmt}: {error}") from None
