"""SOP -> seed-style pseudocode text (lossy: titles, tools' schemas and positions are not kept).

Written so that the `text` importer reads it back to the same graph: one line per step marked
with its id (`[check_user]`) and attempt limit, branches as `if <condition>:` / `else:`, tool
failures as `on failure if error == '...':`, loop-backs as `go to [id]`.
"""

from __future__ import annotations

from ...core.model import SOP, Edge, Node

INDENT = "  "


def export_pseudocode(sop: SOP) -> str:
    lines = [f"# {sop.title or sop.id}"]
    seen: set[str] = set()
    if sop.start and sop.node(sop.start):
        _walk(sop, sop.start, 0, lines, seen)
    for node in sop.nodes:  # nodes the walk never reached are kept, not lost
        if node.id not in seen:
            lines.append(f"{_describe(node)} (not reachable from the start)  [{node.id}]")
    return "\n".join(lines) + "\n"


def _say(text: str) -> str:
    if '"' not in text:
        return f'say "{text}"'
    return f"say '{text}'" if "'" not in text else 'say "' + text.replace('"', "'") + '"'


def _describe(node: Node) -> str:
    parts = [_say(node.say)] if node.say else []
    parts += [f"ask user to provide {name}" for name in node.ask]
    parts += [f"call {tool}" for tool in node.tools]
    parts += [f"set {name} = {expr}" for name, expr in node.set.items()]
    if node.kind == "end":
        parts.append(f"terminate the flow ({node.outcome})" if node.outcome
                     else "terminate the flow")
    return " and ".join(parts) or f"step: {node.title or node.id}"


def _mark(node: Node) -> str:
    limit = f" (max {node.max_attempts} attempts)" if node.max_attempts else ""
    return f"{_describe(node)}  [{node.id}]{limit}"


def _walk(sop: SOP, node_id: str, depth: int, lines: list[str], seen: set[str]) -> None:
    node = sop.node(node_id)
    pad = INDENT * depth
    if node is None or node_id in seen:
        lines.append(f"{pad}go to [{node_id}]")
        return
    seen.add(node_id)
    lines.append(f"{pad}{_mark(node)}")
    edges = sop.out_edges(node_id)
    success = [e for e in edges if e.on == "success"]
    failure = [e for e in edges if e.on == "failure"]
    if len(success) == 1 and success[0].when is None:
        _failures(sop, failure, depth, lines, seen)  # before the path goes on at this depth
        _walk(sop, success[0].target, depth, lines, seen)
        return
    for edge in sorted(success, key=lambda e: e.is_else):  # `else` closes a chain
        head = "else:" if edge.is_else else f"if {edge.when or 'true'}:"
        lines.append(f"{pad}{head}")
        _walk(sop, edge.target, depth + 1, lines, seen)
    _failures(sop, failure, depth, lines, seen)


def _failures(sop: SOP, edges: list[Edge], depth: int, lines: list[str],
              seen: set[str]) -> None:
    for edge in edges:
        cond = f" if {edge.when}" if edge.when and not edge.is_else else ""
        lines.append(f"{INDENT * depth}on failure{cond}:")
        _walk(sop, edge.target, depth + 1, lines, seen)
