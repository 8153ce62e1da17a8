"""File handling of the main window: new, open, save (recording a version), import, recent files,
and the unsaved-changes question.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..core.document import Document
from ..core.edits_refactor import RenameSop
from ..core.errors import SopStudioError
from ..core.identity import DEFAULT_TITLE, new_sop_id
from ..core.io import load_sop, save_sop
from ..core.model import SOP
from . import settings as app_settings

FILTER = "SOP documents (*.sop.json *.json);;All files (*)"


class FileOps:
    def __init__(self, window):
        self.window = window

    @property
    def session(self):
        return self.window.session

    # --- opening --------------------------------------------------------------------------------
    def new(self) -> bool:
        if not self.maybe_save():
            return False
        # A unique id: two new SOPs never share a store history or an autosave slot.
        self.session.set_document(Document(SOP(id=new_sop_id(), title=DEFAULT_TITLE)))
        self.window.reset_side_panes()
        return True

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self.window, "Open SOP", self._folder(), FILTER)
        if path:
            self.open_path(path, ask=False)

    def open_path(self, path, ask: bool = True) -> bool:
        if ask and not self.maybe_save():
            return False
        try:
            sop = load_sop(path, strict=False)  # the editor shows broken references as problems
        except SopStudioError as problem:
            QMessageBox.warning(self.window, "Cannot open", str(problem))
            return False
        self.session.set_document(Document(sop, Path(path)))
        self.window.reset_side_panes()  # nothing of the previous SOP stays in chat or diff
        self._remember(path)
        self.window.autosaver.offer_recovery(self.window)
        return True

    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Import", self._folder(),
                                              "All files (*)")
        if not path or not self.maybe_save():
            return
        try:
            from ..formats import import_file
            result = import_file(path)
        except (SopStudioError, OSError, UnicodeDecodeError, ImportError) as problem:
            QMessageBox.warning(self.window, "Cannot import", str(problem))
            return
        if result.format not in ("json", "sop-text"):
            # The importer made the id up ("imported-sop"): two imports must not share one.
            result.sop.id = new_sop_id(result.sop.title or DEFAULT_TITLE)
        self.session.set_document(Document(result.sop))
        self.window.reset_side_panes()
        self.window.ensure_layout()
        from ..formats.import_review import review
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        self.window.show_import_notes(result.notes + review(text, result.sop),
                                      f"{Path(path).name} ({result.format})")

    def export_dialog(self):
        """File ▸ Export…: the dialog lists what the chosen format drops before writing."""
        from .export_dialog import ExportDialog
        dialog = ExportDialog(self.session.sop.model_copy(deep=True), self._folder(), self.window)
        self.window.export_dialog = dialog  # reachable while open (tests, the screenshot)
        if dialog.exec():
            self.window.statusBar().showMessage(f"Exported {dialog.written}", 8000)
        return dialog

    # --- saving -----------------------------------------------------------------------------------
    def save(self) -> bool:
        path = self.session.document.path
        if path is None:
            return self.save_as_dialog()
        return self.save_to(path)

    def save_as_dialog(self) -> bool:
        name = (self.session.sop.id or "untitled") + ".sop.json"
        path, _ = QFileDialog.getSaveFileName(self.window, "Save SOP",
                                              str(Path(self._folder()) / name), FILTER)
        return self.save_to(path) if path else False

    def save_to(self, path, message: str = "") -> bool:
        sop = self.session.sop
        try:
            save_sop(sop, path)
        except OSError as problem:
            QMessageBox.warning(self.window, "Cannot save", f"{path}: {problem}")
            return False
        self.session.document.mark_saved(Path(path))
        self.session.undo_stack.setClean()
        self._remember(str(path))
        self.window.autosaver.discard()
        from ..store import IdentityConflict
        try:
            version = self.window.store_link.record_version(
                sop, message or "Saved from the editor", path)
        except IdentityConflict as conflict:
            # Another file's history has this id: never merge them; a new id, or no version.
            if self._ask_new_id(conflict) and self.session.push(
                    RenameSop(new_sop_id(sop.title))):
                return self.save_to(path, message)
            self.window.after_save(None)
            self.window.statusBar().showMessage(f"Saved; no version recorded: {conflict}", 10000)
            return True
        self.window.after_save(version)
        return True

    def _ask_new_id(self, conflict) -> bool:
        answer = QMessageBox.question(
            self.window, "Another SOP has this id",
            f"The store already keeps the history of SOP id “{conflict.sop_id}” for another "
            f"file:\n{conflict.other}\n\nGive this SOP a new id and record it as its own "
            "history? (No saves the file without recording a version.)",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        return answer == QMessageBox.Yes

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded or clean)."""
        if not self.session.document.dirty:
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes",
            f"Save the changes to “{self.window.display_name()}” before closing it?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        if answer == QMessageBox.Discard:
            self.window.autosaver.discard()
            return True
        return False

    # --- recent files ----------------------------------------------------------------------------
    def _remember(self, path: str) -> None:
        app_settings.add_recent(self.window.settings, str(Path(path).resolve()))
        self.rebuild_recent_menu()

    def rebuild_recent_menu(self) -> None:
        menu = self.window.recent_menu
        menu.clear()
        for path in app_settings.recent_files(self.window.settings):
            menu.addAction(path, lambda p=path: self.open_path(p))
        menu.setEnabled(not menu.isEmpty())

    def _folder(self) -> str:
        path = self.session.document.path
        return str(path.parent) if path else str(Path.cwd())
