"""Field edits: `SetField` (with reference-preserving renames), `MoveNodes` and `ReplaceSOP`."""

from __future__ import annotations

from typing import Any, Iterator, Literal

from pydantic import BaseModel

from .edits_base import COLLECTIONS, Edit, Planned, SetAt, as_model, find_index
from .errors import EditError
from .model import SOP

Kind = Literal["sop", "node", "edge", "tool", "variable", "knowledge"]
KINDS: dict[str, str] = {"sop": "sop", "node": "nodes", "edge": "edges", "tool": "tools",
                         "variable": "variables", "knowledge": "knowledge"}
# Lists of the SOP that only the add/remove edits may change (they keep references whole).
_SOP_COLLECTIONS = frozenset(COLLECTIONS)


def _node_id_refs(sop: SOP) -> Iterator[tuple[tuple[str, int | None, str], str]]:
    """Yield ((collection, index, field), referenced id) for every place naming a node id."""
    for index, edge in enumerate(sop.edges):
        for end in ("source", "target"):
            yield ("edges", index, end), getattr(edge, end)
    if sop.start is not None:
        yield ("sop", None, "start"), sop.start


def _references(sop: SOP, coll: str, name: str) -> list[tuple[str, int | None, str]]:
    """Where `name` (a node id, tool name or variable name) is referenced."""
    found = []
    if coll == "nodes":
        found = [where for where, ref in _node_id_refs(sop) if ref == name]
    for index, node in enumerate(sop.nodes):
        if coll == "tools":
            found += [("nodes", index, f) for f in ("tools", "tool_when", "tool_args")
                      if name in getattr(node, f)]
        elif coll == "variables" and name in node.ask:
            found.append(("nodes", index, "ask"))
    return found


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [new if item == old else item for item in value]
    # dicts keyed by tool name keep their order; the renamed key stays in place
    return {(new if key == old else key): item for key, item in value.items()}


def rename_plan(sop: SOP, coll: str, old: str, new: str) -> list[Edit]:
    """Primitives that point every reference to `old` at `new` instead."""
    plan: list[Edit] = []
    for where in _references(sop, coll, old):
        c, index, field = where
        obj = sop if c == "sop" else getattr(sop, c)[index]
        plan.append(SetAt(c, index, field, _renamed(getattr(obj, field), old, new)))
    return plan


def _keys(sop: SOP, coll: str) -> list[str]:
    attr = COLLECTIONS[coll][1]
    items = getattr(sop, coll)
    if attr is None:  # knowledge entries are named by position
        return [str(index) for index in range(len(items))]
    return [getattr(item, attr) for item in items]


class SetField(Planned):
    """Set one field of the SOP, a node, an edge, a tool, a variable or a knowledge entry.

    `ident` is the node/edge id, tool/variable name, knowledge index, or None for 'sop'.
    Renaming a node id, tool name or variable name rewrites what refers to it (edges' ends and
    `start`; nodes' tools/tool_when/tool_args; nodes' `ask`). Conditions and expressions that
    mention a renamed variable are not rewritten.
    """

    def __init__(self, kind: Kind, ident: str | int | None, field: str, value: Any) -> None:
        super().__init__()
        if kind not in KINDS:
            raise EditError(f"unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
        self.kind, self.ident, self.field, self.value = kind, ident, field, value
        self.description = f"Set {field}" + ("" if ident is None else f" of {kind} {ident!r}")
        label = "positions" if (kind, field) == ("node", "position") else KINDS[kind]
        self._changes = {label: {field if kind == "sop" else str(ident)}}

    @property
    def merge_key(self) -> Any:
        # A rename also rewrites references, which the first inverse of a merged run would
        # not undo; renames therefore never merge.
        if self.field == COLLECTIONS.get(KINDS[self.kind], (None, None))[1]:
            return None
        return (self.kind, self.ident, self.field)

    def _locate(self, sop: SOP) -> tuple[str, int | None, BaseModel]:
        coll = KINDS[self.kind]
        if coll == "sop":
            if self.ident is not None:
                raise EditError(f"sop fields take no ident, got {self.ident!r}")
            return coll, None, sop
        index = find_index(sop, coll, self.ident)
        return coll, index, getattr(sop, coll)[index]

    def plan(self, sop: SOP) -> list[Edit]:
        coll, index, obj = self._locate(sop)
        known = self.field in type(obj).model_fields or self.field in (obj.model_extra or {})
        if not known:
            raise EditError(f"{self.kind} has no field {self.field!r}")
        if coll == "sop" and self.field in _SOP_COLLECTIONS:
            raise EditError(f"sop.{self.field} changes only through add/remove edits")
        self._check_reference(sop, coll)
        plan: list[Edit] = [SetAt(coll, index, self.field, self.value)]
        key = COLLECTIONS.get(coll, (None, None))[1]
        old = getattr(obj, self.field)
        if self.field == key and isinstance(self.value, str) and self.value != old:
            plan += self._rename(sop, coll, old)
        return plan

    def _check_reference(self, sop: SOP, coll: str) -> None:
        points_at_node = (coll, self.field) in {("edges", "source"), ("edges", "target"),
                                                ("sop", "start")}
        if points_at_node and self.value is not None and sop.node(self.value) is None:
            raise EditError(f"{self.field}: no node with id {self.value!r}")

    def _rename(self, sop: SOP, coll: str, old: str) -> list[Edit]:
        new = self.value
        if new in _keys(sop, coll):
            raise EditError(f"{self.kind} {new!r} already exists")
        if coll in ("edges", "knowledge"):
            return []
        if _references(sop, coll, new):
            raise EditError(f"{self.kind} name {new!r} is already referenced elsewhere "
                            f"in the SOP; pick another")
        # With a duplicate of `old` still present, references keep meaning that other item.
        if _keys(sop, coll).count(old) > 1:
            return []
        return rename_plan(sop, coll, old, new)


class MoveNodes(Planned):
    """Set the canvas position of several nodes at once (one drag = one edit)."""

    def __init__(self, positions: dict[str, tuple[float, float] | None]) -> None:
        super().__init__()
        self.positions = dict(positions)
        count = len(self.positions)
        self.description = (f"Move node {next(iter(self.positions))!r}" if count == 1
                            else f"Move {count} nodes")
        self._changes = {"positions": set(self.positions)}

    def plan(self, sop: SOP) -> list[Edit]:
        return [SetAt("nodes", find_index(sop, "nodes", node_id), "position", position)
                for node_id, position in self.positions.items()]


class ReplaceSOP(Edit):
    """Replace the whole content of the SOP (restore a version, lay out everything, import).

    The SOP object itself stays the same (listeners holding it see the new content)."""

    def __init__(self, sop: SOP | dict[str, Any], description: str = "Replace SOP") -> None:
        super().__init__()
        self.sop = as_model(sop, SOP, "replacement SOP")
        self.description = description
        self._changes = {"reset": {self.sop.id}}

    def apply(self, sop: SOP) -> Edit:
        old = sop.model_copy(deep=True)
        new = self.sop.model_copy(deep=True)
        # Swap the content wholesale: `new` is already valid, revalidating would only cost time.
        sop.__dict__.clear()
        sop.__dict__.update(new.__dict__)
        object.__setattr__(sop, "__pydantic_extra__", dict(new.__pydantic_extra__ or {}))
        object.__setattr__(sop, "__pydantic_fields_set__", set(new.__pydantic_fields_set__))
        self._changes = {"reset": {old.id, sop.id}}
        return ReplaceSOP(old, f"Undo {self.description}")
