"""Graphviz DOT import and export (lossy: only structure, titles and conditions survive).

Import follows the flowchart rules of `flowgraph` (diamonds and multi-labelled exits are
decisions, nodes with no way out are ends); node and edge counts of the source are preserved.
"""

from __future__ import annotations

import re

from ..core.model import SOP, Edge, Node
from .base import ImportResult
from .flowgraph import build_flow_sop
from .graphviz_io import _pgv, parse_dot


def clean_label(text: str | None, fallback: str) -> str:
    if not text or text == r"\N":
        return fallback
    text = re.sub(r"\\[nlr]", " ", text).replace("\\N", fallback)
    return " ".join(text.split())


def import_dot(text: str, source: str = "<paste>") -> ImportResult:
    graph = parse_dot(text)
    names = [str(n) for n in graph.nodes()]
    edges = [(str(e[0]), str(e[1]), clean_label(e.attr.get("label"), "")) for e in graph.edges()]
    titles = {n: clean_label(graph.get_node(n).attr.get("label"), n) for n in names}
    diamonds = {n for n in names if graph.get_node(n).attr.get("shape") == "diamond"}
    title = clean_label(graph.graph_attr.get("label"), graph.name or "Imported flowchart")
    return build_flow_sop(names, titles, diamonds, edges, graph.name or "flowchart", title, "dot")


# ---------------------------------------------------------------- export

def is_decision(sop: SOP, node: Node) -> bool:
    """Drawn as a diamond: it branches on conditions and does nothing but (maybe) ask."""
    branches = [e for e in sop.out_edges(node.id) if e.on == "success" and e.when is not None]
    return node.kind == "task" and len(branches) >= 2 and not (node.tools or node.say or node.set)


def build_graph(sop: SOP):
    """The SOP as a pygraphviz AGraph: top to bottom, decisions as diamonds, conditions on edges."""
    graph = _pgv().AGraph(directed=True, strict=False, name=sop.id)
    graph.graph_attr.update(rankdir="TB", label=sop.title or sop.id, labelloc="t")
    graph.node_attr.update(shape="box", style="rounded", fontname="Helvetica", fontsize="10")
    graph.edge_attr.update(fontname="Helvetica", fontsize="9")
    for node in sop.nodes:
        shape = "oval" if node.kind == "end" or node.id == sop.start else "box"
        shape = "diamond" if is_decision(sop, node) else shape
        graph.add_node(node.id, label=node.title or node.id, shape=shape)
    for edge in sop.edges:
        attrs = {"label": _edge_label(edge), "id": edge.id}
        if edge.on == "failure":
            attrs["style"] = "dashed"
        graph.add_edge(edge.source, edge.target, **attrs)  # `id` keeps parallel edges apart
    return graph


def _edge_label(edge: Edge) -> str:
    text = edge.label or ("" if edge.when is None else edge.when)
    return f"on failure: {text}".strip(": ") if edge.on == "failure" else text


def export_dot(sop: SOP) -> str:
    return build_graph(sop).string()
