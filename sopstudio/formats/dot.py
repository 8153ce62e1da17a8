"""Graphviz DOT import and export.

Import follows the flowchart rules of `flowgraph` (diamonds and multi-labelled exits are
decisions, nodes with no way out are ends); node and edge counts of the source are preserved.
Our export draws each edge with the author's label (the condition when there is none; the
condition is the tooltip), failure edges dashed with `on=failure`, a step's tools / asks /
attempt limit as readable node attributes, and the exact data (`sop_meta`, `sop_node`,
`sop_edge`, see `flowmeta`) from which import rebuilds the SOP: export -> import keeps edge ids,
labels, conditions, variables with their types and descriptions, and tools.
"""

from __future__ import annotations

import re

from ..core.inputs import strip_bom
from ..core.model import SOP, Node
from ..core.index import SopIndex
from .base import ImportResult
from .flowgraph import build_flow_sop
from .flowmeta import decode, edge_meta, encode, node_meta, sop_meta
from .graphviz_io import _pgv, parse_dot


def clean_label(text: str | None, fallback: str) -> str:
    if not text or text == r"\N":
        return fallback
    text = re.sub(r"\\[nlr]", " ", text).replace("\\N", fallback)
    return " ".join(text.split())


def import_dot(text: str, source: str = "<paste>") -> ImportResult:
    text = strip_bom(text)  # a byte-order mark is no content (e.g. not part of a title)
    graph = parse_dot(text)
    names = [str(n) for n in graph.nodes()]
    raw_edges = list(graph.edges())
    edges = [(str(e[0]), str(e[1]), clean_label(e.attr.get("label"), "")) for e in raw_edges]
    # our export's `when` / `on` attributes say exactly what the label only shows
    hints = {i: clean_label(e.attr.get("when"), "") or None for i, e in enumerate(raw_edges)
             if e.attr.get("when") is not None}
    failures = {i for i, e in enumerate(raw_edges) if e.attr.get("on") == "failure"}
    titles = {n: clean_label(graph.get_node(n).attr.get("label"), n) for n in names}
    diamonds = {n for n in names if graph.get_node(n).attr.get("shape") == "diamond"}
    meta = {n: {k: graph.get_node(n).attr.get(k) or "" for k in _NODE_ATTRS} for n in names}
    title = clean_label(graph.graph_attr.get("label"), graph.name or "Imported flowchart")
    return build_flow_sop(names, titles, diamonds, edges, graph.name or "flowchart", title, "dot",
                          hints, failures, meta, _exact(graph, names, raw_edges),
                          _references(graph, names, raw_edges))


TERMINAL_SHAPES = {"oval", "ellipse", "circle", "doublecircle", "point", "msquare", "mcircle",
                   "mdiamond", "egg", "star"}


def _dashed(attrs) -> bool:
    return any(word in (attrs.get("style") or "") for word in ("dashed", "dotted"))


def _references(graph, names: list[str], raw_edges) -> set[str]:
    """Boxes with no way out that are drawn dashed, or reached only by dashed links that are
    not our export's failure edges: references to another procedure (see flowgraph)."""
    sources = {str(e[0]) for e in raw_edges}
    incoming: dict[str, list] = {}
    for edge in raw_edges:
        incoming.setdefault(str(edge[1]), []).append(edge.attr)
    found = set()
    for name in names:
        attrs = graph.get_node(name).attr
        if name in sources or (attrs.get("shape") or "").lower() in TERMINAL_SHAPES:
            continue
        links = incoming.get(name, [])
        if _dashed(attrs) or (links and all(_dashed(a) and not a.get("on") for a in links)):
            found.add(name)
    return found


def _exact(graph, names: list[str], raw_edges) -> dict | None:
    """The exact data of our export, when the graph carries it (`sop_meta`)."""
    meta = graph.graph_attr.get("sop_meta")
    if not meta:
        return None
    nodes = {n: decode(graph.get_node(n).attr["sop_node"], f"node {n}")
             for n in names if graph.get_node(n).attr.get("sop_node")}
    edges = {i: decode(e.attr["sop_edge"], f"edge {e[0]} -> {e[1]}")
             for i, e in enumerate(raw_edges) if e.attr.get("sop_edge")}
    return {"sop": decode(meta, "graph attribute sop_meta"), "nodes": nodes, "edges": edges}


_NODE_ATTRS = ("tools", "ask", "say", "max_attempts", "outcome", "branching")


# ---------------------------------------------------------------- export

def is_decision(sop: SOP | SopIndex, node: Node) -> bool:
    """Drawn as a diamond: it branches on conditions and does nothing but (maybe) ask."""
    branches = [e for e in sop.out_edges(node.id) if e.on == "success" and e.when is not None]
    return node.kind == "task" and len(branches) >= 2 and not (node.tools or node.say or node.set)


def build_graph(sop: SOP):
    """The SOP as a pygraphviz AGraph: top to bottom, decisions as diamonds, conditions on edges."""
    graph = _pgv().AGraph(directed=True, strict=False, name=sop.id)
    graph.graph_attr.update(rankdir="TB", label=sop.title or sop.id, labelloc="t",
                            sop_meta=encode(sop_meta(sop)))
    graph.node_attr.update(shape="box", style="rounded", fontname="Helvetica", fontsize="10")
    graph.edge_attr.update(fontname="Helvetica", fontsize="9")
    index = SopIndex(sop)
    for node in sop.nodes:
        shape = "oval" if node.kind == "end" or node.id == sop.start else "box"
        shape = "diamond" if is_decision(index, node) else shape
        graph.add_node(node.id, label=node.title or node.id, shape=shape, **_node_attrs(node),
                       sop_node=encode(node_meta(node)))
    for edge in sop.edges:
        # the author's wording is shown (the condition when there is none, and as a tooltip);
        # sop_edge carries both exactly for re-import
        attrs = {"label": edge.label or edge.when or "", "id": edge.id, "when": edge.when or "",
                 "sop_edge": encode(edge_meta(edge))}
        if edge.label and edge.when:
            attrs["tooltip"] = edge.when
        if edge.on == "failure":
            attrs.update(style="dashed", on="failure")
        graph.add_edge(edge.source, edge.target, **attrs)  # `id` keeps parallel edges apart
    return graph


def _node_attrs(node: Node) -> dict[str, str]:
    """The step's actions as custom attributes (Graphviz ignores them; our import reads them)."""
    attrs = {"tools": ",".join(node.tools), "ask": ",".join(node.ask), "say": node.say or "",
             "max_attempts": str(node.max_attempts or ""),
             "outcome": node.outcome or "" if node.kind == "end" else "",
             "branching": "all" if node.branching == "all" else ""}
    return {k: v for k, v in attrs.items() if v}


def export_dot(sop: SOP) -> str:
    return build_graph(sop).string()
