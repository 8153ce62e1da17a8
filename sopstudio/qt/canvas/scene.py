"""The canvas scene: mirrors a document's nodes and edges as items and emits intents by id.

The scene never changes the document. Gestures become signals (move these ids to these points,
connect A to B, add a node here, bind this tool to that node) that the window turns into edits.
"""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QPen, QTransform
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsScene, QMenu

from . import style
from .edge_item import EdgeItem
from .node_item import NodeItem

TOOL_MIME = "application/x-sopstudio-tool"
FULL_REFRESH = {"tools", "variables", "sop", "reset", "knowledge"}
BULK = 200  # nodes touched by one change above which the scene updates in bulk
# The scene index's depth. Qt picks ~log2(items) (13 for a 1,000-node graph) and files every
# item under each leaf it overlaps: the long edges to shared end nodes of a dense SOP then
# land in thousands of leaves each, and building the index took a third of opening it.
BSP_DEPTH = 8


class SopScene(QGraphicsScene):
    move_requested = Signal(dict)              # {node_id: (x, y)}
    connect_requested = Signal(str, str)       # source id, target id
    add_node_requested = Signal(str, QPointF)  # kind ('task' | 'decision' | 'end'), centre
    delete_requested = Signal()
    start_requested = Signal(str)
    node_activated = Signal(str)
    tool_dropped = Signal(str, str)            # tool name, node id
    # Items were added, removed, moved or re-routed (not emitted per drag frame). Listeners use
    # this rather than QGraphicsScene.changed, whose mere connection makes the scene collect
    # and send every update region to every view instead of letting items update views directly.
    content_changed = Signal()
    # Edges took new routes while the document stayed the same (dot's answer arrived, a drag
    # ended): whatever was drawn along the old routes must be drawn again.
    routes_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[str, EdgeItem] = {}
        self.connecting_from: NodeItem | None = None
        self._rubber_line: QGraphicsLineItem | None = None
        self._press_positions: dict[str, QPointF] = {}
        self.bulk = False  # a bulk update is running: edges are routed once at its end
        # A drag of nodes is running: their edges show a cheap preview, updated once per mouse
        # move (not once per moved end), and get their full route once, on release.
        self.dragging = False
        self.drag_edges: set[EdgeItem] = set()  # moved in this mouse move: preview them
        self._dragged_edges: set[EdgeItem] = set()  # moved in this drag: route on release
        # View state, not document data: dot's edge routes from the last layout, used while
        # both ends of an edge stay where dot put them.
        self.routes: dict[str, tuple] = {}
        self.setBackgroundBrush(style.BACKGROUND)
        self.setBspTreeDepth(BSP_DEPTH)

    # --- mirroring ----------------------------------------------------------------------------
    def rebuild(self, sop) -> None:
        self.clear()
        self.nodes, self.edges, self._rubber_line, self.routes = {}, {}, None, {}
        self.sync(sop)

    def sync(self, sop, kind: str = "reset", ids=()) -> None:
        """Bring items in line with `sop`; only items named in `ids` are re-read, unless the
        change can affect every node (tools renamed, start moved, whole document replaced)."""
        touched = set(ids or ())
        full = kind in FULL_REFRESH
        if not self.bulk and (len(touched) > BULK or (full and len(sop.nodes) > BULK)):
            self._sync_in_bulk(sop, kind, touched)
        else:
            self._sync_items(sop, full, touched)
        self.content_changed.emit()

    def _sync_items(self, sop, full: bool, touched: set) -> None:
        node_index = {n.id: n for n in sop.nodes}
        edge_index = {e.id: e for e in sop.edges}
        self._drop_missing(node_index, edge_index, touched)
        # In bulk, edges are routed at the end, after this: a new node is refreshed once, below
        # (with its edges); otherwise new edges are routed at once and need their ends' sizes.
        fresh = []
        for node_id, node in node_index.items():
            if self.bulk and node_id not in self.nodes:
                fresh.append(node_id)
                self._node_item(node_id)
            elif full or node_id in touched or node_id not in self.nodes:
                self._node_item(node_id).refresh(node, sop)
        for edge_id, edge in edge_index.items():
            if full or edge_id in touched or edge_id not in self.edges:
                self._edge_item(edge, touched)
        # A node's shape depends on its edges (a decision is a diamond): refresh ends too.
        for node_id in (touched & set(node_index)).union(fresh):
            self.nodes[node_id].refresh(node_index[node_id], sop)
        self._assign_bends()

    def _sync_in_bulk(self, sop, kind: str, touched: set) -> None:
        """Many nodes at once (a layout, a big paste): each moved node would re-route all its
        edges, and each re-route updates the scene's index — minutes for shared end nodes
        with a thousand edges. So: no index and no per-move routing meanwhile, then every
        edge routed once."""
        self.bulk = True
        self.setItemIndexMethod(QGraphicsScene.NoIndex)
        try:
            self._sync_items(sop, kind in FULL_REFRESH, touched)
        finally:
            self.bulk = False
            for item in self.edges.values():
                item.adjust()
            self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)
            self.setBspTreeDepth(BSP_DEPTH)  # a new index: Qt's own depth again otherwise

    def _drop_missing(self, node_index, edge_index, touched: set) -> None:
        for edge_id in [e for e in self.edges if e not in edge_index]:
            item = self.edges.pop(edge_id)
            touched.update((item.source.node_id, item.target.node_id))
            self._detach(item)
        for node_id in [n for n in self.nodes if n not in node_index]:
            self.removeItem(self.nodes.pop(node_id))

    def _detach(self, item: EdgeItem) -> None:
        for end in (item.source, item.target):
            if item in end.edges:
                end.edges.remove(item)
        if item.label_item is not None and item.label_item.scene() is self:
            self.removeItem(item.label_item)
        self.removeItem(item)

    def _node_item(self, node_id: str) -> NodeItem:
        item = self.nodes.get(node_id)
        if item is None:
            item = self.nodes[node_id] = NodeItem(node_id)
            self.addItem(item)
        return item

    def _edge_item(self, edge, touched: set) -> None:
        source, target = self.nodes.get(edge.source), self.nodes.get(edge.target)
        item = self.edges.get(edge.id)
        if item is not None and (item.source is not source or item.target is not target):
            touched.update((item.source.node_id, item.target.node_id))
            self._detach(self.edges.pop(edge.id))
            item = None
        if source is None or target is None:
            return  # dangling edge: validation reports it, the canvas cannot draw it
        if item is None:
            item = self.edges[edge.id] = EdgeItem(edge.id, source, target)
            source.edges.append(item)
            if target is not source:
                target.edges.append(item)
            self.addItem(item)
            touched.update((edge.source, edge.target))
        item.refresh(edge)

    def _assign_bends(self) -> None:
        groups = defaultdict(list)
        for item in self.edges.values():
            groups[(item.source.node_id, item.target.node_id)].append(item)
        for items in groups.values():
            for index, item in enumerate(items):
                bend = 0.0 if index == 0 else 45.0 * ((index + 1) // 2) * (1 if index % 2 else -1)
                if bend != item.bend:
                    item.bend = bend
                    item.adjust()

    def set_routes(self, routes: dict, positions: dict) -> None:
        """Routes for every edge (a whole layout): edges without one fall back to curves."""
        self.routes = {}
        self._merge_routes(routes, positions)
        for item in self.edges.values():
            item.adjust()
        self.content_changed.emit()
        self.routes_changed.emit()

    def merge_routes(self, routes: dict, positions: dict) -> None:
        """Routes for some edges (re-routed after a move), the others keep theirs."""
        self._merge_routes(routes, positions)
        self.content_changed.emit()
        self.routes_changed.emit()

    def _merge_routes(self, routes: dict, positions: dict) -> None:
        for edge_id, (points, tip, label_at) in routes.items():
            item = self.edges.get(edge_id)
            if item is None:
                continue
            ends = positions.get(item.source.node_id), positions.get(item.target.node_id)
            if None not in ends:
                self.routes[edge_id] = (ends[0], ends[1], points, tip, label_at)
                item.adjust()

    def set_issues(self, issues) -> None:
        """Badges: the worst severity per node / edge, with every message in the tooltip."""
        worst, texts = {}, defaultdict(list)
        for issue in issues:
            for key in (("n", issue.node), ("e", issue.edge)):
                if key[1]:
                    texts[key].append(f"{issue.severity}: {issue.message}")
                    if worst.get(key) != "error":
                        worst[key] = issue.severity
        for prefix, items in (("n", self.nodes), ("e", self.edges)):
            for ident, item in items.items():
                key = (prefix, ident)
                if worst.get(key) != item.issue_severity or key in texts:
                    item.set_issue(worst.get(key), "\n".join(texts.get(key, [])))

    # --- selection ----------------------------------------------------------------------------
    def selected_ids(self) -> tuple[list[str], list[str]]:
        items = self.selectedItems()
        return ([i.node_id for i in items if isinstance(i, NodeItem)],
                [i.edge_id for i in items if isinstance(i, EdgeItem)])

    def select_ids(self, node_ids=(), edge_ids=()) -> None:
        self.clearSelection()
        for ident in node_ids:
            if ident in self.nodes:
                self.nodes[ident].setSelected(True)
        for ident in edge_ids:
            if ident in self.edges:
                self.edges[ident].setSelected(True)

    # --- gestures -----------------------------------------------------------------------------
    def mousePressEvent(self, event):
        super().mousePressEvent(event)
        self._press_positions = {i.node_id: i.pos() for i in self.selectedItems()
                                 if isinstance(i, NodeItem)}

    def mouseMoveEvent(self, event):
        if (event.buttons() & Qt.LeftButton and self._press_positions
                and self.connecting_from is None):
            self.dragging = True
        super().mouseMoveEvent(event)
        if self.drag_edges:
            for item in self.drag_edges:
                item.preview()
            self._dragged_edges |= self.drag_edges
            self.drag_edges = set()

    def mouseReleaseEvent(self, event):
        super().mouseReleaseEvent(event)
        self._end_drag()
        moved = {}
        for node_id, before in self._press_positions.items():
            item = self.nodes.get(node_id)
            if item is not None and item.pos() != before:
                moved[node_id] = (round(item.pos().x(), 1), round(item.pos().y(), 1))
        self._press_positions = {}
        if moved:  # a drag is one gesture: recorded once, on release
            self.move_requested.emit(moved)

    def _end_drag(self) -> None:
        """Full routes, once, for every edge that showed a preview during the drag."""
        edges = self._dragged_edges | self.drag_edges
        self.dragging, self.drag_edges, self._dragged_edges = False, set(), set()
        for item in edges:
            if item.scene() is self:
                item.adjust()
        if edges:
            self.routes_changed.emit()

    def mouseDoubleClickEvent(self, event):
        if self.itemAt(event.scenePos(), QTransform()) is None:
            self.add_node_requested.emit("task", event.scenePos())
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def begin_connection(self, item: NodeItem, pos: QPointF) -> None:
        self.connecting_from = item
        start = item.scenePos() + item.port_center()
        self._rubber_line = QGraphicsLineItem(start.x(), start.y(), pos.x(), pos.y())
        self._rubber_line.setPen(QPen(style.SELECTED, 2, Qt.DashLine))
        self._rubber_line.setZValue(5)
        self.addItem(self._rubber_line)

    def update_connection(self, pos: QPointF) -> None:
        if self._rubber_line is not None:
            line = self._rubber_line.line()
            line.setP2(pos)
            self._rubber_line.setLine(line)

    def finish_connection(self, pos: QPointF) -> None:
        source, self.connecting_from = self.connecting_from, None
        if self._rubber_line is not None:
            self.removeItem(self._rubber_line)
            self._rubber_line = None
        target = self.node_at(pos)
        if source is not None and target is not None:
            self.connect_requested.emit(source.node_id, target.node_id)

    def node_at(self, pos: QPointF) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem) and item.body_rect().contains(item.mapFromScene(pos)):
                return item
        return None

    def contextMenuEvent(self, event):
        node = self.node_at(event.scenePos())
        menu = QMenu()
        if node is None:
            for kind, text in (("task", "Add task here"), ("decision", "Add decision here"),
                               ("end", "Add end here")):
                menu.addAction(text, lambda k=kind, p=event.scenePos():
                               self.add_node_requested.emit(k, p))
        else:
            if not node.isSelected():
                self.select_ids([node.node_id])
            menu.addAction("Set as start", lambda: self.start_requested.emit(node.node_id))
            menu.addAction("Delete", self.delete_requested.emit)
        menu.exec(event.screenPos())

    # --- drag a tool from the library onto a node ---------------------------------------------
    def dragEnterEvent(self, event):
        event.setAccepted(event.mimeData().hasFormat(TOOL_MIME))

    def dragMoveEvent(self, event):
        event.setAccepted(event.mimeData().hasFormat(TOOL_MIME)
                          and self.node_at(event.scenePos()) is not None)

    def dropEvent(self, event):
        node = self.node_at(event.scenePos())
        if node is None or not event.mimeData().hasFormat(TOOL_MIME):
            event.ignore()
            return
        name = bytes(event.mimeData().data(TOOL_MIME)).decode("utf-8")
        self.tool_dropped.emit(name, node.node_id)
        event.acceptProposedAction()
