"""The picture of one SOP node on the canvas: a view of the document, never the model itself.

Task = rounded box (title, tool chips, ask/say markers); decision = diamond; end = pill filled by
outcome; the start node carries a green marker. The item keeps only what it needs to paint; the
scene refreshes it from the document whenever the node changes.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFontMetricsF, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyle

from ...core.layout import default_size, is_decision
from . import style

PORT_RADIUS = 6.0
# A press this close to the port, or on the band along the lower edge, starts an edge: a
# comfortable target instead of the 9 px dot (issue 12).
PORT_REACH = 12.0
EDGE_BAND = 8.0
BADGE_RADIUS = 9.0
# The START marker is its own child item stacked above every other child (simulation rings and
# highlights are children too, at lower z), so nothing is drawn over it.
START_Z = 100
_MOVED = QGraphicsItem.ItemPositionHasChanged


class NodeItem(QGraphicsItem):
    """One node. `node_id` is the only link to the document."""

    def __init__(self, node_id: str):
        super().__init__()
        self.node_id = node_id
        self.edges: list = []  # EdgeItems touching this node, kept by the scene
        self.shape_kind = "task"
        self.width, self.height = 190.0, 78.0
        self.base_tooltip = ""
        self.title = ""
        self.tools: list[str] = []
        self.markers = ""
        self.outcome = None
        self.is_start = False
        self.issue_severity: str | None = None
        self.start_marker: StartMarker | None = None
        self.port_hot = False  # the pointer is where a press starts an edge
        self._shape = None
        self.setFlags(QGraphicsItem.ItemIsSelectable | QGraphicsItem.ItemIsMovable
                      | QGraphicsItem.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)

    # --- mirroring the document -------------------------------------------------------------
    def refresh(self, node, sop) -> None:
        """Copy what the picture needs from `node`; position only when the document has one."""
        self.prepareGeometryChange()
        decision = is_decision(node, sop)
        self.shape_kind = "end" if node.kind == "end" else "decision" if decision else "task"
        self.width, self.height = default_size(node, sop)
        self.title = node.title or node.id
        self.tools = list(node.tools)
        self.markers = _markers(node)
        self.outcome = node.outcome
        self.set_start(sop.start == node.id)
        self.base_tooltip = _tooltip(node)
        self.setToolTip(self.base_tooltip)
        if node.position is not None:
            self.setPos(QPointF(*node.position))
        self.update()

    def set_start(self, is_start: bool) -> None:
        self.is_start = is_start
        if is_start and self.start_marker is None:
            self.start_marker = StartMarker(self)
        elif not is_start and self.start_marker is not None:
            self.start_marker.setParentItem(None)
            if self.scene() is not None:
                self.scene().removeItem(self.start_marker)
            self.start_marker = None
        if self.start_marker is not None:
            self.start_marker.prepareGeometryChange()

    def set_issue(self, severity: str | None, text: str = "") -> None:
        self.issue_severity = severity
        self.setToolTip(self.base_tooltip + ("\n\n" + text if text else ""))
        self.update()

    # --- geometry -----------------------------------------------------------------------------
    def body_rect(self) -> QRectF:
        return QRectF(-self.width / 2, -self.height / 2, self.width, self.height)

    def boundingRect(self) -> QRectF:
        return self.body_rect().adjusted(-16, -16, 16, 16)

    def shape(self) -> QPainterPath:
        key = (self.shape_kind, self.width, self.height)
        if self._shape is None or self._shape[0] != key:  # hit tests ask often: cache it
            self._shape = (key, self._outline())
        return self._shape[1]

    def _outline(self) -> QPainterPath:
        path = QPainterPath()
        path.setFillRule(Qt.WindingFill)  # overlapping parts stay inside (odd-even drops them)
        if self.shape_kind == "decision":
            path.addPolygon(self._diamond())
        else:
            path.addRoundedRect(self.body_rect(), 10, 10)
        if self.shape_kind != "end":
            path.addEllipse(self.port_center(), PORT_REACH, PORT_REACH)
            path.addRect(self._lower_band())
        return path.simplified()

    def port_center(self) -> QPointF:
        return QPointF(0, self.height / 2)

    def _lower_band(self) -> QRectF:
        """The strip along the lower edge (inside and just outside) that starts an edge."""
        half = self.width / 2 - (self.width * 0.3 if self.shape_kind == "decision" else 10)
        return QRectF(-half, self.height / 2 - EDGE_BAND, 2 * half, 2 * EDGE_BAND)

    def on_port(self, local: QPointF) -> bool:
        if self.shape_kind == "end":
            return False
        delta = local - self.port_center()
        near = delta.x() ** 2 + delta.y() ** 2 <= PORT_REACH ** 2
        return near or self._lower_band().contains(local)

    def hoverMoveEvent(self, event):
        hot = self.on_port(event.pos())
        if hot != self.port_hot:
            self.port_hot = hot
            self.setCursor(Qt.CrossCursor if hot else Qt.ArrowCursor)
            self.update()
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event):
        if self.port_hot:
            self.port_hot = False
            self.unsetCursor()
            self.update()
        super().hoverLeaveEvent(event)

    def boundary_point(self, toward: QPointF) -> QPointF:
        """Where the straight line from the centre towards `toward` (scene) leaves the shape."""
        centre = self.scenePos()
        return QPointF(*self.boundary_xy(centre.x(), centre.y(), toward.x(), toward.y()))

    def boundary_xy(self, x: float, y: float, to_x: float, to_y: float) -> tuple[float, float]:
        """`boundary_point` in plain floats, for the centre (x, y): drag previews call it for
        every edge on every mouse move."""
        dx, dy = to_x - x, to_y - y
        if dx == 0 and dy == 0:
            return x, y
        half_w, half_h = self.width / 2, self.height / 2
        if self.shape_kind == "decision":
            scale = 1.0 / (abs(dx) / half_w + abs(dy) / half_h)
        else:
            scale = min(half_w / abs(dx) if dx else 1e9, half_h / abs(dy) if dy else 1e9)
        return x + dx * scale, y + dy * scale

    def _diamond(self) -> QPolygonF:
        w, h = self.width / 2, self.height / 2
        return QPolygonF([QPointF(0, -h), QPointF(w, 0), QPointF(0, h), QPointF(-w, 0)])

    def itemChange(self, change, value):
        # Called for every flag, tooltip, z and position set on the item (a dozen per node while
        # a graph is built): QGraphicsItem's own version returns `value`, so we do, in Python.
        if change == _MOVED:
            scene = self.scene()
            if getattr(scene, "dragging", False):  # previewed once per frame by the scene
                scene.drag_edges.update(self.edges)
            elif not getattr(scene, "bulk", False):
                for edge in self.edges:
                    edge.adjust()
        return value

    # --- interaction: a press on the port starts a connection instead of a move ---------------
    def mousePressEvent(self, event):
        if event.button() == Qt.LeftButton and self.on_port(event.pos()) and self.scene():
            self.scene().begin_connection(self, event.scenePos())
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        scene = self.scene()
        if scene is not None and scene.connecting_from is self:
            scene.update_connection(event.scenePos())
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event):
        scene = self.scene()
        if scene is not None and scene.connecting_from is self:
            scene.finish_connection(event.scenePos())
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event):
        if self.scene() is not None:
            self.scene().node_activated.emit(self.node_id)
        event.accept()

    # --- painting -----------------------------------------------------------------------------
    def paint(self, painter, option, widget=None):
        selected = bool(option.state & QStyle.State_Selected)
        detail = option.levelOfDetailFromTransform(painter.worldTransform())
        self._paint_body(painter, selected)
        if detail < style.TEXT_DETAIL:  # zoomed far out: the shape alone, text is mere specks
            return
        painter.setPen(style.TEXT)
        if detail < style.SECONDARY_DETAIL:  # zoomed out: a larger title, nothing else
            self._paint_centered_title(painter, style.title_font_at(
                detail, (self.height - 8) / (2.6 if self.shape_kind == "task" else 3.2)))
        elif self.shape_kind == "task":
            self._paint_task_text(painter)
        else:
            self._paint_centered_title(painter)
        if self.shape_kind != "end":
            self._paint_port(painter)
        if self.issue_severity:
            _paint_badge(painter, QPointF(self.width / 2 - 2, -self.height / 2 + 2),
                         self.issue_severity)

    def _paint_body(self, painter, selected: bool) -> None:
        rect = self.body_rect()
        if self.shape_kind == "end":
            fill, border = style.outcome_fill(self.outcome), style.END_BORDER
        elif self.shape_kind == "decision":
            fill, border = style.DECISION_FILL, style.DECISION_BORDER
        else:
            fill, border = style.TASK_FILL, style.TASK_BORDER
        painter.setBrush(QBrush(fill))
        painter.setPen(QPen(style.SELECTED if selected else border, 3.0 if selected else 1.6))
        if self.shape_kind == "decision":
            painter.drawPolygon(self._diamond())
        elif self.shape_kind == "end":
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.setPen(QPen(border, 1.0))
            inner = rect.adjusted(3, 3, -3, -3)
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(inner, inner.height() / 2, inner.height() / 2)
        else:
            painter.drawRoundedRect(rect, 10, 10)

    def _paint_task_text(self, painter) -> None:
        rect = self.body_rect().adjusted(10, 6, -10, -6)
        painter.setFont(style.title_font())
        metrics = QFontMetricsF(painter.font())
        title_rect = QRectF(rect.left(), rect.top(), rect.width(), metrics.height() * 2 + 2)
        painter.drawText(title_rect, Qt.AlignHCenter | Qt.AlignTop,
                         _elide_two_lines(self.title, metrics, rect.width()))
        painter.setFont(style.small_font())
        small = QFontMetricsF(painter.font())
        y = rect.bottom() - small.height() - (small.height() + 6 if self.tools else 0)
        if self.markers:
            painter.setPen(style.MUTED)
            painter.drawText(QRectF(rect.left(), y, rect.width(), small.height()),
                             Qt.AlignHCenter, small.elidedText(self.markers, Qt.ElideRight,
                                                               rect.width()))
        if self.tools:
            self._paint_chips(painter, small, rect)

    def _paint_chips(self, painter, metrics, rect) -> None:
        y, x = rect.bottom() - metrics.height() - 2, rect.left()
        for index, name in enumerate(self.tools):
            text = metrics.elidedText(name, Qt.ElideRight, 120)
            width = metrics.horizontalAdvance(text) + 10
            more = f"+{len(self.tools) - index}"
            if x + width > rect.right() - (metrics.horizontalAdvance(more) + 6) and index:
                painter.setPen(style.CHIP_TEXT)
                painter.drawText(QRectF(x, y, rect.right() - x, metrics.height() + 2),
                                 Qt.AlignLeft | Qt.AlignVCenter, more)
                return
            chip = QRectF(x, y, min(width, rect.right() - x), metrics.height() + 2)
            painter.setPen(Qt.NoPen)
            painter.setBrush(style.CHIP_FILL)
            painter.drawRoundedRect(chip, 4, 4)
            painter.setPen(style.CHIP_TEXT)
            painter.drawText(chip, Qt.AlignCenter, text)
            x += chip.width() + 4

    def _paint_centered_title(self, painter, font=None) -> None:
        painter.setFont(font or style.title_font())
        metrics = QFontMetricsF(painter.font())
        inset = self.width * (0.19 if self.shape_kind == "decision" else 0.08)
        rect = self.body_rect().adjusted(inset, 4, -inset, -4)
        painter.drawText(rect, Qt.AlignCenter,
                         _elide_two_lines(self.title, metrics, rect.width()))

    def _paint_port(self, painter) -> None:
        if self.port_hot:  # hover: the port grows and takes the selection colour
            painter.setPen(QPen(style.SELECTED, 2.0))
            painter.setBrush(QBrush(style.SELECTED.lighter(160)))
            painter.drawEllipse(self.port_center(), PORT_RADIUS + 1.5, PORT_RADIUS + 1.5)
            return
        painter.setPen(QPen(style.EDGE, 1.0))
        painter.setBrush(QBrush(style.BACKGROUND))
        painter.drawEllipse(self.port_center(), PORT_RADIUS - 1.5, PORT_RADIUS - 1.5)



class StartMarker(QGraphicsItem):
    """The green START arrow and word above the start node's top edge (a child of its item)."""

    def __init__(self, node_item: NodeItem):
        super().__init__(node_item)
        self.setAcceptedMouseButtons(Qt.NoButton)  # clicks go to the node
        self.setZValue(START_Z)

    def boundingRect(self) -> QRectF:
        node = self.parentItem()
        return QRectF(-node.width / 2, -node.height / 2 - 16, node.width / 2 + 8, 16)

    def paint(self, painter, option, widget=None):
        if option.levelOfDetailFromTransform(painter.worldTransform()) < style.TEXT_DETAIL:
            return
        node = self.parentItem()
        top = QPointF(0, -node.height / 2)
        painter.setPen(Qt.NoPen)
        painter.setBrush(style.START_COLOR)
        painter.drawPolygon(QPolygonF([top + QPointF(-7, -13), top + QPointF(7, -13),
                                       top + QPointF(0, -2)]))
        painter.setFont(style.small_font())
        label = QRectF(-node.width / 2 + 8, top.y() - 15, 44, 14)
        painter.setBrush(QBrush(style.BACKGROUND))  # stays legible over a ring drawn below
        painter.drawRoundedRect(label.adjusted(-3, 0, 3, 0), 3, 3)
        painter.setPen(style.START_COLOR)
        painter.drawText(label, Qt.AlignLeft | Qt.AlignVCenter, "START")


