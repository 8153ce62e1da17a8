"""Sub-SOPs (DESIGN §2): loading the child of a `kind: "subflow"` node and inlining it.

A subflow node names its child by a file path relative to the file holding the node. Running,
journeys, counts, covers, expected runs and scenario generation all work on the **expanded** SOP
that `expand` returns, so none of them needs to know about subflows:

- every child node is copied with the id `<subflow node>/<child id>` (nested: `a/b/c`) and the
  extra fields `level` (1 for a child of the top SOP, 2 for a grandchild...), `local` (its id
  in the child's own file) and `within` (the titles of the subflow nodes around it, outermost
  first), so trace events can say where they happened in words a person reads;
- the edges entering the subflow node (and the start, if it is the subflow node) lead to the
  child's start instead: the child runs in the same conversation and memory;
- the subflow node itself goes; each end node of the child becomes a task that sets
  `<subflow node>.outcome` to its outcome and leaves by copies of the subflow node's success
  edges (id `<edge>@<end node>`, field `origin` = the parent's edge id), keeping only those whose
  condition can hold for that outcome, so the parent leaves by its own edges, which can test
  `<node id>.outcome`, and every journey stays feasible;
- the child's tools, variables and knowledge join the parent's (the parent's win on a name clash).

Nesting is bounded (`MAX_DEPTH`); a child that includes itself again is `SubflowError`
(code `subflow-recursion`), a child that cannot be read is `missing-subflow`, a chain deeper than
the bound is `subflow-too-deep`. The loader reads child files with `core.io.load_sop`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

from .errors import LoadError, SopStudioError
from . import expr as _expr
from .model import SOP, Edge, Node

MAX_DEPTH = 8
SEPARATOR = "/"


class SubflowError(SopStudioError):
    """A subflow cannot be expanded; `code` is the validation code, `node` the subflow node."""

    def __init__(self, code: str, message: str, node: str | None = None):
        super().__init__(message)
        self.code, self.node = code, node


class SubflowLoader:
    """Reads the child SOPs of one top-level file; children resolve against their own folder."""

    def __init__(self, top_path: str | os.PathLike[str] | None,
                 read: Callable[[Path], SOP] | None = None):
        self.top = Path(top_path).resolve() if top_path is not None else None
        self._read = read or _read_file

    def load(self, ref: str, base: Path | None) -> tuple[SOP, Path]:
        """The child SOP named `ref` (relative to `base`'s folder) and its resolved path."""
        folder = base.parent if base is not None else Path.cwd()
        path = (folder / ref).resolve()
        return self._read(path), path


def _read_file(path: Path) -> SOP:
    from .io import load_sop  # io imports model only; kept local so this module stays light
    return load_sop(path)


def has_subflows(sop: SOP) -> bool:
    return any(node.kind == "subflow" for node in sop.nodes)


def expand(sop: SOP, loader: SubflowLoader | None) -> SOP:
    """The SOP with every subflow inlined (itself when it has none). Without a loader, subflow
    nodes stay as they are (they then run as plain tasks)."""
    if loader is None or not has_subflows(sop):
        return sop
    return _expand(sop, loader, loader.top, (loader.top,), 0)


def expand_file(sop: SOP, path: str | os.PathLike[str] | None) -> SOP:
    """The SOP as it runs when saved at `path`: its sub-SOPs (read next to `path`) inlined.
    Shared by the CLI's run commands and the GUI's simulation; raises SubflowError."""
    return expand(sop, SubflowLoader(path))


def owner_id(node_id: str) -> str:
    """The top-level node an expanded id belongs to: `a/b/c` -> `a` (the subflow node)."""
    return node_id.split(SEPARATOR, 1)[0]


def _expand(sop: SOP, loader: SubflowLoader, path: Path | None, stack: tuple[Path | None, ...], level: int) -> SOP:
    result = sop.model_copy(deep=True)
    for node in [n for n in sop.nodes if n.kind == "subflow"]:
        child, child_path = _child(node, loader, path, stack, level)
        child = _expand(child, loader, child_path, (*stack, child_path), level + 1)
        _inline(result, node.id, child, level + 1)
    return result


def _child(node: Node, loader: SubflowLoader, path: Path | None, stack: tuple[Path | None, ...],
           level: int) -> tuple[SOP, Path]:
    if not node.subflow:
        raise SubflowError("missing-subflow", f"node {node.id}: subflow node names no file",
                           node.id)
    if level + 1 > MAX_DEPTH:
        raise SubflowError("subflow-too-deep", f"node {node.id}: subflows nest deeper than "
                           f"{MAX_DEPTH} levels", node.id)
    try:
        child, child_path = loader.load(node.subflow, path)
    except (LoadError, OSError) as error:
        raise SubflowError("missing-subflow", f"node {node.id}: cannot read subflow "
                           f"'{node.subflow}': {error}", node.id) from None
    if child_path in stack:
        raise SubflowError("subflow-recursion", f"node {node.id}: subflow '{node.subflow}' "
                           f"includes itself", node.id)
    if not child.start or child.node(child.start) is None:
        raise SubflowError("missing-subflow", f"node {node.id}: subflow '{node.subflow}' has "
                           f"no valid start node", node.id)
    return child, child_path


def _inline(parent: SOP, sub_id: str, child: SOP, level: int) -> None:
    """Replace subflow node `sub_id` of `parent` by the (already expanded) child, in place."""
    def qualify(name: str) -> str:
        return f"{sub_id}{SEPARATOR}{name}"

    entry = qualify(child.start or "")
    for edge in parent.edges:
        if edge.target == sub_id:
            edge.target = entry
    if parent.start == sub_id:
        parent.start = entry
    exits = [e for e in parent.edges if e.source == sub_id and e.on == "success"]
    sub = parent.node(sub_id)
    title = (sub.title if sub is not None else "") or sub_id
    parent.nodes = [n for n in parent.nodes if n.id != sub_id]
    parent.edges = [e for e in parent.edges if e.source != sub_id]
    for node in child.nodes:
        parent.nodes.append(_copy_node(node, qualify, sub_id, level, title))
    for edge in child.edges:
        parent.edges.append(Edge(**{**edge.model_dump(), "id": qualify(edge.id),
                                    "source": qualify(edge.source),
                                    "target": qualify(edge.target)}))
    for node in child.nodes:
        if node.kind == "end":
            outcome = node.outcome or "resolved"
            parent.edges.extend(
                Edge(**{**edge.model_dump(), "id": f"{edge.id}@{qualify(node.id)}",
                        "source": qualify(node.id), "origin": edge.id})
                for edge in _possible(exits, f"{sub_id}.outcome", outcome))
    _merge_declarations(parent, child)


def _possible(exits: list[Edge], name: str, outcome: str) -> list[Edge]:
    """The subflow node's exits that can be taken after a child end with this outcome: an exit
    whose condition is false for it is dropped (so journeys stay feasible), one that reads other
    values stays; the else exit stays unless an unconditional/true exit comes first."""
    kept: list[Edge] = []
    for edge in exits:
        if edge.is_else:
            kept.append(edge)
            continue
        try:
            holds = edge.when is None or bool(_expr.parse(edge.when).evaluate({name: outcome}))
        except _expr.ExprError:
            kept.append(edge)
            continue
        if holds:  # a true exit is taken first: later ones and the else cannot be
            kept = [e for e in kept if not e.is_else] + [edge]
            break
    return kept


def _copy_node(node: Node, qualify: Callable[[str], str], sub_id: str, level: int,
               title: str) -> Node:
    data = node.model_dump()
    # A grandchild's copy already carries its own (absolute) level, local id and the titles
    # of the subflow nodes of the child around it.
    data.update(id=qualify(node.id), local=data.get("local", node.id),
                level=data.get("level", level), within=[title, *data.get("within", [])])
    if node.kind == "end":
        # The child's end hands its outcome to the parent, which leaves by its own edges.
        data.update(kind="task", outcome=None,
                    set={**node.set, f"{sub_id}.outcome": json.dumps(node.outcome or "resolved")})
    return Node(**data)


def _merge_declarations(parent: SOP, child: SOP) -> None:
    tools = {t.name for t in parent.tools}
    parent.tools.extend(t for t in child.tools if t.name not in tools)
    names = {v.name for v in parent.variables}
    parent.variables.extend(v for v in child.variables if v.name not in names)
    known = {k.question for k in parent.knowledge}
    parent.knowledge.extend(k for k in child.knowledge if k.question not in known)


def subflow_problem(sop: SOP, loader: SubflowLoader | None) -> SubflowError | None:
    """The first reason `sop`'s subflows cannot be expanded, or None."""
    if loader is None:
        for node in sop.nodes:
            if node.kind == "subflow" and not node.subflow:
                return SubflowError("missing-subflow", f"node {node.id}: subflow node names "
                                    f"no file", node.id)
        return None
    try:
        expand(sop, loader)
    except SubflowError as error:
        return error
    return None
