"""Autosave of unsaved work and recovery after a crash.

Every AUTOSAVE_MS while the document has unsaved changes, it is written next to the store
(`<store folder>/autosave/<sop id>.sop.json`). A clean save or close removes that file; one
left behind means SOP Studio stopped without saving, so opening that SOP offers to recover it,
as one undoable edit.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from ..core.edits import ReplaceSOP
from ..core.errors import SopStudioError
from ..core.io import canonical_json, load_sop, save_sop

log = logging.getLogger(__name__)

AUTOSAVE_MS = 30_000


def autosave_folder() -> Path:
    from ..store import resolve_path
    return resolve_path(None).parent / "autosave"


def autosave_path(sop_id: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in sop_id) or "untitled"
    return autosave_folder() / f"{safe}.sop.json"


class Autosaver(QObject):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.save_now)
        self.timer.start()

    def save_now(self) -> Path | None:
        document = self.session.document
        if not document.dirty:
            return None
        path = autosave_path(document.sop.id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_sop(document.sop, path)
        except OSError as problem:
            log.warning("autosave to %s failed: %s", path, problem)
            return None  # autosave is best effort; the status bar is not worth a dialog
        return path

    def discard(self) -> None:
        """Remove the autosave (after a save); a folder that cannot be reached has none."""
        path = autosave_path(self.session.sop.id)
        try:
            path.unlink(missing_ok=True)
        except OSError as problem:
            log.warning("removing the autosave %s failed: %s", path, problem)

    def offer_recovery(self, parent) -> bool:
        """After opening a document: if an autosave of it differs, ask to recover it."""
        path = autosave_path(self.session.sop.id)
        if not path.exists():
            return False
        try:
            saved = load_sop(path, strict=False)
        except SopStudioError:
            return False
        if canonical_json(saved) == canonical_json(self.session.sop):
            path.unlink(missing_ok=True)
            return False
        answer = QMessageBox.question(
            parent, "Recover unsaved work",
            f"SOP Studio stopped before “{saved.title or saved.id}” was saved. "
            "Recover the unsaved changes?", QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer != QMessageBox.Yes:
            path.unlink(missing_ok=True)
            return False
        return self.session.push(ReplaceSOP(saved, "Recover unsaved work"))
