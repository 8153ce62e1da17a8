"""The shared tool library (Agent-S's Global Action Repository).

SOPs hold their own copy of each tool they use (the document stays self-contained); the library
is the reference (`ToolLibrary`, reached as `store.library`). `bind_tool` copies a library tool
into an SOP; `ToolLibrary.drift` reports SOPs whose copy no longer matches the library.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import EditError
from ..core.inputs import InputError, loads_json, read_text
from ..core.model import SOP, Tool
from ..formats.base import FormatError
from ..formats.toolspecs import parse_tool_specs
from .db import StoreError, Transactions, now_iso
from .diff import FieldChange, diff_values
from .versions import History


@dataclass
class ToolDrift:
    sop_id: str
    version: str  # hash of the SOP's newest version
    tool: str
    changes: list[FieldChange] = field(default_factory=list)  # old = SOP copy, new = library

    def to_dict(self) -> dict:
        return {"sop_id": self.sop_id, "version": self.version, "tool": self.tool,
                "changes": [c.to_dict() for c in self.changes]}


def read_tool_specs(path: str | os.PathLike) -> list[Tool]:
    """The tools of a tool-spec file, read by the formats' parser (`parse_tool_specs`, every
    accepted form); any problem is a StoreError naming the file."""
    path = Path(path)
    try:  # bounded, UTF-8 checked, JSON depth and number limits (core/inputs.py)
        data = loads_json(read_text(path), str(path))
    except InputError as error:
        raise StoreError(str(error)) from None
    except json.JSONDecodeError as error:
        raise StoreError(f"{path}: line {error.lineno}: not valid JSON ({error.msg})") from None
    try:
        return parse_tool_specs(data, str(path))[0]
    except FormatError as error:
        raise StoreError(str(error)) from None


def _spec(tool: Tool) -> str:
    return json.dumps(tool.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def bind_tool(sop: SOP, tool: Tool, node_id: str | None = None) -> SOP:
    """A new SOP with `tool` copied into `sop.tools` (replacing a same-named copy) and, when
    `node_id` is given, listed in that node's tools."""
    new = sop.model_copy(deep=True)
    copy = tool.model_copy(deep=True)
    index = next((i for i, t in enumerate(new.tools) if t.name == tool.name), None)
    tools = list(new.tools)
    if index is None:
        tools.append(copy)
    else:
        tools[index] = copy
    new.tools = tools
    if node_id is not None:
        node = new.node(node_id)
        if node is None:
            raise EditError(f"no node with id '{node_id}'")
        if tool.name not in node.tools:
            node.tools = [*node.tools, tool.name]
    return new


class ToolLibrary:
    """The shared tool library (`Store.library`), over the store's transactions; `history`
    gives the SOPs' newest versions that `drift` compares with the library."""

    def __init__(self, tx: Transactions, history: History):
        self.tx, self.history = tx, history

    def add(self, tool: Tool, source: str | None = None, replace: bool = False) -> Tool:
        now = now_iso()
        with self.tx.write() as conn:
            exists = conn.execute("SELECT 1 FROM tools WHERE name = ?", (tool.name,)).fetchone()
            if exists and not replace:
                raise StoreError(f"tool library: '{tool.name}' already exists (update it instead)")
            conn.execute("INSERT INTO tools (name, description, spec, source, created, updated) "
                         "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                         "description = excluded.description, spec = excluded.spec, "
                         "source = COALESCE(excluded.source, tools.source), "
                         "updated = excluded.updated",
                         (tool.name, tool.description, _spec(tool), source, now, now))
        return tool

    def update(self, tool: Tool) -> Tool:
        with self.tx.write() as conn:
            cursor = conn.execute("UPDATE tools SET description = ?, spec = ?, updated = ? "
                                  "WHERE name = ?",
                                  (tool.description, _spec(tool), now_iso(), tool.name))
            if cursor.rowcount == 0:
                raise StoreError(f"tool library: no tool '{tool.name}'")
        return tool

    def remove(self, name: str) -> None:
        with self.tx.write() as conn:
            if conn.execute("DELETE FROM tools WHERE name = ?", (name,)).rowcount == 0:
                raise StoreError(f"tool library: no tool '{name}'")

    def get(self, name: str) -> Tool:
        with self.tx.read() as conn:
            row = conn.execute("SELECT spec FROM tools WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise StoreError(f"tool library: no tool '{name}'")
        return Tool.model_validate_json(row[0])

    def search(self, query: str) -> list[Tool]:
        """Tools whose name or description contains every word of `query` (case-insensitive);
        name matches first."""
        words = query.lower().split()
        hits = [t for t in self.list()
                if all(w in f"{t.name}\n{t.description}".lower() for w in words)]
        return sorted(hits, key=lambda t: (not all(w in t.name.lower() for w in words), t.name))

    def import_file(self, path: str | os.PathLike, replace: bool = True) -> list[Tool]:
        """Add every tool of a tool-spec file (one transaction); existing names are updated
        when `replace`, otherwise the import fails naming the first clash."""
        tools = read_tool_specs(path)
        with self.tx.write():
            for tool in tools:
                self.add(tool, source=str(path), replace=replace)
        return tools

    def bind(self, sop: SOP, name: str, node_id: str | None = None) -> SOP:
        """`sop` with the library tool `name` copied in (see `bind_tool`)."""
        return bind_tool(sop, self.get(name), node_id)

    def drift(self, sop_id: str | None = None) -> list[ToolDrift]:
        """Bound copies (in each SOP's newest version) that differ from the library."""
        drift = []
        with self.tx.read():  # one snapshot of the library and the histories
            library = {t.name: t.model_dump(mode="json") for t in self.list()}
            for sop_key, digest in self._heads(sop_id):
                for tool in self.history.load_hash(digest).tools:
                    if tool.name in library:
                        changes = diff_values(tool.model_dump(mode="json"), library[tool.name])
                        if changes:
                            drift.append(ToolDrift(sop_key, digest, tool.name, changes))
        return drift

    def _heads(self, sop_id: str | None) -> list[tuple[str, str]]:
        """(SOP id, hash of its newest version) of `sop_id`, or of every SOP with a history."""
        if sop_id:
            head = self.history.head(sop_id)
            return [(sop_id, head.hash)] if head else []
        return [(row["id"], row["head"]) for row in self.history.sops() if row["head"]]

    # Last in the class: annotations below a method named `list` would name the method.
    def list(self) -> list[Tool]:
        """Every tool of the library, by name."""
        with self.tx.read() as conn:
            rows = conn.execute("SELECT spec FROM tools ORDER BY name").fetchall()
        return [Tool.model_validate_json(row[0]) for row in rows]

