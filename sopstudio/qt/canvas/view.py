"""The canvas view: wheel zoom around the cursor, middle-button pan, rubber-band select, fit."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QMouseEvent, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView

from . import style
from .minimap import Minimap

MIN_SCALE, MAX_SCALE = 0.05, 4.0
ZOOM_STEP = 1.2
# Fit never zooms out below this: titles and edge labels stay readable; a taller graph shows its
# top and the user scrolls. (Text is hidden only far below it: style.TEXT_DETAIL.)
READABLE_SCALE = 0.6
EMPTY_HINT = "Double-click to add a step, or paste an SOP (Ctrl+V)"


class CanvasView(QGraphicsView):
    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self._panning = False
        self.minimap = Minimap(self)

    def scale_factor(self) -> float:
        return self.transform().m11()

    def zoom(self, factor: float) -> None:
        target = min(MAX_SCALE, max(MIN_SCALE, self.scale_factor() * factor))
        factor = target / self.scale_factor()
        self.scale(factor, factor)

    def zoom_in(self) -> None:
        self.zoom(ZOOM_STEP)

    def zoom_out(self) -> None:
        self.zoom(1 / ZOOM_STEP)

    def fit_all(self, floor: float = READABLE_SCALE) -> None:
        """Fit every item, with a margin, between `floor` and 100 % (small graphs stay crisp).

        A graph too big to fit at `floor` is shown at `floor` from its top (where it starts),
        centred horizontally; `floor=0` fits everything whatever the scale (screenshots)."""
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        rect = rect.adjusted(-30, -30, 30, 30)
        self.setSceneRect(rect.united(self.scene().sceneRect()))
        self.fitInView(rect, Qt.KeepAspectRatio)
        scale = self.scale_factor()
        if scale > 1.0 or scale < floor:
            self.setTransform(QTransform.fromScale(*(2 * [min(1.0, max(scale, floor))])))
            self._show_top(rect)

    def fit_whole(self) -> None:
        """Fit to Window: the whole scene, labels included, however small (the level of detail
        keeps titles readable); never above 100 %."""
        self.fit_all(floor=0.0)

    def _show_top(self, rect: QRectF) -> None:
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if visible.height() >= rect.height():
            self.centerOn(rect.center())
        else:
            self.centerOn(rect.center().x(), rect.top() + visible.height() / 2)

    def include(self, rect: QRectF, margin: float = 600.0) -> None:
        """Grow the scrollable area so `rect` (scene) can be scrolled to and centred."""
        wanted = rect.adjusted(-margin, -margin, margin, margin)
        if not self.sceneRect().contains(wanted):
            self.setSceneRect(self.sceneRect().united(wanted))

    def center_on_item(self, item) -> None:
        self.include(item.sceneBoundingRect())
        self.ensureVisible(item.sceneBoundingRect(), 40, 40)
        self.centerOn(item)

    def drawForeground(self, painter, rect):
        """On an empty canvas, a hint on where to begin (in view coordinates, any zoom)."""
        super().drawForeground(painter, rect)
        if getattr(self.scene(), "nodes", None):
            return
        painter.save()
        painter.resetTransform()
        font = QFont()
        font.setPointSizeF(13)
        painter.setFont(font)
        painter.setPen(style.MUTED)
        painter.drawText(self.viewport().rect(), Qt.AlignCenter | Qt.TextWordWrap, EMPTY_HINT)
        painter.restore()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.minimap.place()  # stays in the corner now; its picture follows once settled
        self.minimap.schedule()

    def wheelEvent(self, event):
        if event.angleDelta().y() == 0:
            return super().wheelEvent(event)
        self.zoom(ZOOM_STEP if event.angleDelta().y() > 0 else 1 / ZOOM_STEP)
        event.accept()

    # Middle button pans: Qt's hand drag only follows the left button, so fake a left press.
    def mousePressEvent(self, event):
        if event.button() == Qt.MiddleButton:
            self._panning = True
            self.setDragMode(QGraphicsView.ScrollHandDrag)
            super().mousePressEvent(_as_left(event))
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event):
        if self._panning and event.button() == Qt.MiddleButton:
            super().mouseReleaseEvent(_as_left(event))
            self.setDragMode(QGraphicsView.RubberBandDrag)
            self._panning = False
            return
        super().mouseReleaseEvent(event)

    def grow_scene_rect(self) -> None:
        """Leave room around the graph so nodes can be dragged past its current edge."""
        rect: QRectF = self.scene().itemsBoundingRect().adjusted(-2000, -2000, 2000, 2000)
        self.setSceneRect(rect)


def _as_left(event) -> QMouseEvent:
    return QMouseEvent(event.type(), event.position(), event.globalPosition(), Qt.LeftButton,
                       Qt.LeftButton, event.modifiers())
