"""Readable zoom: a big imported graph (the tau2 telecom DOT export) opens at a readable scale
with its start in view; text is drawn at that scale; a screenshot fits the whole graph."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from sopstudio.core.document import Document
from sopstudio.formats import import_file
from sopstudio.qt.canvas import style
from sopstudio.qt.canvas.view import READABLE_SCALE

from qt_helpers import TAU2_DOT


def test_big_imported_graph_opens_at_a_readable_scale(qtbot, open_main_window):
    sop = import_file(str(TAU2_DOT)).sop
    assert len(sop.nodes) >= 30
    win = open_main_window(Document(sop, None))
    assert win.size().width() == 1500 and win.size().height() == 950
    rect = win.scene.itemsBoundingRect()
    qtbot.waitUntil(lambda: win.view.mapToScene(win.view.viewport().rect()).boundingRect()
                    .contains(QPointF(rect.center().x(), rect.top() + 40)))
    assert win.view.scale_factor() >= READABLE_SCALE
    # Fit again by hand: same rule, the top of the graph (where it starts) is in view.
    win.view.zoom_out()
    win.view.fit_all()
    assert win.view.scale_factor() >= READABLE_SCALE
    start = win.scene.nodes[sop.start]
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(start.sceneBoundingRect().center())
    # A screenshot asks for the whole graph, whatever the scale.
    win.view.fit_all(floor=0.0)
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(rect)


def _dark_pixels(window, scale: float) -> int:
    item = window.scene.nodes["check"]
    rect = item.sceneBoundingRect()
    image = QImage(int(rect.width() * scale) + 2, int(rect.height() * scale) + 2,
                   QImage.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    window.scene.clearSelection()
    window.scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    return sum(1 for x in range(image.width()) for y in range(image.height())
               if QColor(image.pixel(x, y)).lightness() < 90)


def test_text_is_drawn_at_the_readable_scale(window):
    assert style.TEXT_DETAIL < READABLE_SCALE / 2
    assert _dark_pixels(window, READABLE_SCALE) > 20  # the title's glyphs


def test_fit_to_window_shows_the_whole_graph_with_its_labels(qtbot, open_main_window):
    sop = import_file(str(TAU2_DOT)).sop
    win = open_main_window(Document(sop, None))
    win.actions_by_name["fit"].trigger()
    rect = win.scene.itemsBoundingRect()  # nodes, edges and edge labels
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(rect)


def test_titles_stay_readable_when_zoomed_out(window):
    """Level of detail: far out, the title alone is drawn larger (no markers or chips), so it
    is still glyphs, not specks."""
    scale = (style.TEXT_DETAIL + style.SECONDARY_DETAIL) / 2
    assert _dark_pixels(window, scale) > 20
    font = style.title_font_at(scale, 100)
    assert font.pixelSize() * scale >= style.MIN_TITLE_PX - 1
