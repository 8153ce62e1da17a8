"""The open SOP document: one SOP that changes only through edits, with change events,
dirty tracking, and the undo rules.

One undo implementation: `UndoEntry` holds one undo entry and the rule for when a later edit
joins it (one user gesture = one entry). `History` is a plain stack of entries for callers without
Qt; the GUI's QUndoStack holds one `EditCommand` per entry (qt/commands.py) whose undo, redo and
`mergeWith` call the same `UndoEntry` methods, so both undo the same way (a property test drives
both with the same random edits and compares the documents).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .edits_base import Edit
from .io import canonical_json
from .model import SOP
from .signals import Signal

# When one edit touches several kinds, `Change.kind` names the broadest one.
KIND_ORDER = ("reset", "nodes", "edges", "tools", "variables", "knowledge", "sop", "positions")


@dataclass(frozen=True)
class Change:
    """What an applied edit changed. `kind` is the broadest kind touched (KIND_ORDER);
    `ids` holds every touched id (node/edge ids, tool/variable names, knowledge indexes as
    strings, SOP field names for 'sop'); `by_kind` splits them by kind."""

    kind: str
    ids: set[str]
    edit: Edit
    by_kind: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, edit: Edit) -> Change:
        by_kind = edit.changes()
        kind = next((k for k in KIND_ORDER if k in by_kind), "sop")
        return cls(kind, edit.changed_ids(), edit, by_kind)


class Document:
    """Owns one SOP. `sop` is the live object: read it, never mutate it — go through `apply`.

    `changed` emits a Change after every applied edit. `dirty` says whether the content differs
    from the last `mark_saved` (undoing back to the saved state makes it clean again).
    """

    def __init__(self, sop: SOP, path: Path | None = None) -> None:
        self._sop = sop
        self.path = Path(path) if path is not None else None
        self.changed = Signal()
        self._saved_json = canonical_json(sop)
        self._dirty: bool | None = False  # None: unknown until compared again
        # Bumped by every applied edit and by a save: an undo entry takes in a later edit only
        # when nothing happened to the document in between (UndoEntry.absorb).
        self.revision = 0

    @property
    def sop(self) -> SOP:
        return self._sop

    @property
    def dirty(self) -> bool:
        if self._dirty is None:
            # Compared lazily: one serialisation per check, not per edit.
            self._dirty = canonical_json(self._sop) != self._saved_json
        return self._dirty

    def mark_saved(self, path: Path | None = None) -> None:
        if path is not None:
            self.path = Path(path)
        self._saved_json = canonical_json(self._sop)
        self._dirty = False
        self.revision += 1  # typing after a save starts a new undo entry

    def apply(self, edit: Edit) -> Edit:
        """Apply `edit`, announce it and return its inverse. Raises EditError (document
        unchanged, nothing emitted) when the edit is illegal."""
        inverse = edit.apply(self._sop)
        self._dirty = None
        self.revision += 1
        self.changed.emit(Change.of(edit))
        return inverse

    def new_node_id(self, prefix: str = "node") -> str:
        return _fresh(prefix + "_", {n.id for n in self._sop.nodes})

    def new_edge_id(self) -> str:
        return _fresh("e", {e.id for e in self._sop.edges})


def _fresh(prefix: str, taken: set[str]) -> str:
    number = 1
    while f"{prefix}{number}" in taken:
        number += 1
    return f"{prefix}{number}"


class UndoEntry:
    """One undo entry: an applied edit, the inverse that undoes it, and the merge rule.

    One user gesture is one entry. Consecutive edits of one field (equal non-None
    `Edit.merge_key`: typing in a field) merge into one entry that undoes back to the value
    before the first keystroke; a drag is one `MoveNodes` pushed on release (its merge key is
    None, so every drag is its own entry). Merging stops at anything else that happens to the
    document (an undo, a redo, another edit, a save) and at `seal()` (e.g. the field lost focus).
    """

    def __init__(self, doc: Document, edit: Edit, inverse: Edit) -> None:
        """`edit` has just been applied to `doc` and returned `inverse`."""
        self.doc, self.edit, self.inverse = doc, edit, inverse
        self.revision = doc.revision  # the document's revision right after `edit`
        self.sealed = False

    @classmethod
    def record(cls, doc: Document, edit: Edit) -> UndoEntry:
        """Apply `edit` (EditError leaves everything unchanged) and make its entry."""
        return cls(doc, edit, doc.apply(edit))

    def absorb(self, later: UndoEntry) -> bool:
        """Take `later` (applied right after this entry) into this entry if it continues the
        same gesture; False leaves both unchanged (`later` becomes an entry of its own)."""
        key = later.edit.merge_key
        if self.sealed or key is None or key != self.edit.merge_key \
                or later.revision != self.revision + 1:
            return False
        self.edit, self.revision = later.edit, later.revision  # our inverse still undoes all
        return True

    def seal(self) -> None:
        """Let no later edit merge into this entry."""
        self.sealed = True

    def undo(self) -> None:
        self.doc.apply(self.inverse)

    def redo(self) -> None:
        self.inverse = self.doc.apply(self.edit)


class History:
    """A pure-Python undo stack of `UndoEntry`s over a Document (the GUI's QUndoStack holds the
    same entries through qt/commands.py)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._undo: list[UndoEntry] = []
        self._redo: list[UndoEntry] = []

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_text(self) -> str:
        return self._undo[-1].edit.description if self._undo else ""

    @property
    def redo_text(self) -> str:
        return self._redo[-1].edit.description if self._redo else ""

    def do(self, edit: Edit) -> Edit:
        """Apply `edit` as a new undo entry (or merged into the last one); return its inverse."""
        entry = UndoEntry.record(self.doc, edit)
        if not (self._undo and self._undo[-1].absorb(entry)):
            self._undo.append(entry)
        self._redo.clear()
        return entry.inverse

    def undo(self) -> Edit | None:
        """Undo the last entry; return the edit that was undone (None when there is none)."""
        if not self._undo:
            return None
        entry = self._undo.pop()
        entry.undo()
        self._redo.append(entry)
        return entry.edit

    def redo(self) -> Edit | None:
        if not self._redo:
            return None
        entry = self._redo.pop()
        entry.redo()
        self._undo.append(entry)
        return entry.edit

    def close_merge(self) -> None:
        """Make the next edit a new entry even if it could merge (e.g. the field lost focus)."""
        if self._undo:
            self._undo[-1].seal()

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()
