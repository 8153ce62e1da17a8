"""The edits that change an SOP document; each `apply(sop)` returns its exact inverse.

The document changes only through these (DESIGN §1): the Qt layer wraps one in a QUndoCommand,
`Document`/`History` use them without Qt. Illegal edits (unknown or duplicate id, an edge to a
missing node, a bad field value) raise EditError and leave the SOP untouched.

Structural edits live here; field edits in `edits_fields`, the machinery in `edits_base`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .edits_base import (Batch, Edit, InsertAt, Planned, RemoveAt, SetAt, as_model, find_index,
                         insert_index)
from .edits_fields import MoveNodes, ReplaceSOP, SetField
from .errors import EditError
from .model import SOP, Edge, Knowledge, Node, Tool, Variable

__all__ = ["Edit", "Batch", "AddNode", "RemoveNode", "AddEdge", "RemoveEdge", "MoveNodes",
           "SetField", "AddTool", "RemoveTool", "AddVariable", "RemoveVariable",
           "AddKnowledge", "RemoveKnowledge", "ReplaceSOP", "EditError"]


class _AddKeyed(Planned):
    """Insert a node/edge/tool/variable whose id or name must be new."""

    coll = ""
    model: type[BaseModel] = Node
    key = "id"
    label = ""

    def __init__(self, item: Any, index: int | None = None) -> None:
        super().__init__()
        self.item = as_model(item, self.model, f"new {self.label}")
        self.index = index
        self.ident = getattr(self.item, self.key)
        self.description = f"Add {self.label} '{self.ident}'"
        self._changes = {self.coll: {self.ident}}

    def plan(self, sop: SOP) -> list[Edit]:
        if any(getattr(x, self.key) == self.ident for x in getattr(sop, self.coll)):
            raise EditError(f"a {self.label} with {self.key} '{self.ident}' already exists")
        self.check(sop)
        return [InsertAt(self.coll, insert_index(sop, self.coll, self.index), self.item)]

    def check(self, sop: SOP) -> None:
        """Further legality checks of subclasses."""


class _RemoveKeyed(Planned):
    """Remove the first node/edge/tool/variable with a given id or name."""

    coll = ""
    label = ""

    def __init__(self, ident: str) -> None:
        super().__init__()
        self.ident = ident
        self.description = f"Remove {self.label} '{ident}'"
        self._changes = {self.coll: {ident}}

    def plan(self, sop: SOP) -> list[Edit]:
        index = find_index(sop, self.coll, self.ident)
        return self.detach(sop, index) + [RemoveAt(self.coll, index)]

    def detach(self, sop: SOP, index: int) -> list[Edit]:
        """Primitives that remove what refers to the item (run before the item goes)."""
        return []

    def unique(self, sop: SOP) -> bool:
        # A duplicate left behind keeps the references: they still name an existing item.
        key = "id" if self.coll in ("nodes", "edges") else "name"
        return sum(bool(getattr(x, key) == self.ident) for x in getattr(sop, self.coll)) == 1


class AddNode(_AddKeyed):
    coll, model, key, label = "nodes", Node, "id", "node"


class RemoveNode(_RemoveKeyed):
    """Remove a node with its incoming and outgoing edges (and clear `start` if it was it);
    the inverse puts node and edges back at their original list positions."""

    coll, label = "nodes", "node"

    def detach(self, sop: SOP, index: int) -> list[Edit]:
        if not self.unique(sop):
            return []
        ends = [i for i, e in enumerate(sop.edges) if self.ident in (e.source, e.target)]
        # Highest index first, so earlier positions stay valid while removing.
        plan: list[Edit] = [RemoveAt("edges", i) for i in reversed(ends)]
        if sop.start == self.ident:
            plan.append(SetAt("sop", None, "start", None))
        return plan


class AddEdge(_AddKeyed):
    """Connect two existing nodes."""

    coll, model, key, label = "edges", Edge, "id", "edge"

    def check(self, sop: SOP) -> None:
        for end in ("source", "target"):
            if sop.node(getattr(self.item, end)) is None:
                raise EditError(f"edge '{self.ident}': {end} names no node "
                                f"('{getattr(self.item, end)}')")


class RemoveEdge(_RemoveKeyed):
    coll, label = "edges", "edge"


class AddTool(_AddKeyed):
    coll, model, key, label = "tools", Tool, "name", "tool"


class RemoveTool(_RemoveKeyed):
    """Remove a tool and unbind it from every node (tools, tool_when, tool_args)."""

    coll, label = "tools", "tool"

    def detach(self, sop: SOP, index: int) -> list[Edit]:
        if not self.unique(sop):
            return []
        plan: list[Edit] = []
        for i, node in enumerate(sop.nodes):
            if self.ident in node.tools:
                plan.append(SetAt("nodes", i, "tools", [t for t in node.tools if t != self.ident]))
            for field in ("tool_when", "tool_args"):
                mapping = getattr(node, field)
                if self.ident in mapping:
                    kept = {k: v for k, v in mapping.items() if k != self.ident}
                    plan.append(SetAt("nodes", i, field, kept))
        return plan


class AddVariable(_AddKeyed):
    coll, model, key, label = "variables", Variable, "name", "variable"


class RemoveVariable(_RemoveKeyed):
    """Remove a variable declaration (nodes that ask for it are left for validation to flag)."""

    coll, label = "variables", "variable"


class AddKnowledge(Planned):
    def __init__(self, entry: Knowledge | dict[str, Any], index: int | None = None) -> None:
        super().__init__()
        self.entry = as_model(entry, Knowledge, "new knowledge entry")
        self.index = index
        self.description = f"Add knowledge '{self.entry.question}'"

    def plan(self, sop: SOP) -> list[Edit]:
        return [InsertAt("knowledge", insert_index(sop, "knowledge", self.index), self.entry)]


class RemoveKnowledge(Planned):
    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index
        self.description = f"Remove knowledge entry {index}"
        self._changes = {"knowledge": {str(index)}}

    def plan(self, sop: SOP) -> list[Edit]:
        return [RemoveAt("knowledge", find_index(sop, "knowledge", self.index))]
