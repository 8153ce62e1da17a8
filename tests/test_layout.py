"""Auto-layout (core/layout.py): dot, top to bottom, no overlapping nodes."""

from __future__ import annotations

import itertools

from sopstudio.core.layout import default_size, is_decision, layout
from sopstudio.core.model import SOP, Edge, Node


def _sop(n_nodes: int, fan: int = 2) -> SOP:
    nodes = [Node(id=f"n{i}", title=f"Node {i}", ask=["x"]) for i in range(n_nodes)]
    edges = []
    for i in range(1, n_nodes):
        parent = (i - 1) // fan
        edges.append(Edge(id=f"e{i}", source=f"n{parent}", target=f"n{i}", when=f"x == {i}"))
    return SOP(id="t", start="n0", nodes=nodes, edges=edges)


def _boxes(sop: SOP, positions):
    for node in sop.nodes:
        x, y = positions[node.id]
        w, h = default_size(node, sop)
        yield node.id, (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def test_every_node_gets_a_position_and_none_overlap():
    sop = _sop(40, fan=3)
    positions = layout(sop)
    assert set(positions) == {n.id for n in sop.nodes}
    for (a, ra), (b, rb) in itertools.combinations(_boxes(sop, positions), 2):
        overlap = ra[0] < rb[2] and rb[0] < ra[2] and ra[1] < rb[3] and rb[1] < ra[3]
        assert not overlap, (a, b)


def test_top_to_bottom_parents_above_children():
    sop = _sop(7)
    positions = layout(sop)
    for edge in sop.edges:
        assert positions[edge.source][1] < positions[edge.target][1]
    assert min(y for _, y in positions.values()) == positions["n0"][1] == 0


def test_explicit_sizes_are_respected():
    sop = _sop(3, fan=1)
    small = layout(sop)
    big = layout(sop, sizes={n.id: (400.0, 300.0) for n in sop.nodes})
    gap_small = small["n1"][1] - small["n0"][1]
    gap_big = big["n1"][1] - big["n0"][1]
    assert gap_big >= gap_small + 200


def test_empty_sop_and_decision_shape():
    assert layout(SOP(id="empty")) == {}
    sop = SOP(id="d", nodes=[Node(id="d"), Node(id="a", kind="end"), Node(id="b", kind="end")],
              edges=[Edge(id="e1", source="d", target="a", when="x == 1"),
                     Edge(id="e2", source="d", target="b", when="else")])
    assert is_decision(sop.node("d"), sop)
    assert not is_decision(sop.node("a"), sop)
    assert default_size(sop.node("d"), sop) != default_size(sop.node("a"), sop)


def test_routes_run_from_source_to_target_with_label_points():
    from sopstudio.core.layout import layout_with_routes
    sop = _sop(5)
    positions, routes = layout_with_routes(sop)
    assert set(routes) == {e.id for e in sop.edges}
    for edge in sop.edges:
        points, tip, label_at = routes[edge.id]
        assert len(points) % 3 == 1
        source_y, target_y = positions[edge.source][1], positions[edge.target][1]
        assert source_y < points[0][1] < (tip or points[-1])[1] < target_y
        assert label_at is not None
