"""Automatic layout of an SOP graph with Graphviz `dot` (through pygraphviz), top to bottom.

Pure Python (no Qt): `layout(sop)` returns `{node_id: (x, y)}`, the centre of every node in scene
coordinates (y grows downwards, one unit = one pixel at 100 % zoom). Node sizes are passed to dot
as fixed sizes so the result never overlaps nodes; edge conditions are passed as labels so dot
leaves room for them between ranks.

dot's work is bounded (`dot_bounds`, shared with the svg/png export through `prepare_drawing`):
edges into an end node that many steps share (every step's "failed" or "escalated" exit) would
each span the whole graph and cost dot minutes, so in a large graph they are left out of dot's
input, their ends sit on the bottom rank and they are drawn afterwards; very large graphs get
straight edges and no label nodes. `quick_layout` is an instant layered layout shown while dot
works; `reroute` asks Graphviz (neato -n) for routes around nodes left where they are. Graphviz
holds the GIL, so the GUI runs all of this in a child process: `python -m sopstudio.core.layout`.
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
# Bounds on dot's work (measured on a 200-step SOP whose steps all share two end nodes: minutes
# with those fan-in edges, 0.1 s without them; bench/editor_bench.py prints the figures).
BOUNDED_EDGE_LIMIT = 150   # above this many edges, shared-end fan-in edges skip dot
FANIN_LIMIT = 8            # an end node with more incoming edges than this is "shared"
SPLINE_EDGE_LIMIT = 2500   # above this many edges, straight edges (splines=false)
DOT_LIMITS = {"nslimit": "8", "nslimit1": "8", "mclimit": "0.5", "searchsize": "30"}


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


def skipped_edges(pairs: list[tuple[str, str]], ends: set[str]) -> set[int]:
    """Indexes of the (source, target) pairs that dot is not given: in a graph of more than
    BOUNDED_EDGE_LIMIT edges, those into an end node with more than FANIN_LIMIT incoming."""
    if len(pairs) <= BOUNDED_EDGE_LIMIT:
        return set()
    incoming: dict[str, int] = {}
    for _, target in pairs:
        incoming[target] = incoming.get(target, 0) + 1
    return {i for i, (_, target) in enumerate(pairs)
            if target in ends and incoming[target] > FANIN_LIMIT}


def dot_bounds(edge_count: int) -> dict[str, str]:
    """Graph attributes bounding dot's work for a graph of `edge_count` edges."""
    attrs = dict(DOT_LIMITS) if edge_count > BOUNDED_EDGE_LIMIT else {}
    attrs["splines"] = "false" if edge_count > SPLINE_EDGE_LIMIT else "true"
    return attrs


def _graph(sop: SOP, sizes: Sizes, rankdir: str) -> Any:
    import pygraphviz  # imported lazily: a slow import that only layout needs

    graph = pygraphviz.AGraph(directed=True, strict=False)
    graph.graph_attr.update(rankdir=rankdir, nodesep="0.6", ranksep="0.7",
                            **dot_bounds(len(sop.edges)))
    graph.node_attr.update(shape="box", fixedsize="true", label="")
    graph.edge_attr.update(fontsize="11", fontname="Helvetica")
    for node in sop.nodes:
        width, height = sizes.get(node.id) or default_size(node, sop)
        # The real outline matters: dot clips edge routes at the node's shape.
        graph.add_node(node.id, width=f"{width / POINTS_PER_INCH:.3f}",
                       height=f"{height / POINTS_PER_INCH:.3f}",
                       shape="diamond" if is_decision(node, sop) else "box")
    ids = {n.id for n in sop.nodes}
    edges = [e for e in sop.edges if e.source in ids and e.target in ids]
    ends = {n.id for n in sop.nodes if n.kind == "end"}
    skipped = skipped_edges([(e.source, e.target) for e in edges], ends)
    labelled = len(edges) - len(skipped) <= LABELLED_EDGE_LIMIT
    for index, edge in enumerate(edges):
        if index not in skipped:
            graph.add_edge(edge.source, edge.target, key=edge.id,
                           label=edge_text(edge) if labelled else "")
    if sop.start in ids:
        graph.add_subgraph([sop.start], rank="min")
    if skipped:  # shared ends on the bottom rank, where their skipped edges lead
        graph.add_subgraph(sorted({edges[i].target for i in skipped}), rank="sink")
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


