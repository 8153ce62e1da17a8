"""Turns canvas intents and menu actions into document edits (one gesture = one undo entry).

Nothing here draws: the scene announces what the user did, this builds the edit and pushes it on
the session's undo stack; the scene then mirrors the document's change.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QMimeData, QObject, QPointF, Signal
from PySide6.QtWidgets import QApplication

from ..core import edits
from ..core.layout import default_size, layout, layout_with_routes
from ..core.model import Edge, Node, Tool
from . import clipboard

log = logging.getLogger(__name__)

KIND_TITLES = {"task": "New task", "decision": "Decision", "end": "End"}


class Editor(QObject):
    # What an import of pasted text asks the author to check (notes, where they came from).
    import_notes = Signal(list, str)

    def __init__(self, session, scene, store_link, parent=None):
        super().__init__(parent)
        self.session, self.scene, self.store_link = session, scene, store_link
        scene.move_requested.connect(self.move_nodes)
        scene.connect_requested.connect(self.connect_nodes)
        scene.add_node_requested.connect(self.add_node)
        scene.delete_requested.connect(self.delete_selection)
        scene.start_requested.connect(self.set_start)
        scene.tool_dropped.connect(self.bind_tool)

    @property
    def document(self):
        return self.session.document

    # --- nodes and edges ----------------------------------------------------------------------
    def add_node(self, kind: str, pos: QPointF) -> str | None:
        node_id = self.document.new_node_id("end" if kind == "end" else kind)
        node = Node(id=node_id, title=KIND_TITLES.get(kind, "New task"),
                    kind="end" if kind == "end" else "task",
                    outcome="resolved" if kind == "end" else None,
                    position=(round(pos.x(), 1), round(pos.y(), 1)))
        batch = [edits.AddNode(node)]
        if not self.document.sop.start and kind != "end":
            batch.append(edits.SetField("sop", None, "start", node_id))
        if self.session.push(edits.Batch(batch, f"Add {kind} '{node_id}'")):
            self.scene.select_ids([node_id])
            return node_id
        return None

    def connect_nodes(self, source: str, target: str) -> str | None:
        edge = Edge(id=self.document.new_edge_id(), source=source, target=target)
        return edge.id if self.session.push(edits.AddEdge(edge)) else None

    def move_nodes(self, positions: dict) -> None:
        self.session.push(edits.MoveNodes(positions))

    def set_start(self, node_id: str) -> None:
        self.session.push(edits.SetField("sop", None, "start", node_id))

    def delete_selection(self) -> None:
        node_ids, edge_ids = self.scene.selected_ids()
        doomed = set(node_ids)
        batch = [edits.RemoveEdge(e) for e in edge_ids
                 if not self._touches(e, doomed)]  # RemoveNode takes its own edges along
        batch += [edits.RemoveNode(n) for n in node_ids]
        if batch:
            self.session.push(edits.Batch(batch, f"Delete {len(batch)} item(s)"))

    def _touches(self, edge_id: str, nodes: set) -> bool:
        edge = self.document.sop.edge(edge_id)
        return edge is not None and (edge.source in nodes or edge.target in nodes)

    # --- tools ---------------------------------------------------------------------------------
    def bind_tool(self, name: str, node_id: str, tool: Tool | None = None) -> bool:
        """Bind tool `name` to a node; copy it into the SOP first when only the library has it."""
        sop = self.document.sop
        node = sop.node(node_id)
        if node is None or name in node.tools:
            return False
        batch = []
        if sop.tool(name) is None:
            tool = tool or self.store_link.library_tool(name) or Tool(name=name)
            batch.append(edits.AddTool(tool))
        batch.append(edits.SetField("node", node_id, "tools", [*node.tools, name]))
        return self.session.push(edits.Batch(batch, f"Bind tool '{name}' to '{node_id}'"))

    # --- layout --------------------------------------------------------------------------------
    def auto_layout(self) -> bool:
        sop = self.document.sop
        sizes = {i: (item.width, item.height) for i, item in self.scene.nodes.items()}
        positions, routes = layout_with_routes(sop, sizes)
        self.scene.set_routes(routes, positions)
        current = {n.id: n.position for n in sop.nodes}
        changed = {k: v for k, v in positions.items() if current.get(k) != tuple(v)}
        if not changed:
            return False
        move = edits.MoveNodes(changed)
        move.description = "Auto-layout"
        return self.session.push(move)

    # --- clipboard ------------------------------------------------------------------------------
    def copy(self) -> bool:
        node_ids, _ = self.scene.selected_ids()
        if not node_ids:
            return False
        text = clipboard.encode(clipboard.fragment(self.document.sop, node_ids))
        mime = QMimeData()
        mime.setData(clipboard.FRAGMENT_MIME, text.encode("utf-8"))
        mime.setText(text)
        QApplication.clipboard().setMimeData(mime)
        return True

    def cut(self) -> None:
        if self.copy():
            self.delete_selection()

    def paste(self) -> list[str]:
        mime = QApplication.clipboard().mimeData()
        if mime is None:
            return []
        if mime.hasFormat(clipboard.FRAGMENT_MIME):
            data = clipboard.decode(bytes(mime.data(clipboard.FRAGMENT_MIME)).decode("utf-8"))
        else:
            data = self._import_text(mime.text())
        return self.paste_fragment(data) if data else []

    def _import_text(self, text: str) -> dict | None:
        data = clipboard.decode(text)
        if data is not None or not text.strip():
            return data
        try:
            from ..formats import import_text
            result = import_text(text)
        except Exception as problem:  # any importer failure is a status message (and logged)
            log.info("pasted text is not an SOP fragment: %s", problem, exc_info=True)
            self.session.error.emit(f"Paste: not an SOP fragment ({problem})")
            return None
        if not result.sop.nodes:
            self.session.error.emit("Paste: the text holds no SOP nodes")
            return None
        from ..formats.import_review import review
        notes = result.notes + review(text, result.sop)
        if notes:
            self.import_notes.emit(notes, f"pasted {result.format}")
        return clipboard.from_sop(result.sop)

    def paste_fragment(self, data: dict) -> list[str]:
        nodes, new_edges, tools = clipboard.remap(data, self.document, self._paste_offset(data))
        if any(n.position is None for n in nodes):
            nodes = self._place_beside(nodes, new_edges)
        batch = [edits.AddTool(t) for t in tools] + [edits.AddNode(n) for n in nodes]
        batch += [edits.AddEdge(e) for e in new_edges]
        if not nodes or not self.session.push(edits.Batch(batch, f"Paste {len(nodes)} node(s)")):
            return []
        ids = [n.id for n in nodes]
        self.scene.select_ids(ids)
        return ids

    def _paste_offset(self, data: dict) -> tuple[float, float]:
        """Below the copied block (and any earlier copy there), never on top of a node."""
        sop = self.document.sop
        rects = []
        for raw in data.get("nodes", []):
            node = Node.model_validate(raw)
            if node.position is not None:
                width, height = default_size(node, sop)
                x, y = node.position
                rects.append((x - width / 2, y - height / 2, x + width / 2, y + height / 2))
        if not rects:
            return 0.0, 0.0
        block = (min(r[0] for r in rects), min(r[1] for r in rects),
                 max(r[2] for r in rects), max(r[3] for r in rects))
        occupied = [item.sceneBoundingRect().getCoords() for item in self.scene.nodes.values()]
        return clipboard.free_offset(block, occupied)

    def _place_beside(self, nodes, new_edges):
        """Lay out imported nodes on their own and put them to the right of the graph."""
        from ..core.model import SOP
        positions = layout(SOP(id="fragment", nodes=nodes, edges=new_edges))
        rect = self.scene.itemsBoundingRect()
        left = rect.right() + 150 if self.scene.nodes else 0.0
        top = rect.top() if self.scene.nodes else 0.0
        return [n.model_copy(update={"position": (positions[n.id][0] + left,
                                                  positions[n.id][1] + top)}) for n in nodes]
