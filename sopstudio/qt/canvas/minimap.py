"""An overview of a big graph in the canvas's lower right corner: every node as a small box and
every edge as a line, with the part the canvas shows outlined; a click or drag there moves the
canvas.

It does not draw the canvas's items (painting thousands of items, their text and curves, at
that scale is what made opening a big graph slow): it views an empty scene of its own, in the
canvas's scene coordinates, and paints a picture taken from the items' positions — a few calls
of `drawRects` / `drawLines` whatever the size of the graph. The picture is retaken at most
every REFRESH_MS after the graph or the canvas's scroll position changed, and never during a
drag of nodes (the drop changes the document, which refreshes it).
"""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QLineF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView

from . import style

SIZE = (220, 160)
REFRESH_MS = 250
MARGIN = 20.0


class Minimap(QGraphicsView):
    def __init__(self, canvas):
        super().__init__(canvas)
        self.setScene(QGraphicsScene(self))  # empty: only the coordinates and the frame
        self.canvas = canvas
        self.graph = canvas.scene()
        self.setObjectName("minimap")
        self.setFixedSize(*SIZE)
        self.setFrameShape(QFrame.Box)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setInteractive(False)
        self.setRenderHints(QPainter.Antialiasing)
        self.setToolTip("Overview: click or drag to move the canvas")
        self._boxes: dict[tuple[str, str], list[QRectF]] = {}  # (fill, border) → node boxes
        self._lines: list[QLineF] = []
        self._rect = QRectF()  # the nodes' extent, in scene coordinates
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self.graph.content_changed.connect(self.schedule)
        canvas.horizontalScrollBar().valueChanged.connect(self.schedule)
        canvas.verticalScrollBar().valueChanged.connect(self.schedule)
        self.hide()

    def schedule(self, *_) -> None:
        """Refresh once things have settled (each new call pushes the refresh back)."""
        self._timer.start()

    def refresh(self) -> None:
        """Show when the graph does not fit in the canvas; fit the whole graph."""
        if self.graph.dragging:  # after the drop, not per frame
            self._timer.start()
            return
        self._take_picture()
        seen = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
        wanted = not self._rect.isEmpty() and not seen.contains(self._rect)
        self.setVisible(wanted)
        if wanted:
            framed = self._rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
            self.setSceneRect(framed)
            self.fitInView(framed, Qt.KeepAspectRatio)
            self.place()
            self.viewport().update()

    def _take_picture(self) -> None:
        """Node boxes grouped by colours, edges as lines between node centres."""
        boxes, centres = defaultdict(list), {}
        rect = QRectF()
        for item in self.graph.nodes.values():
            centre = centres[item] = item.pos()
            box = QRectF(centre.x() - item.width / 2, centre.y() - item.height / 2, item.width,
                         item.height)
            boxes[_colours(item)].append(box)
            rect = rect.united(box)
        self._boxes, self._rect = dict(boxes), rect
        self._lines = [QLineF(centres[edge.source], centres[edge.target])
                       for edge in self.graph.edges.values()]

    def place(self) -> None:
        area = self.canvas.viewport().geometry()
        self.move(area.right() - SIZE[0] - 8, area.bottom() - SIZE[1] - 8)

    def drawBackground(self, painter, rect):
        painter.fillRect(rect, style.BACKGROUND)
        painter.setPen(QPen(style.EDGE, 0))  # cosmetic: 1 px at any scale
        painter.drawLines(self._lines)
        for (fill, border), boxes in self._boxes.items():
            painter.setPen(QPen(QColor(border), 0))
            painter.setBrush(QColor(fill))
            painter.drawRects(boxes)

    def drawForeground(self, painter, rect):
        seen = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
        painter.setPen(QPen(QColor("#ff8c1a"), 0))
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


def _colours(node) -> tuple[str, str]:
    """A node's fill and border as in the canvas (names: hashable, read at each picture, so a
    theme change shows with the next one)."""
    if node.shape_kind == "end":
        return style.outcome_fill(node.outcome).name(), style.END_BORDER.name()
    if node.shape_kind == "decision":
        return style.DECISION_FILL.name(), style.DECISION_BORDER.name()
    return style.TASK_FILL.name(), style.TASK_BORDER.name()
