"""The picture of one SOP edge: an arrow between two node items with its condition on a label.

Forward edges are straight; edges going back up the graph bow out to the right so they do not
cut through the nodes between; parallel edges get a sideways bend. Failure edges are dashed red.
While nodes are dragged, their edges show a cheap straight preview (`preview`); the full route
(`adjust`) is computed once, on release.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (QBrush, QColor, QFontMetricsF, QPainterPath, QPainterPathStroker,
                           QPen, QPolygonF)
from PySide6.QtWidgets import QGraphicsItem, QStyle

from ...core.layout import edge_text
from . import style
from .node_item import _paint_badge

ARROW = 10.0
HIT_WIDTH = 16.0  # an edge is hit within 8 px of its line (at 100 % zoom)
LABEL_CHECK_LIMIT = 150
LABEL_PLACES = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)  # where along its route a label may go
_COS30 = math.cos(math.pi / 6)  # arrow heads: 30° either side of the line
PREVIEW_BOW = 40.0  # sideways reach of an edge going back up, while a drag previews it
LABEL_Z = 0.5  # labels: above every edge line (z 0), below the nodes (z 1)
BADGE_REACH = 12.0  # a problem badge sits on a label's top right corner, reaching out this far
_SELECTED = QGraphicsItem.ItemSelectedHasChanged
# A band this wide along every line stays off labels. The simulation's highlight is wider,
# but drawn beneath edges and their labels (it only needs the line itself to keep clear).
LABEL_CLEARANCE = 6.0
# Moves tried for such a label, smallest first (sideways cheaper than up or down).
LABEL_NUDGES = sorted(((dx, dy) for dx in range(-40, 41, 2) for dy in (-12, -8, -4, 0, 4, 8, 12)
                       if dx or dy), key=lambda d: abs(d[0]) + 1.5 * abs(d[1]))


class EdgeItem(QGraphicsItem):
    """One edge. `edge_id` is the only link to the document."""

    def __init__(self, edge_id: str, source, target):
        super().__init__()
        self.edge_id = edge_id
        self.source, self.target = source, target
        self.text = ""
        self._label_size = (0.0, 0.0)  # measured when the text changes, not on every move
        self.failure = False
        self.bend = 0.0  # sideways offset for parallel edges, set by the scene
        self.issue_severity: str | None = None
        self._path = QPainterPath()
        self._arrow = QPolygonF()
        self._label = QRectF()
        self._label_at = None
        self._bounds = QRectF()
        self._shape: QPainterPath | None = None  # made from the route when first asked
        self.label_item: EdgeLabel | None = None  # made when the edge first has a text
        self.hovered = False
        self.setFlags(QGraphicsItem.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(0)

    def refresh(self, edge) -> None:
        text = edge_text(edge)
        if text != self.text:
            self.text = text
            self._label_size = _label_size(text)
        if text and self.label_item is None:
            self.label_item = EdgeLabel(self)
            if self.scene() is not None:
                self.scene().addItem(self.label_item)
        self.failure = edge.on == "failure"
        tip = f"{edge.id}: {edge.source} → {edge.target}"
        if edge.when:
            tip += f"\nwhen {edge.when}"
        if self.failure:
            tip += "\n(on failure)"
        self.setToolTip(tip)
        if not getattr(self.scene(), "bulk", False):  # a bulk update routes every edge at its end
            self.adjust()

    def set_issue(self, severity: str | None, text: str = "") -> None:
        self.issue_severity = severity
        self.repaint_all()

    def repaint_all(self) -> None:
        """The line and the label (a look that both show changed)."""
        self.update()
        if self.label_item is not None:
            self.label_item.update()

    def itemChange(self, change, value):
        if change == _SELECTED and self.label_item is not None:
            self.label_item.update()  # the label takes the selection colour too
        return value

    # --- geometry -----------------------------------------------------------------------------
    def adjust(self) -> None:
        self._path = self._route()
        # The tangent at the end from the last control point: cheaper than pointAtPercent,
        # which dominated the cost of a drag frame.
        end = self._path.currentPosition()
        count = self._path.elementCount()
        before = end
        for index in range(count - 2, -1, -1):
            element = self._path.elementAt(index)
            before = QPointF(element.x, element.y)
            if QLineF(before, end).length() > 0.5:
                break
        self._arrow = _arrow_head(before, end)
        self._label = self._label_rect()
        self._set_bounds(self._outer_bounds())

    def preview(self) -> None:
        """A straight line between the ends, label in its middle: what an edge shows while
        one of its nodes is dragged (the full route comes on release, by `adjust`). A
        parallel edge, or one going back up, bows sideways instead, so that it does not hide
        its sibling. Plain float arithmetic: it runs for every edge of every dragged node on
        every mouse move."""
        src, dst = self.source, self.target
        a, b = src.scenePos(), dst.scenePos()
        ax, ay, bx, by = a.x(), a.y(), b.x(), b.y()
        length = math.hypot(bx - ax, by - ay)
        if src is dst or length < 1.0:
            self.adjust()  # a loop, or ends on top of each other: the usual shape
            return
        bow = self.bend or (PREVIEW_BOW if by < ay - 10 else 0.0)
        cx = (ax + bx) / 2 - (by - ay) / length * bow  # the bow's control point
        cy = (ay + by) / 2 + (bx - ax) / length * bow
        sx, sy = src.boundary_xy(ax, ay, cx, cy)
        ex, ey = dst.boundary_xy(bx, by, cx, cy)
        self._path = QPainterPath(QPointF(sx, sy))
        if bow:
            self._path.quadTo(cx, cy, ex, ey)
            mx, my = (sx + 2 * cx + ex) / 4, (sy + 2 * cy + ey) / 4
        else:
            self._path.lineTo(ex, ey)
            mx, my = (sx + ex) / 2, (sy + ey) / 2
        self._arrow = _arrow_xy(cx if bow else sx, cy if bow else sy, ex, ey)
        width, height = self._label_size
        self._label = (QRectF(mx - width / 2, my - height / 2, width, height) if self.text
                       else QRectF())
        self._set_bounds(self._outer_bounds())

    def _set_bounds(self, bounds: QRectF) -> None:
        """Tell the scene about a new bounding rect only when it changed: each telling
        re-indexes the item (and repaints its old and new area); else the same area is
        repainted, the line inside may have moved."""
        self._shape = None
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
        else:
            self.update()
        if self.label_item is not None:
            self.label_item.follow()

    def _outer_bounds(self) -> QRectF:
        pad = ARROW + 4
        return self._path.boundingRect().adjusted(-pad, -pad, pad, pad).united(
            self._label.adjusted(-12, -12, 12, 12))

    def _route(self) -> QPainterPath:
        src, dst = self.source, self.target
        self._label_at = None
        dot_path = self._dot_route()
        if dot_path is not None:
            return dot_path
        path = QPainterPath()
        if src is dst:
            return _self_loop(src)
        a, b = src.scenePos(), dst.scenePos()
        if b.y() < a.y() - 10 and not self.bend:
            return _back_edge(src, dst)
        if b.y() - a.y() > (src.height + dst.height) / 2 + 20 and not self.bend:
            return _downward(src, dst)
        mid = (a + b) / 2
        normal = _normal(a, b) * self.bend
        control = mid + normal
        start, end = src.boundary_point(control), dst.boundary_point(control)
        path.moveTo(start)
        if self.bend:
            path.quadTo(control, end)
        else:
            path.lineTo(end)
        return path

    def _dot_route(self) -> QPainterPath | None:
        """dot's own route for this edge, while both ends still sit where dot put them."""
        scene = self.scene()
        route = scene.routes.get(self.edge_id) if scene is not None else None
        if route is None:
            return None
        src_at, dst_at, points, tip, label_at = route
        if not (_near(self.source.scenePos(), src_at) and _near(self.target.scenePos(), dst_at)):
            return None
        path = QPainterPath(QPointF(*points[0]))
        for i in range(1, len(points) - 2, 3):
            path.cubicTo(QPointF(*points[i]), QPointF(*points[i + 1]), QPointF(*points[i + 2]))
        if tip is not None:
            path.lineTo(QPointF(*tip))
        self._label_at = QPointF(*label_at) if label_at else None
        return path

    def _label_rect(self) -> QRectF:
        if not self.text:
            return QRectF()
        width, height = self._label_size
        if self._label_at is not None:
            return self._beside_route(_centred(self._label_at, width, height))
        if self.source is self.target:  # beside the loop, not on it
            return _centred(self._path.pointAtPercent(0.5) + QPointF(width / 2 + 4, 0),
                            width, height)
        # Along the route, the first place where the label covers no node (labels on nodes
        # hide titles); the middle when there is none.
        first = None
        for percent in LABEL_PLACES:
            rect = _centred(self._path.pointAtPercent(percent), width, height)
            first = first or rect
            if not self._covers_a_node(rect):
                return rect
        return first

    def _beside_route(self, rect: QRectF) -> QRectF:
        """dot puts a label beside its edge, measured in its own font; ours can come out
        across the curve. Then it moves a little (the smallest step that works) so that the
        line, and the simulation's highlight along it, passes by the label, not under it —
        onto no other label, line or node (those checked in graphs of up to LABEL_CHECK_LIMIT
        nodes)."""
        line = _stroke(self._path, LABEL_CLEARANCE)
        if not line.intersects(rect):
            return rect
        near = self._neighbours(rect.adjusted(-60, -20, 60, 20))
        labels = [item._label for item in near if not item._label.isNull()]
        lines = [_stroke(item._path, LABEL_CLEARANCE) for item in near]
        for dx, dy in LABEL_NUDGES:
            moved = rect.translated(dx, dy)
            if not (line.intersects(moved) or any(moved.intersects(o) for o in labels)
                    or any(o.intersects(moved) for o in lines) or self._covers_a_node(moved)):
                return moved
        return rect

    def _neighbours(self, area: QRectF) -> list[EdgeItem]:
        """The other edges whose bounds reach into `area` (none in big graphs or in bulk)."""
        scene = self.scene()
        if scene is None or len(getattr(scene, "nodes", ())) > LABEL_CHECK_LIMIT or scene.bulk:
            return []
        return [item for item in scene.edges.values()
                if item is not self and item._bounds.intersects(area)]

    def _covers_a_node(self, rect: QRectF) -> bool:
        """Whether `rect` overlaps a node. Checked against the scene's node items directly
        (asking the scene's index while it is mid-update is unsafe), so only in graphs of up
        to LABEL_CHECK_LIMIT nodes, where that stays cheap."""
        nodes = getattr(self.scene(), "nodes", None)
        if not nodes or len(nodes) > LABEL_CHECK_LIMIT or getattr(self.scene(), "bulk", False):
            return False
        return any(rect.intersects(item.body_rect().translated(item.pos()))
                   for item in nodes.values())

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        # Hit tests (every hover move) ask each edge whose bounds hold the pointer: in a dense
        # graph, hundreds of long edges. The stroke is made once per route, not per ask.
        if self._shape is None:
            self._shape = _stroke(self._path, HIT_WIDTH)
            if not self._label.isNull():
                self._shape.addRect(self._label)
        return self._shape

    def hoverEnterEvent(self, event):
        self.hovered = True
        self.repaint_all()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event):
        self.hovered = False
        self.repaint_all()
        super().hoverLeaveEvent(event)

    # --- painting -----------------------------------------------------------------------------
    def colour(self, selected: bool) -> QColor:
        colour = style.SELECTED if selected else (style.FAILURE_EDGE if self.failure
                                                 else style.EDGE)
        return colour.darker(140) if self.hovered and not selected else colour

    def paint(self, painter, option, widget=None):
        selected = bool(option.state & QStyle.State_Selected)
        colour = self.colour(selected)
        pen = QPen(colour, 2.4 if selected or self.hovered else 1.5)
        if self.failure:
            pen.setStyle(Qt.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        painter.drawPath(self._path)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QBrush(colour))
        painter.drawPolygon(self._arrow)
        detail = option.levelOfDetailFromTransform(painter.worldTransform())
        if self.issue_severity and not self.text and detail >= style.TEXT_DETAIL:
            _paint_badge(painter, self._path.pointAtPercent(0.5), self.issue_severity)