# --- bounded drawing for the svg/png export ---------------------------------------------------

def prepare_drawing(graph: Any) -> tuple[str, str]:
    """Bound the work of drawing `graph` (a pygraphviz AGraph of the export); returns the
    (prog, args) to draw it with. A small graph is left to dot. In a large one, dot places the
    nodes without the shared-end edges, then every edge is drawn at those fixed positions by
    `neato -n` (which routes but does not move nodes)."""
    edges = list(graph.edges())
    ends = {str(n) for n in graph.nodes() if not graph.out_degree(n)}
    skipped = skipped_edges([(str(e[0]), str(e[1])) for e in edges], ends)
    bounds = dot_bounds(len(edges))
    for name, value in bounds.items():  # settings made by the caller stay
        if not graph.graph_attr.get(name):
            graph.graph_attr[name] = value
    if not skipped:
        return "dot", ""
    placed = graph.copy()
    for index in sorted(skipped, reverse=True):
        edge = edges[index]
        placed.delete_edge(edge[0], edge[1], edge.key)
    placed.add_subgraph(sorted({str(edges[i][1]) for i in skipped}), rank="sink")
    placed.graph_attr.update(splines="false")
    placed.layout(prog="dot")
    for node in placed.nodes():  # in inches: pygraphviz drops the level of `-n2` (see reroute)
        x, y = (float(v) / POINTS_PER_INCH for v in node.attr["pos"].split(",")[:2])
        graph.get_node(str(node)).attr["pos"] = f"{x:.4f},{y:.4f}!"
    # Routing hundreds of edges around obstacles takes minutes too: straight edges here.
    graph.graph_attr.update(splines="false")
    return "neato", "-n"


# --- the instant provisional layout ----------------------------------------------------------

def quick_layout(sop: SOP, sizes: Sizes | None = None) -> dict[str, Point]:
    """A layered layout in linear time, shown while dot works: each node one rank below the
    first node reaching it (breadth first from the start), ends on the last rank, nodes of a
    rank in the order their parents were placed."""
    sizes = sizes or {}
    if not sop.nodes:
        return {}
    rank = _ranks(sop)
    last = max(rank.values())
    rows: dict[int, list[Node]] = {}
    for node in sop.nodes:
        level = last + 1 if node.kind == "end" and rank[node.id] < last else rank[node.id]
        rows.setdefault(level, []).append(node)
    order = {node_id: i for i, node_id in enumerate(rank)}
    positions: dict[str, Point] = {}
    y = 0.0
    for level in sorted(rows):
        row = sorted(rows[level], key=lambda n: order.get(n.id, 0))
        dims = [sizes.get(n.id) or default_size(n, sop) for n in row]
        x = -sum(w for w, _ in dims) / 2 - 40.0 * (len(row) - 1) / 2
        height = max(h for _, h in dims)
        for node, (width, _) in zip(row, dims):
            positions[node.id] = (round(x + width / 2, 1), round(y + height / 2, 1))
            x += width + 40.0
        y += height + 70.0
    return positions


def _ranks(sop: SOP) -> dict[str, int]:
    """Breadth-first depth from the start (unreached nodes follow, from their own roots)."""
    following: dict[str, list[str]] = {n.id: [] for n in sop.nodes}
    for edge in sop.edges:
        if edge.source in following and edge.target in following:
            following[edge.source].append(edge.target)
    rank: dict[str, int] = {}
    roots = [sop.start] if sop.start in following else []
    roots += [n.id for n in sop.nodes]
    for root in roots:
        if root in rank:
            continue
        rank[root] = 0
        queue = [root]
        for current in queue:  # the list grows while it is walked: a breadth-first queue
            for target in following[current]:
                if target not in rank:
                    rank[target] = rank[current] + 1
                    queue.append(target)
    return rank


# --- routes around nodes left where they are -------------------------------------------------

REROUTE_NODE_LIMIT = 400  # spline routing around obstacles grows fast with the node count


