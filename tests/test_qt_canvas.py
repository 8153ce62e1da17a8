"""Canvas gestures of the editor (offscreen): each test pokes the window and asserts on the
document and its undo stack."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QEvent, QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from sopstudio.core.document import Document
from sopstudio.core.io import canonical_json
from sopstudio.core.model import SOP, Edge, Node, Tool, ToolOutput
from sopstudio.qt.main_window import MainWindow


def make_sop() -> SOP:
    tool = Tool(name="check_status", outputs=[ToolOutput(name="status",
                                                         enum=["ok", "blocked"])])
    return SOP(
        id="t", title="Test SOP", start="ask", tools=[tool],
        nodes=[Node(id="ask", title="Ask id", ask=["account"], position=(0, 0)),
               Node(id="check", title="Check", tools=["check_status"], position=(0, 200)),
               Node(id="ok", title="Fine", kind="end", outcome="resolved", position=(-150, 400)),
               Node(id="bad", title="Blocked", kind="end", outcome="rejected",
                    position=(150, 400))],
        edges=[Edge(id="e1", source="ask", target="check"),
               Edge(id="e2", source="check", target="ok", when="status == 'ok'"),
               Edge(id="e3", source="check", target="bad", when="else")])


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(Document(make_sop(), tmp_path / "t.sop.json"), settings)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    win.view.resetTransform()
    win.view.centerOn(0, 200)
    yield win
    win.session.mark_saved()  # nothing to ask about when the window closes
    win.close()
    win.deleteLater()


def _send(view, kind, scene_pos: QPointF, buttons) -> None:
    point = QPointF(view.mapFromScene(scene_pos))
    button = Qt.NoButton if kind == QEvent.MouseMove else Qt.LeftButton
    event = QMouseEvent(kind, point, view.viewport().mapToGlobal(point), button, buttons,
                        Qt.NoModifier)
    QApplication.sendEvent(view.viewport(), event)


def drag(view, start: QPointF, end: QPointF, steps: int = 6) -> None:
    """A real mouse drag on the viewport: press, several moves with the button held, release."""
    _send(view, QEvent.MouseButtonPress, start, Qt.LeftButton)
    for i in range(1, steps + 1):
        _send(view, QEvent.MouseMove, start + (end - start) * (i / steps), Qt.LeftButton)
    _send(view, QEvent.MouseButtonRelease, end, Qt.NoButton)


def test_double_click_adds_a_node_and_undo_removes_it(window, qtbot):
    before = len(window.session.sop.nodes)
    point = window.view.mapFromScene(QPointF(400, 100))
    qtbot.mouseDClick(window.view.viewport(), Qt.LeftButton, pos=point)
    sop = window.session.sop
    assert len(sop.nodes) == before + 1
    added = sop.nodes[-1]
    assert added.kind == "task" and added.id in window.scene.nodes
    assert abs(added.position[0] - 400) < 2 and abs(added.position[1] - 100) < 2
    assert window.scene.selected_ids()[0] == [added.id]
    window.session.undo_stack.undo()
    assert len(window.session.sop.nodes) == before and added.id not in window.scene.nodes


def test_drag_from_port_connects_two_nodes(window):
    ask = window.scene.nodes["ask"]
    port = ask.scenePos() + ask.port_center()
    drag(window.view, port, window.scene.nodes["bad"].scenePos())
    new = [e for e in window.session.sop.edges if e.id not in {"e1", "e2", "e3"}]
    assert [(e.source, e.target) for e in new] == [("ask", "bad")]
    assert new[0].id in window.scene.edges
    assert window.session.undo_stack.count() == 1


def test_drag_move_is_one_undo_entry(window):
    item = window.scene.nodes["check"]
    start = item.scenePos()
    drag(window.view, start, start + QPointF(120, 40), steps=10)
    assert window.session.undo_stack.count() == 1
    x, y = window.session.sop.node("check").position
    assert abs(x - 120) < 2 and abs(y - 240) < 2
    window.session.undo_stack.undo()
    assert window.session.sop.node("check").position == (0, 200)
    assert window.scene.nodes["check"].pos() == QPointF(0, 200)


def test_delete_then_undo_restores_nodes_and_edges_exactly(window, qtbot):
    original = canonical_json(window.session.sop)
    window.scene.select_ids(["check"])
    window.view.setFocus()
    window.actions_by_name["delete"].trigger()
    sop = window.session.sop
    assert sop.node("check") is None
    assert [e.id for e in sop.edges] == []  # every edge touched "check"
    assert set(window.scene.edges) == set()
    window.session.undo_stack.undo()
    assert canonical_json(window.session.sop) == original
    assert set(window.scene.edges) == {"e1", "e2", "e3"}
    window.session.undo_stack.redo()
    assert window.session.sop.node("check") is None


def test_delete_selected_edge_only(window):
    window.scene.select_ids([], ["e2"])
    window.editor.delete_selection()
    assert [e.id for e in window.session.sop.edges] == ["e1", "e3"]
    assert len(window.session.sop.nodes) == 4


def _overlaps(window) -> list:
    items = list(window.scene.nodes.values())
    bad = []
    for a, b in itertools.combinations(items, 2):
        if a.sceneBoundingRect().adjusted(16, 16, -16, -16).intersects(
                b.sceneBoundingRect().adjusted(16, 16, -16, -16)):
            bad.append((a.node_id, b.node_id))
    return bad


def test_auto_layout_is_one_undoable_edit(window):
    for node_id in ("ask", "check", "ok", "bad"):  # pile everything on one spot
        window.editor.move_nodes({node_id: (10.0, 10.0)})
    window.session.undo_stack.clear()
    piled = {n.id: n.position for n in window.session.sop.nodes}
    assert window.editor.auto_layout()
    assert window.session.undo_stack.count() == 1
    assert _overlaps(window) == []
    sop = window.session.sop
    assert sop.node("ask").position[1] < sop.node("check").position[1] < sop.node("ok").position[1]
    window.session.undo_stack.undo()
    assert {n.id: n.position for n in window.session.sop.nodes} == piled


def test_copy_paste_gives_new_ids_and_keeps_inner_edges(window):
    window.scene.select_ids(["ask", "check"])
    assert window.editor.copy()
    pasted = window.editor.paste()
    sop = window.session.sop
    assert len(pasted) == 2 and not set(pasted) & {"ask", "check", "ok", "bad"}
    inner = [e for e in sop.edges if e.source in pasted and e.target in pasted]
    assert len(inner) == 1 and inner[0].id not in {"e1", "e2", "e3"}
    copy_of_check = next(sop.node(i) for i in pasted if sop.node(i).title == "Check")
    assert copy_of_check.tools == ["check_status"]
    copy_of_ask = next(sop.node(i) for i in pasted if sop.node(i).title == "Ask id")
    # The copy keeps its shape (same offset between the two nodes) and lands clear of every
    # original node, below them.
    assert (copy_of_check.position[0] - copy_of_ask.position[0],
            copy_of_check.position[1] - copy_of_ask.position[1]) == (0.0, 200.0)
    assert copy_of_ask.position[1] > 200
    originals = [window.scene.nodes[i] for i in ("ask", "check", "ok", "bad")]
    for new_id in pasted:
        body = window.scene.nodes[new_id].sceneBoundingRect()
        assert not any(body.intersects(o.sceneBoundingRect()) for o in originals)
    assert sorted(window.scene.selected_ids()[0]) == sorted(pasted)
    assert window.session.undo_stack.count() == 1
    window.session.undo_stack.undo()
    assert len(window.session.sop.nodes) == 4


def test_tool_drop_binds_tool(window):
    window.editor.bind_tool("check_status", "ask")
    assert window.session.sop.node("ask").tools == ["check_status"]
    window.editor.bind_tool("brand_new", "ask")
    assert window.session.sop.tool("brand_new") is not None
    assert window.session.undo_stack.count() == 2
    window.session.undo_stack.undo()
    assert window.session.sop.tool("brand_new") is None


def test_find_selects_matching_nodes(window):
    assert window.find("block") == ["bad"]
    assert window.scene.selected_ids()[0] == ["bad"]


def test_decision_shape_follows_edges(window):
    sop_node = window.scene.nodes
    window.editor.add_node("decision", QPointF(500, 0))
    decision = window.scene.selected_ids()[0][0]
    assert sop_node[decision].shape_kind == "task"  # no conditional exits yet
    from sopstudio.core import edits
    for target, when in (("ok", "x == 1"), ("bad", "else")):
        window.session.push(edits.AddEdge(Edge(id=f"d_{target}", source=decision,
                                               target=target, when=when)))
    assert sop_node[decision].shape_kind == "decision"
    assert sop_node["ok"].shape_kind == "end"
    window.session.undo_stack.undo()
    assert sop_node[decision].shape_kind == "task"


def test_view_zoom_and_fit(window):
    before = window.view.scale_factor()
    window.view.zoom_in()
    assert window.view.scale_factor() > before
    window.view.fit_all()
    rect = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert rect.contains(window.scene.itemsBoundingRect().center())
