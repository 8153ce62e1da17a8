"""The history dock: versions of this SOP from the store, the structural diff of a selected
version against the current document (or of two selected versions, older to newer), and
"restore" as one undoable edit (the window then refreshes every view)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QLabel, QListWidget,
                               QListWidgetItem, QPlainTextEdit, QPushButton, QVBoxLayout,
                               QWidget)

from ...core.edits import ReplaceSOP
from ..store_link import STORE_ERRORS

log = logging.getLogger(__name__)


class HistoryDock(QWidget):
    restored = Signal()  # a version was restored: the window refreshes every view

    def __init__(self, session, store_link, parent=None):
        super().__init__(parent)
        self.session, self.store_link = session, store_link
        self.versions = QListWidget()
        # Ctrl/Shift-click a second version to compare the two.
        self.versions.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.versions.setToolTip("Select one version to compare it with the document, or two "
                                 "(Ctrl+click) to compare them with each other")
        self.versions.itemSelectionChanged.connect(self.show_diff)
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        self.diff.setFont(QFont("monospace"))
        self.restore_button = QPushButton("Restore this version")
        self.restore_button.clicked.connect(self.restore_selected)
        self.status = QLabel()
        left = QVBoxLayout()
        left.addWidget(self.versions)
        left.addWidget(self.restore_button)
        left.addWidget(self.status)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addWidget(self.diff, 2)

    def refresh(self) -> None:
        self.versions.clear()
        self.diff.clear()
        store = self.store_link.store()
        if store is None:
            self.status.setText(f"No store: {self.store_link.last_error}")
            return
        try:
            versions = store.history.versions(self.session.sop.id)
        except STORE_ERRORS as problem:  # shown, never fatal
            log.warning("listing versions failed: %s", problem)
            self.status.setText(str(problem))
            return
        for version in versions:
            tags = f" [{', '.join(version.tags)}]" if version.tags else ""
            item = QListWidgetItem(f"{version.short}  {version.created[:16]}  "
                                   f"{version.message}{tags}")
            item.setData(Qt.UserRole, version.hash)
            self.versions.addItem(item)
        self.status.setText(f"{len(versions)} version(s)")

    def selected_items(self) -> list[QListWidgetItem]:
        """Selected versions, older first (the list shows the newest first)."""
        return sorted(self.versions.selectedItems(), key=self.versions.row, reverse=True)

    def _load(self, item):
        store = self.store_link.store()
        return None if store is None else store.history.load_hash(item.data(Qt.UserRole))

    def selected_sop(self):
        items = self.selected_items()
        return self._load(items[0]) if len(items) == 1 else None

    def show_diff(self) -> None:
        items = self.selected_items()
        self.restore_button.setEnabled(len(items) == 1)
        if len(items) not in (1, 2):
            self.diff.setPlainText("Select two versions (Ctrl+click) to compare them."
                                   if items else "")
            return
        from ...store import diff_sops
        old = self._load(items[0])
        if old is None:
            return
        if len(items) == 2:
            new, heading = self._load(items[1]), (f"{_short(items[0])} → {_short(items[1])}")
        else:
            new, heading = self.session.sop, f"{_short(items[0])} → current document"
        result = diff_sops(old, new)
        self.diff.setPlainText(f"{heading}\n\n" + ("No differences." if result.is_empty
                                                   else result.to_text()))

    def restore_selected(self) -> bool:
        old = self.selected_sop()
        if old is None:
            return False
        label = _short(self.selected_items()[0])
        if not self.session.push(ReplaceSOP(old, f"Restore version {label}")):
            return False
        self.restored.emit()
        return True


def _short(item: QListWidgetItem) -> str:
    return item.text().split()[0]
