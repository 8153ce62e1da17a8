"""What our own DOT/Mermaid exports carry beyond a plain flowchart, read back on import.

Exact data (our exports since issue 13): the SOP's start, variables and tools, every node's
fields and every edge's id, author's label, condition and kind, as JSON (DOT attributes
`sop_meta` / `sop_node` / `sop_edge`, percent-encoded because Graphviz mangles quotes and
backslashes; Mermaid `%% @sop` / `%% @node` / `%% @edge` comments). When present, import
rebuilds exactly that SOP: export -> import is identical in structure, labels, conditions and
variables. Older exports and foreign flowcharts fall back to the rules below.

Edges: a condition written as the label (or a DOT `when` attribute) that parses as one of our
expressions is kept verbatim; `on=failure` (DOT) or a dotted link (Mermaid) is a failure edge.
Nodes (DOT attributes `tools`, `ask`, `say`, `max_attempts`): the step's actions. Afterwards every
name a condition reads that nothing supplies becomes an output of the source step's last tool
(or a question asked there), so the imported SOP is complete enough to validate.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote as _unpercent

from pydantic import ValidationError

from ..core.inputs import InputError, loads_json
from ..core.model import SOP, Knowledge, Node, Tool, ToolOutput, Variable
from . import _expr
from .base import FormatError

_OPERATOR = re.compile(r"==|!=|<=|>=|[<>]|&&|\|\||\bin\s*\[|^\s*!|\bnot\b")
_LITERAL = re.compile(r"'([^']*)'|\"([^\"]*)\"")


# What Graphviz mangles in a quoted attribute, percent-encoded (`%` itself so decoding is exact);
# JSON text has no raw control characters, and everything else stays readable.
_PERCENT = str.maketrans({"%": "%25", '"': "%22", "\\": "%5C"})
_NODE_SKIP = {"id"}


def encode(data: Any, percent: bool = True) -> str:
    """JSON on one line; percent-encoded for a DOT attribute."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.translate(_PERCENT) if percent else text


def decode(text: str, what: str, percent: bool = True) -> Any:
    try:
        return loads_json(_unpercent(text) if percent else text, what)
    except (json.JSONDecodeError, InputError) as error:
        raise FormatError(f"{what}: not the JSON our export writes ({error})") from None


def sop_meta(sop: SOP) -> dict[str, Any]:
    """The SOP-level part of the exact data: id, title, description, start, knowledge,
    variables, tools, and the order of nodes and edges (a flowchart reader may reorder)."""
    return {"id": sop.id, "title": sop.title, "description": sop.description, "start": sop.start,
            "knowledge": [k.model_dump(mode="json") for k in sop.knowledge],
            "order": {"nodes": [n.id for n in sop.nodes], "edges": [e.id for e in sop.edges]},
            "variables": [v.model_dump(mode="json", exclude_defaults=True) for v in sop.variables],
            "tools": [t.model_dump(mode="json", exclude_defaults=True) for t in sop.tools]}


def node_meta(node: Node) -> dict[str, Any]:
    """A node's fields except its id (the flowchart's node name)."""
    data = node.model_dump(mode="json", exclude=_NODE_SKIP, exclude_defaults=True)
    return {"title": node.title, **data}  # an empty title too: the drawing shows the id


def edge_meta(edge: Any) -> dict[str, Any]:
    return {"id": edge.id, "label": edge.label, "when": edge.when, "on": edge.on}


