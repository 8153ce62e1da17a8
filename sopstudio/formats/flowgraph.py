"""Plain flowcharts (DOT, Mermaid) -> SOP: the rules shared by both importers.

Diamond nodes, and any node with several exits, become decisions; a node with no way out
becomes an end node. A decision asks one variable named after it: plain Yes/No labels make it a
boolean, other labels (also qualified ones, `Yes (speed excellent)` / `Yes (not excellent)`)
the values of a choice, one per label, so every exit has its own condition and keeps the
author's label. Exits without a label become choices named after the step they lead to (with a
note): a flowchart never says "follow every branch", so only our own export's `branching=all`
does. Every source node and edge becomes exactly one node and edge, under its source name.

A reference to another procedure (`references`: a dashed box in DOT, a subroutine `[[ ]]` in
Mermaid, with no way out, e.g. "Run Path 1 first" reached by "Follow Path 1") is not an end:
when the step that leads to it also has an exit labelled "After …" (or "Once …", "Then …"), the
chart means "run that procedure, then go on", so the "After" exit leaves from the reference
instead (step -> reference -> next; still one edge per source edge). A note says so and how to
make the reference a subflow node that runs the other procedure's file.
"""

from __future__ import annotations

import re

from ..core.model import SOP, Edge, Node, Variable
from .base import ImportResult, outcome_name, quote, snake, unique
from .flowmeta import (apply_exact, apply_node_meta, declare_condition_names, expression_hint,
                       shown_label)
from .pseudo.words import name_from

_YES = re.compile(r"^\s*(?:yes|y|true)\b", re.IGNORECASE)
_NO = re.compile(r"^\s*(?:no|n|false)\b", re.IGNORECASE)
FlowEdge = tuple[str, str, str]  # (source name, target name, label)


def build_flow_sop(names: list[str], titles: dict[str, str], diamonds: set[str],
                   edges: list[FlowEdge], sop_id: str, title: str, fmt: str,
                   hints: dict[int, str | None] | None = None, failures: set[int] | None = None,
                   node_meta: dict[str, dict[str, str]] | None = None,
                   exact: dict | None = None,
                   references: set[str] | None = None) -> ImportResult:
    """`hints`: edge index -> condition known from our export (None = unconditional);
    `failures`: indexes of failure edges; `node_meta`: DOT attributes of our export;
    `exact`: the exact data of our export (flowmeta): {"sop", "nodes", "edges": {index: ...}}."""
    hints, failures = dict(hints or {}), set(failures or ())
    exact_edges = (exact or {}).get("edges") or {}
    for index, meta in exact_edges.items():
        hints[index] = meta.get("when")
        failures.discard(index)
        if meta.get("on") == "failure":
            failures.add(index)
    for index, edge in enumerate(edges):  # a label that is already a condition is kept
        hint = None if index in hints else expression_hint(edge[2])
        if hint is not None:
            hints[index] = hint
    notes: list[str] = []
    if references and not exact:
        edges = _sequence_references(edges, references, titles, failures, notes)
    by_source: dict[str, list] = {}  # indexed once: a scan per node was quadratic
    for index, edge in enumerate(edges):
        by_source.setdefault(edge[0], []).append((index, edge))
    nodes = {name: _node(name, titles.get(name) or name, name in by_source) for name in names}
    decision = _Decision(nodes, [], set(), notes)
    sop_edges = []
    for name in names:
        exits = by_source.get(name, [])
        success = [(i, e) for i, e in exits if i not in failures]
        every = ((node_meta or {}).get(name) or {}).get("branching") == "all"
        whens = {} if every or any(i in hints for i, _ in success) else \
            decision.conditions(nodes[name], success, name in diamonds)
        whens.update({i: hints[i] for i, _ in exits if i in hints})
        sop_edges += [(i, Edge(id=str(exact_edges.get(i, {}).get("id") or f"e{i + 1}"),
                               source=src, target=dst,
                               label=shown_label(label, exact_edges[i]) if i in exact_edges
                               else label, when=whens.get(i),
                               on="failure" if i in failures else "success"))
                      for i, (src, dst, label) in exits]
    sop_edges.sort(key=lambda pair: pair[0])
    sop = SOP(id=snake(sop_id or "flowchart").replace("_", "-"), title=title,
              start=_start(names, edges), variables=decision.variables,
              nodes=list(nodes.values()),
              edges=[edge for _, edge in sop_edges])
    if exact:
        apply_exact(sop, exact.get("sop") or {}, exact.get("nodes") or {})
    elif node_meta:
        apply_node_meta(sop, node_meta)
    declare_condition_names(sop, notes)
    return ImportResult(sop, notes, fmt)


_AFTER = re.compile(r"^\s*(?:after|once|then)\b", re.IGNORECASE)


