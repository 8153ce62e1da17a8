"""What an export format cannot carry: `losses(sop, fmt) -> list[str]`, one line per loss.

For a format we can read back, the loss is measured, not described: the SOP is exported,
imported again, and every field that did not survive is listed ("nodes: say (3 of 12)",
"knowledge: all 4 entries"). Formats that are written only (pictures, prompts) list the fixed
set of things they never hold. The GUI's export dialog and `sopstudio export` (on stderr) show
the same list, so the user knows before writing.
"""

from __future__ import annotations

from typing import Any

from ..core.model import SOP
from .base import FormatError

# Export-only formats: what a reader of the file cannot get back at all.
_WRITE_ONLY = {
    "svg": "everything but the picture (an image of the graph: nothing can be read back)",
    "png": "everything but the picture (an image of the graph: nothing can be read back)",
    "spa-prompt": "node positions and the editable structure (a prompt for a single agent: "
                  "it cannot be imported back)",
    "dpa-prompts": "node positions and the editable structure (per-node prompts: they cannot "
                   "be imported back)",
    "react-prompt": "node positions and the editable structure (a ReAct prompt for a single "
                    "agent: it cannot be imported back)",
    "sop-agent-prompts": "node positions and the editable structure (SOP-Agent's per-node "
                         "and branch prompts: they cannot be imported back)",
    "agent-s-prompts": "node positions and the editable structure (Agent-S's per-node state "
                       "and action prompts: they cannot be imported back)",
    "marco-prompts": "node positions and the editable structure (MARCO's intent and per-node "
                     "prompts: they cannot be imported back)",
}
_KEYS = {"nodes": "id", "edges": "id", "tools": "name", "variables": "name"}
_NOUNS = {"nodes": "nodes", "edges": "edges", "tools": "tools", "variables": "variables",
          "knowledge": "entries"}


def losses(sop: SOP, fmt: str) -> list[str]:
    """What exporting `sop` as `fmt` drops (empty for a lossless export)."""
    if fmt in _WRITE_ONLY:
        return [_WRITE_ONLY[fmt]]
    from . import EXPORT_FORMATS, export_sop, import_text
    if fmt not in EXPORT_FORMATS:
        raise FormatError(f"unknown export format '{fmt}' (one of: {', '.join(EXPORT_FORMATS)})")
    text = export_sop(sop, fmt)
    try:
        back = import_text(text if isinstance(text, str) else text.decode("utf-8"), fmt,
                           f"<{fmt} export>").sop
    except FormatError as problem:  # an export we cannot read back holds nothing we can check
        return [f"cannot be read back to check ({problem})"]
    return compare(sop, back)


def compare(original: SOP, back: SOP) -> list[str]:
    """The fields of `original` that `back` lost or changed, grouped by collection and field."""
    before = original.model_dump(mode="json", exclude_defaults=True)
    after = back.model_dump(mode="json", exclude_defaults=True)
    found = [f"SOP {field}" for field in ("id", "title", "description", "start")
             if before.get(field) not in (None, "") and before.get(field) != after.get(field)]
    for coll in ("nodes", "edges", "tools", "variables", "knowledge"):
        found += _collection(coll, before.get(coll) or [], after.get(coll) or [])
    return found


def _collection(coll: str, old: list[dict], new: list[dict]) -> list[str]:
    if not old:
        return []
    if not new:
        return [f"{coll}: all {len(old)} {_NOUNS[coll]}"]
    old_keys, new_keys = _keys(coll, old), _keys(coll, new)
    matched = dict(zip(new_keys, new))
    lines, missing = [], 0
    counts: dict[str, int] = {}
    for item, key in zip(old, old_keys):
        other = matched.get(key)
        if other is None:
            missing += 1
            continue
        for field, value in item.items():
            # An edge is known by its ends: formats that number edges themselves lose nothing.
            if coll == "edges" and field == "id":
                continue
            if not _same(value, other.get(field)):
                counts[field] = counts.get(field, 0) + 1
    if missing:
        lines.append(f"{coll}: {missing} of {len(old)} {_NOUNS[coll]}")
    lines += [f"{coll}: {field} ({count} of {len(old)})" for field, count in counts.items()]
    return lines


def _keys(coll: str, items: list[dict]) -> list:
    """How an item is matched with its read-back twin: id/name; an edge by its two ends (and
    which of several parallel edges it is); a knowledge entry by position."""
    if coll == "knowledge":
        return list(range(len(items)))
    if coll != "edges":
        return [item.get(_KEYS[coll]) for item in items]
    seen: dict[tuple, int] = {}
    keys = []
    for item in items:
        pair = (item.get("source"), item.get("target"))
        seen[pair] = seen.get(pair, 0) + 1
        keys.append((*pair, seen[pair]))
    return keys


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b