class EdgeLabel(QGraphicsItem):
    """An edge's label and its problem badge: an item of its own, stacked above every edge
    line (and so above the simulation's highlight, which lies beneath the lines), below the
    nodes. Painted in one item with its line, a label came under any line added later. It
    takes no clicks or hovers: those reach its edge, whose shape covers the label."""

    def __init__(self, edge: EdgeItem):
        super().__init__()
        self.edge = edge
        self._bounds = QRectF()
        self.setZValue(LABEL_Z)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def follow(self) -> None:
        """The edge's label rect moved (or not): keep up with it."""
        label = self.edge._label
        bounds = QRectF() if label.isNull() else label.adjusted(-2, -BADGE_REACH, BADGE_REACH, 2)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
        else:
            self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None):
        edge = self.edge
        if not edge.text or edge._label.isNull():
            return
        detail = option.levelOfDetailFromTransform(painter.worldTransform())
        if detail < style.SECONDARY_DETAIL:
            if edge.issue_severity and detail >= style.TEXT_DETAIL:
                _paint_badge(painter, edge._label.topRight(), edge.issue_severity)
            return
        colour = edge.colour(edge.isSelected())
        painter.setPen(QPen(colour.lighter(150), 0.8))
        painter.setBrush(style.LABEL_FILL)
        painter.drawRoundedRect(edge._label, 4, 4)
        painter.setFont(style.label_font())
        painter.setPen(style.FAILURE_EDGE if edge.failure else style.TEXT)
        painter.drawText(edge._label, Qt.AlignCenter, edge.text)
        if edge.issue_severity:
            _paint_badge(painter, edge._label.topRight(), edge.issue_severity)


