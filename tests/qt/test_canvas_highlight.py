"""The simulation's path highlight and edge labels: the highlight follows edges when they take
new routes without a document change (dot's answer after a move), and labels dot placed sit
clear of every line, above the highlight (the subflow fixture's exit edge had its label across
its own route)."""

from __future__ import annotations

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.qt.canvas.edge_item import LABEL_CLEARANCE, _stroke

from qt_helpers import FIXTURES, TIMEOUT

PARENT = FIXTURES / "subflows" / "refund.sop.json"
RUN = {"node": "refunded", "done": True, "path": ["ask_order", "verify", "refund", "refunded"],
       "edges": ["e1", "e2", "e4"]}


def _open_routed(open_main_window, qtbot):
    """The parent SOP (no positions: dot lays it out and routes every edge)."""
    win = open_main_window(Document(load_sop(PARENT), PARENT), simulation=True)
    qtbot.waitUntil(lambda: len(win.scene.routes) == len(win.scene.edges), timeout=TIMEOUT)
    return win


def _halos_follow_routes(win) -> bool:
    marks = win.simulation.overlay.edge_marks
    return all(mark.path() == win.scene.edges[edge_id].mapToScene(
        win.scene.edges[edge_id].shape()) for edge_id, mark in marks.items())


def test_the_highlight_is_redrawn_when_dot_reroutes_a_moved_nodes_edges(open_main_window,
                                                                       qtbot):
    win = _open_routed(open_main_window, qtbot)
    win.simulation.overlay.show_run(RUN)
    assert set(win.simulation.overlay.edge_marks) == {"e1", "e2", "e4"}
    refund = win.session.sop.node("refund").position
    with qtbot.waitSignal(win.auto_layout.applied, timeout=TIMEOUT,
                          check_params_cb=lambda purpose: purpose == "reroute"):
        win.scene.move_requested.emit({"refund": (refund[0] - 80, refund[1] + 40)})
    assert "e2" in win.scene.routes  # e2 took dot's new route, the document did not change
    assert _halos_follow_routes(win)


def test_labels_sit_clear_of_every_line_and_of_each_other(open_main_window, qtbot):
    win = _open_routed(open_main_window, qtbot)
    edges = list(win.scene.edges.values())
    labelled = [item for item in edges if item.text]
    assert {item.edge_id for item in labelled} == {"e2", "e3"}
    for item in labelled:
        for other in edges:  # no line across a label
            assert not _stroke(other._path, LABEL_CLEARANCE).intersects(item._label), \
                (item.edge_id, other.edge_id)
        for other in labelled:
            assert other is item or not other._label.intersects(item._label)


def test_the_highlight_is_drawn_beneath_edges_and_their_labels(open_main_window, qtbot):
    win = _open_routed(open_main_window, qtbot)
    win.simulation.overlay.show_run(RUN)
    marks = win.simulation.overlay.edge_marks
    assert marks and all(mark.zValue() < win.scene.edges["e3"].zValue()
                         for mark in marks.values())


def test_labels_are_stacked_above_every_line_and_belong_to_their_edge(window):
    from PySide6.QtCore import QEvent, Qt

    from sopstudio.core.edits import RemoveEdge
    from qt_helpers import send_mouse
    scene = window.scene
    label = scene.edges["e2"].label_item
    assert label is not None and label.scene() is scene
    assert all(label.zValue() > item.zValue() for item in scene.edges.values())
    assert label.zValue() < min(item.zValue() for item in scene.nodes.values())
    assert label.boundingRect().contains(scene.edges["e2"]._label)
    scene.clearSelection()
    centre = scene.edges["e2"]._label.center()
    send_mouse(window.view, QEvent.MouseButtonPress, centre, Qt.LeftButton)
    send_mouse(window.view, QEvent.MouseButtonRelease, centre, Qt.NoButton)
    assert scene.selected_ids() == ([], ["e2"])  # a click on the label selects its edge
    window.session.push(RemoveEdge("e2"))
    assert label.scene() is None  # gone with its edge
