"""JourneyBench graph JSON (Appendix A.3 / B) import and export (lossy).

Import: nodes become task nodes (`task_name` -> title, `task_description` -> instructions,
`steps`), tools keep method/url/body, `extractVars` become the JSON-Schema parameters (asked at the
node when no tool outputs them), `responseData` the outputs (`Must be one of: 'a', 'b'` -> enum),
a tool `condition` the node's `tool_when`; `responsePathways` become edges whose `{var}`
conditions are translated into our expression language; a node with no way out is an end node.
Export writes the same shape back, conditions with the format's `{var}` braces; `else` becomes
the negation of its siblings. Our extensions, which JourneyBench readers ignore, keep the rest:
graph `"id"`, `"start"`, `"knowledge"`, `"variables"` (types, descriptions, patterns),
`"edgeOrder"`; node `"maxAttempts"`, `"outcome"` (an end's own outcome, not one derived from its title),
`"branching"`, `"ask"` (exactly what the step asks), `"toolArgs"`; pathway `"onFailure": true`,
`"else": true`, `"id"`, `"label"`; tool `"errors"`, `"parameters"` (the whole JSON Schema) and
`"outputs"` (typed); say / set travel as `Say: ...` and `Set x = ...` steps.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from ..core.model import SOP, Edge, Knowledge, Node, Tool, ToolOutput, Variable
from ..core.validate import dataflow_issues
from . import _expr
from ..core.index import SopIndex
from .base import FormatError, ImportResult, outcome_name, snake
from .jsonutil import dump_json, read_json

_ONE_OF = re.compile(r"(?:one of|either)\s*:?\s*((?:'[^']*'(?:\s*,\s*|\s+or\s+|\s*$)?)+)",
                     re.IGNORECASE)


def translate(expression: str) -> str:
    """`{riskLevel} == 'high' && {score} > 3` -> `riskLevel == 'high' && score > 3`."""
    out, quote_char = [], None
    for char in expression:
        if quote_char:
            quote_char = None if char == quote_char else quote_char
        elif char in "'\"":
            quote_char = char
        elif char in "{}":
            continue
        out.append(char)
    return " ".join("".join(out).split())


def import_journeybench(text: str, source: str = "<paste>") -> ImportResult:
    data = read_json(text, "JourneyBench")
    if isinstance(data, dict) and "task_name" in data and "nodes" not in data:
        data = {"title": data.get("task_name", ""), "nodes": [data], "edges": []}
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise FormatError("JourneyBench: expected an object with a 'nodes' list", 1)
    notes: list[str] = []
    raw_nodes = [_check_node(n, i) for i, n in enumerate(data["nodes"])]
    tools, produced = _tools(raw_nodes, notes)
    nodes = [_node(raw, produced, notes) for raw in raw_nodes]
    edges = _edges(raw_nodes, data.get("edges") or [], nodes, notes)
    variables = _variables(raw_nodes, produced)
    declared = {v.name for v in variables} | produced
    for name in dict.fromkeys(a for n in nodes for a in n.ask):  # asked in a step, not a tool
        if name not in declared:
            variables.append(Variable(name=name))
    _mark_ends(nodes, edges)
    sop = SOP(id=snake(data.get("title") or "journeybench", "sop").replace("_", "-"),
              title=str(data.get("title") or "Imported JourneyBench graph"),
              description=str(data.get("description") or ""), start=_start(nodes, edges),
              variables=variables, tools=list(tools.values()), nodes=nodes, edges=edges)
    _read_extensions(sop, data, raw_nodes)
    _ask_unobtainable(sop, notes)
    return ImportResult(sop, notes, "journeybench")


def _read_extensions(sop: SOP, data: dict, raw_nodes: list[dict]) -> None:
    """Our export's extension keys (see the module docstring) override what was derived."""
    try:
        if isinstance(data.get("id"), str) and data["id"]:
            sop.id = data["id"]
        if isinstance(data.get("start"), str) and data["start"]:
            sop.start = data["start"]
        if isinstance(data.get("knowledge"), list):
            sop.knowledge = [Knowledge.model_validate(k) for k in data["knowledge"]]
        if isinstance(data.get("variables"), list):
            exact = [Variable.model_validate(v) for v in data["variables"]]
            named = {v.name for v in exact}
            _read_node_extensions(SopIndex(sop), raw_nodes)
            asked = {a for n in sop.nodes for a in n.ask}  # what the file's own variables lack
            sop.variables = exact + [v for v in sop.variables
                                     if v.name not in named and v.name in asked]
        else:
            _read_node_extensions(SopIndex(sop), raw_nodes)
        if isinstance(data.get("edgeOrder"), list):
            rank = {str(e): i for i, e in enumerate(data["edgeOrder"])}
            sop.edges = sorted(sop.edges, key=lambda e: rank.get(e.id, len(rank)))
    except ValidationError as error:
        raise FormatError(f"JourneyBench: an extension key does not load ({error})") from None


