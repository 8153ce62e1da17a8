"""Lookups over one SOP, built once (node and tool by name, edges by source and target).

The model's own `SOP.node`, `SOP.tool`, `SOP.out_edges` and `SOP.in_edges` scan every item;
code that looks up many items of a big SOP (exporters, the prompt builder) uses this index so
that it stays linear.
"""

from __future__ import annotations

from .model import SOP, Edge, Node, Tool


class SopIndex:
    """Lookups over an SOP built once, for exporters and prompt building: `SOP.node`, `SOP.tool`, `SOP.out_edges`
    and `SOP.in_edges` scan every item, which made exports of 100k-node SOPs quadratic.
    The first item of a duplicated id wins, as in those scans."""

    def __init__(self, sop: SOP):
        self.nodes: dict[str, Node] = {}
        self.tools: dict[str, Tool] = {}
        self.out: dict[str, list[Edge]] = {}
        self.into: dict[str, list[Edge]] = {}
        for node in sop.nodes:
            self.nodes.setdefault(node.id, node)
        for tool in sop.tools:
            self.tools.setdefault(tool.name, tool)
        for edge in sop.edges:
            self.out.setdefault(edge.source, []).append(edge)
            self.into.setdefault(edge.target, []).append(edge)

    def out_edges(self, node_id: str) -> list[Edge]:
        return self.out.get(node_id, [])

    def in_edges(self, node_id: str) -> list[Edge]:
        return self.into.get(node_id, [])
