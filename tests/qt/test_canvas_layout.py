"""Layout off the GUI: provisional layout on open then dot's, Auto-layout as one undoable edit
when the child process answers, Cancel, and edges re-routed after a manual move."""

from __future__ import annotations

import itertools

from sopstudio.core.document import Document
from sopstudio.core.layout import layout_with_routes

from qt_helpers import TIMEOUT, make_sop


def _unplaced():
    sop = make_sop()
    for node in sop.nodes:
        node.position = None
    return sop


def test_an_unplaced_sop_opens_placed_then_moves_to_dots_layout(open_main_window, qtbot,
                                                               tmp_path):
    sop = _unplaced()
    win = open_main_window(Document(sop, tmp_path / "t.sop.json"))
    with qtbot.waitSignal(win.auto_layout.applied, timeout=TIMEOUT,
                          check_params_cb=lambda purpose: purpose == "open"):
        # the provisional layout is there before dot answers: every node has a place
        assert all(n.position is not None for n in win.session.sop.nodes)
    sizes = {i: (item.width, item.height) for i, item in win.scene.nodes.items()}
    expected, _ = layout_with_routes(_unplaced(), sizes)
    assert {n.id: n.position for n in win.session.sop.nodes} == expected
    assert not win.session.document.dirty
    assert win.session.undo_stack.count() == 0


def test_auto_layout_arrives_as_one_undoable_edit(window, qtbot):
    for node_id in ("ask", "check", "ok", "bad"):
        window.editor.move_nodes({node_id: (10.0, 10.0)})
    window.session.undo_stack.clear()
    piled = {n.id: n.position for n in window.session.sop.nodes}
    with qtbot.waitSignal(window.auto_layout.applied, timeout=TIMEOUT):
        window.actions_by_name["layout"].trigger()
    assert window.session.undo_stack.count() == 1
    sop = window.session.sop
    assert sop.node("ask").position[1] < sop.node("check").position[1] < sop.node("ok").position[1]
    boxes = [item.sceneBoundingRect().adjusted(16, 16, -16, -16)
             for item in window.scene.nodes.values()]
    assert not any(a.intersects(b) for a, b in itertools.combinations(boxes, 2))
    window.session.undo_stack.undo()
    assert {n.id: n.position for n in window.session.sop.nodes} == piled


def test_cancel_stops_the_layout_and_leaves_the_graph(window, qtbot):
    before = {n.id: n.position for n in window.session.sop.nodes}
    window.actions_by_name["layout"].trigger()
    assert window.auto_layout.running()
    assert window.auto_layout.cancel_button.isVisibleTo(window)
    with qtbot.waitSignal(window.auto_layout.job.cancelled, timeout=TIMEOUT):
        window.auto_layout.cancel_button.click()
    assert not window.auto_layout.running()
    assert not window.auto_layout.cancel_button.isVisibleTo(window)
    assert {n.id: n.position for n in window.session.sop.nodes} == before
    assert window.session.undo_stack.count() == 0
    assert "cancelled" in window.statusBar().currentMessage()


def test_a_moved_node_gets_its_edges_rerouted(window, qtbot):
    with qtbot.waitSignal(window.auto_layout.applied, timeout=TIMEOUT,
                          check_params_cb=lambda purpose: purpose == "reroute"):
        window.scene.move_requested.emit({"ok": (400.0, 250.0)})
    route = window.scene.routes["e2"]
    assert route[1] == (400.0, 250.0)  # the route is for the node where it now is
    item = window.scene.edges["e2"]
    end = item._path.pointAtPercent(1.0)
    assert abs(end.x() - 400) < item.target.width and abs(end.y() - 250) < item.target.height


def test_a_label_moves_along_its_edge_off_a_node_in_the_way(window):
    """e2 (check → ok) has a label; put a node across the middle of its route: the label
    slides along the edge to a place where it covers no node."""
    item = window.scene.edges["e2"]
    window.editor.move_nodes({"ok": (-150.0, 900.0)})  # a long edge: room along it
    middle = item._path.pointAtPercent(0.5)
    window.editor.move_nodes({"bad": (middle.x(), middle.y())})
    item.adjust()
    bad = window.scene.nodes["bad"]
    assert item.text
    assert not item._label.intersects(bad.mapRectToScene(bad.body_rect()))
