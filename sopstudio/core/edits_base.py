"""Edit machinery: the `Edit` base class, position-based primitives, plans and `Batch`.

Every public edit (see `edits.py`) checks legality against the current SOP, then turns itself
into a *plan*: a list of primitives that insert, remove or set one thing at one list position.
Primitives know their exact inverse, so the inverse of any edit is the reversed list of its
primitives' inverses. That makes undo exact by construction, even on documents with broken
references or duplicate ids (which the model allows so the editor can repair them).
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import EditError
from .model import SOP, Edge, Knowledge, Node, Tool, Variable

# Collection name -> (model class, key attribute or None when items are addressed by index).
COLLECTIONS: dict[str, tuple[type[BaseModel], str | None]] = {
    "nodes": (Node, "id"), "edges": (Edge, "id"), "tools": (Tool, "name"),
    "variables": (Variable, "name"), "knowledge": (Knowledge, None)}

Changes = dict[str, set[str]]
M = TypeVar("M", bound=BaseModel)


def merge_changes(target: Changes, more: Changes) -> Changes:
    for kind, ids in more.items():
        target.setdefault(kind, set()).update(ids)
    return target


def validation_message(error: ValidationError) -> str:
    first = error.errors()[0]
    return first["msg"]


class Edit:
    """One change to an SOP. `apply(sop)` mutates it in place and returns the inverse edit.

    An edit raises EditError and leaves the SOP untouched when it is illegal. Edits are values:
    applying the same edit again to the same state gives the same result (History's redo).
    """

    description: str = ""

    def __init__(self) -> None:
        self._changes: Changes = {}

    @property
    def merge_key(self) -> Any:
        """Consecutive edits with an equal non-None key merge into one undo entry."""
        return None

    def apply(self, sop: SOP) -> Edit:
        raise NotImplementedError

    def changes(self) -> Changes:
        """What the last `apply` touched, by kind ('nodes', 'edges', ..., 'positions', 'sop',
        'reset'); before the first apply, what is known from the edit's arguments."""
        return {kind: set(ids) for kind, ids in self._changes.items()}

    def changed_ids(self) -> set[str]:
        return set().union(*self._changes.values()) if self._changes else set()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description!r}>"


def _items(sop: SOP, coll: str) -> list[Any]:
    items: list[Any] = getattr(sop, coll)
    return items


def _key_of(coll: str, item: Any, index: int) -> str:
    key = COLLECTIONS[coll][1]
    return str(index) if key is None else getattr(item, key)


def check_index(index: int, size: int, what: str) -> None:
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < size:
        raise EditError(f"{what}: no position {index!r} (there are {size})")


class InsertAt(Edit):
    """Primitive: insert a copy of `item` into collection `coll` at `index`."""

    def __init__(self, coll: str, index: int, item: BaseModel) -> None:
        super().__init__()
        self.coll, self.index, self.item = coll, index, item
        self.description = f"Insert into {coll}"

    def apply(self, sop: SOP) -> Edit:
        items = _items(sop, self.coll)
        check_index(self.index, len(items) + 1, self.coll)
        items.insert(self.index, self.item.model_copy(deep=True))
        self._changes = {self.coll: {_key_of(self.coll, self.item, self.index)}}
        return RemoveAt(self.coll, self.index)


class RemoveAt(Edit):
    """Primitive: remove the item of collection `coll` at `index`."""

    def __init__(self, coll: str, index: int) -> None:
        super().__init__()
        self.coll, self.index = coll, index
        self.description = f"Remove from {coll}"

    def apply(self, sop: SOP) -> Edit:
        items = _items(sop, self.coll)
        check_index(self.index, len(items), self.coll)
        item = items.pop(self.index)  # detached from the SOP now, so the inverse may keep it
        self._changes = {self.coll: {_key_of(self.coll, item, self.index)}}
        return InsertAt(self.coll, self.index, item)