def _arrow_xy(from_x: float, from_y: float, x: float, y: float) -> QPolygonF:
    """`_arrow_head` in floats (drag previews): the tip at (x, y), coming from (from_x, from_y)."""
    length = math.hypot(x - from_x, y - from_y) or 1.0
    ux, uy = (x - from_x) / length * ARROW, (y - from_y) / length * ARROW
    back_x, back_y = x - ux * _COS30, y - uy * _COS30
    return QPolygonF([QPointF(x, y), QPointF(back_x - uy / 2, back_y + ux / 2),
                      QPointF(back_x + uy / 2, back_y - ux / 2)])


def _stroke(path: QPainterPath, width: float) -> QPainterPath:
    stroker = QPainterPathStroker()
    stroker.setWidth(width)
    return stroker.createStroke(path)


def _label_size(text: str) -> tuple[float, float]:
    if not text:
        return 0.0, 0.0
    metrics = QFontMetricsF(style.label_font())
    return metrics.horizontalAdvance(text) + 10, metrics.height() + 4


def _centred(centre: QPointF, width: float, height: float) -> QRectF:
    return QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height)


def _normal(a: QPointF, b: QPointF) -> QPointF:
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length = math.hypot(dx, dy) or 1.0
    return QPointF(-dy / length, dx / length)


