"""An overview of a big graph in the canvas's lower right corner: the whole scene, small, with
the part the canvas shows outlined; a click or drag there moves the canvas.

It draws the same scene (shapes only at that scale, by the items' level of detail) and
repaints at most every REFRESH_MS after the graph or the canvas's scroll position changed, and
never during a drag of nodes (the drop changes the document, which refreshes it), so dragging
on a big graph is not slowed by it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsView

SIZE = (220, 160)
REFRESH_MS = 250


class Minimap(QGraphicsView):
    def __init__(self, canvas):
        super().__init__(canvas.scene(), canvas)
        self.canvas = canvas
        self.setObjectName("minimap")
        self.setFixedSize(*SIZE)
        self.setFrameShape(QFrame.Box)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setInteractive(False)
        self.setViewportUpdateMode(QGraphicsView.NoViewportUpdate)  # the timer repaints
        self.setRenderHints(QPainter.Antialiasing)
        self.setToolTip("Overview: click or drag to move the canvas")
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        canvas.scene().content_changed.connect(self.schedule)
        canvas.horizontalScrollBar().valueChanged.connect(self.schedule)
        canvas.verticalScrollBar().valueChanged.connect(self.schedule)
        self.hide()

    def schedule(self, *_) -> None:
        """Refresh once things have settled (each new call pushes the refresh back)."""
        self._timer.start()

    def refresh(self) -> None:
        """Show when the graph does not fit in the canvas; fit the whole graph."""
        if getattr(self.scene(), "dragging", False):  # after the drop, not per frame
            self._timer.start()
            return
        rect = self.scene().itemsBoundingRect()
        seen = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
        wanted = not rect.isEmpty() and not seen.contains(rect)
        self.setVisible(wanted)
        if wanted:
            self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.KeepAspectRatio)
            self.place()
            self.viewport().update()

    def place(self) -> None:
        area = self.canvas.viewport().geometry()
        self.move(area.right() - SIZE[0] - 8, area.bottom() - SIZE[1] - 8)

    def drawForeground(self, painter, rect):
        seen = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
        painter.setPen(QPen(QColor("#ff8c1a"), 0))  # cosmetic: 1 px at any scale
        painter.setBrush(QColor(255, 140, 26, 40))
        painter.drawRect(QRectF(seen))

    def mousePressEvent(self, event):
        self._follow(event)

    def mouseMoveEvent(self, event):
        if event.buttons() & Qt.LeftButton:
            self._follow(event)

    def _follow(self, event) -> None:
        self.canvas.centerOn(self.mapToScene(event.position().toPoint()))
        self.refresh()
