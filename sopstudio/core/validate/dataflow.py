"""Which variables are definitely set where: `undefined-variable` and `unobtainable-parameter`.

Semantics (a forward must-analysis, DESIGN §2):

- A variable becomes set by a node's `ask` (the user answers), by the outputs of a tool the node
  calls (`tool.outputs[].name`, after that tool, on success edges), or by the node's `set`
  (evaluated after the tools, in order, on success edges). On a failure edge the node's asks,
  `error` (the failing tool's error code) and `tool` (the failing tool's name) are set, as the
  engine provides both there, but not its tool outputs or assignments.
  Declaring a variable in `sop.variables` sets nothing: a user variable that no node asks (and
  nothing else sets) is unavailable everywhere.
- A tool guarded by `tool_when` counts as called: its guard is the author's statement of when its
  outputs matter, and conditions that read them normally test the same thing.
- On entry to a node, the variables definitely available are those set on every path from the
  start: the intersection over incoming edges of what the predecessor had on that edge. Cycles
  are solved by iterating to a fixed point (sets are bit masks, so this is cheap).
- A read is a name in an expression (dotted names count by their first segment). Reads are
  checked at the point they happen: `tool_when` and `tool_args` of a tool see the node's asks
  and the outputs of earlier tools; `set` values also see all tool outputs and earlier keys;
  edges see what their kind of edge carries. A read of a name not available there is an
  `undefined-variable`; a required tool parameter with no `tool_args` mapping whose same-named
  variable is not available is an `unobtainable-parameter`.
- Nodes that the start cannot reach are not checked (they are reported as unreachable).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from ..expr import quoted, suggest
from ..model import Node
from .context import Context
from .expressions import edge_key, node_key

# What the engine adds to the variables when it follows a failure edge: the error code and
# the name of the tool that failed (engine/orchestrator.py, `_on_failure`).
FAILURE_NAMES = ("error", "tool")


class _Names:
    """Variable names as bits of an int, so set union/intersection is one machine-ish op."""

    def __init__(self) -> None:
        self.bits: dict[str, int] = {}

    def mask(self, names: Iterable[str]) -> int:
        value = 0
        for name in names:
            value |= 1 << self.bits.setdefault(name, len(self.bits))
        return value

    def has(self, mask: int, name: str) -> bool:
        bit = self.bits.get(name)
        return bit is not None and bool(mask >> bit & 1)


def check_dataflow(ctx: Context) -> None:
    if ctx.start is None:
        return
    names = _Names()
    producers = _producers(ctx)
    names.mask(producers)
    gen = {i: _gen(ctx, n, names) for i, n in ctx.nodes.items()}
    entry = _solve(ctx, gen)
    for ident, mask in entry.items():
        _check_node(ctx, ctx.nodes[ident], mask, gen[ident], names, producers)


def _producers(ctx: Context) -> dict[str, list[str]]:
    """name -> where it can be set, for messages ("asked in node a", "output of tool t")."""
    found: dict[str, list[str]] = {name: ["a failure edge"] for name in FAILURE_NAMES}
    for node in ctx.nodes.values():
        for name in node.ask:
            found.setdefault(name, []).append(f"asked in node {node.id}")
        for tool in ctx.node_tools(node):
            for output in tool.outputs:
                found.setdefault(output.name, []).append(f"output of {tool.name} in node {node.id}")
        for name in node.set:
            found.setdefault(name, []).append(f"set in node {node.id}")
    return found


def _gen(ctx: Context, node: Node, names: _Names) -> tuple[int, int]:
    """(set on success edges, set on failure edges) by the node itself."""
    outputs = [o.name for tool in ctx.node_tools(node) for o in tool.outputs]
    # A subflow node leaves with `<id>.outcome` set by the child's end (core/subflows.py).
    child = [node.id] if node.kind == "subflow" else []
    success = names.mask([*node.ask, *outputs, *node.set, *child])
    return success, names.mask([*node.ask, *FAILURE_NAMES])


def _solve(ctx: Context, gen: dict[str, tuple[int, int]]) -> dict[str, int]:
    """Entry masks of every node reachable from the start (worklist to a fixed point)."""
    top = -1  # all bits set: the identity of intersection
    if ctx.start is None:
        return {}
    entry: dict[str, int] = {ctx.start: 0}
    queue, queued = deque([ctx.start]), {ctx.start}
    while queue:
        ident = queue.popleft()
        queued.discard(ident)
        for edge in ctx.out_edges.get(ident, ()):
            carried = entry[ident] | gen[ident][edge.on == "failure"]
            old = entry.get(edge.target)
            new = (top if old is None else old) & carried
            if new != old and edge.target not in queued:
                queue.append(edge.target)
                queued.add(edge.target)
            entry[edge.target] = new
    return entry


def _check_node(ctx: Context, node: Node, entry: int, gen: tuple[int, int], names: _Names,
                producers: dict[str, list[str]]) -> None:
    reader = _Reader(ctx, node, names, producers)
    available = entry | names.mask(node.ask)
    for tool in ctx.node_tools(node):
        reader.read(node_key(node, "tool_when", tool.name), available,
                    f"condition of tool {tool.name} in node {node.id}", tool=tool.name)
        mapping = node.tool_args.get(tool.name, {})
        for param in mapping:
            reader.read(node_key(node, "tool_args", tool.name, param), available,
                        f"argument '{param}' of tool {tool.name} in node {node.id}", tool=tool.name)
        for param in tool.required_parameters():
            if param not in mapping and not names.has(available, param):
                reader.unobtainable(tool.name, param)
        available |= names.mask(o.name for o in tool.outputs)
    for key in node.set:
        reader.read(node_key(node, "set", key), available,
                    f"assignment '{key}' of node {node.id}")
        available |= names.mask([key])
    for edge in ctx.out_edges.get(node.id, ()):
        reader.read(edge_key(edge), entry | gen[edge.on == "failure"],
                    f"condition of edge {edge.id}", edge=edge.id)


class _Reader:
    """Reports reads of unavailable names for one node, with helpful messages."""

    def __init__(self, ctx: Context, node: Node, names: _Names,
                 producers: dict[str, list[str]]) -> None:
        self.ctx, self.node, self.names, self.producers = ctx, node, names, producers

    def read(self, key: tuple[Any, ...], available: int, what: str, **where: str | None) -> None:
        parsed = self.ctx.parsed.get(key)
        if parsed is None:
            return  # no expression there, or a bad one (already reported)
        for name in sorted(parsed.roots()):
            if not self.names.has(available, name):
                self.ctx.add("undefined-variable", f"{what} reads {quoted(name)}{self._why(name)}",
                             node=self.node.id, variable=name, **where)

    def unobtainable(self, tool: str, param: str) -> None:
        self.ctx.add("unobtainable-parameter", f"tool {tool} in node {self.node.id} needs "
                     f"parameter {quoted(param)}{self._why(param)}", node=self.node.id, tool=tool,
                     variable=param)

    def _why(self, name: str) -> str:
        sources = self.producers.get(name)
        if sources:
            shown = "; ".join(sources[:2]) + ("; ..." if len(sources) > 2 else "")
            return f", which is not set on every path to node {self.node.id} ({shown})"
        if name in self.ctx.variables:
            return ", which is declared but no ask, tool output or assignment sets it"
        guess = suggest(name, sorted(set(self.producers) | set(self.ctx.variables)))
        if guess:
            return f" — did you mean {quoted(guess)}?"
        return ", which no ask, tool output or assignment sets"
