"""Toolbar icons: the canvas's own shapes (task, decision, end) painted in its colours, and the
platform's standard icons for the rest (Qt ships them, so nothing is looked up on disk)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QApplication, QStyle

from . import style

SIZE = 32
STANDARD = {"new": QStyle.SP_FileIcon, "open": QStyle.SP_DialogOpenButton,
            "save": QStyle.SP_DialogSaveButton, "undo": QStyle.SP_ArrowBack,
            "redo": QStyle.SP_ArrowForward, "layout": QStyle.SP_BrowserReload,
            "find": QStyle.SP_FileDialogContentsView}


def icon(name: str) -> QIcon | None:
    """The icon of the action called `name`, or None."""
    if name in STANDARD:
        return QApplication.style().standardIcon(STANDARD[name])
    painter_of = {"add_task": _task, "add_decision": _decision, "add_end": _end,
                  "fit": _fit, "zoom_in": _zoom_in, "zoom_out": _zoom_out}.get(name)
    if painter_of is None:
        return None
    pixmap = QPixmap(SIZE, SIZE)
    pixmap.fill(Qt.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing)
    painter_of(painter)
    painter.end()
    return QIcon(pixmap)


def _task(p: QPainter) -> None:
    p.setPen(QPen(style.LIGHT["TASK_BORDER"], 2))
    p.setBrush(style.LIGHT["TASK_FILL"])
    p.drawRoundedRect(QRectF(3, 8, 26, 16), 4, 4)
    _plus(p)


def _decision(p: QPainter) -> None:
    p.setPen(QPen(style.LIGHT["DECISION_BORDER"], 2))
    p.setBrush(style.LIGHT["DECISION_FILL"])
    p.drawPolygon(QPolygonF([QPointF(16, 3), QPointF(29, 16), QPointF(16, 29), QPointF(3, 16)]))
    _plus(p)


def _end(p: QPainter) -> None:
    p.setPen(QPen(QColor("#555555"), 2))
    p.setBrush(QColor("#dff3e3"))
    p.drawRoundedRect(QRectF(3, 10, 26, 12), 6, 6)
    _plus(p)


def _plus(p: QPainter) -> None:
    p.setPen(QPen(QColor("#2e9d4f"), 3))
    p.drawLine(QPointF(24, 22), QPointF(24, 31))
    p.drawLine(QPointF(19.5, 26.5), QPointF(28.5, 26.5))


def _fit(p: QPainter) -> None:
    p.setPen(QPen(QColor("#4a76a8"), 2.5))
    for x, y, dx, dy in ((3, 3, 1, 1), (29, 3, -1, 1), (3, 29, 1, -1), (29, 29, -1, -1)):
        p.drawLine(QPointF(x, y), QPointF(x + 8 * dx, y))
        p.drawLine(QPointF(x, y), QPointF(x, y + 8 * dy))
    p.setBrush(QColor("#eef4fb"))
    p.drawRoundedRect(QRectF(10, 11, 12, 10), 2, 2)


def _lens(p: QPainter) -> None:
    p.setPen(QPen(QColor("#56606b"), 2.5))
    p.setBrush(Qt.NoBrush)
    p.drawEllipse(QRectF(3, 3, 18, 18))
    p.setPen(QPen(QColor("#56606b"), 4, Qt.SolidLine, Qt.RoundCap))
    p.drawLine(QPointF(19, 19), QPointF(28, 28))
    p.setPen(QPen(QColor("#56606b"), 2.5))


def _zoom_in(p: QPainter) -> None:
    _lens(p)
    p.drawLine(QPointF(8, 12), QPointF(16, 12))
    p.drawLine(QPointF(12, 8), QPointF(12, 16))


def _zoom_out(p: QPainter) -> None:
    _lens(p)
    p.drawLine(QPointF(8, 12), QPointF(16, 12))
