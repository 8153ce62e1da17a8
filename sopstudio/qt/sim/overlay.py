"""Simulation marks on the canvas: current node, path taken, failures, and the coverage overlay.

The editor's items know nothing about simulation. We draw separate overlay items looked up by id
through the scene's `nodes` / `edges` dicts: a ring around a node (a child of its item, so it
follows drags) and a halo under an edge (recomputed from the edge's shape on every refresh).
Colours and counts live here, in the view layer; the document holds no view state.
"""

from __future__ import annotations


from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen
from shiboken6 import isValid
from PySide6.QtWidgets import (QFrame, QGraphicsItem, QGraphicsPathItem, QHBoxLayout, QLabel,
                               QVBoxLayout, QWidget)

from ...core.subflows import SEPARATOR, owner_id

CURRENT = QColor("#ff8c1a")
PATH = QColor("#2f7ed8")
FAILED = QColor("#d93025")
HEAT = [QColor("#cfe3f7"), QColor("#8cbfe8"), QColor("#3f8fd2"), QColor("#1b5fa3")]
UNVISITED = QColor("#b9bec5")
RING = 7.0


def heat_colour(count: int, most: int) -> QColor:
    """Light to dark blue by share of the busiest item; grey for never visited."""
    if count <= 0 or most <= 0:
        return UNVISITED
    share = count / most
    return HEAT[min(len(HEAT) - 1, int(share * len(HEAT) - 1e-9))]


class NodeMark(QGraphicsItem):
    """A ring drawn around a node item (its child); an optional count badge."""

    def __init__(self, node_item):
        super().__init__(node_item)
        self.setAcceptedMouseButtons(Qt.NoButton)  # clicks go to the node below
        self.setZValue(10)
        self.colour, self.width, self.dashed, self.badge = CURRENT, 4.0, False, ""

    def _outline(self) -> QPainterPath:
        node = self.parentItem()
        body = node.body_rect().adjusted(-RING, -RING, RING, RING)
        path = QPainterPath()
        if node.shape_kind == "decision":
            c, w, h = body.center(), body.width() / 2, body.height() / 2
            path.moveTo(c.x(), c.y() - h)
            path.lineTo(c.x() + w, c.y())
            path.lineTo(c.x(), c.y() + h)
            path.lineTo(c.x() - w, c.y())
            path.closeSubpath()
        else:
            path.addRoundedRect(body, 14, 14)
        return path

    def boundingRect(self) -> QRectF:
        # Room on the right for a badge wider than half the node (see _paint_badge).
        return self.parentItem().body_rect().adjusted(-RING - 4, -RING - 13, RING + 140, RING + 4)

    def set_look(self, colour: QColor, width: float, dashed: bool = False, badge: str = ""):
        self.prepareGeometryChange()
        self.colour, self.width, self.dashed, self.badge = colour, width, dashed, badge
        self.update()

    def paint(self, painter, option, widget=None):
        pen = QPen(self.colour, self.width)
        pen.setStyle(Qt.DashLine if self.dashed else Qt.SolidLine)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        painter.drawPath(self._outline())
        if self.badge:
            self._paint_badge(painter)

    def _paint_badge(self, painter) -> None:
        """The count on the ring's top-right corner, straddling the ring line so it stays
        clear of edge labels just above the node (the start marker is top-left)."""
        font = QFont()
        font.setPointSizeF(8.0)
        font.setBold(True)
        painter.setFont(font)
        width = QFontMetricsF(font).horizontalAdvance(self.badge) + 14
        rect = self.parentItem().body_rect()
        # Never left of the centre: the start marker sits on the top middle of the first node.
        left = max(rect.right() + RING - width, rect.center().x() + 14)
        box = QRectF(left, rect.top() - RING - 9, width, 18)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QBrush(self.colour))
        painter.drawRoundedRect(box, 9, 9)
        painter.setPen(QColor("white") if self.colour.lightness() < 150 else QColor("#1d2733"))
        painter.drawText(box, Qt.AlignCenter, self.badge)


