"""One undo entry as one QUndoCommand (DESIGN §1): a thin Qt face over core's `UndoEntry`.

Decision: the undo rules live once, in core (`core.document.UndoEntry`): how an entry undoes and
redoes, and when a later edit merges into it (one gesture = one entry: consecutive edits of one
field merge, a drag is one entry recorded on release, anything else that happens to the document
ends the merging). `History` (core) and this command are two stacks of the same entries; the
command's undo, redo and `mergeWith` only call the entry, so the property tests that drive both
with one random edit sequence (tests/test_undo_paths.py) test the path users run. The GUI keeps
QUndoStack because its actions, clean state and signals are what the Edit menu and the window
title are built on; replacing it with an adapter around History would re-implement those.

`EditSession.push` applies the edit *before* pushing, so an illegal edit raises EditError to the
caller and never reaches the stack.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from ..core.document import UndoEntry

# Every EditCommand has this id, so QUndoStack offers each new command to the one on top and
# UndoEntry.absorb alone decides whether they merge.
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
    """`edit` has already been applied to `document` (giving `inverse`) when this is built."""

    def __init__(self, document, edit, inverse):
        super().__init__(describe(edit))
        self.entry = UndoEntry(document, edit, inverse)
        self._skip_first_redo = True  # the edit is already applied when the command is pushed

    def redo(self):
        if self._skip_first_redo:
            self._skip_first_redo = False
            return
        self.entry.redo()

    def undo(self):
        self.entry.undo()

    def id(self):
        return MERGE_ID

    def mergeWith(self, other):
        return isinstance(other, EditCommand) and self.entry.absorb(other.entry)
