"""Autosave of unsaved work and recovery after a crash.

Every AUTOSAVE_MS while the document has unsaved changes, it is written next to the store
(`<store folder>/autosave/<sop id>[-<hash of its file path>].sop.json`: two files that share an
id never share a slot, and a new SOP's id is unique). A clean save or close removes that file; one
left behind means SOP Studio stopped without saving, so opening that SOP offers to recover it,
as one undoable edit.
"""

from __future__ import annotations

import hashlib
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


def autosave_path(sop_id: str, file: Path | None = None) -> Path:
    """The autosave slot of the document `sop_id` saved at `file` (None: not saved yet)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in sop_id) or "untitled"
    if file is not None:
        digest = hashlib.sha1(str(Path(file).resolve()).encode("utf-8")).hexdigest()[:10]
        safe = f"{safe}-{digest}"
    return autosave_folder() / f"{safe}.sop.json"


def _slot(document) -> Path:
    return autosave_path(document.sop.id, document.path)


class Autosaver(QObject):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.save_now)
        self.timer.start()
        self.written: Path | None = None  # the slot last written (the id or path may change)

    def save_now(self) -> Path | None:
        document = self.session.document
        if not document.dirty:
            return None
        path = _slot(document)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_sop(document.sop, path)
        except OSError as problem:
            log.warning("autosave to %s failed: %s", path, problem)
            return None  # autosave is best effort; the status bar is not worth a dialog
        if self.written not in (None, path):
            self._remove(self.written)
        self.written = path
        return path

    def discard(self) -> None:
        """Remove the autosave (after a save); a folder that cannot be reached has none."""
        for path in {_slot(self.session.document), self.written} - {None}:
            self._remove(path)
        self.written = None

    @staticmethod
    def _remove(path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as problem:
            log.warning("removing the autosave %s failed: %s", path, problem)

    def offer_recovery(self, parent) -> bool:
        """After opening a document: if an autosave of it differs, ask to recover it."""
        path = _slot(self.session.document)
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
