"""Which variable names an edge condition can read at its source node (for completion)."""

from __future__ import annotations

from collections import deque


def produced_by(node, sop) -> set[str]:
    names = set(node.ask) | set(node.set)
    for tool_name in node.tools:
        tool = sop.tool(tool_name)
        if tool is not None:
            names.update(output.name for output in tool.outputs)
    return names


def names_available(sop, node_id: str, failure: bool = False) -> list[str]:
    """Names set by the node or any node that can run before it, plus `error` and `tool` on
    failure edges."""
    seen, queue, names = {node_id}, deque([node_id]), set()
    incoming: dict[str, list[str]] = {}
    for edge in sop.edges:
        incoming.setdefault(edge.target, []).append(edge.source)
    while queue:
        current = sop.node(queue.popleft())
        if current is None:
            continue
        names |= produced_by(current, sop)
        for source in incoming.get(current.id, []):
            if source not in seen:
                seen.add(source)
                queue.append(source)
    if failure:  # a failure edge's condition also sees the error code and the tool that failed
        names.update(("error", "tool"))
    return sorted(names)
