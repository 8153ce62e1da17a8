"""Hypothesis strategies for documents and edits, shared by the edit and undo property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from sopstudio.core.edits import (AddEdge, AddNode, Batch, MoveNodes, RemoveEdge, RemoveNode,
                                  SetField)
from sopstudio.core.model import SOP, Edge, Node

NAMES = ["a", "b", "c", "d", "e", "f"]
TEXT = st.text(alphabet="abc xyz\n", max_size=6)
WHEN = st.sampled_from([None, "else", "x == 1", "ok", "   "])
POSITION = st.one_of(st.none(), st.tuples(st.integers(-50, 50), st.integers(-50, 50)))


@st.composite
def small_sops(draw) -> SOP:
    ids = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    nodes = [Node(id=i, title=draw(TEXT), position=draw(POSITION)) for i in ids]
    edges = []
    if ids:
        for number in range(draw(st.integers(0, 6))):
            edges.append(Edge(id=f"e{number}", source=draw(st.sampled_from(ids)),
                              target=draw(st.sampled_from(ids)), when=draw(WHEN)))
    start = draw(st.sampled_from(ids)) if ids and draw(st.booleans()) else None
    return SOP(id="s", title=draw(TEXT), start=start, nodes=nodes, edges=edges)


def _node_id(data, sop: SOP) -> str:
    # Mostly existing ids; sometimes an unknown one, to exercise illegal edits.
    known = [n.id for n in sop.nodes]
    return data.draw(st.sampled_from(known + ["ghost"]) if known else st.just("ghost"))


def _edge_id(data, sop: SOP) -> str:
    known = [e.id for e in sop.edges]
    return data.draw(st.sampled_from(known + ["e_ghost"]) if known else st.just("e_ghost"))


def draw_edit(data, sop: SOP, depth: int = 0):
    op = data.draw(st.sampled_from(["add", "remove", "connect", "disconnect", "move", "title",
                                    "instructions", "when", "rename", "batch"]))
    if op == "add":
        return AddNode(Node(id=data.draw(st.sampled_from(NAMES + ["g", "h"])), title="new"),
                       index=data.draw(st.one_of(st.none(), st.integers(0, len(sop.nodes)))))
    if op == "remove":
        return RemoveNode(_node_id(data, sop))
    if op == "connect":
        edge = Edge(id=data.draw(st.sampled_from(["e0", "e1", "n1", "n2", "n3"])),
                    source=_node_id(data, sop), target=_node_id(data, sop), when=data.draw(WHEN))
        return AddEdge(edge)
    if op == "disconnect":
        return RemoveEdge(_edge_id(data, sop))
    if op == "move":
        ids = data.draw(st.lists(st.builds(_node_id, st.just(data), st.just(sop)), max_size=3))
        return MoveNodes({i: data.draw(POSITION) for i in ids})
    if op in ("title", "instructions"):
        return SetField("node", _node_id(data, sop), op, data.draw(TEXT))
    if op == "when":
        return SetField("edge", _edge_id(data, sop), "when", data.draw(WHEN))
    if op == "rename":
        return SetField("node", _node_id(data, sop), "id", data.draw(st.sampled_from(NAMES)))
    if depth > 0:  # one level of nesting is enough to cover batches inside batches
        return SetField("sop", None, "title", data.draw(TEXT))
    # A batch is drawn against the current state, so later members may fail: rollback is tested.
    return Batch([draw_edit(data, sop, depth + 1) for _ in range(data.draw(st.integers(0, 3)))],
                 "batch")