def apply_exact(sop: SOP, meta: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> None:
    """Replace what the flowchart rules derived by the exact data of our export."""
    try:
        for key in ("id", "title", "description"):
            if isinstance(meta.get(key), str) and meta[key]:
                setattr(sop, key, meta[key])
        sop.knowledge = [Knowledge.model_validate(k) for k in meta.get("knowledge") or []]
        sop.variables = [Variable.model_validate(v) for v in meta.get("variables") or []]
        sop.tools = [Tool.model_validate(t) for t in meta.get("tools") or []]
        if meta.get("start"):
            sop.start = str(meta["start"])
        sop.nodes = [Node.model_validate({**nodes[n.id], "id": n.id,
                                          "title": shown_title(n, nodes[n.id])})
                     if n.id in nodes else n for n in sop.nodes]
    except (ValidationError, TypeError) as error:
        raise FormatError(f"the SOP data our export wrote does not load ({error})") from None
    order = meta.get("order") if isinstance(meta.get("order"), dict) else {}
    sop.nodes = _ordered(sop.nodes, order.get("nodes"), lambda n: n.id)
    sop.edges = _ordered(sop.edges, order.get("edges"), lambda e: e.id)


def shown_title(node: Node, meta: dict[str, Any]) -> str:
    """The title drawn, unless it is what our export drew for the exported title (the id
    stands in for an empty one): a title renamed in another editor wins over the data."""
    exported = str(meta.get("title") or "")
    return exported if node.title in (exported, node.id) else node.title


def shown_label(drawn: str, meta: dict[str, Any]) -> str:
    """The edge label: the exported one, unless the drawn text was edited elsewhere (our export
    draws the label, or the condition when there is none)."""
    label, when = str(meta.get("label") or ""), str(meta.get("when") or "")
    return label if drawn in (label, when, "") else drawn


def _ordered(items: list, ids: Any, key: Any) -> list:
    """`items` in the order of `ids`; items not listed keep their place after them."""
    if not isinstance(ids, list):
        return items
    rank = {str(i): n for n, i in enumerate(ids)}
    return sorted(items, key=lambda item: rank.get(key(item), len(rank)))


def expression_hint(label: str) -> str | None:
    """`user_status == 'active'` -> itself; `else` -> `else`; `Yes` / `approved` -> None."""
    text = label.strip()
    if text.lower() == "else":
        return "else"
    if not _OPERATOR.search(text) or _expr.syntax_error(text) or not _expr.names_read(text):
        return None
    return text


def apply_node_meta(sop: SOP, meta: dict[str, dict[str, str]]) -> None:
    """DOT node attributes of our export -> the node's actions and the SOP's tools."""
    for node in sop.nodes:
        attrs = meta.get(node.id) or {}
        node.tools = _names(attrs.get("tools"))
        node.ask = list(dict.fromkeys([*node.ask, *_names(attrs.get("ask"))]))
        node.say = attrs.get("say") or node.say
        attempts = attrs.get("max_attempts", "")
        # isdigit accepts any length: a 5,000-digit count would crash int(); 9 digits is plenty
        small = attempts.isascii() and attempts.isdigit() and len(attempts) <= 9
        node.max_attempts = int(attempts) if small and int(attempts) > 0 else None
        if attrs.get("outcome") and node.kind == "end":
            node.outcome = attrs["outcome"]
        if attrs.get("branching") == "all":  # only our export says "follow every branch"
            node.branching = "all"
    known = {t.name for t in sop.tools}
    for name in dict.fromkeys(t for n in sop.nodes for t in n.tools):
        if name not in known:
            sop.tools.append(Tool(name=name))
    declared = {v.name for v in sop.variables}
    for name in dict.fromkeys(a for n in sop.nodes for a in n.ask):
        if name not in declared:
            sop.variables.append(Variable(name=name))


def declare_condition_names(sop: SOP, notes: list[str]) -> None:
    """Give every name a condition reads a source: a tool output, else a question."""
    nodes = {n.id: n for n in reversed(sop.nodes)}  # first of a duplicated id wins
    by_tool = {t.name: t for t in reversed(sop.tools)}
    # name -> the output or variable that supplies it, kept up to date by _declare
    sources: dict = {v.name: v for v in reversed(sop.variables)}
    sources.update({o.name: o for t in reversed(sop.tools) for o in reversed(t.outputs)})
    for edge in sop.edges:
        node = nodes.get(edge.source)
        tools = [t for t in (by_tool.get(n) for n in node.tools) if t] if node else []
        values = [a or b for a, b in _LITERAL.findall(edge.when or "")]
        if edge.on == "failure":
            for tool in tools:
                tool.errors = list(dict.fromkeys([*tool.errors, *values]))
            continue
        for name in _expr.names_read(edge.when):
            _declare(sop, sources, node, tools, name, edge.when or "", values, notes)


def _declare(sop, sources, node, tools, name, when, values, notes) -> None:
    kind = "boolean" if re.search(r"==\s*(?:true|false)\b", when) else \
        "number" if re.search(r"[<>]", when) else "string"
    target = sources.get(name)  # a tool output first, else a variable (see the caller)
    if target is None and tools:
        target = ToolOutput(name=name, type=kind)
        tools[-1].outputs = [*tools[-1].outputs, target]
        sources[name] = target
        notes.append(f"'{name}' taken as an output of tool '{tools[-1].name}' — confirm")
    elif target is None:
        target = Variable(name=name, type=kind)
        sop.variables.append(target)
        sources[name] = target
        node.ask = [*node.ask, name]
        notes.append(f"'{name}' asked at '{node.id}' — confirm")
    if kind == "string" and values and target.type == "string":
        target.enum = list(dict.fromkeys([*(target.enum or []), *values]))


def _names(text: str | None) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]