def _read_node_extensions(index: SopIndex, raw_nodes: list[dict]) -> None:
    for raw in raw_nodes:
        node = index.nodes.get(str(raw["id"]))
        if node is None:
            continue
        if isinstance(raw.get("outcome"), str):
            node.kind, node.outcome = "end", raw["outcome"]
        if raw.get("branching") == "all":
            node.branching = "all"
        if isinstance(raw.get("ask"), list):
            node.ask = [str(a) for a in raw["ask"]]
        if isinstance(raw.get("toolArgs"), dict):
            node.tool_args = raw["toolArgs"]
        if isinstance(raw.get("notes"), list):
            node.notes = [str(n) for n in raw["notes"]]
        for spec in raw.get("tools") or []:
            tool = index.tools.get(_tool_name(spec))
            if tool is not None and isinstance(spec.get("parameters"), dict):
                tool.parameters = spec["parameters"]
            if tool is not None and isinstance(spec.get("outputs"), list):
                tool.outputs = [ToolOutput.model_validate(o) for o in spec["outputs"]]


def _ask_unobtainable(sop: SOP, notes: list[str]) -> None:
    """An `extractVars` value that nothing earlier provides is asked in its node.

    JourneyBench extracts a tool's variables from the conversation; a tool that also returns
    the value (it records `incidentType` and echoes it back) is no source for its own input.
    The dataflow check of validation says where that happens, on every path."""
    nodes = {n.id: n for n in reversed(sop.nodes)}
    declared = {v.name for v in sop.variables}
    for issue in dataflow_issues(sop):
        node, name = nodes.get(issue.node or ""), issue.variable
        if issue.code != "unobtainable-parameter" or node is None or not name:
            continue
        if name not in node.ask:
            node.ask = [*node.ask, name]
            notes.append(f"node '{node.id}': '{name}' is asked there (tool {issue.tool} needs it "
                         "and nothing earlier provides it) — confirm")
        if name not in declared:
            declared.add(name)
            sop.variables.append(_variable_like(sop, issue.tool or "", name))


def _variable_like(sop: SOP, tool_name: str, name: str) -> Variable:
    """A user variable typed and described as the tool's parameter of that name."""
    tool = next((t for t in sop.tools if t.name == tool_name), None)
    spec = ((tool.parameters.get("properties") or {}).get(name) if tool else None) or {}
    kind = spec.get("type", "string")
    kind = {"array": "list"}.get(kind, kind)
    kind = kind if kind in ("string", "integer", "number", "boolean", "list", "object") \
        else "string"
    return Variable(name=name, type=kind, description=str(spec.get("description") or ""))


def _check_node(raw: Any, index: int) -> dict:
    if not isinstance(raw, dict) or "id" not in raw:
        raise FormatError(f"JourneyBench: nodes[{index}] must be an object with an 'id'")
    return raw


def _tools(raw_nodes: list[dict], notes: list[str]) -> tuple[dict[str, Tool], set[str]]:
    tools: dict[str, Tool] = {}
    for raw in raw_nodes:
        for spec in raw.get("tools") or []:
            name = _tool_name(spec)
            if name != spec.get("name"):
                notes.append(f"tool '{spec.get('name')}' renamed '{name}' — confirm the name")
            tools.setdefault(name, _tool(name, spec))
    produced = {o.name for t in tools.values() for o in t.outputs}
    return tools, produced


def _tool_name(spec: dict) -> str:
    """A name that is already an identifier (`getPatientId`) is kept; others are snake-cased."""
    name = str(spec.get("name") or "tool")
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else snake(name, "tool")


def _tool(name: str, spec: dict) -> Tool:
    props, required = {}, []
    for var in spec.get("extractVars") or []:
        vname = str(var.get("variableName") or var.get("name"))
        props[vname] = {"type": _json_type(var.get("type")),
                        "description": str(var.get("description") or "")}
        required.append(vname)
    outputs = [ToolOutput(name=str(r.get("name")), description=str(r.get("context") or ""),
                          enum=_enum(str(r.get("context") or "")),
                          type=_declared_type(str(r.get("context") or "")))
               for r in spec.get("responseData") or [] if r.get("name")]
    extra = {"body": spec["body"]} if spec.get("body") is not None else {}
    errors = spec.get("errors")  # our extension: the error codes a failure branch can test
    return Tool(name=name, description=str(spec.get("tool_description") or ""),
                method=str(spec.get("method") or "GET"), url=str(spec.get("url") or ""),
                parameters={"type": "object", "properties": props, "required": required},
                outputs=outputs, errors=[str(e) for e in errors] if isinstance(errors, list)
                else [], **extra)


