"""FloDial knowledge sources (troubleshooting flowcharts, Raghu et al. 2021) imported as an SOP.

A knowledge source is JSON: `name`, `problem_description`, `nodes` ({id: {label, utterance,
terminal}}), `edges` ({id: {yes: id, no: id}}) and `supporting_faqs` ([{q, a, id}]). A
non-terminal node is a yes/no question: a node that asks a boolean variable (its `utterance` is
the question, its `label` the instructions) with a `== true` edge to the yes branch and an
`else` edge to the no branch. A terminal node is an end that says its utterance. An answer the
flowchart gives no branch for goes to an end with outcome `unresolved`. The FAQs become the SOP's
knowledge.
"""

from __future__ import annotations

from ..core.model import SOP, Edge, Knowledge, Node, Variable
from .base import FormatError, ImportResult, snake, unique
from .jsonutil import read_json


def looks_like(data) -> bool:
    """FloDial's shape: `nodes` a mapping of objects with `utterance` or `terminal`, `edges` a
    mapping of {yes, no} objects."""
    if not isinstance(data, dict):
        return False
    nodes, edges = data.get("nodes"), data.get("edges")
    return (isinstance(nodes, dict) and isinstance(edges, dict) and bool(nodes)
            and all(isinstance(n, dict) and ("utterance" in n or "terminal" in n)
                    for n in nodes.values())
            and all(isinstance(e, dict) and set(e) <= {"yes", "no"} for e in edges.values()))


def import_flodial(text: str, source: str = "<paste>") -> ImportResult:
    data = read_json(text, "FloDial JSON")
    if not looks_like(data):
        raise FormatError("not a FloDial knowledge source (expected 'nodes' with utterance/"
                          "terminal and 'edges' with yes/no)")
    name = str(data.get("name") or "flodial")
    sop = SOP(id=snake(name, "flow"), title=name.replace("_", " "),
              description=str(data.get("problem_description") or ""))
    notes: list[str] = []
    ids = _node_ids(data["nodes"])
    taken = set(ids.values())
    for key, spec in data["nodes"].items():
        sop.nodes.append(_node(sop, ids[key], spec, taken))
    for key, branches in data["edges"].items():
        if key not in ids:
            raise FormatError(f"edges: node '{key}' is not among the nodes")
        _branches(sop, ids, key, branches, taken, notes)
    sop.start = _root(data, ids)
    sop.knowledge = [Knowledge(question=str(f.get("q", "")), answer=str(f.get("a", "")))
                     for f in data.get("supporting_faqs") or [] if isinstance(f, dict)]
    return ImportResult(sop, notes, "flodial")


def _node_ids(nodes: dict) -> dict[str, str]:
    taken: set[str] = set()
    return {key: unique(snake(f"n{key} {spec.get('label', '')}", "step")[:48], taken)
            for key, spec in nodes.items()}


def _node(sop: SOP, node_id: str, spec: dict, taken: set[str]) -> Node:
    label, utterance = str(spec.get("label") or ""), str(spec.get("utterance") or "")
    if spec.get("terminal"):
        return Node(id=node_id, kind="end", title=label[:60] or node_id, say=utterance or label,
                    instructions=label, outcome="resolved")
    variable = unique(snake(label, "answer")[:40], {v.name for v in sop.variables})
    sop.variables.append(Variable(name=variable, type="boolean", description=utterance or label))
    return Node(id=node_id, title=label[:60] or node_id, say=utterance or None,
                instructions=label, ask=[variable])


def _branches(sop: SOP, ids: dict, key: str, branches: dict, taken: set, notes: list) -> None:
    node = next(n for n in sop.nodes if n.id == ids[key])
    if node.kind == "end":
        raise FormatError(f"edges: terminal node '{key}' has outgoing edges")
    variable = node.ask[0]
    for answer in ("yes", "no"):
        target = branches.get(answer)
        if target is None:
            target_id = _no_branch(sop, node, answer, taken)
            notes.append(f"node {key}: the flowchart has no '{answer}' branch; it ends "
                         f"'unresolved'")
        elif str(target) in ids:
            target_id = ids[str(target)]
        else:
            raise FormatError(f"edges: node '{key}' {answer} -> '{target}', which is not a node")
        when = f"{variable} == true" if answer == "yes" else "else"
        sop.edges.append(Edge(id=f"e{len(sop.edges) + 1}", source=node.id, target=target_id,
                              when=when, label=answer))


def _no_branch(sop: SOP, node: Node, answer: str, taken: set) -> str:
    end = Node(id=unique(f"{node.id}_{answer}_unresolved"[:60], taken), kind="end",
               title=f"No step for '{answer}'", outcome="unresolved",
               say="The troubleshooting guide has no further step for this case.")
    sop.nodes.append(end)
    return end.id


def _root(data: dict, ids: dict) -> str | None:
    targets = {str(t) for e in data["edges"].values() for t in e.values()}
    roots = [k for k in data["nodes"] if k not in targets]
    return ids[roots[0]] if roots else next(iter(ids.values()), None)
