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
# dot's layout is superlinear (crossing minimisation, network simplex, label nodes): a dense
# 1,000-node SOP took minutes and gigabytes. Above BOUNDED_FROM nodes or edges, layout runs with
# bounded effort (straight edges, conditions as external labels, minimal mincross / network
# simplex iterations); above MAX_DRAW_NODES nodes or MAX_DRAW_EDGES edges, drawing is refused
# with a clear message (a 300-node, 600-edge SOP draws in about 3 s bounded).
BOUNDED_FROM = 100
MAX_DRAW_NODES, MAX_DRAW_EDGES = 500, 1500
_BOUNDED = {"splines": "false", "mclimit": "0.01", "nslimit": "0.01", "nslimit1": "0.01"}
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
    nodes, edges = graph.number_of_nodes(), graph.number_of_edges()
    check_drawable(nodes, edges, fmt)
    if max(nodes, edges) > BOUNDED_FROM:
        _bound_layout(graph)
    with _captured_stderr():
        try:
            prog, args = prepare_drawing(graph)
            return graph.draw(format=fmt, prog=prog, args=args)
        except (OSError, ValueError) as error:
            raise FormatError(f"cannot render {fmt}: {error}") from None


def check_drawable(nodes: int, edges: int, fmt: str) -> None:
    if nodes > MAX_DRAW_NODES or edges > MAX_DRAW_EDGES:
        raise FormatError(f"too large to draw as {fmt} ({nodes} nodes, {edges} edges; at most "
                          f"{MAX_DRAW_NODES} nodes and {MAX_DRAW_EDGES} edges): export --to dot "
                          f"or --to mermaid instead")


def _bound_layout(graph) -> None:
    """Cheap layout settings for a big graph: labels placed after layout, little iteration."""
    graph.graph_attr.update(_BOUNDED)
    for edge in graph.edges():
        label = edge.attr.get("label")
        if label:
            edge.attr["xlabel"], edge.attr["label"] = label, ""