def _json_type(value: Any) -> str:
    text = str(value or "string").lower()
    return {"int": "integer", "float": "number", "bool": "boolean", "str": "string"}.get(text, text)


def _declared_type(context: str) -> str:
    """`riskLevel (string): ...` -> `string` (JourneyBench writes the type in the context)."""
    match = re.match(r"\s*[\w.]+\s*\((\w+)\)", context)
    kind = _json_type(match.group(1)) if match else "string"
    return kind if kind in ("string", "integer", "number", "boolean", "list", "object") \
        else "string"


def _enum(context: str) -> list | None:
    match = _ONE_OF.search(context)
    return re.findall(r"'([^']*)'", match.group(1)) if match else None


def _node(raw: dict, produced: set[str], notes: list[str]) -> Node:
    steps = raw.get("steps") or []
    steps = steps.splitlines() if isinstance(steps, str) else [str(s) for s in steps]
    attempts = raw.get("maxAttempts")  # our extension
    node = Node(id=str(raw["id"]), title=str(raw.get("task_name") or raw["id"]),
                instructions=str(raw.get("task_description") or ""), steps=steps,
                max_attempts=attempts if isinstance(attempts, int) and attempts >= 1 else None)
    _read_steps(node)
    for spec in raw.get("tools") or []:
        name = _tool_name(spec)
        node.tools = [*node.tools, name]
        condition = _condition_text(spec.get("condition"))
        if condition:
            node.tool_when = {**node.tool_when, name: _checked(condition, node.id, notes)}
        for var in spec.get("extractVars") or []:
            vname = str(var.get("variableName") or var.get("name"))
            if vname not in produced and vname not in node.ask:
                node.ask = [*node.ask, vname]
    return node


_ASK_STEP = re.compile(r"^Ask the user for ([A-Za-z_][\w]*)$")
_SET_STEP = re.compile(r"^Set ([A-Za-z_][\w.]*) = (.+)$")


def _read_steps(node: Node) -> None:
    """The steps our export writes for say / ask / set become those actions again."""
    kept = []
    for step in node.steps:
        ask, assign = _ASK_STEP.match(step), _SET_STEP.match(step)
        if step.startswith("Say: ") and node.say is None:
            node.say = step[5:]
        elif ask:
            node.ask = [*node.ask, ask.group(1)]
        elif assign:
            node.set = {**node.set, assign.group(1): assign.group(2)}
        else:
            kept.append(step)
    node.steps = kept


def _condition_text(condition: Any) -> str | None:
    if isinstance(condition, dict):
        condition = condition.get("algebraicExpression")
    if isinstance(condition, list):
        parts = [p for p in (_condition_text(c) for c in condition) if p]
        return parts[0] if len(parts) == 1 else " && ".join(f"({p})" for p in parts) or None
    return str(condition).strip() or None if condition else None


def _checked(expression: str, where: str, notes: list[str]) -> str:
    translated = translate(expression)
    problem = _expr.syntax_error(translated)
    if problem:
        notes.append(f"node '{where}': condition `{expression}` does not parse ({problem}); "
                     "kept as written — please fix it")
    return translated


def _edges(raw_nodes, raw_edges, nodes, notes) -> list[Edge]:
    labels = {(str(e.get("source")), str(e.get("target"))): str(e.get("label") or "")
              for e in raw_edges if isinstance(e, dict)}
    ids = {n.id for n in nodes}
    edges: list[Edge] = []
    for raw in raw_nodes:
        for path in raw.get("responsePathways") or []:
            target = str(path.get("nextNodeId"))
            when = "else" if path.get("else") is True else _condition_text(path.get("conditions"))
            label = labels.pop((str(raw["id"]), target), "")
            edges.append(Edge(id=str(path.get("id") or f"e{len(edges) + 1}"),
                              source=str(raw["id"]), target=target,
                              label=str(path["label"]) if isinstance(path.get("label"), str)
                              else label,
                              on="failure" if path.get("onFailure") is True else "success",
                              when=_checked(when, str(raw["id"]), notes) if when else None))
    for (source, target), label in labels.items():  # edges no pathway mentions
        edges.append(Edge(id=f"e{len(edges) + 1}", source=source, target=target, label=label))
    for edge in edges:
        if edge.target not in ids or edge.source not in ids:
            missing = edge.target if edge.target not in ids else edge.source
            nodes.append(Node(id=missing, title=f"Missing node {missing}", kind="end",
                              outcome="missing"))
            ids.add(missing)
            notes.append(f"node '{missing}' is referenced but not defined; added as an end node")
    return edges


