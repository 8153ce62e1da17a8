"""Copy and paste of graph fragments: selected nodes, the edges among them and their tools.

A fragment is plain JSON on the clipboard (our own MIME type plus text), so pasting into another
window works. Pasted nodes and edges get fresh ids; positions shift so the copy is visible.
"""

from __future__ import annotations

import json

from ..core.model import SOP, Edge, Node, Tool

FRAGMENT_MIME = "application/x-sopstudio-fragment"
PASTE_OFFSET = 40.0


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


def remap(data: dict, document, offset: float = PASTE_OFFSET):
    """Nodes, edges and missing tools of `data` with fresh ids, ready to add to `document`."""
    id_map, nodes = {}, []
    taken = set()
    for raw in data.get("nodes", []):
        node = Node.model_validate(raw)
        new_id = _fresh(document.new_node_id(node.id.split("_copy")[0] + "_copy"), taken)
        id_map[node.id] = new_id
        position = node.position
        if position is not None:
            position = (position[0] + offset, position[1] + offset)
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
