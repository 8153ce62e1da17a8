"""The main window: canvas in the middle, docks around it, menus and toolbar, title and state.

It wires parts together and owns no editing logic: the scene mirrors the document, `Editor`
turns gestures into edits, `FileOps` handles files, each dock handles its own pane.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMessageBox, QVBoxLayout, QWidget

from ..core.edits import MoveNodes
from ..core.layout import DEFAULT_SIZES, layout_with_routes
from . import actions, theme
from .autosave import Autosaver
from .canvas.auto_layout import AutoLayout
from .canvas.placement import free_spot
from .canvas.scene import SopScene
from .canvas.view import CanvasView
from .docks.history import HistoryDock
from .docks.problems import ProblemsDock
from .subflow_nav import SubflowNavigator
from .docks.tools import ToolLibraryDock
from .docks.variables import DataDock
from .editing import Editor
from .files import FileOps
from .inspector.panel import InspectorPanel
from .session import EditSession
from .settings import app_settings
from .store_link import StoreLink

ROUTE_LIMIT = 300  # nodes; above it, opening a laid-out file skips asking dot for routes


class MainWindow(QMainWindow):
    def __init__(self, document=None, settings=None, parent=None, restore: bool = True,
                 store_link: StoreLink | None = None):
        """`restore=False` leaves the saved window layout for `restore_state()`, to be called
        once every dock exists (app.open_window adds the simulation docks first).
        `store_link`: the application's link to the store (a window of its own without one)."""
        super().__init__(parent)
        self.setObjectName("sopstudio_main_window")
        self.keep_state = True
        self.settings = settings if settings is not None else app_settings()
        self._owns_store_link = store_link is None  # then it closes the link when it closes
        self.store_link = store_link if store_link is not None else StoreLink(self)
        self.session = EditSession(None, self)
        theme.apply(theme.chosen(self.settings))
        self.scene = SopScene(self)
        self.view = CanvasView(self.scene, self)
        self.editor = Editor(self.session, self.scene, self.store_link, self)
        self.files = FileOps(self)
        self.subflows = SubflowNavigator(self)
        self.setCentralWidget(_stacked(self.subflows.bar, self.view))
        self.autosaver = Autosaver(self.session, self)
        self.auto_layout = AutoLayout(self)
        self._build_docks()
        self.actions_by_name = actions.build(self)
        self.files.rebuild_recent_menu()
        self._connect()
        self.session.set_document(document) if document is not None else self._on_replaced()
        if restore:
            self.restore_state()

    def _build_docks(self) -> None:
        self.inspector = InspectorPanel(self.session, self)
        self.tool_dock = ToolLibraryDock(self.session, self.editor, self.store_link, self)
        self.problems = ProblemsDock(self.session, self)
        self.history = HistoryDock(self.session, self.store_link, self)
        self.data = DataDock(self.session, self)
        self.inspector_dock = self.add_dock("Inspector", self.inspector, Qt.RightDockWidgetArea)
        self.tools_dock = self.add_dock("Tools", self.tool_dock, Qt.RightDockWidgetArea)
        self.problems_dock = self.add_dock("Problems", self.problems, Qt.BottomDockWidgetArea)
        self.history_dock = self.add_dock("History", self.history, Qt.BottomDockWidgetArea)
        self.tabifyDockWidget(self.problems_dock, self.history_dock)
        self.tabifyDockWidget(self.inspector_dock, self.tools_dock)
        self.data_dock = self.add_dock("Data", self.data, Qt.RightDockWidgetArea)
        self.tabifyDockWidget(self.tools_dock, self.data_dock)
        self.problems_dock.raise_()
        self.inspector_dock.raise_()
        # Sensible first sizes: the canvas gets most of the window.
        self.resizeDocks([self.inspector_dock], [360], Qt.Horizontal)
        self.resizeDocks([self.problems_dock], [150], Qt.Vertical)

    def add_dock(self, title: str, widget, area) -> QDockWidget:
        """A dock named for saved window state (the simulation pane adds its docks here too)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(title.lower() + "_dock")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _connect(self) -> None:
        self.session.changed.connect(self._on_changed)
        self.session.replaced.connect(self._on_replaced)
        self.session.error.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.store_link.failed.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.session.undo_stack.cleanChanged.connect(lambda *_: self.update_title())
        self.scene.selectionChanged.connect(self._on_selection)
        self.scene.node_activated.connect(lambda _: self.raise_inspector())
        self.problems.issues_ready.connect(self.scene.set_issues)
        self.scene.routes_changed.connect(self._redraw_marks)
        self.problems.culprit_chosen.connect(self.reveal)
        self.tool_dock.tool_chosen.connect(self.inspector.show_tool)
        for menu_dock in (self.inspector_dock, self.tools_dock, self.problems_dock,
                          self.history_dock):
            self.view_menu.addAction(menu_dock.toggleViewAction())
        self._connect_drafting()

    def _connect_drafting(self) -> None:
        """Variables, knowledge, quick fixes: what they choose opens in the Inspector."""
        self.view_menu.addAction(self.data_dock.toggleViewAction())
        self.tool_dock.tool_chosen.connect(lambda *_: self.raise_inspector())
        self.data.variable_chosen.connect(self.inspector.show_variable)
        self.data.knowledge_chosen.connect(self.inspector.show_knowledge)
        for signal in (self.data.variable_chosen, self.data.knowledge_chosen):
            signal.connect(lambda *_: self.raise_inspector())
        self.problems.declare_requested.connect(self.data.declare)
        self.history.restored.connect(self.after_restore)
        self.editor.import_notes.connect(self.show_import_notes)
        # The history lists the versions of the SOP's id: a new id has other versions.
        self.session.changed.connect(
            lambda change: "id" in change.by_kind.get("sop", ()) and self.history.refresh())

    def show_import_notes(self, notes: list, source: str) -> None:
        """What an import asks the author to check: a dialog now, Problems rows until dismissed."""
        self.problems.set_import_notes(notes, source)
        if not notes:
            return
        self.problems_dock.raise_()
        box = QMessageBox(QMessageBox.Information, "Import notes",
                          f"The import of {source} made {len(notes)} guess(es) to check. They "
                          "stay listed in the Problems pane until you dismiss them.",
                          QMessageBox.Ok, self)
        box.setDetailedText("\n".join(f"• {note}" for note in notes))
        box.setInformativeText("\n".join(f"• {note}" for note in notes[:6])
                               + ("\n…" if len(notes) > 6 else ""))
        self.import_box = box  # reachable by tests and screenshots
        box.open()  # not modal to the event loop: the notes can be read beside the canvas

    def reset_side_panes(self) -> None:
        """A new document: nothing of the previous one stays in the diff, chat or run panes."""
        self.history.refresh()
        sim = getattr(self, "simulation", None)
        if sim is not None:
            dock = sim.dock
            if dock.loaded:
                dock.stop()
            dock.loaded, dock.events = False, []
            dock.chat.clear_all()
            dock.prompt.show_prompt("")
            dock.memory.show_memory([])
            dock.status.setText("")
            sim.overlay.show_run(None)
            sim.runs.refresh()

    def _redraw_marks(self) -> None:
        """Edges took new routes (dot's answer, the end of a drag): the simulation's path
        highlight is drawn along each edge's route, so it is drawn again along the new ones."""
        sim = getattr(self, "simulation", None)
        if sim is not None:
            sim.overlay.refresh()

    def after_restore(self) -> None:
        """A restored version is the document now: every view shows it."""
        self.scene.rebuild(self.session.sop)
        self.inspector.refresh()
        self.tool_dock.refresh_sop_tools()
        self.data.refresh()
        self.problems.schedule(immediate=True)
        self.history.show_diff()

    # --- document events ------------------------------------------------------------------------
    def _on_changed(self, change) -> None:
        renamed = _renamed_node(change.edit, self.scene.selected_ids())
        self.scene.sync(self.session.sop, change.kind, change.ids)
        if renamed:  # the item under its old id is gone: keep the node selected and inspected
            self.scene.select_ids([renamed])
        if change.kind in ("nodes", "positions", "reset"):
            self.view.include(self.scene.itemsBoundingRect(), 300)
        self.update_title()
        self.inspector.refresh()
        self.tool_dock.refresh_sop_tools()
        self.problems.schedule()

    def _on_replaced(self) -> None:
        self.auto_layout.place_unplaced()
        self.scene.rebuild(self.session.sop)
        self.ensure_layout()
        self.view.grow_scene_rect()
        self.update_title()
        self.inspector.clear()
        self.tool_dock.refresh_sop_tools()
        self.history.refresh()
        self.problems.schedule(immediate=True)
        QTimer.singleShot(0, self.view.fit_all)

    def ensure_layout(self) -> None:
        """Place a document whose nodes have no positions at once (a quick layered layout),
        then dot's layout and routes from a child process (the window never waits)."""
        self.auto_layout.on_open(ROUTE_LIMIT)

    def ensure_layout_now(self) -> None:
        """The same, synchronously (scripts and screenshots that need the final picture)."""
        sop = self.session.sop
        unplaced = any(n.position is None for n in sop.nodes)
        if not sop.nodes or (not unplaced and len(sop.nodes) > ROUTE_LIMIT):
            return
        sizes = {i: (item.width, item.height) for i, item in self.scene.nodes.items()}
        positions, routes = layout_with_routes(sop, sizes)
        self.scene.set_routes(routes, positions)
        if unplaced:
            was_dirty = self.session.document.dirty
            self.session.document.apply(MoveNodes(positions))
            if not was_dirty:
                self.session.document.mark_saved()

    def _on_selection(self) -> None:
        node_ids, edge_ids = self.scene.selected_ids()
        if len(node_ids) == 1 and not edge_ids:
            self.inspector.show_node(node_ids[0])
            self.raise_inspector()
        elif len(edge_ids) == 1 and not node_ids:
            self.inspector.show_edge(edge_ids[0])
            self.raise_inspector()
        elif not node_ids and not edge_ids:
            self.inspector.show_sop()
        else:
            self.inspector.show_summary(len(node_ids), len(edge_ids))

    def after_save(self, version) -> None:
        self.update_title()
        self.history.refresh()
        text = f"Saved {self.session.document.path}"
        if version is not None:
            text += f" — version {version.short}"
        elif self.store_link.last_error:
            text += f" (no version recorded: {self.store_link.last_error})"
        self.statusBar().showMessage(text, 8000)

    # --- title, selection, find -----------------------------------------------------------------
    def display_name(self) -> str:
        sop = self.session.sop
        return sop.title or sop.id

    def update_title(self) -> None:
        path = self.session.document.path
        dirty = " *" if self.session.document.dirty else ""
        where = f" — {path.name}" if path else ""
        self.setWindowTitle(f"{self.display_name()}{dirty}{where} — SOP Studio")

    def select_all(self) -> None:
        for item in self.scene.items():
            item.setSelected(True)

    def focus_find(self) -> None:
        self.find_field.setFocus()
        self.find_field.selectAll()

    def find(self, text: str) -> list[str]:
        text = text.strip().lower()
        if not text:
            return []
        found = [n.id for n in self.session.sop.nodes
                 if text in n.id.lower() or text in (n.title or "").lower()]
        self.scene.select_ids(found)
        if found:
            self.view.center_on_item(self.scene.nodes[found[0]])
        self.statusBar().showMessage(f"{len(found)} node(s) match “{text}”", 4000)
        return found

    def reveal(self, node_id, edge_id) -> None:
        """Select and centre the culprit of a problem."""
        self.scene.select_ids([node_id] if node_id else [], [edge_id] if edge_id else [])
        item = self.scene.nodes.get(node_id) or self.scene.edges.get(edge_id)
        if item is not None:
            self.view.center_on_item(item)

    def add_at_centre(self, kind: str) -> str | None:
        """A new node in free space near the view centre (never on top of another node)."""
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        size = DEFAULT_SIZES["end" if kind == "end" else "task"]
        rects = [(r.x(), r.y(), r.width(), r.height()) for r in
                 (item.mapRectToScene(item.body_rect()) for item in self.scene.nodes.values())]
        x, y = free_spot((centre.x(), centre.y()), size, rects)
        return self.editor.add_node(kind, QPointF(x, y))

    def set_theme(self, name: str) -> None:
        """View ▸ Theme: palette and canvas colours now, remembered for the next start."""
        theme.remember(self.settings, name)
        theme.apply(name)
        self.scene.setBackgroundBrush(theme.style.BACKGROUND)
        self.scene.update()
        self.view.viewport().update()

    def raise_inspector(self) -> None:
        """Bring the Inspector tab to the front (unless the user closed the dock)."""
        if not self.inspector_dock.isHidden():
            self.inspector_dock.raise_()

    # --- window state -----------------------------------------------------------------------------
    def restore_state(self, use_saved: bool = True) -> None:
        """The saved geometry and dock layout; without one (or with `use_saved` off, as for
        screenshots), the default size with the Inspector and Problems tabs in front (docks
        added later, e.g. Simulation, tab in behind them)."""
        geometry = self.settings.value("window/geometry") if use_saved else None
        state = self.settings.value("window/state") if use_saved else None
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1500, 950)
        if state is None or not self.restoreState(state):
            self.problems_dock.raise_()
            self.inspector_dock.raise_()

    def closeEvent(self, event):
        if not self.files.maybe_save():
            event.ignore()
            return
        if self.keep_state:
            self.settings.setValue("window/geometry", self.saveGeometry())
            self.settings.setValue("window/state", self.saveState())
            self.settings.sync()
        self.problems.shutdown()
        self.auto_layout.shutdown()
        if self._owns_store_link:
            self.store_link.close()
        event.accept()


def _renamed_node(edit, selected) -> str | None:
    """The new id when `edit` renames the one selected node, else None."""
    node_ids, edge_ids = selected
    if (getattr(edit, "kind", None), getattr(edit, "field", None)) != ("node", "id"):
        return None
    if node_ids == [edit.ident] and not edge_ids:
        return edit.value
    return None


def _stacked(*widgets) -> QWidget:
    """The central area: the breadcrumb bar above the canvas."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    for widget in widgets:
        column.addWidget(widget)
    return box
