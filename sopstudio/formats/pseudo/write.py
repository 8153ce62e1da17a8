"""SOP -> seed-style pseudocode text (lossy: ids, tools' schemas and positions are not kept)."""

from __future__ import annotations

from ...core.model import SOP, Node

INDENT = "  "


def export_pseudocode(sop: SOP) -> str:
    lines = [f"# {sop.title or sop.id}"]
    if sop.start and sop.node(sop.start):
        _walk(sop, sop.start, 0, lines, set())
    for node in sop.nodes:  # nodes the walk never reached are kept, not lost
        if not any(f"[{node.id}]" in line for line in lines):
            lines.append(f"{_describe(node)}  [{node.id}] (not reachable from the start)")
    return "\n".join(lines) + "\n"


def _describe(node: Node) -> str:
    if node.kind == "end":
        return f"terminate the flow ({node.outcome})" if node.outcome else "terminate the flow"
    parts = []
    if node.say:
        parts.append(f"show message {node.say}")
    parts += [f"ask user to provide {name}" for name in node.ask]
    parts += [f"call {tool}" for tool in node.tools]
    parts += [f"set {name} = {expr}" for name, expr in node.set.items()]
    return " and ".join(parts) or node.title or node.id


def _walk(sop: SOP, node_id: str, depth: int, lines: list[str], seen: set[str]) -> None:
    node = sop.node(node_id)
    pad = INDENT * depth
    if node_id in seen:
        lines.append(f"{pad}go to [{node_id}]")
        return
    seen.add(node_id)
    lines.append(f"{pad}{_describe(node)}  [{node_id}]")
    edges = [e for e in sop.out_edges(node_id) if e.on == "success"]
    if len(edges) == 1 and edges[0].when is None:
        _walk(sop, edges[0].target, depth, lines, seen)
        return
    for edge in edges:
        head = "else:" if edge.is_else else f"if {edge.when or 'true'}:"
        lines.append(f"{pad}{head}")
        _walk(sop, edge.target, depth + 1, lines, seen)
    for edge in sop.out_edges(node_id):
        if edge.on == "failure":
            lines.append(f"{pad}on failure{' if ' + edge.when if edge.when else ''}:")
            _walk(sop, edge.target, depth + 1, lines, seen)
