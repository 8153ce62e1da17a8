"""Structural diff between two SOPs, as data and as readable text. Pure: no database.

Items are matched by identity (nodes and edges by id, tools and variables by name, knowledge by
question), not by position in their list, so a reordering is one "order" change rather than a
cascade of edits. Within an item, nested dicts (a tool's parameter schema) are compared field by
field with dotted paths; lists are compared whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.model import SOP

# (kind shown to users, SOP attribute, identity field)
COLLECTIONS = (("node", "nodes", "id"), ("edge", "edges", "id"), ("tool", "tools", "name"),
               ("variable", "variables", "name"), ("knowledge", "knowledge", "question"))
_MISSING = object()


@dataclass
class FieldChange:
    field: str  # dotted path inside the item (or the SOP), e.g. "parameters.properties.id.type"
    old: Any
    new: Any

    def to_dict(self) -> dict:
        return {"field": self.field, "old": self.old, "new": self.new}


@dataclass
class ItemChange:
    kind: str  # node | edge | tool | variable | knowledge
    key: str
    status: str  # added | removed | changed
    changes: list[FieldChange] = field(default_factory=list)
    old: dict | None = None  # the whole item when removed
    new: dict | None = None  # the whole item when added

    def to_dict(self) -> dict:
        return {"kind": self.kind, "key": self.key, "status": self.status,
                "changes": [c.to_dict() for c in self.changes], "old": self.old, "new": self.new}


@dataclass
class SopDiff:
    sop: list[FieldChange] = field(default_factory=list)
    items: list[ItemChange] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.sop and not self.items

    def of(self, kind: str, status: str | None = None) -> list[ItemChange]:
        return [i for i in self.items if i.kind == kind and (status is None or i.status == status)]

    def to_dict(self) -> dict:
        return {"sop": [c.to_dict() for c in self.sop], "items": [i.to_dict() for i in self.items]}

    def to_text(self, width: int = 60) -> str:
        from .diff_text import render

        return render(self, width)


def diff_values(old: dict, new: dict, prefix: str = "") -> list[FieldChange]:
    """Field-level differences between two JSON-like dicts (recursing into nested dicts)."""
    changes: list[FieldChange] = []
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key, _MISSING), new.get(key, _MISSING)
        if _same(a, b):
            continue
        path = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            changes.extend(diff_values(a, b, path + "."))
        else:
            changes.append(FieldChange(path, None if a is _MISSING else a,
                                       None if b is _MISSING else b))
    return changes


def _same(a: Any, b: Any) -> bool:
    # 1 == 1.0 == True in Python, but they are different values in a document.
    return a == b and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def diff_sops(old: SOP, new: SOP) -> SopDiff:
    old_data, new_data = old.model_dump(mode="json"), new.model_dump(mode="json")
    names = {attr for _, attr, _ in COLLECTIONS}
    result = SopDiff(sop=diff_values({k: v for k, v in old_data.items() if k not in names},
                                     {k: v for k, v in new_data.items() if k not in names}))
    for kind, attr, ident in COLLECTIONS:
        before, after = _keyed(old_data[attr], ident), _keyed(new_data[attr], ident)
        result.items.extend(_diff_collection(kind, before, after))
        order = _order_change(attr, before, after)
        if order:
            result.sop.append(order)
    return result


def _keyed(items: list[dict], ident: str) -> dict[str, dict]:
    """Items by identity, in document order; duplicates (in a broken document) get '#2', '#3'."""
    keyed: dict[str, dict] = {}
    for item in items:
        key = str(item.get(ident))
        candidate, n = key, 1
        while candidate in keyed:
            n += 1
            candidate = f"{key}#{n}"
        keyed[candidate] = item
    return keyed


def _diff_collection(kind: str, before: dict, after: dict) -> list[ItemChange]:
    changes = []
    for key, item in before.items():
        if key not in after:
            changes.append(ItemChange(kind, key, "removed", old=item))
        else:
            fields = diff_values(item, after[key])
            if fields:
                changes.append(ItemChange(kind, key, "changed", changes=fields))
    changes.extend(ItemChange(kind, key, "added", new=item)
                   for key, item in after.items() if key not in before)
    return changes


def _order_change(attr: str, before: dict, after: dict) -> FieldChange | None:
    old_order = [k for k in before if k in after]
    new_order = [k for k in after if k in before]
    if old_order == new_order:
        return None
    return FieldChange(f"order.{attr}", old_order, new_order)
