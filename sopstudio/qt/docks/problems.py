"""The problems dock: live validation of the document, debounced, off the GUI thread for big
graphs; clicking a problem selects and centres its culprit on the canvas. An undeclared
variable's problem offers "Declare variable…" in its context menu (the quick fix). The notes of
the last import or paste are listed first, as `note` rows, until dismissed (or another document
is opened).

What the worker validates: edits change the live SOP in place (a field set on a node object, an
item inserted into or removed from a list), so the worker cannot read the live object while the
GUI goes on editing, and a shallow copy would share the node objects that edits change. It gets
`model_dump()` instead: plain dicts and lists that nothing else holds, made on the GUI thread
between two edits (a few ms for 1,000 nodes, where a deep copy of the models took ~10× longer),
rebuilt into a SOP in the worker. Each run carries the document's generation (bumped by every
change); an answer for an older generation is dropped and validation runs again."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QMenu, QPushButton, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from ...core.model import SOP
from ...core.subflows import SubflowLoader
from ...core.validate import validate
from ...core.validate.issue import Issue
from ..canvas import style
from ..inspector import quick_fixes
from ..workers import BackgroundRunner

DEBOUNCE_MS = 250
THREAD_THRESHOLD = 150  # nodes; below this validating inline is faster than a thread hop
DECLARABLE = ("unknown-variable", "undefined-variable")


class ProblemsDock(QWidget):
    issues_ready = Signal(list)
    culprit_chosen = Signal(object, object)  # node id or None, edge id or None
    declare_requested = Signal(str)  # the quick fix: declare this variable

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.issues: list = []
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Severity", "Code", "Problem", "Where"])
        self.tree.setRootIsDecorated(False)
        self.tree.setColumnWidth(0, 70)
        self.tree.setColumnWidth(1, 160)
        self.tree.setColumnWidth(2, 560)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        self.tree.setContextMenuPolicy(Qt.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.notes: list[str] = []
        self.notes_source = ""
        self.notes_label = QLabel()
        self.dismiss_button = QPushButton("Dismiss import notes")
        self.dismiss_button.clicked.connect(self.dismiss_notes)
        notes_bar = QHBoxLayout()
        notes_bar.setContentsMargins(4, 0, 4, 0)
        notes_bar.addWidget(self.notes_label, 1)
        notes_bar.addWidget(self.dismiss_button)
        self.notes_bar = QWidget()
        self.notes_bar.setLayout(notes_bar)
        self.notes_bar.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.notes_bar)
        layout.addWidget(self.tree)
        session.replaced.connect(self.dismiss_notes)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.run_now)
        self.runner = BackgroundRunner(self)
        self.runner.done.connect(self._validated)
        self.runner.failed.connect(self._validation_failed)
        self.generation = 0  # bumped by every change of the document (or a new document)
        session.changed.connect(self._document_changed)
        session.replaced.connect(self._document_changed)

    def _document_changed(self, *_) -> None:
        self.generation += 1

    def schedule(self, immediate: bool = False) -> None:
        """Validate after the debounce; `immediate`: now for a small graph, while a big one
        (validated off the GUI thread) still waits the debounce, so that a just-opened window
        paints without a validation competing with it."""
        if immediate and len(self.session.sop.nodes) < THREAD_THRESHOLD:
            self.run_now()
        else:
            self.timer.start()

    def run_now(self) -> None:
        self.timer.stop()
        sop = self.session.sop
        # Children resolve next to the saved file (a missing one or a cycle is a problem).
        loader = SubflowLoader(self.session.document.path)
        if len(sop.nodes) < THREAD_THRESHOLD:
            self.runner.ticket += 1  # any job still running is now stale
            self.show_issues(validate(sop, loader))
            return
        self.runner.submit(_validate_data, self.generation, sop.model_dump(round_trip=True),
                           loader)

    def _validated(self, answer) -> None:
        generation, issues = answer
        if generation != self.generation:  # the document changed while the worker ran
            self.schedule()
            return
        self.show_issues(issues)

    def _validation_failed(self, message: str) -> None:
        """The worker raised (a bug, not a problem of the SOP): said in the pane, not only in
        the log, so an empty list never passes for a clean graph."""
        self.show_issues([Issue(code="validation-failed", severity="error",
                                message=f"Validation could not finish: {message}")])

    def set_import_notes(self, notes: list[str], source: str) -> None:
        """Show what the importer asks the author to check, above the problems."""
        self.notes, self.notes_source = list(notes), source
        self.notes_label.setText(f"{len(notes)} import note(s) from {source}: check them, "
                                 "then dismiss")
        self.notes_bar.setVisible(bool(notes))
        self.show_issues(self.issues)

    def dismiss_notes(self) -> None:
        if self.notes:
            self.notes = []
            self.notes_bar.hide()
            self.show_issues(self.issues)

    def show_issues(self, issues: list) -> None:
        self.issues = list(issues)
        self.tree.clear()
        for note in self.notes:
            item = QTreeWidgetItem(["note", "import-note", note, self.notes_source])
            item.setToolTip(2, note)
            item.setData(0, Qt.UserRole, (None, None))
            self.tree.addTopLevelItem(item)
        for issue in self.issues:
            where = issue.node or issue.edge or ""
            item = QTreeWidgetItem([issue.severity, issue.code, issue.message, where])
            colour = style.ERROR if issue.severity == "error" else style.WARNING
            item.setForeground(0, QBrush(colour))
            item.setData(0, Qt.UserRole, (issue.node, issue.edge))
            item.setData(1, Qt.UserRole, issue)
            self.tree.addTopLevelItem(item)
        self.issues_ready.emit(self.issues)
        self._retitle()

    def _retitle(self) -> None:
        dock = self.parentWidget()
        errors = sum(1 for i in self.issues if i.severity == "error")
        warnings = len(self.issues) - errors
        notes = f", {len(self.notes)} import notes" if self.notes else ""
        if dock is not None and hasattr(dock, "setWindowTitle"):
            dock.setWindowTitle(f"Problems ({errors} errors, {warnings} warnings{notes})")

    def _clicked(self, item, column=0) -> None:
        node, edge = item.data(0, Qt.UserRole)
        self.culprit_chosen.emit(node, edge)

    def quick_fixes(self, issue) -> list[tuple[str, object]]:
        """(menu text, handler) for the fixes an issue offers."""
        sop = self.session.sop
        name, fixes = issue.variable, []
        if issue.code not in DECLARABLE or not name:
            return fixes
        if sop.variable(name) is None:
            fixes.append((f"Declare variable ‘{name}’…", lambda: self.declare_requested.emit(name)))
        node = sop.node(issue.node) if issue.node else None
        if issue.code == "undefined-variable" and node is not None and name not in node.ask:
            # Declaring sets nothing (DESIGN §2): asking for it where it is read does.
            fixes.append((f"Ask for ‘{name}’ at {node.id}", lambda: self.ask_at(name, node.id)))
        return fixes

    def ask_at(self, name: str, node_id: str) -> bool:
        """Declare `name` if needed and ask for it at `node_id`, as one edit."""
        edit = quick_fixes.ask_at(self.session.sop, name, node_id)
        return edit is not None and self.session.push(edit)

    def _context_menu(self, point) -> None:
        item = self.tree.itemAt(point)
        issue = item.data(1, Qt.UserRole) if item is not None else None
        fixes = self.quick_fixes(issue) if issue is not None else []
        if item is not None and item.text(1) == "import-note":
            fixes = [("Dismiss import notes", self.dismiss_notes)]
        if not fixes:
            return
        menu = QMenu(self.tree)
        for text, handler in fixes:
            menu.addAction(text, handler)
        menu.popup(self.tree.viewport().mapToGlobal(point))
        self.menu = menu  # kept for tests (and so it is not collected while shown)

    def shutdown(self) -> None:
        self.timer.stop()
        self.runner.wait(3000)


def _validate_data(generation: int, data: dict, loader) -> tuple[int, list]:
    """In the worker: the SOP rebuilt from its dump, validated; tagged with its generation."""
    return generation, validate(SOP.model_validate(data), loader)
