"""SOP -> seed-style pseudocode text (lossy: titles, tools' schemas and positions are not kept).

Written so that the `text` importer reads it back to the same graph: one line per step marked
with its id (`[check_user]`) and attempt limit, branches as `if <condition>:` / `else:`, tool
failures as `on failure if error == '...':`, loop-backs as `go to [id]`.
"""

from __future__ import annotations

from ...core.model import SOP, Edge, Node

INDENT = "  "
# Deeper branches are written as `go to [id]` and the node continues as a top-level block after
# the main flow: a chain of 10,000 decisions would otherwise indent 10,000 levels (quadratic
# text) and the importer reads at most formats.pseudo.build.MAX_NESTING levels.
MAX_DEPTH = 40


def export_pseudocode(sop: SOP) -> str:
    lines = [f"# {sop.title or sop.id}"]
    seen: set[str] = set()
    nodes = {}
    for node in sop.nodes:
        nodes.setdefault(node.id, node)
    out: dict[str, list[Edge]] = {}
    for edge in sop.edges:  # indexed once: per-node scans made a long chain quadratic
        out.setdefault(edge.source, []).append(edge)
    if sop.start and sop.start in nodes:
        _walk(nodes, out, sop.start, lines, seen)
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


def _walk(nodes: dict, out: dict, start: str, lines: list[str], seen: set[str]) -> None:
    """Depth-first from `start`, written iteratively (a 1,000-node chain nests 1,000 deep): a
    stack of pending items, pushed in reverse, gives the recursive pre-order exactly. An item is
    ("walk", node id, depth), ("top", node id, 0) for a deferred node, or ("line", text)."""
    stack: list[tuple] = [("walk", start, 0)]
    deferred: list[str] = []  # nodes cut at MAX_DEPTH, written later at the top level
    while stack or deferred:
        item = stack.pop() if stack else ("top", deferred.pop(0), 0)
        if item[0] == "line":
            lines.append(item[1])
        elif item[0] == "top" and item[1] in seen:
            continue  # written meanwhile
        elif item[2] > MAX_DEPTH and item[1] not in seen and item[1] in nodes:
            lines.append(f"{INDENT * item[2]}go to [{item[1]}]")
            deferred.append(item[1])
        else:
            stack.extend(reversed(_visit(nodes, out, item[1], item[2], lines, seen)))


def _visit(nodes: dict, out: dict, node_id: str, depth: int, lines: list[str],
           seen: set[str]) -> list[tuple]:
    """Write one node's line; return what follows it, in output order."""
    node = nodes.get(node_id)
    pad = INDENT * depth
    if node is None or node_id in seen:
        lines.append(f"{pad}go to [{node_id}]")
        return []
    seen.add(node_id)
    lines.append(f"{pad}{_mark(node)}")
    edges = out.get(node_id, [])
    success = [e for e in edges if e.on == "success"]
    failure = _failures([e for e in edges if e.on == "failure"], depth)
    if len(success) == 1 and success[0].when is None:
        return failure + [("walk", success[0].target, depth)]  # failures first, then onwards
    follow: list[tuple] = []
    for edge in sorted(success, key=lambda e: e.is_else):  # `else` closes a chain
        head = "else:" if edge.is_else else f"if {edge.when or 'true'}:"
        follow += [("line", f"{pad}{head}"), ("walk", edge.target, depth + 1)]
    return follow + failure


def _failures(edges: list[Edge], depth: int) -> list[tuple]:
    follow: list[tuple] = []
    for edge in edges:
        cond = f" if {edge.when}" if edge.when and not edge.is_else else ""
        follow += [("line", f"{INDENT * depth}on failure{cond}:"),
                   ("walk", edge.target, depth + 1)]
    return follow
