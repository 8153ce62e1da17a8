"""Property tests: random edit sequences on random small SOPs undo exactly and redo exactly."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.core import io
from sopstudio.core.document import Document, History
from sopstudio.core.edits import (AddEdge, AddNode, Batch, MoveNodes, RemoveEdge, RemoveNode,
                                  SetField)
from sopstudio.core.errors import EditError
from sopstudio.core.model import SOP, Edge, Node

NAMES = ["a", "b", "c", "d", "e", "f"]
TEXT = st.text(alphabet="abc xyz\n", max_size=6)
WHEN = st.sampled_from([None, "else", "x == 1", "ok", "   "])
POSITION = st.one_of(st.none(), st.tuples(st.integers(-50, 50), st.integers(-50, 50)))
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


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


def run_sequence(data, doc: Document, steps: int):
    """Apply random edits; record (edit, inverse, state before, state after) for the legal
    ones and check illegal ones left the document as it was."""
    log = []
    for _ in range(steps):
        edit = draw_edit(data, doc.sop)
        before = io.dumps(doc.sop)
        try:
            inverse = doc.apply(edit)
        except EditError:
            assert io.dumps(doc.sop) == before
            continue
        log.append((edit, inverse, before, io.dumps(doc.sop)))
    return log


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_inverses_in_reverse_restore_every_state(sop, data):
    doc = Document(sop)
    original = io.dumps(sop)
    log = run_sequence(data, doc, data.draw(st.integers(1, 12)))
    redos = []
    for edit, inverse, before, after in reversed(log):
        assert io.dumps(doc.sop) == after
        redos.append(doc.apply(inverse))
        assert io.dumps(doc.sop) == before
    assert io.dumps(doc.sop) == original
    assert not doc.dirty
    # Redo by applying the inverse of each inverse, oldest first.
    for redo, (_, _, _, after) in zip(reversed(redos), log):
        doc.apply(redo)
        assert io.dumps(doc.sop) == after


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_reapplying_original_edits_after_full_undo_gives_same_states(sop, data):
    doc = Document(sop)
    original = io.dumps(sop)
    log = run_sequence(data, doc, data.draw(st.integers(1, 10)))
    for _, inverse, _, _ in reversed(log):
        doc.apply(inverse)
    assert io.dumps(doc.sop) == original
    for edit, _, before, after in log:
        assert io.dumps(doc.sop) == before
        doc.apply(edit)
        assert io.dumps(doc.sop) == after


@SETTINGS
@given(sop=small_sops(), data=st.data())
def test_history_undo_all_then_redo_all(sop, data):
    doc = Document(sop)
    history = History(doc)
    original = io.dumps(sop)
    for _ in range(data.draw(st.integers(1, 10))):
        try:
            history.do(draw_edit(data, doc.sop))
        except EditError:
            pass
    final = io.dumps(doc.sop)
    while history.can_undo:
        history.undo()
    assert io.dumps(doc.sop) == original
    while history.can_redo:
        history.redo()
    assert io.dumps(doc.sop) == final
