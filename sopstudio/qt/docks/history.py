"""The history dock: versions of this SOP from the store, the structural diff of a selected
version against the current document, and "restore" as one undoable edit."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from ...core.edits import ReplaceSOP
from ..store_link import STORE_ERRORS

log = logging.getLogger(__name__)


class HistoryDock(QWidget):
    restored = Signal()  # a version was restored: the window refreshes every view

    def __init__(self, session, store_link, parent=None):
        super().__init__(parent)
        self.session, self.store_link = session, store_link
        self.versions = QListWidget()
        self.versions.currentItemChanged.connect(lambda *_: self.show_diff())
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
            versions = store.versions(self.session.sop.id)
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

    def selected_sop(self):
        item = self.versions.currentItem()
        store = self.store_link.store()
        if item is None or store is None:
            return None
        return store.load_hash(item.data(Qt.UserRole))

    def show_diff(self) -> None:
        old = self.selected_sop()
        if old is None:
            self.diff.clear()
            return
        from ...store import diff_sops
        result = diff_sops(old, self.session.sop)
        self.diff.setPlainText("Same as the current document." if result.is_empty
                               else "Selected version → current document\n\n" + result.to_text())

    def restore_selected(self) -> bool:
        old = self.selected_sop()
        if old is None:
            return False
        item = self.versions.currentItem()
        label = item.text().split()[0]
        if not self.session.push(ReplaceSOP(old, f"Restore version {label}")):
            return False
        self.restored.emit()
        return True
