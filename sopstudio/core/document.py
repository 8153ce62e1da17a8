"""The open SOP document: one SOP that changes only through edits, with change events,
dirty tracking and (for callers without Qt) an undo history."""

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

    def apply(self, edit: Edit) -> Edit:
        """Apply `edit`, announce it and return its inverse. Raises EditError (document
        unchanged, nothing emitted) when the edit is illegal."""
        inverse = edit.apply(self._sop)
        self._dirty = None
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


@dataclass
class _Entry:
    edit: Edit      # re-applied on redo
    inverse: Edit   # applied on undo


class History:
    """A pure-Python undo stack over a Document (the Qt layer uses QUndoStack instead).

    Consecutive `do` calls whose edits share a non-None `merge_key` become one entry; undo,
    redo and `close_merge` end the run of merging.
    """

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._undo: list[_Entry] = []
        self._redo: list[_Entry] = []
        self._merge_open = False

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
        inverse = self.doc.apply(edit)
        top = self._undo[-1] if self._undo else None
        key = edit.merge_key
        if self._merge_open and top is not None and key is not None \
                and key == top.edit.merge_key:
            top.edit = edit  # the first inverse still restores the state before the run
        else:
            self._undo.append(_Entry(edit, inverse))
        self._redo.clear()
        self._merge_open = True
        return inverse

    def undo(self) -> Edit | None:
        """Undo the last entry; return the edit that was undone (None when there is none)."""
        if not self._undo:
            return None
        entry = self._undo.pop()
        self.doc.apply(entry.inverse)
        self._redo.append(entry)
        self._merge_open = False
        return entry.edit

    def redo(self) -> Edit | None:
        if not self._redo:
            return None
        entry = self._redo.pop()
        entry.inverse = self.doc.apply(entry.edit)
        self._undo.append(entry)
        self._merge_open = False
        return entry.edit

    def close_merge(self) -> None:
        """Make the next edit a new entry even if it could merge (e.g. the field lost focus)."""
        self._merge_open = False

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()
        self._merge_open = False
