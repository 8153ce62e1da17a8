"""Plain flowcharts (DOT, Mermaid) -> SOP: the rules shared by both importers.

Diamond nodes, and any node with several labelled exits, become decisions; a node with no way
out becomes an end node; Yes/No labels become a boolean variable named after the decision (asked
at the decision), other labels the values of a choice variable. Every source node and edge
becomes exactly one node and edge, under its source name.
"""

from __future__ import annotations

import re

from ..core.model import SOP, Edge, Node, Variable
from .base import ImportResult, quote, snake, unique
from .flowmeta import apply_node_meta, declare_condition_names, expression_hint
from .pseudo.words import name_from

_YES = re.compile(r"^\s*(?:yes|y|true)\b", re.IGNORECASE)
_NO = re.compile(r"^\s*(?:no|n|false)\b", re.IGNORECASE)
FlowEdge = tuple[str, str, str]  # (source name, target name, label)


def build_flow_sop(names: list[str], titles: dict[str, str], diamonds: set[str],
                   edges: list[FlowEdge], sop_id: str, title: str, fmt: str,
                   hints: dict[int, str | None] | None = None, failures: set[int] | None = None,
                   node_meta: dict[str, dict[str, str]] | None = None) -> ImportResult:
    """`hints`: edge index -> condition known from our export (None = unconditional);
    `failures`: indexes of failure edges; `node_meta`: DOT attributes of our export."""
    hints, failures = dict(hints or {}), failures or set()
    for index, edge in enumerate(edges):  # a label that is already a condition is kept
        hint = None if index in hints else expression_hint(edge[2])
        if hint is not None:
            hints[index] = hint
    notes: list[str] = []
    by_source: dict[str, list] = {}  # indexed once: a scan per node was quadratic
    for index, edge in enumerate(edges):
        by_source.setdefault(edge[0], []).append((index, edge))
    nodes = {name: _node(name, titles.get(name) or name, name in by_source) for name in names}
    variables: list[Variable] = []
    taken: set[str] = set()
    sop_edges = []
    for name in names:
        exits = by_source.get(name, [])
        success = [(i, e) for i, e in exits if i not in failures]
        whens = {} if any(i in hints for i, _ in success) else \
            _conditions(nodes[name], success, name in diamonds, variables, taken, notes)
        whens.update({i: hints[i] for i, _ in exits if i in hints})
        if sum(whens.get(i) is None for i, _ in success) >= 2:  # several unconditional exits
            nodes[name].branching = "all"  # follow them all
        sop_edges += [Edge(id=f"e{i + 1}", source=src, target=dst, label=label, when=whens.get(i),
                           on="failure" if i in failures else "success")
                      for i, (src, dst, label) in exits]
    sop_edges.sort(key=lambda e: int(e.id[1:]))
    sop = SOP(id=snake(sop_id or "flowchart").replace("_", "-"), title=title,
              start=_start(names, edges), variables=variables, nodes=list(nodes.values()),
              edges=sop_edges)
    if node_meta:
        apply_node_meta(sop, node_meta)
    declare_condition_names(sop, notes)
    return ImportResult(sop, notes, fmt)


def _node(name: str, title: str, has_exit: bool) -> Node:
    node = Node(id=name, title=title, instructions=title, kind="task" if has_exit else "end")
    if not has_exit:
        node.outcome = name_from(title, "done")
    return node


def _conditions(node: Node, exits, diamond: bool, variables, taken, notes) -> dict[int, str]:
    """Conditions of a decision's exits by edge index; {} when the node does not branch."""
    labelled = [(i, e) for i, e in exits if e[2]]
    if not (len(labelled) >= 2 or (diamond and labelled and len(exits) >= 2)):
        return {}
    boolean = all(_YES.match(e[2]) or _NO.match(e[2]) for _, e in labelled)
    var = unique(name_from(node.title, "decision"), taken)
    if boolean:
        whens = {i: f"{var} == {'true' if _YES.match(e[2]) else 'false'}" for i, e in labelled}
        variables.append(Variable(name=var, type="boolean", description=node.title))
    else:
        values = list(dict.fromkeys(e[2] for _, e in labelled))
        whens = {i: f"{var} == {quote(e[2])}" for i, e in labelled}
        variables.append(Variable(name=var, description=node.title, enum=values))
    if len(labelled) < len(exits):  # unlabelled exits of a decision: the default way out
        whens.update({i: "else" for i, e in exits if not e[2]})
    node.ask = [var]
    notes.append(f"decision '{node.id}': variable '{var}' ({'yes/no' if boolean else 'choice'}, "
                 f"asked at the decision) — confirm the name")
    return whens


def _start(names: list[str], edges) -> str | None:
    targets = {e[1] for e in edges}
    roots = [n for n in names if n not in targets]
    named = [n for n in roots if n.lower().startswith("start")]
    return (named or roots or names or [None])[0]
