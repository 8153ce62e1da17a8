"""One document edit as one QUndoCommand (DESIGN §1): redo applies it, undo applies its inverse.

`EditSession.push` applies the edit *before* pushing, so an illegal edit raises EditError to the
caller and never reaches the stack. Consecutive edits with an equal `merge_key` (typing in one
field) merge into one entry that undoes back to the value before the first keystroke.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

MERGE_ID = 1
# How a field is named to people (the Edit menu, tooltips); others are named as in the model.
FIELD_WORDS = {"when": "condition", "set": "assignments", "ask": "questions",
               "max_attempts": "max attempts", "tool_when": "tool conditions",
               "tool_args": "tool arguments", "parameters": "parameters schema",
               "start": "start node"}
KEY_FIELDS = {"node": "id", "edge": "id", "tool": "name", "variable": "name"}


def describe(edit) -> str:
    """The undo-stack text of `edit`: "Edit condition of e1", "Rename node a to b", ..."""
    kind, field = getattr(edit, "kind", None), getattr(edit, "field", None)
    if kind is None or field is None or not hasattr(edit, "value"):
        return edit.description or "Edit"
    if KEY_FIELDS.get(kind) == field:
        return f"Rename {kind} {edit.ident} to {edit.value}"
    words = FIELD_WORDS.get(field, field.replace("_", " "))
    if kind == "sop":
        return f"Set {words} to {edit.value}" if field == "start" else f"Edit SOP {words}"
    return f"Edit {words} of {edit.ident}"


class EditCommand(QUndoCommand):
    def __init__(self, document, edit, inverse):
        super().__init__(describe(edit))
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
