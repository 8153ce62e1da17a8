"""Automatic layout of an SOP graph with Graphviz `dot` (through pygraphviz), top to bottom.

Pure Python (no Qt): `layout(sop)` returns `{node_id: (x, y)}`, the centre of every node in scene
coordinates (y grows downwards, one unit = one pixel at 100 % zoom). Node sizes are passed to dot
as fixed sizes so the result never overlaps nodes; edge conditions are passed as labels so dot
leaves room for them between ranks.
"""

from __future__ import annotations

from typing import Any

from .errors import SopStudioError
from .model import SOP, Edge, Node

Point = tuple[float, float]
Sizes = dict[str, tuple[float, float]]
# An edge route: cubic Bézier points, the arrow tip, where the label goes.
Route = tuple[list[Point], Point | None, Point | None]

# Graphviz works in points (1/72 inch); scene units map 1:1 to points.
POINTS_PER_INCH = 72.0
DEFAULT_SIZES = {"task": (190.0, 78.0), "decision": (210.0, 110.0), "end": (176.0, 54.0)}
LABEL_LIMIT = 34  # characters of a condition shown on the canvas (and reserved by dot)
# Above this many edges, labels are not given to dot: they turn into virtual nodes and make dot
# many times slower, while a graph that big is read zoomed in anyway.
LABELLED_EDGE_LIMIT = 400


class LayoutError(SopStudioError):
    """Graphviz could not lay the graph out."""


def is_decision(node: Node, sop: SOP) -> bool:
    """A task with no actions and at least two conditional exits is drawn as a diamond."""
    if node.kind != "task" or node.has_actions():
        return False
    return sum(1 for e in sop.out_edges(node.id) if e.when) >= 2


def edge_text(edge: Edge) -> str:
    """The text drawn along an edge: its label, else its condition, shortened."""
    text = edge.label or (edge.when or "")
    return text if len(text) <= LABEL_LIMIT else text[:LABEL_LIMIT - 1] + "…"


def default_size(node: Node, sop: SOP) -> tuple[float, float]:
    if node.kind == "end":
        return DEFAULT_SIZES["end"]
    if is_decision(node, sop):
        return DEFAULT_SIZES["decision"]
    width, height = DEFAULT_SIZES["task"]
    return width, height + (14.0 if node.tools else 0.0)


def _graph(sop: SOP, sizes: Sizes, rankdir: str) -> Any:
    import pygraphviz  # imported lazily: a slow import that only layout needs

    graph = pygraphviz.AGraph(directed=True, strict=False)
    graph.graph_attr.update(rankdir=rankdir, nodesep="0.6", ranksep="0.7", splines="true")
    graph.node_attr.update(shape="box", fixedsize="true", label="")
    graph.edge_attr.update(fontsize="11", fontname="Helvetica")
    for node in sop.nodes:
        width, height = sizes.get(node.id) or default_size(node, sop)
        # The real outline matters: dot clips edge routes at the node's shape.
        graph.add_node(node.id, width=f"{width / POINTS_PER_INCH:.3f}",
                       height=f"{height / POINTS_PER_INCH:.3f}",
                       shape="diamond" if is_decision(node, sop) else "box")
    ids = {n.id for n in sop.nodes}
    labelled = len(sop.edges) <= LABELLED_EDGE_LIMIT
    for edge in sop.edges:
        if edge.source in ids and edge.target in ids:
            graph.add_edge(edge.source, edge.target, key=edge.id,
                           label=edge_text(edge) if labelled else "")
    if sop.start in ids:
        graph.add_subgraph([sop.start], rank="min")
    return graph


def layout(sop: SOP, sizes: dict[str, tuple[float, float]] | None = None,
           rankdir: str = "TB") -> dict[str, tuple[float, float]]:
    """Positions (node centres) for every node of `sop`; empty SOP gives an empty dict."""
    return layout_with_routes(sop, sizes, rankdir)[0]


def layout_with_routes(sop: SOP, sizes: Sizes | None = None,
                       rankdir: str = "TB") -> tuple[dict[str, Point], dict[str, Route]]:
    """Positions and dot's edge routes: `{edge_id: (points, tip, label_point)}` where `points`
    are cubic Bézier points (1 + 3k of them) and `tip` (or None) is where the arrow ends."""
    if not sop.nodes:
        return {}, {}
    graph = _graph(sop, sizes or {}, rankdir)
    try:
        graph.layout(prog="dot")
    except (OSError, ValueError) as error:
        raise LayoutError(f"graphviz dot failed: {error}") from None
    positions = {str(n): _point(n.attr["pos"]) for n in graph.nodes()}
    # Shift so the top-left node centre is the origin (stable documents, small numbers).
    dx = -min(x for x, _ in positions.values())
    dy = -min(y for _, y in positions.values())
    def shift(p: Point) -> Point:
        return round(p[0] + dx, 1), round(p[1] + dy, 1)

    routes: dict[str, Route] = {}
    for edge in graph.edges():
        route = _route(edge.attr.get("pos") or "", edge.attr.get("lp") or "")
        if route is not None:
            points, tip, label_at = route
            routes[edge.name] = ([shift(p) for p in points], shift(tip) if tip else None,
                                 shift(label_at) if label_at else None)
    return {k: shift(p) for k, p in positions.items()}, routes


def _point(text: str) -> Point:
    x, y = (float(v) for v in text.split(",")[:2])
    return x, -y  # Graphviz's y axis points up; the scene's points down


def _route(pos: str, label: str) -> Route | None:
    """Parse dot's `pos` of an edge ("e,tip p0 p1 ...") into points ending at the arrow tip."""
    tip: Point | None = None
    points: list[Point] = []
    for part in pos.split():
        if part.startswith("e,"):
            tip = _point(part[2:])
        elif part.startswith("s,"):
            continue
        else:
            points.append(_point(part))
    if len(points) < 4 or (len(points) - 1) % 3:
        return None
    return points, tip, (_point(label) if label else None)
