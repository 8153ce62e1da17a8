"""Refactoring edits: renames that rewrite every reference in one undoable edit.

`RenameVariable` renames a declared variable and points every condition, assignment, ask, tool
argument expression, tool-parameter default mapping and `{name}` placeholder (say, instructions,
knowledge) at the new name. `RenameSop` changes the SOP id (and sub-flow nodes that run this
SOP). `RenameTool` renames a tool, its bindings on nodes and the tool name
that failure conditions compare with (`tool == 'old'`). `SetTitle` changes the SOP title and
carries a still-default id along (core.identity).

Expressions are rewritten through the expression tokenizer: only name tokens whose first segment
is the old name change (a string literal or a longer name that merely contains it never does),
and text that does not tokenize is left exactly as it is.
"""

from __future__ import annotations

import re
from typing import Any

from .edits_base import Edit, Planned, SetAt, find_index
from .errors import EditError
from .expr.errors import ExprSyntaxError
from .expr.tokenizer import Token, tokenize
from .identity import id_after_retitle
from .model import SOP

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SOP_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


def _tokens(text: str) -> list[Token] | None:
    try:
        return tokenize(text)
    except ExprSyntaxError:
        return None


def _splice(text: str, spots: list[tuple[int, int]], new: str) -> str:
    """Replace each (start, end) span of `text` by `new` (spans do not overlap)."""
    for start, end in sorted(spots, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def rename_name(text: str, old: str, new: str) -> str:
    """`text` with every variable reference whose root is `old` renamed to `new`.

    Function names (a name followed by '(') and everything inside string literals stay."""
    tokens = _tokens(text)
    if tokens is None:
        return text
    spots = []
    for token, after in zip(tokens, tokens[1:]):
        if token.kind not in ("name", "bname") or token.value[0] != old:
            continue
        if token.kind == "name" and after == ("op", "(", after.pos):
            continue
        start = token.pos
        if token.kind == "bname":  # `{ old.x }`: the name starts after the brace and spaces
            start = text.index(old, token.pos + 1)
        spots.append((start, start + len(old)))
    return _splice(text, spots, new)


def rename_string(text: str, old: str, new: str) -> str:
    """`text` with the string literals equal to `old` rewritten to `new` (quotes kept)."""
    tokens = _tokens(text)
    if tokens is None:
        return text
    spots = []
    for token in tokens:
        if token.kind == "str" and token.value == old:
            quote = text[token.pos]
            raw = text[token.pos:token.pos + len(old) + 2]
            if raw == f"{quote}{old}{quote}":  # only plain literals (no escapes) are rewritten
                spots.append((token.pos + 1, token.pos + 1 + len(old)))
    return _splice(text, spots, new)


def rename_placeholders(text: str | None, old: str, new: str) -> str | None:
    """Free text with `{old}` placeholders pointed at `{new}` (prose is never otherwise touched)."""
    if not text:
        return text
    return re.sub(r"\{(\s*)" + re.escape(old) + r"(\s*)\}", lambda m: "{" + m.group(1) + new
                  + m.group(2) + "}", text)


def _check_name(new: str, what: str) -> None:
    if not isinstance(new, str) or not _IDENT.match(new):
        raise EditError(f"{what} name {new!r}: use letters, digits and _ (not starting with a "
                        "digit), so conditions can read it")


def _set_if_changed(plan: list[Edit], coll: str, index: int | None, obj: Any, field: str,
                    value: Any) -> None:
    if value != getattr(obj, field):
        plan.append(SetAt(coll, index, field, value))


class RenameVariable(Planned):
    """Rename variable `old` to `new` and every reference to it, as one edit."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new
        self.description = f"Rename variable {old} to {new}"
        self._changes = {"variables": {old, new}}

    def plan(self, sop: SOP) -> list[Edit]:
        _check_name(self.new, "variable")
        index = find_index(sop, "variables", self.old)
        if self.new != self.old and sop.variable(self.new) is not None:
            raise EditError(f"variable {self.new!r} already exists")
        plan: list[Edit] = [SetAt("variables", index, "name", self.new)]
        for i, node in enumerate(sop.nodes):
            self._node(plan, sop, i, node)
        for i, edge in enumerate(sop.edges):
            if edge.when and not edge.is_else:
                _set_if_changed(plan, "edges", i, edge, "when",
                                rename_name(edge.when, self.old, self.new))
        for i, entry in enumerate(sop.knowledge):
            for field in ("question", "answer"):
                _set_if_changed(plan, "knowledge", i, entry, field,
                                rename_placeholders(getattr(entry, field), self.old, self.new))
        return plan

    def _node(self, plan: list[Edit], sop: SOP, i: int, node: Any) -> None:
        old, new = self.old, self.new
        _set_if_changed(plan, "nodes", i, node, "ask", [new if a == old else a for a in node.ask])
        _set_if_changed(plan, "nodes", i, node, "set", {
            (new if k == old else k): rename_name(v, old, new) for k, v in node.set.items()})
        _set_if_changed(plan, "nodes", i, node, "tool_when", {
            k: rename_name(v, old, new) for k, v in node.tool_when.items()})
        _set_if_changed(plan, "nodes", i, node, "tool_args", self._tool_args(sop, node))
        for field in ("say", "instructions"):
            _set_if_changed(plan, "nodes", i, node, field,
                            rename_placeholders(getattr(node, field), old, new))

    def _tool_args(self, sop: SOP, node: Any) -> dict[str, dict[str, str]]:
        """Mappings with expressions renamed; a parameter that read the variable by its same
        name (no mapping) gets an explicit mapping, so it keeps reading it."""
        result = {tool: {p: rename_name(e, self.old, self.new) for p, e in mapping.items()}
                  for tool, mapping in node.tool_args.items()}
        for name in node.tools:
            tool = sop.tool(name)
            if tool is not None and self.old in tool.parameter_names() \
                    and self.old not in result.get(name, {}):
                result.setdefault(name, {})[self.old] = self.new
        return result


class RenameTool(Planned):
    """Rename tool `old` to `new`: the tool, every node's binding (tools, tool_when, tool_args)
    and the tool name that conditions compare `tool` with. Nodes that already named `new`
    (a tool not declared yet) now call the renamed tool."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new
        self.description = f"Rename tool {old} to {new}"
        self._changes = {"tools": {old, new}}

    def plan(self, sop: SOP) -> list[Edit]:
        _check_name(self.new, "tool")
        index = find_index(sop, "tools", self.old)
        if self.new != self.old and sop.tool(self.new) is not None:
            raise EditError(f"tool {self.new!r} already exists")
        old, new = self.old, self.new
        plan: list[Edit] = [SetAt("tools", index, "name", new)]
        for i, node in enumerate(sop.nodes):
            tools = list(dict.fromkeys(new if t == old else t for t in node.tools))
            _set_if_changed(plan, "nodes", i, node, "tools", tools)
            for field in ("tool_when", "tool_args"):
                mapping = getattr(node, field)
                _set_if_changed(plan, "nodes", i, node, field,
                                {(new if k == old else k): v for k, v in mapping.items()})
        for i, edge in enumerate(sop.edges):
            if edge.when and not edge.is_else and "tool" in _roots(edge.when):
                _set_if_changed(plan, "edges", i, edge, "when", rename_string(edge.when, old, new))
        return plan


class RenameSop(Planned):
    """Give the SOP a new id; nodes that run this SOP as their sub-flow follow it."""

    def __init__(self, new: str) -> None:
        super().__init__()
        self.new = new
        self.description = f"Rename SOP to {new}"
        self._changes = {"sop": {"id"}}

    def plan(self, sop: SOP) -> list[Edit]:
        if not isinstance(self.new, str) or not _SOP_ID.match(self.new):
            raise EditError(f"SOP id {self.new!r}: use letters, digits, _ - and . only")
        plan: list[Edit] = [SetAt("sop", None, "id", self.new)]
        for i, node in enumerate(sop.nodes):
            if node.subflow == sop.id:
                plan.append(SetAt("nodes", i, "subflow", self.new))
        return plan


def _roots(text: str) -> set[str]:
    tokens = _tokens(text) or []
    return {t.value[0] for t in tokens if t.kind in ("name", "bname")}


class SetTitle(Planned):
    """Set the SOP title; an id that still follows the title (a new SOP's default) follows it.

    `follow_id=False` keeps the id whatever it is (the editor passes it once the SOP has been
    saved: its id then names a file's history)."""

    def __init__(self, title: str, follow_id: bool = True) -> None:
        super().__init__()
        self.title, self.follow_id = title, follow_id
        self.description = "Edit SOP title"
        self._changes = {"sop": {"title"}}

    @property
    def merge_key(self) -> Any:
        return ("sop", None, "title")  # typing a title is one undo entry

    def plan(self, sop: SOP) -> list[Edit]:
        plan: list[Edit] = [SetAt("sop", None, "title", self.title)]
        new_id = id_after_retitle(sop.id, sop.title, self.title) if self.follow_id else None
        if new_id is not None and new_id != sop.id:
            plan.append(SetAt("sop", None, "id", new_id))
        return plan
