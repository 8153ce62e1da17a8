"""Indexes over an SOP built once per validation, so no check scans all edges per node."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ..model import SOP, Edge, Node, Tool, ToolOutput, Variable
from .issue import Issue, make_issue


@dataclass
class Context:
    """The SOP plus lookups shared by every check, and the issues found so far."""

    sop: SOP
    nodes: dict[str, Node] = field(default_factory=dict)        # first node of each id
    tools: dict[str, Tool] = field(default_factory=dict)        # first tool of each name
    variables: dict[str, Variable] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)             # edges whose ends both exist
    out_edges: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    in_edges: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    outputs: dict[str, list[ToolOutput]] = field(default_factory=lambda: defaultdict(list))
    graph: nx.MultiDiGraph = field(default_factory=nx.MultiDiGraph)
    issues: list[Issue] = field(default_factory=list)
    # Parsed expressions by site key (see expressions.py); None marks one that did not parse.
    parsed: dict[tuple[str, ...], Any] = field(default_factory=dict)

    def add(self, code: str, message: str, **where: str | None) -> None:
        self.issues.append(make_issue(code, message, **where))

    @property
    def start(self) -> str | None:
        start = self.sop.start
        return start if start in self.nodes else None

    def success_edges(self, node_id: str) -> list[Edge]:
        return [e for e in self.out_edges.get(node_id, ()) if e.on == "success"]

    def failure_edges(self, node_id: str) -> list[Edge]:
        return [e for e in self.out_edges.get(node_id, ()) if e.on == "failure"]

    def node_tools(self, node: Node) -> list[Tool]:
        """The node's tools that exist, in call order (unknown ones are reported elsewhere)."""
        return [self.tools[name] for name in node.tools if name in self.tools]


def build_context(sop: SOP) -> Context:
    ctx = Context(sop=sop)
    for node in sop.nodes:
        ctx.nodes.setdefault(node.id, node)
    for tool in sop.tools:
        if tool.name not in ctx.tools:
            ctx.tools[tool.name] = tool
            for output in tool.outputs:
                ctx.outputs[output.name].append(output)
    for variable in sop.variables:
        ctx.variables.setdefault(variable.name, variable)
    ctx.graph.add_nodes_from(ctx.nodes)
    for edge in sop.edges:
        if edge.source in ctx.nodes and edge.target in ctx.nodes:
            ctx.edges.append(edge)
            ctx.out_edges[edge.source].append(edge)
            ctx.in_edges[edge.target].append(edge)
            ctx.graph.add_edge(edge.source, edge.target, key=edge.id)
    return ctx