class SimOverlay:
    """Owns the marks on one scene; `show_run` for a live run, `show_coverage` for a batch."""

    def __init__(self, scene):
        self.scene = scene
        self.node_marks: dict[str, NodeMark] = {}
        self.edge_marks: dict[str, QGraphicsPathItem] = {}
        self.current_node: str | None = None
        self.path_edges: list[str] = []
        self.failed_nodes: list[str] = []
        self.failed_edges: list[str] = []
        self.coverage: dict | None = None
        self.coverage_visible = False
        self._run: dict | None = None

    # -- public -------------------------------------------------------------------------------
    def show_run(self, snapshot: dict | None) -> None:
        """Mark the current node, the path taken so far and what failed (None clears)."""
        self._run = on_parent_run(snapshot) if snapshot else snapshot
        self.refresh()

    def set_coverage(self, coverage: dict | None) -> None:
        self.coverage = on_parent_coverage(coverage) if coverage else coverage
        self.refresh()

    def set_coverage_visible(self, visible: bool) -> None:
        self.coverage_visible = visible
        self.refresh()

    def clear(self) -> None:
        for mark in [*self.node_marks.values(), *self.edge_marks.values()]:
            # The scene may have been rebuilt (items deleted on the C++ side) since we drew.
            if isValid(mark) and mark.scene() is not None:
                mark.scene().removeItem(mark)
        self.node_marks, self.edge_marks = {}, {}

    def refresh(self) -> None:
        """Re-draw every mark from the current state (also after the document changed)."""
        self.clear()
        if self.coverage_visible and self.coverage:
            self._draw_coverage(self.coverage)
        run = self._run or {}
        self.current_node = None if run.get("done") else run.get("node")
        self.path_edges = list(run.get("edges", []))
        self.failed_nodes = list(run.get("failed_nodes", []))
        self.failed_edges = list(run.get("failed_edges", []))
        if run:
            self._draw_run(run)

    # -- drawing ------------------------------------------------------------------------------
    def _draw_run(self, run: dict) -> None:
        for edge_id in self.path_edges:
            self._edge(edge_id, FAILED if edge_id in self.failed_edges else PATH, 7.0)
        for node_id in dict.fromkeys(run.get("path", [])):
            self._node(node_id, PATH, 3.0)
        for node_id in self.failed_nodes:
            self._node(node_id, FAILED, 4.0, dashed=True)
        if self.current_node:
            self._node(self.current_node, CURRENT, 5.0)

    def _draw_coverage(self, coverage: dict) -> None:
        nodes, edges = coverage.get("nodes", {}), coverage.get("edges", {})
        failed = coverage.get("failed_nodes", {})
        most = max([*nodes.values(), *edges.values(), 1])
        for edge_id in self.scene.edges:
            count = edges.get(edge_id, 0)
            self._edge(edge_id, heat_colour(count, most), 9.0 if count else 4.0)
        for node_id in self.scene.nodes:
            count, bad = nodes.get(node_id, 0), failed.get(node_id, 0)
            colour = FAILED if bad else heat_colour(count, most)
            badge = f"{count} run{'s' if count != 1 else ''}" + (f" · {bad} failed" if bad else "")
            self._node(node_id, colour, 4.0 if count else 2.0, dashed=not count, badge=badge)

    def _node(self, node_id: str, colour: QColor, width: float, dashed: bool = False,
              badge: str = "") -> None:
        item = self.scene.nodes.get(node_id)
        if item is None:
            return
        mark = self.node_marks.get(node_id)
        if mark is None:
            mark = self.node_marks[node_id] = NodeMark(item)
        mark.set_look(colour, width, dashed, badge or mark.badge)

    def _edge(self, edge_id: str, colour: QColor, width: float) -> None:
        item = self.scene.edges.get(edge_id)
        if item is None:
            return
        old = self.edge_marks.pop(edge_id, None)
        if old is not None:
            self.scene.removeItem(old)
        halo = QGraphicsPathItem(item.mapToScene(item.shape()))
        halo.setPen(Qt.NoPen)
        fill = QColor(colour)
        fill.setAlpha(150)
        halo.setBrush(QBrush(fill))
        halo.setZValue(-1)  # under the edge line and its label
        halo.setAcceptedMouseButtons(Qt.NoButton)
        halo.setData(0, edge_id)
        self.scene.addItem(halo)
        self.edge_marks[edge_id] = halo


def parent_edge(edge_id: str) -> str | None:
    """The parent's edge an expanded edge stands for: an exit copy `e@a/end` is `e`; an edge
    inside a sub-SOP (`a/e`) has none on the parent canvas."""
    base = edge_id.split("@", 1)[0]
    return None if SEPARATOR in base else base


def on_parent_run(run: dict) -> dict:
    """A run snapshot of the expanded SOP in the parent's ids: child node `a/b` is node `a`."""
    def nodes(ids):
        return list(dict.fromkeys(owner_id(i) for i in ids))

    def edges(ids):
        return [e for e in dict.fromkeys(parent_edge(i) for i in ids) if e]
    node = run.get("node")
    return {**run, "node": owner_id(node) if node else node, "path": nodes(run.get("path", [])),
            "edges": edges(run.get("edges", [])),
            "failed_nodes": nodes(run.get("failed_nodes", [])),
            "failed_edges": edges(run.get("failed_edges", []))}


def on_parent_coverage(coverage: dict) -> dict:
    """Coverage counts of the expanded SOP summed onto the parent's nodes and edges (a subflow
    node counts the runs that entered it once each, by its most visited child node)."""
    def fold(counts: dict, key) -> dict:
        out: dict = {}
        for item, count in counts.items():
            target = key(item)
            if target:
                out[target] = max(out.get(target, 0), count)
        return out
    return {**coverage, "nodes": fold(coverage.get("nodes", {}), owner_id),
            "edges": fold(coverage.get("edges", {}), parent_edge),
            "failed_nodes": fold(coverage.get("failed_nodes", {}), owner_id)}


class CoverageLegend(QFrame):
    """A small key in the corner of the canvas: what the coverage colours mean."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("coverage_legend")
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet("#coverage_legend { background: rgba(255,255,255,235); "
                           "border: 1px solid #b0b8c2; border-radius: 6px; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        self.title = QLabel("<b>Coverage</b>")
        layout.addWidget(self.title)
        for colour, text in ((HEAT[0], "few runs"), (HEAT[-1], "most runs"),
                             (UNVISITED, "never visited (dashed)"),
                             (FAILED, "runs that missed their expected outcome")):
            layout.addWidget(_legend_row(colour, text))

    def set_runs(self, runs: int) -> None:
        self.title.setText(f"<b>Coverage</b> — {runs} run(s)")
        self.adjustSize()

    def place(self) -> None:
        """Bottom-left corner of the parent (the canvas viewport)."""
        parent = self.parentWidget()
        if parent is not None:
            self.adjustSize()
            self.move(10, parent.height() - self.height() - 10)


def _legend_row(colour: QColor, text: str) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    swatch = QLabel()
    swatch.setFixedSize(22, 10)
    swatch.setStyleSheet(f"background: {colour.name()}; border-radius: 3px;")
    layout.addWidget(swatch)
    layout.addWidget(QLabel(text))
    layout.addStretch(1)
    return row
