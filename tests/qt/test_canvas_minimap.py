"""The overview: shown when the graph does not fit the canvas, hidden when it does; a click on
it moves the canvas there."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def test_minimap_appears_for_a_graph_larger_than_the_canvas_and_moves_it(window, qtbot):
    minimap = window.view.minimap
    window.actions_by_name["fit"].trigger()
    minimap.refresh()
    assert not minimap.isVisible()  # the small graph fits: no overview
    window.view.resetTransform()
    window.view.scale(3.0, 3.0)
    minimap.refresh()
    assert minimap.isVisible()
    target = window.scene.nodes["bad"].scenePos()
    QTest.mouseClick(minimap.viewport(), Qt.LeftButton, Qt.NoModifier,
                     minimap.mapFromScene(target))
    centre = window.view.mapToScene(window.view.viewport().rect().center())
    assert (centre - target).manhattanLength() < 40