def _variables(raw_nodes: list[dict], produced: set[str]) -> list[Variable]:
    found: dict[str, Variable] = {}
    for raw in raw_nodes:
        for spec in raw.get("tools") or []:
            for var in spec.get("extractVars") or []:
                name = str(var.get("variableName") or var.get("name"))
                if name not in produced and name not in found:
                    found[name] = Variable(name=name, type=_json_type(var.get("type")),
                                           description=str(var.get("description") or ""),
                                           enum=_enum(str(var.get("description") or "")))
    return list(found.values())


def _mark_ends(nodes: list[Node], edges: list[Edge]) -> None:
    sources = {e.source for e in edges}
    for node in nodes:
        if node.id not in sources and node.kind == "task" and not node.tools:
            node.kind, node.outcome = "end", outcome_name(node.title)


def _start(nodes: list[Node], edges: list[Edge]) -> str | None:
    targets = {e.target for e in edges}
    ids = [n.id for n in nodes]
    if "1" in ids:
        return "1"
    return next((i for i in ids if i not in targets), ids[0] if ids else None)


# ---------------------------------------------------------------- export

def export_journeybench(sop: SOP) -> str:
    index = SopIndex(sop)
    nodes = [_export_node(index, node) for node in sop.nodes]
    edges = [{"source": e.source, "target": e.target, "label": e.label or (e.when or "")}
             for e in sop.edges]
    return dump_json({"title": sop.title or sop.id, "description": sop.description,
                      "nodes": nodes, "edges": edges,
                      # our extensions (module docstring): JourneyBench readers ignore them
                      "id": sop.id, "start": sop.start, "edgeOrder": [e.id for e in sop.edges],
                      "knowledge": [k.model_dump(mode="json") for k in sop.knowledge],
                      "variables": [v.model_dump(mode="json", exclude_defaults=True)
                                    for v in sop.variables]})


def _export_node(sop: SopIndex, node: Node) -> dict:
    steps = list(node.steps)
    if node.say:
        steps.append(f"Say: {node.say}")
    steps += [f"Ask the user for {name}" for name in node.ask]  # for readers of the format
    steps += [f"Set {name} = {expr}" for name, expr in node.set.items()]
    raw = {"id": node.id, "task_name": node.title or node.id,
           "task_description": node.instructions, "steps": steps,
           "responsePathways": [_pathway(sop, edge) for edge in sop.out_edges(node.id)],
           "tools": [_export_tool(sop, name, node) for name in node.tools]}
    if node.max_attempts:  # our extensions; JourneyBench readers ignore unknown keys
        raw["maxAttempts"] = node.max_attempts
    if node.kind == "end":
        raw["outcome"] = node.outcome or ""
    if node.branching == "all":
        raw["branching"] = "all"
    raw["ask"] = list(node.ask)
    if node.tool_args:
        raw["toolArgs"] = node.tool_args
    if node.notes:
        raw["notes"] = list(node.notes)
    return raw


def _pathway(sop: SopIndex, edge: Edge) -> dict:
    when = edge.when
    if edge.is_else:
        siblings = [e.when for e in sop.out_edges(edge.source)
                    if e.on == edge.on and e.when and not e.is_else]
        when = "not (" + " || ".join(f"({w})" for w in siblings) + ")" if siblings else None
    conditions = [{"algebraicExpression": _expr.braced(when)}] if when else []
    path: dict[str, Any] = {"conditions": conditions, "nextNodeId": edge.target,
                            "id": edge.id, "label": edge.label}
    if edge.on == "failure":  # our extension: taken when the step's tool call fails
        path["onFailure"] = True
    if edge.is_else:  # our extension: the negation above is what other readers see
        path["else"] = True
    return path


def _export_tool(sop: SopIndex, name: str, node: Node) -> dict:
    tool = sop.tools.get(name) or Tool(name=name)
    props = tool.parameters.get("properties") or {}
    return {"method": tool.method, "url": tool.url, "body": (tool.model_extra or {}).get("body"),
            "name": tool.name, "tool_description": tool.description,
            "condition": _expr.braced(node.tool_when[name]) if name in node.tool_when else None,
            "extractVars": [{"variableName": p, "type": (spec or {}).get("type", "string"),
                             "description": (spec or {}).get("description", "")}
                            for p, spec in props.items()],
            "responseData": [{"name": o.name, "context": _context(o)} for o in tool.outputs],
            "errors": list(tool.errors), "parameters": tool.parameters,
            "outputs": [o.model_dump(mode="json", exclude_defaults=True) for o in tool.outputs]}


def _context(output: ToolOutput) -> str:
    text = output.description or f"{output.name} ({output.type})"
    if output.enum and "one of" not in text.lower():
        text += " Must be one of: " + ", ".join(f"'{v}'" for v in output.enum) + "."
    return text
