"""Dragging nodes: while the button is held only the edges of the moved nodes change, as a
straight preview; on release they get the same full routes as before the preview existed, and
the overview waits for the drop."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QLineF, QPointF, Qt
from PySide6.QtGui import QPainterPath

from qt_helpers import TIMEOUT, send_mouse


def _settled(window, qtbot) -> None:
    """dot's routes for the opened file have arrived: nothing re-routes behind the test."""
    qtbot.waitUntil(lambda: not window.auto_layout.running(), timeout=TIMEOUT)


def _paths(window) -> dict[str, QPainterPath]:
    return {edge_id: QPainterPath(item._path) for edge_id, item in window.scene.edges.items()}


def _press_and_move(window, node_id: str, offset: QPointF):
    item = window.scene.nodes[node_id]
    start = item.scenePos() + QPointF(0, -item.height / 4)  # on the body, not the port
    send_mouse(window.view, QEvent.MouseButtonPress, start, Qt.LeftButton)
    for step in range(1, 5):
        send_mouse(window.view, QEvent.MouseMove, start + offset * (step / 4), Qt.LeftButton)
    return start + offset


def test_during_a_drag_only_the_moved_nodes_edges_change_as_straight_lines(window, qtbot):
    _settled(window, qtbot)
    before = _paths(window)
    _press_and_move(window, "bad", QPointF(120, 60))
    assert window.scene.dragging
    after = _paths(window)
    assert after["e1"] == before["e1"] and after["e2"] == before["e2"]
    preview = window.scene.edges["e3"]  # check → bad
    assert preview._path != before["e3"]
    assert preview._path.elementCount() == 2  # one straight segment
    line = QLineF(preview._path.elementAt(0).x, preview._path.elementAt(0).y,
                  preview._path.elementAt(1).x, preview._path.elementAt(1).y)
    bad, check = window.scene.nodes["bad"], window.scene.nodes["check"]
    assert line.p1() == check.boundary_point(bad.scenePos())
    assert line.p2() == bad.boundary_point(check.scenePos())
    assert preview._label.center() == line.center()  # the label rides along, in the middle
    assert preview.boundingRect().contains(preview._path.boundingRect())


def test_on_release_the_edges_get_their_full_routes_once(window, qtbot):
    _settled(window, qtbot)
    end = _press_and_move(window, "bad", QPointF(120, 60))
    send_mouse(window.view, QEvent.MouseButtonRelease, end, Qt.NoButton)
    assert not window.scene.dragging
    released = _paths(window)
    for item in window.scene.edges.values():  # what a full re-route computes now
        item.adjust()
    assert _paths(window) == released
    assert released["e3"].elementCount() > 2  # the curved route, not the preview
    x, y = window.session.sop.node("bad").position
    assert abs(x - 270) <= 1 and abs(y - 460) <= 1
    assert window.session.undo_stack.count() == 1  # one gesture, one undo entry


def test_the_overview_is_told_of_the_drop_not_of_each_frame(window, qtbot):
    _settled(window, qtbot)
    told = []
    window.scene.content_changed.connect(lambda: told.append(window.scene.dragging))
    end = _press_and_move(window, "ok", QPointF(-80, 40))
    assert told == []
    window.view.minimap.refresh()  # a pending refresh during the drag waits for the drop
    assert window.view.minimap._timer.isActive()
    send_mouse(window.view, QEvent.MouseButtonRelease, end, Qt.NoButton)
    assert told and not any(told)


def test_an_edge_going_back_up_bows_aside_in_the_preview(window, qtbot):
    _settled(window, qtbot)
    _press_and_move(window, "ask", QPointF(0, 320))  # now below check: ask → check goes up
    preview = window.scene.edges["e1"]
    assert preview._path.elementCount() > 2  # a curve, beside any edge coming back down
    start, end = preview._path.pointAtPercent(0), preview._path.pointAtPercent(1)
    middle = preview._path.pointAtPercent(0.5)
    assert QLineF(start, end).center() != middle