def _near(point: QPointF, at) -> bool:
    return abs(point.x() - at[0]) < 0.6 and abs(point.y() - at[1]) < 0.6


def _downward(src, dst) -> QPainterPath:
    """Leave the bottom, enter the top, with vertical tangents (reads as a top-down flow)."""
    start = src.scenePos() + QPointF(0, src.height / 2)
    end = dst.scenePos() + QPointF(0, -dst.height / 2)
    pull = (end.y() - start.y()) / 2
    path = QPainterPath(start)
    path.cubicTo(start + QPointF(0, pull), end - QPointF(0, pull), end)
    return path


def _back_edge(src, dst) -> QPainterPath:
    """An edge to a node higher up: leave right, swing out, come back in on the right."""
    start = src.scenePos() + QPointF(src.width / 2, 0)
    end = dst.scenePos() + QPointF(dst.width / 2, 0)
    reach = max(start.x(), end.x()) + 60 + abs(start.y() - end.y()) * 0.08
    path = QPainterPath(start)
    path.cubicTo(QPointF(reach, start.y()), QPointF(reach, end.y()), end)
    return path


def _self_loop(node) -> QPainterPath:
    right = node.scenePos() + QPointF(node.width / 2, 0)
    path = QPainterPath(right + QPointF(0, -12))
    path.cubicTo(right + QPointF(55, -40), right + QPointF(55, 40), right + QPointF(0, 12))
    return path


def _arrow_head(before: QPointF, tip: QPointF) -> QPolygonF:
    line = QLineF(before, tip)
    if line.length() == 0:
        return QPolygonF()
    angle = math.atan2(-line.dy(), line.dx())
    left = tip + QPointF(math.sin(angle - math.pi / 3) * ARROW,
                         math.cos(angle - math.pi / 3) * ARROW)
    right = tip + QPointF(math.sin(angle - math.pi + math.pi / 3) * ARROW,
                          math.cos(angle - math.pi + math.pi / 3) * ARROW)
    return QPolygonF([tip, left, right])
