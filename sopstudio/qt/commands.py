"""One document edit as one QUndoCommand (DESIGN §1): redo applies it, undo applies its inverse.

`EditSession.push` applies the edit *before* pushing, so an illegal edit raises EditError to the
caller and never reaches the stack. Consecutive edits with an equal `merge_key` (typing in one
field) merge into one entry that undoes back to the value before the first keystroke.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

MERGE_ID = 1


class EditCommand(QUndoCommand):
    def __init__(self, document, edit, inverse):
        super().__init__(edit.description or "Edit")
        self._document = document
        self._edit = edit
        self._inverse = inverse
        self._skip_first_redo = True  # the edit is already applied when the command is pushed
        self.merge_key = getattr(edit, "merge_key", None)

    def redo(self):
        if self._skip_first_redo:
            self._skip_first_redo = False
            return
        self._inverse = self._document.apply(self._edit)

    def undo(self):
        self._edit = self._document.apply(self._inverse)

    def id(self):
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other):
        if not isinstance(other, EditCommand) or other.merge_key != self.merge_key:
            return False
        # Keep our inverse (the state before the first edit); redo the latest value.
        self._edit = other._edit
        return True
