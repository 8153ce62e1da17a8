"""Document (change events, dirty tracking, fresh ids), History (undo/redo/merge) and Signal."""

from __future__ import annotations

from pathlib import Path

import pytest

from sopstudio.core import io
from sopstudio.core.document import Change, Document, History
from sopstudio.core.edits import (AddEdge, AddNode, Batch, MoveNodes, RemoveNode, ReplaceSOP,
                                  SetField)
from sopstudio.core.errors import EditError
from sopstudio.core.model import SOP, Edge, Node
from sopstudio.core.signals import Signal


def make_doc() -> Document:
    sop = SOP(id="s", start="a",
              nodes=[Node(id="a", title="A"), Node(id="b"), Node(id="node_1")],
              edges=[Edge(id="e1", source="a", target="b"), Edge(id="e2", source="b", target="a")])
    return Document(sop, path=Path("s.sop.json"))


# --- Signal -----------------------------------------------------------------------------------

def test_signal_calls_slots_in_order_with_arguments():
    signal, calls = Signal(), []
    signal.connect(lambda *a: calls.append(("first", a)))
    signal.connect(lambda *a: calls.append(("second", a)))
    signal.emit(1, "x")
    assert calls == [("first", (1, "x")), ("second", (1, "x"))]


def test_signal_disconnect_and_duplicate_connect():
    signal, calls = Signal(), []
    slot = calls.append
    signal.connect(slot)
    signal.connect(slot)
    signal.emit(1)
    assert calls == [1]
    assert signal.disconnect(slot) is True
    assert signal.disconnect(slot) is False
    signal.emit(2)
    assert calls == [1]
    with pytest.raises(TypeError):
        signal.connect("not callable")


def test_slot_may_disconnect_itself_while_emitting():
    signal, calls = Signal(), []

    def once(value):
        calls.append(value)
        signal.disconnect(once)

    signal.connect(once)
    signal.connect(calls.append)
    signal.emit("a")
    signal.emit("b")
    assert calls == ["a", "a", "b"]


# --- Document ---------------------------------------------------------------------------------

def test_apply_emits_change_with_kind_and_ids():
    doc, changes = make_doc(), []
    doc.changed.connect(changes.append)
    doc.apply(SetField("node", "a", "title", "Alpha"))
    doc.apply(MoveNodes({"b": (10, 20)}))
    edit = RemoveNode("a")
    doc.apply(edit)
    doc.apply(SetField("sop", None, "title", "T"))
    doc.apply(ReplaceSOP(SOP(id="t")))
    assert [c.kind for c in changes] == ["nodes", "positions", "nodes", "sop", "reset"]
    assert changes[0].ids == {"a"}
    assert changes[1].ids == {"b"}
    assert changes[2].edit is edit
    assert changes[2].by_kind == {"nodes": {"a"}, "edges": {"e1", "e2"}, "sop": {"start"}}
    assert changes[3].ids == {"title"}
    assert all(isinstance(c, Change) for c in changes)


def test_illegal_edit_emits_nothing_and_keeps_document_clean():
    doc, changes = make_doc(), []
    doc.changed.connect(changes.append)
    before = io.dumps(doc.sop)
    with pytest.raises(EditError):
        doc.apply(AddEdge(Edge(id="e9", source="a", target="ghost")))
    assert changes == [] and not doc.dirty and io.dumps(doc.sop) == before


def test_apply_returns_inverse_and_sop_is_live():
    doc = make_doc()
    sop = doc.sop
    inverse = doc.apply(AddNode(Node(id="c")))
    assert doc.sop is sop and sop.node("c") is not None
    doc.apply(inverse)
    assert sop.node("c") is None


def test_dirty_follows_content_relative_to_saved_point():
    doc = make_doc()
    assert not doc.dirty and doc.path == Path("s.sop.json")
    inverse = doc.apply(SetField("node", "a", "title", "changed"))
    assert doc.dirty
    doc.apply(inverse)
    assert not doc.dirty  # back to the saved content
    doc.apply(SetField("node", "a", "title", "saved"))
    doc.mark_saved(Path("other.sop.json"))
    assert not doc.dirty and doc.path == Path("other.sop.json")
    doc.apply(SetField("node", "a", "title", "later"))
    assert doc.dirty


def test_fresh_ids_avoid_existing_ones():
    doc = make_doc()
    assert doc.new_node_id() == "node_2"
    assert doc.new_node_id("ask") == "ask_1"
    assert doc.new_edge_id() == "e3"
    doc.apply(AddEdge(Edge(id="e3", source="a", target="a")))
    assert doc.new_edge_id() == "e4"


# --- History ----------------------------------------------------------------------------------

def test_history_undo_redo_walks_states():
    doc = make_doc()
    history = History(doc)
    states = [io.dumps(doc.sop)]
    for edit in (AddNode(Node(id="c")), AddEdge(Edge(id="e3", source="b", target="c")),
                 RemoveNode("b"), MoveNodes({"a": (1, 2)})):
        history.do(edit)
        states.append(io.dumps(doc.sop))
    assert history.can_undo and not history.can_redo
    assert history.undo_text == "Move node 'a'"
    for expected in reversed(states[:-1]):
        history.undo()
        assert io.dumps(doc.sop) == expected
    assert not history.can_undo and history.undo() is None
    for expected in states[1:]:
        history.redo()
        assert io.dumps(doc.sop) == expected
    assert history.redo() is None


def test_new_edit_after_undo_clears_redo():
    doc = make_doc()
    history = History(doc)
    history.do(SetField("node", "a", "title", "1"))
    history.undo()
    assert history.can_redo and history.redo_text == "Set title of node 'a'"
    history.do(SetField("node", "b", "title", "2"))
    assert not history.can_redo


def test_consecutive_edits_of_one_field_merge():
    doc = make_doc()
    history = History(doc)
    original = io.dumps(doc.sop)
    for text in ("H", "He", "Hel", "Hello"):
        history.do(SetField("node", "a", "title", text))
    history.do(SetField("node", "b", "title", "other"))
    history.undo()
    assert doc.sop.node("a").title == "Hello"
    history.undo()  # the four keystrokes are one entry
    assert io.dumps(doc.sop) == original and not history.can_undo
    history.redo()
    assert doc.sop.node("a").title == "Hello"


def test_merging_stops_after_undo_and_close_merge():
    doc = make_doc()
    history = History(doc)
    history.do(SetField("node", "a", "title", "x"))
    history.close_merge()
    history.do(SetField("node", "a", "title", "xy"))
    history.undo()
    assert doc.sop.node("a").title == "x"
    history.do(SetField("node", "a", "title", "xz"))
    history.do(SetField("node", "a", "title", "xzz"))
    history.undo()
    assert doc.sop.node("a").title == "x"
    history.undo()
    assert doc.sop.node("a").title == "A"


def test_moves_and_batches_never_merge():
    doc = make_doc()
    history = History(doc)
    history.do(MoveNodes({"a": (1, 1)}))
    history.do(MoveNodes({"a": (2, 2)}))
    history.do(Batch([SetField("node", "a", "title", "q")], "b1"))
    history.do(Batch([SetField("node", "a", "title", "r")], "b2"))
    history.undo()
    history.undo()
    history.undo()
    assert doc.sop.node("a").position == (1.0, 1.0)


def test_failed_edit_leaves_history_unchanged():
    doc = make_doc()
    history = History(doc)
    with pytest.raises(EditError):
        history.do(RemoveNode("ghost"))
    assert not history.can_undo
