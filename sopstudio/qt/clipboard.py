"""Copy and paste of graph fragments: selected nodes, the edges among them and their tools.

A fragment is plain JSON on the clipboard (our own MIME type plus text), so pasting into another
window works. Pasted nodes and edges get fresh ids; positions shift below the originals (and
below earlier copies) so the copy never covers what is already on the canvas.
"""

from __future__ import annotations

import json

from ..core.model import SOP, Edge, Node, Tool

FRAGMENT_MIME = "application/x-sopstudio-fragment"
PASTE_OFFSET = 40.0  # sideways, so a copy is seen as a copy and not a continuation
PASTE_GAP = 50.0     # between the bottom of what is on the canvas and the pasted block


def fragment(sop: SOP, node_ids) -> dict:
    chosen = set(node_ids)
    nodes = [n for n in sop.nodes if n.id in chosen]
    edges = [e for e in sop.edges if e.source in chosen and e.target in chosen]
    tool_names = {t for n in nodes for t in n.tools}
    tools = [t for t in sop.tools if t.name in tool_names]
    return {"kind": "sopstudio-fragment",
            "nodes": [n.model_dump(mode="json") for n in nodes],
            "edges": [e.model_dump(mode="json") for e in edges],
            "tools": [t.model_dump(mode="json") for t in tools]}


def encode(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


def decode(text: str) -> dict | None:
    """The fragment in `text`, or None when it is not one of ours."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return None
    if isinstance(data, dict) and data.get("kind") == "sopstudio-fragment":
        return data
    return None


def from_sop(sop: SOP) -> dict:
    """A whole imported SOP as a fragment (paste of SOP text, DOT, Mermaid...)."""
    return fragment(sop, [n.id for n in sop.nodes])


def free_offset(block, occupied, gap: float = PASTE_GAP) -> tuple[float, float]:
    """How far to move `block` (x0, y0, x1, y1) so it overlaps none of `occupied`: sideways by
    PASTE_OFFSET and down by whole block heights (plus `gap`) until it is clear."""
    step = block[3] - block[1] + gap
    for times in range(1, 200):
        dx, dy = PASTE_OFFSET, step * times
        moved = (block[0] + dx, block[1] + dy, block[2] + dx, block[3] + dy)
        if not any(_overlap(moved, other) for other in occupied):
            return dx, dy
    return PASTE_OFFSET, step * 200


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def remap(data: dict, document, offset: float | tuple[float, float] = PASTE_OFFSET):
    """Nodes, edges and missing tools of `data` with fresh ids, ready to add to `document`."""
    id_map, nodes = {}, []
    taken = set()
    for raw in data.get("nodes", []):
        node = Node.model_validate(raw)
        new_id = _fresh(document.new_node_id(node.id.split("_copy")[0] + "_copy"), taken)
        id_map[node.id] = new_id
        position = node.position
        dx, dy = offset if isinstance(offset, tuple) else (offset, offset)
        if position is not None:
            position = (position[0] + dx, position[1] + dy)
        nodes.append(node.model_copy(update={"id": new_id, "position": position}))
    edges = []
    for raw in data.get("edges", []):
        edge = Edge.model_validate(raw)
        edges.append(edge.model_copy(update={"id": _fresh(document.new_edge_id(), taken),
                                             "source": id_map[edge.source],
                                             "target": id_map[edge.target]}))
    existing = {t.name for t in document.sop.tools}
    tools = [Tool.model_validate(t) for t in data.get("tools", []) if t["name"] not in existing]
    return nodes, edges, tools


def _fresh(candidate: str, taken: set) -> str:
    # new_node_id only knows the document; several pasted nodes must differ among themselves.
    base, index = candidate, 2
    while candidate in taken:
        candidate, index = f"{base}_{index}", index + 1
    taken.add(candidate)
    return candidate
