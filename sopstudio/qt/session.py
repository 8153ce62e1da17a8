"""The open document, its undo stack, and a Qt signal relaying the document's changes.

Everything that changes the SOP goes through `push(edit)`: it applies the edit (an illegal one
raises EditError here, before anything is recorded) and records it as one undo entry.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from ..core.document import Document
from ..core.errors import EditError
from .commands import EditCommand


class EditSession(QObject):
    changed = Signal(object)        # core Change(kind, ids, edit)
    replaced = Signal()             # a different document (or a reloaded one) is now open
    error = Signal(str)             # an edit was refused; the message is for the status bar

    def __init__(self, document: Document | None = None, parent=None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.document: Document | None = None
        self.last_error = ""
        self.set_document(document)

    @property
    def sop(self):
        return self.document.sop

    def set_document(self, document: Document | None) -> None:
        if self.document is not None:
            self.document.changed.disconnect(self._relay)
        if document is None:
            from ..core.identity import DEFAULT_TITLE, new_sop_id
            from ..core.model import SOP
            document = Document(SOP(id=new_sop_id(), title=DEFAULT_TITLE))
        self.document = document
        document.changed.connect(self._relay)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.replaced.emit()

    def _relay(self, change) -> None:
        self.changed.emit(change)

    def push(self, edit) -> bool:
        """Apply `edit` and record it; False (and `error` emitted) when it is illegal."""
        try:
            inverse = self.document.apply(edit)
        except EditError as problem:
            self.last_error = str(problem)
            self.error.emit(self.last_error)
            return False
        self.undo_stack.push(EditCommand(self.document, edit, inverse))
        return True

    def is_dirty(self) -> bool:
        return not self.undo_stack.isClean()

    def mark_saved(self) -> None:
        self.document.mark_saved()
        self.undo_stack.setClean()
