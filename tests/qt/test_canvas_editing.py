"""Canvas gestures of the editor (offscreen): each test pokes the window and asserts on the
document and its undo stack."""

from __future__ import annotations


from PySide6.QtCore import QPointF, Qt

from sopstudio.core.io import canonical_json
from sopstudio.core.model import Edge
from sopstudio.core.edits import SetField
from sopstudio.qt.canvas.placement import free_spot
from sopstudio.qt.sim.overlay import NodeMark

from qt_helpers import drag


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


def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_free_spot_avoids_existing_rects():
    assert free_spot((0, 0), (100, 50), []) == (0, 0)
    taken = [(-60, -40, 120, 80)]
    x, y = free_spot((0, 0), (100, 50), taken, margin=10)
    box = (x - 60, y - 35, 120, 70)
    assert not _overlap(box, taken[0])
    assert abs(x) + abs(y) < 300  # still near the centre


def test_add_at_centre_never_drops_a_node_on_another(window):
    for kind in ("task", "decision", "end", "task"):
        window.add_at_centre(kind)
    rects = [item.mapRectToScene(item.body_rect()) for item in window.scene.nodes.values()]
    assert len(rects) == 8
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)


def test_start_marker_is_drawn_above_simulation_rings(window):
    node = window.scene.nodes["ask"]
    ring = NodeMark(node)
    marker = node.start_marker
    assert marker is not None and marker.zValue() > ring.zValue()
    label = marker.mapToScene(marker.boundingRect().center())
    assert window.scene.items(label)[0] is marker  # topmost where the word START is
    window.session.push(SetField("sop", None, "start", "check"))
    assert node.start_marker is None and window.scene.nodes["check"].start_marker is not None


def test_pasted_copies_never_overlap_originals_or_earlier_copies(window):
    window.scene.select_ids(["ask", "check"])
    assert window.editor.copy()
    first = window.editor.paste()
    second = window.editor.paste()
    assert len(first) == len(second) == 2
    items = list(window.scene.nodes.values())
    for index, item in enumerate(items):
        for other in items[index + 1:]:
            assert not item.sceneBoundingRect().intersects(other.sceneBoundingRect()), \
                (item.node_id, other.node_id)