def _paint_badge(painter, centre: QPointF, severity: str) -> None:
    painter.setPen(QPen(style.BACKGROUND, 1.5))
    painter.setBrush(style.ERROR if severity == "error" else style.WARNING)
    painter.drawEllipse(centre, BADGE_RADIUS, BADGE_RADIUS)
    painter.setPen(style.BACKGROUND)
    painter.setFont(style.title_font())
    painter.drawText(QRectF(centre.x() - BADGE_RADIUS, centre.y() - BADGE_RADIUS,
                            2 * BADGE_RADIUS, 2 * BADGE_RADIUS), Qt.AlignCenter, "!")


def _elide_two_lines(text: str, metrics: QFontMetricsF, width: float) -> str:
    """Word-wrap into at most two lines; what does not fit ends in an ellipsis."""
    lines, current = [], ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if metrics.horizontalAdvance(trial) <= width or not current:
            current = trial
        else:
            lines.append(current)
            current = word
    lines.append(current)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    return "\n".join(metrics.elidedText(line, Qt.ElideRight, width) for line in lines)


def _markers(node) -> str:
    parts = []
    if node.kind == "subflow" and node.subflow:
        parts.append("⤷ " + node.subflow)  # the child file (double-click opens it)
    if node.ask:
        parts.append("? " + ", ".join(node.ask))
    if node.say:
        parts.append("» says")
    if node.set:
        parts.append("= " + ", ".join(node.set))
    return "   ".join(parts)


def _tooltip(node) -> str:
    lines = [f"{node.title or node.id}  ({node.id})"]
    if node.instructions:
        lines.append(node.instructions[:200])
    if node.ask:
        lines.append("asks: " + ", ".join(node.ask))
    if node.tools:
        lines.append("tools: " + ", ".join(node.tools))
    if node.say:
        lines.append("says: " + node.say[:200])
    if node.kind == "subflow" and node.subflow:
        lines.append(f"sub-SOP: {node.subflow} (double-click to open it)")
    return "\n".join(lines)