def _sequence_references(edges: list[FlowEdge], references: set[str], titles: dict[str, str],
                         failures: set[int], notes: list[str]) -> list[FlowEdge]:
    """Step -> reference -> "After …" target, for each reference with one way in whose step has
    exactly one "After …" exit (see the module docstring); other references stay ends, noted."""
    edges = list(edges)
    into: dict[str, list[int]] = {}
    for index, (_, target, _) in enumerate(edges):
        if target in references:
            into.setdefault(target, []).append(index)
    for ref in sorted(into, key=lambda name: into[name][0]):
        entries = into[ref]
        source = edges[entries[0]][0]
        after = [i for i, (src, dst, label) in enumerate(edges)
                 if src == source and dst != ref and _AFTER.match(label)]
        shown = titles.get(ref) or ref
        if len(entries) == 1 and len(after) == 1:
            _, target, label = edges[after[0]]
            edges[after[0]] = (ref, target, label)
            failures.discard(entries[0])  # a dashed link into a reference is no failure
            notes.append(f"node '{ref}' ('{shown}') refers to another procedure: imported as a "
                         f"step between '{source}' and '{target}' ('{label}'); to run that "
                         f"procedure, make it a subflow node pointing at its file — confirm")
        else:
            notes.append(f"node '{ref}' ('{shown}') refers to another procedure: imported as an "
                         f"end step; to run that procedure, make it a subflow node pointing at "
                         f"its file — confirm")
    return edges


def _node(name: str, title: str, has_exit: bool) -> Node:
    node = Node(id=name, title=title, instructions=title, kind="task" if has_exit else "end")
    if not has_exit:
        node.outcome = outcome_name(title)
    return node


class _Decision:
    """Turns the exits of a branching node into conditions on one asked variable."""

    def __init__(self, nodes: dict[str, Node], variables: list[Variable], taken: set[str],
                 notes: list[str]):
        self.nodes, self.variables, self.taken, self.notes = nodes, variables, taken, notes

    def conditions(self, node: Node, exits, diamond: bool) -> dict[int, str]:
        """Conditions of the exits by edge index; {} when the node does not branch."""
        labelled = [(i, e) for i, e in exits if e[2]]
        unlabelled = [(i, e) for i, e in exits if not e[2]]
        if len(exits) < 2:
            return {}
        default = len(unlabelled) == 1 and (len(labelled) >= 2 or (diamond and labelled))
        chosen = labelled if default else exits
        var = unique(name_from(node.title, "decision"), self.taken)
        if (default or not unlabelled) and _is_yes_no([e[2] for _, e in labelled]):
            whens = {i: f"{var} == {'true' if _YES.match(e[2]) else 'false'}" for i, e in labelled}
            self.variables.append(Variable(name=var, type="boolean", description=node.title))
            kind = "yes/no"
        else:
            values = self._values(chosen)
            whens = {i: f"{var} == {quote(v)}" for i, v in values.items()}
            self.variables.append(Variable(name=var, description=node.title,
                                           enum=list(values.values())))
            kind = "choice"
        if default:  # the one unlabelled exit of a decision: the default way out
            whens.update({i: "else" for i, _ in unlabelled})
        elif unlabelled:
            self.notes.append(f"node '{node.id}' has {len(unlabelled)} unlabelled exit(s): the "
                              f"user chooses among them by the step each leads to — confirm")
        node.ask = [var]
        self.notes.append(f"decision '{node.id}': variable '{var}' ({kind}, asked at the "
                          f"decision) — confirm the name")
        return whens

    def _values(self, exits) -> dict[int, str]:
        """One distinct value per exit: its label, else the title of the step it leads to."""
        values: dict[int, str] = {}
        seen: set[str] = set()
        for i, (_, target, label) in exits:
            base = label or (self.nodes[target].title if target in self.nodes else target)
            base = base.replace("'", "").replace('"', "") or target
            values[i] = unique(base, seen)
            if values[i] != base:
                self.notes.append(f"two exits would both be '{base}': this one is "
                                  f"'{values[i]}' — confirm")
        return values


def _is_yes_no(labels: list[str]) -> bool:
    """Every label is yes or no, and no answer is written two different ways (a qualified
    `Yes (...)` beside another `Yes (...)` is a choice, not a boolean)."""
    yes = {" ".join(x.lower().split()) for x in labels if _YES.match(x)}
    no = {" ".join(x.lower().split()) for x in labels if _NO.match(x)}
    return len(yes) + len(no) == len(set(" ".join(x.lower().split()) for x in labels)) \
        and len(yes) <= 1 and len(no) <= 1


def _start(names: list[str], edges) -> str | None:
    targets = {e[1] for e in edges}
    roots = [n for n in names if n not in targets]
    named = [n for n in roots if n.lower().startswith("start")]
    return (named or roots or names or [None])[0]
