"""Readable text for a structural diff: `+` added, `-` removed, `~` changed, one line each.

Node moves are common and uninteresting next to real edits, so they are gathered on one line.
"""

from __future__ import annotations

import json
from typing import Any

MOVES_SHOWN = 4


def render(diff, width: int = 60) -> str:
    if diff.is_empty:
        return "no changes"
    lines = [_sop_line(change, width) for change in diff.sop]
    moves = []
    for item in diff.items:
        if item.status == "added":
            lines.append(f"+ {item.kind} {item.key}{_describe(item.kind, item.new, width)}")
        elif item.status == "removed":
            lines.append(f"- {item.kind} {item.key}{_describe(item.kind, item.old, width)}")
        else:
            for change in item.changes:
                if item.kind == "node" and change.field == "position":
                    moves.append((item.key, change))
                else:
                    lines.append(f"~ {item.kind} {item.key}: {change.field} "
                                 f"{value_text(change.old, width)} -> "
                                 f"{value_text(change.new, width)}")
    if moves:
        lines.append(_moves_line(moves))
    return "\n".join(lines)


def _sop_line(change, width: int) -> str:
    if change.field.startswith("order."):
        return f"~ sop: order of {change.field[len('order.'):]} changed"
    return (f"~ sop: {change.field} {value_text(change.old, width)} -> "
            f"{value_text(change.new, width)}")


def _describe(kind: str, item: dict | None, width: int) -> str:
    if not item:
        return ""
    if kind == "edge":
        when = f" when {item['when']}" if item.get("when") else ""
        on = " on failure" if item.get("on") == "failure" else ""
        return f": {item.get('source')} -> {item.get('target')}{when}{on}"
    if kind == "node" and item.get("title"):
        return f" {value_text(item['title'], width)}"
    if kind == "variable":
        return f" ({item.get('type', 'string')})"
    if kind == "knowledge":
        return f": {value_text(item.get('answer'), width)}"
    return ""


def _moves_line(moves: list) -> str:
    shown = ", ".join(f"{key} {_pos(c.old)} -> {_pos(c.new)}" for key, c in moves[:MOVES_SHOWN])
    more = f", and {len(moves) - MOVES_SHOWN} more" if len(moves) > MOVES_SHOWN else ""
    noun = "node" if len(moves) == 1 else "nodes"
    return f"~ moved {len(moves)} {noun}: {shown}{more}"


def _pos(value: Any) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"({value[0]:g}, {value[1]:g})"
    return "(none)"


def value_text(value: Any, width: int = 60) -> str:
    if value is None:
        return "(none)"
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"
