"""Hit targets: a press near a port or on a node's lower edge starts an edge, an edge is hit
a few pixels off its line, and hovering shows what a press would do."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt

from sopstudio.qt.canvas.edge_item import EdgeItem

from qt_helpers import drag, send_mouse


def _edges_between(window, source, target):
    return [e for e in window.session.sop.edges if (e.source, e.target) == (source, target)]


def test_a_press_just_outside_the_port_starts_an_edge(window):
    ask = window.scene.nodes["ask"]
    below_port = ask.scenePos() + ask.port_center() + QPointF(0, 8)  # outside the node body
    assert not ask.body_rect().contains(ask.mapFromScene(below_port))
    drag(window.view, below_port, window.scene.nodes["bad"].scenePos())
    assert len(_edges_between(window, "ask", "bad")) == 1
    assert window.scene.connecting_from is None


def test_dragging_from_the_lower_edge_away_from_the_port_starts_an_edge(window):
    ask = window.scene.nodes["ask"]
    on_edge = ask.scenePos() + QPointF(-ask.width / 4, ask.height / 2 - 3)
    drag(window.view, on_edge, window.scene.nodes["ok"].scenePos())
    assert len(_edges_between(window, "ask", "ok")) == 1
    assert ask.pos() == QPointF(0, 0)  # the node itself did not move


def test_a_press_in_the_middle_still_moves_the_node(window):
    ask = window.scene.nodes["ask"]
    start = ask.scenePos()
    drag(window.view, start, start + QPointF(60, 20))
    x, y = window.session.sop.node("ask").position
    assert abs(x - 60) <= 1 and abs(y - 20) <= 1  # view pixels map to scene units
    assert len(window.session.sop.edges) == 3


def test_an_edge_is_hit_a_few_pixels_off_its_line(window):
    item = window.scene.edges["e1"]
    middle = item._path.pointAtPercent(0.5)
    assert not item.text  # e1 has no label: the line itself is the target
    off = middle + QPointF(7, 0)
    hits = [i for i in window.scene.items(off) if isinstance(i, EdgeItem)]
    assert hits == [item]
    send_mouse(window.view, QEvent.MouseButtonPress, off, Qt.LeftButton)
    send_mouse(window.view, QEvent.MouseButtonRelease, off, Qt.NoButton)
    assert window.scene.selected_ids() == ([], ["e1"])


def test_hovering_the_port_highlights_it(window, qtbot):
    ask = window.scene.nodes["ask"]
    away = ask.scenePos()
    send_mouse(window.view, QEvent.MouseMove, away, Qt.NoButton)
    assert not ask.port_hot
    send_mouse(window.view, QEvent.MouseMove, ask.scenePos() + ask.port_center(), Qt.NoButton)
    qtbot.waitUntil(lambda: ask.port_hot)
    send_mouse(window.view, QEvent.MouseMove, away, Qt.NoButton)
    qtbot.waitUntil(lambda: not ask.port_hot)