class SetAt(Edit):
    """Primitive: set `field` of the SOP (coll 'sop', index None) or of one collection item."""

    def __init__(self, coll: str, index: int | None, field: str, value: Any) -> None:
        super().__init__()
        self.coll, self.index, self.field, self.value = coll, index, field, value
        self.description = f"Set {field}"

    def target(self, sop: SOP) -> BaseModel:
        if self.coll == "sop":
            return sop
        items = _items(sop, self.coll)
        index = self._position()
        check_index(index, len(items), self.coll)
        item: BaseModel = items[index]
        return item

    def _position(self) -> int:
        if self.index is None:
            raise EditError(f"{self.coll}: an item needs its index")
        return self.index

    def apply(self, sop: SOP) -> Edit:
        obj = self.target(sop)
        old = copy.deepcopy(getattr(obj, self.field))
        before = self._key(obj)
        try:
            # The model validates on assignment and leaves the object unchanged on failure.
            setattr(obj, self.field, copy.deepcopy(self.value))
        except ValidationError as error:
            raise EditError(f"{self._where(obj)}.{self.field}: "
                            f"{validation_message(error)}") from None
        self._changes = self._record(obj, before)
        return SetAt(self.coll, self.index, self.field, old)

    def _key(self, obj: BaseModel) -> str:
        return self.field if self.coll == "sop" else _key_of(self.coll, obj, self._position())

    def _where(self, obj: BaseModel) -> str:
        return "sop" if self.coll == "sop" else f"{self.coll[:-1]} '{self._key(obj)}'"

    def _record(self, obj: BaseModel, before: str) -> Changes:
        kind = "positions" if (self.coll, self.field) == ("nodes", "position") else self.coll
        return {kind: {before, self._key(obj)}}


def run_plan(sop: SOP, plan: list[Edit]) -> tuple[list[Edit], Changes]:
    """Apply edits in order; on failure undo the applied ones and re-raise (SOP untouched).

    Returns the inverses in the order they must be applied (reverse) and the merged changes.
    """
    inverses: list[Edit] = []
    changes: Changes = {}
    try:
        for edit in plan:
            inverses.append(edit.apply(sop))
            merge_changes(changes, edit.changes())
    except Exception:
        for inverse in reversed(inverses):
            inverse.apply(sop)
        raise
    inverses.reverse()
    return inverses, changes


class Batch(Edit):
    """Several edits as one: applied in order, all or nothing; the inverse undoes them in
    reverse order."""

    def __init__(self, edits: list[Edit], description: str = "Edit") -> None:
        super().__init__()
        self.edits = list(edits)
        self.description = description
        for edit in self.edits:
            if not isinstance(edit, Edit):
                raise EditError(f"{description}: not an edit: {edit!r}")
            merge_changes(self._changes, edit.changes())

    def apply(self, sop: SOP) -> Edit:
        inverses, self._changes = run_plan(sop, self.edits)
        return Batch(inverses, f"Undo {self.description}")


class Planned(Edit):
    """A public edit: `plan(sop)` checks legality (raising EditError before touching anything)
    and returns the primitives that carry it out."""

    def plan(self, sop: SOP) -> list[Edit]:
        raise NotImplementedError

    def apply(self, sop: SOP) -> Edit:
        inverses, self._changes = run_plan(sop, self.plan(sop))
        return Batch(inverses, f"Undo {self.description}")


def find_index(sop: SOP, coll: str, key: Any) -> int:
    """Position of the first item whose id/name is `key` (or the index itself for knowledge)."""
    items = _items(sop, coll)
    attr = COLLECTIONS[coll][1]
    if attr is None:
        check_index(key, len(items), coll)
        return int(key)
    for index, item in enumerate(items):
        if getattr(item, attr) == key:
            return index
    raise EditError(f"no {coll[:-1]} with {attr} {key!r}")


def as_model(value: Any, cls: type[M], what: str) -> M:
    """Accept a model instance or plain data for it; bad data is an EditError."""
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        try:
            return cls.model_validate(value)
        except ValidationError as error:
            raise EditError(f"{what}: {validation_message(error)}") from None
    raise EditError(f"{what}: expected a {cls.__name__}, got {type(value).__name__}")


def insert_index(sop: SOP, coll: str, index: int | None) -> int:
    size = len(_items(sop, coll))
    if index is None:
        return size
    check_index(index, size + 1, coll)
    return index