def reroute(sop: SOP, positions: dict[str, Point], sizes: Sizes | None = None,
            edge_ids: set[str] | None = None) -> dict[str, Route]:
    """Routes of `edge_ids` (default: all) around every node at `positions` (nothing moves):
    neato -n with splines. Its cost grows with the edges routed: pass only those moved."""
    import pygraphviz

    sizes = sizes or {}
    routed = [e for e in sop.edges if e.source in positions and e.target in positions
              and (edge_ids is None or e.id in edge_ids)]
    ids = _obstacles(routed, positions)
    if not routed:
        return {}
    graph = pygraphviz.AGraph(directed=True, strict=False)
    splines = "true" if len(ids) <= REROUTE_NODE_LIMIT else "polyline"
    graph.graph_attr.update(splines=splines, sep="+6", esep="+4")
    graph.node_attr.update(shape="box", fixedsize="true", label="")
    for node in sop.nodes:
        if node.id in ids:
            width, height = sizes.get(node.id) or default_size(node, sop)
            x, y = positions[node.id]
            graph.add_node(node.id, width=f"{width / POINTS_PER_INCH:.3f}",
                           height=f"{height / POINTS_PER_INCH:.3f}",
                           pos=f"{x / POINTS_PER_INCH:.4f},{-y / POINTS_PER_INCH:.4f}!",
                           shape="diamond" if is_decision(node, sop) else "box")
    for edge in routed:
        graph.add_edge(edge.source, edge.target, key=edge.id)
    try:
        # `-n`: take the given positions (in inches: pygraphviz drops the level of `-n2`)
        graph.layout(prog="neato", args="-n")
    except (OSError, ValueError) as error:
        raise LayoutError(f"graphviz neato failed: {error}") from None
    # Graphviz moves the drawing to its own origin: shift routes back onto the given positions.
    anchor = next(iter(ids))
    out_x, out_y = _point(graph.get_node(anchor).attr["pos"])
    dx, dy = positions[anchor][0] - out_x, positions[anchor][1] - out_y

    def shift(p: Point) -> Point:
        return round(p[0] + dx, 1), round(p[1] + dy, 1)

    routes: dict[str, Route] = {}
    for edge in graph.edges():
        route = _route(edge.attr.get("pos") or "", "")
        if route is not None:
            points, tip, _ = route
            routes[edge.name] = ([shift(p) for p in points], shift(tip) if tip else None, None)
    return routes


def _obstacles(edges: list[Edge], positions: dict[str, Point], margin: float = 260.0
               ) -> set[str]:
    """The nodes a route of `edges` could meet: those near the box around their ends (routing
    around every node of a big graph costs seconds per edge)."""
    ends = {n for e in edges for n in (e.source, e.target)}
    if not ends:
        return set()
    xs = [positions[n][0] for n in ends]
    ys = [positions[n][1] for n in ends]
    left, right = min(xs) - margin, max(xs) + margin
    top, bottom = min(ys) - margin, max(ys) + margin
    return ends | {n for n, (x, y) in positions.items()
                   if left <= x <= right and top <= y <= bottom}


# --- the child process the GUI runs (Graphviz holds the GIL) ---------------------------------

def run_request(request: dict[str, Any]) -> dict[str, Any]:
    """One job for the child process: {"mode": "layout" | "reroute", "sop": …, "sizes": …,
    "positions": …} → {"positions": …, "routes": …} (JSON-friendly lists)."""
    sop = SOP.model_validate(request["sop"])
    sizes = {k: tuple(v) for k, v in (request.get("sizes") or {}).items()}
    if request.get("mode") == "reroute":
        positions = {k: tuple(v) for k, v in request["positions"].items()}
        edge_ids = set(request["edges"]) if request.get("edges") is not None else None
        return {"positions": positions, "routes": reroute(sop, positions, sizes, edge_ids)}
    positions, routes = layout_with_routes(sop, sizes)
    return {"positions": positions, "routes": routes}


def main() -> int:
    import json
    import sys

    try:
        answer = run_request(json.loads(sys.stdin.read()))
    except (SopStudioError, ValueError, KeyError) as error:
        print(f"layout failed: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
