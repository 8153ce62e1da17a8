"""STAR task specifications (Mosig et al. 2020, schema-guided dialogue) imported as an SOP.

A task file is JSON: `task`, `replies` ({name: text}) and `graph` ({reply: next reply}). A reply
named `..ask_<thing>` asks the user for `<thing>` (a variable); `query` calls the task's API (a
tool) and leaves by `query_success` (success edge) and `query_failure` (failure edge) when the
graph has them, else by its single successor; any other reply says its text, and a reply with no
successor ends the flow. `info_missing*` replies are the user-side branch "the user does not have
that information": they are kept with their successors and noted (the task graph does not say
which asks they follow). The API spec (`apis/<name>.json`: `input` / `output` with `Name`, `Type`,
`Categories`; `required`; `function`) is optional: with it the tool gets typed parameters and
outputs, and categorical inputs become enums of the variables they are matched to.
"""

from __future__ import annotations

from ..core.model import SOP, Edge, Node, Tool, ToolOutput, Variable
from .base import FormatError, ImportResult, snake
from .jsonutil import read_json

_TYPES = {"Integer": "integer", "Float": "number", "Boolean": "boolean"}


def looks_like(data) -> bool:
    """STAR's task shape: `replies` and `graph` mappings of names to strings."""
    return (isinstance(data, dict) and isinstance(data.get("replies"), dict)
            and isinstance(data.get("graph"), dict)
            and all(isinstance(v, str) for v in data["graph"].values()))


def import_star(text: str, source: str = "<paste>", api: dict | None = None) -> ImportResult:
    data = read_json(text, "STAR task JSON")
    if not looks_like(data):
        raise FormatError("not a STAR task file (expected 'replies' and 'graph' mappings)")
    return _Builder(data, api, source).build()


def load_api(text: str) -> dict:
    data = read_json(text, "STAR API JSON")
    if not isinstance(data, dict) or not isinstance(data.get("input"), list):
        raise FormatError("not a STAR API spec (expected an 'input' list)")
    return data


def variable_of(reply: str) -> str | None:
    """`bank_ask_account_number` → `account_number`; None when the reply asks nothing."""
    head, sep, tail = reply.partition("ask_")
    return snake(tail) if sep and tail and (not head or head.endswith("_")) else None


class _Builder:
    def __init__(self, data: dict, api: dict | None, source: str):
        self.data, self.api, self.source = data, api or {}, source
        self.replies: dict = data["replies"]
        self.graph: dict = data["graph"]
        self.notes: list[str] = []
        task = str(data.get("task") or "star_task")
        self.sop = SOP(id=snake(task, "task"), title=task.replace("_", " "))
        self.tool_name = snake(str(self.api.get("function") or task), "query")

    def build(self) -> ImportResult:
        names = [n for n in dict.fromkeys([*self.graph, *self.graph.values()])
                 if n not in ("query_success", "query_failure")]
        missing = [n for n in names if n not in self.replies and n != "query"]
        if missing:
            raise FormatError(f"graph names replies that are not defined: {', '.join(missing)}")
        for name in names:
            self.sop.nodes.append(self._node(name))
        for name in names:
            self._edges(name)
        self.sop.start = "hello" if "hello" in names else self._root(names)
        if any(n.tools for n in self.sop.nodes):
            self.sop.tools.append(self._tool())
        return ImportResult(self.sop, self.notes, "star")

    def _node(self, name: str) -> Node:
        text = str(self.replies.get(name, ""))
        node = Node(id=snake(name, "reply"), title=name.replace("_", " "))
        if name == "query":
            node.tools, node.title = [self.tool_name], f"Query {self.tool_name}"
            node.max_attempts = 1
        elif name.startswith("info_missing"):
            node.instructions = f"The user does not have the information: {text}"
            self.notes.append(f"{name}: a user-side branch ({text!r}); connect it from the asks "
                              f"it covers")
        elif (variable := variable_of(name)) and self.graph.get(name):
            node.ask, node.say = [variable], text
            if variable not in {v.name for v in self.sop.variables}:
                self.sop.variables.append(Variable(name=variable, description=text))
        else:
            node.say = text or None
        if not self.graph.get(name) and name != "query":
            node.kind, node.outcome = "end", "resolved"
        return node

    def _edges(self, name: str) -> None:
        source = snake(name, "reply")
        if name == "query":
            success = self.graph.get("query_success") or self.graph.get("query")
            failure = self.graph.get("query_failure")
            if success:
                self._edge(source, success, "success")
            if failure:
                self._edge(source, failure, "failure")
        elif self.graph.get(name):
            self._edge(source, self.graph[name], "success")

    def _edge(self, source: str, target: str, on: str) -> None:
        self.sop.edges.append(Edge(id=f"e{len(self.sop.edges) + 1}", source=source,
                                   target=snake(target, "reply"), on=on,
                                   label="failure" if on == "failure" else ""))

    def _root(self, names: list[str]) -> str:
        targets = set(self.graph.values())
        return snake(next((n for n in names if n not in targets), names[0]), "reply")

    def _tool(self) -> Tool:
        """The API as a tool: inputs matched to the variables asked on the way from the start
        (see `match_inputs`); categorical inputs give enums to those variables."""
        reached = self._reached()
        asked = {v: var for v in dict.fromkeys(a for n in self.sop.nodes if n.id in reached
                                               for a in n.ask)
                 for var in self.sop.variables if var.name == v}
        items = [i for i in self.api.get("input") or [] if isinstance(i, dict)]
        params = [snake(str(i.get("Name", "")), "input") for i in items]
        matched = match_inputs(params, asked)
        properties, required = {}, []
        for param, item in zip(params, items):
            properties[param] = schema = _schema(item)
            if param in matched and "enum" in schema:
                asked[matched[param]].enum = list(schema["enum"])
            if item.get("Name") in (self.api.get("required") or []):
                required.append(param)
        args = {p: v for p, v in matched.items() if p != v}
        for node in self.sop.nodes:
            if node.tools and args:
                node.tool_args = {self.tool_name: dict(args)}
        outputs = [ToolOutput(name=snake(str(o.get("Name", "")), "output"),
                              type=_schema(o).get("type", "string"),
                              enum=_schema(o).get("enum")) for o in self.api.get("output") or []]
        if not self.api:
            self.notes.append("no API spec given (--api): the query tool has no parameters")
        return Tool(name=self.tool_name, description=f"STAR API {self.tool_name}",
                    parameters={"type": "object", "properties": properties,
                                "required": required}, outputs=outputs,
                    errors=["no_result"])

    def _reached(self) -> set[str]:
        seen, todo = set(), [self.sop.start]
        while todo:
            node = todo.pop()
            if node and node not in seen:
                seen.add(node)
                todo += [e.target for e in self.sop.edges if e.source == node]
        return seen


def match_inputs(params: list[str], asked: dict[str, Variable]) -> dict[str, str]:
    """{API input: variable}: same names first, then initials (`date_of_birth` ← `dob`), then a
    suffix whose words the question uses (`full_name` ← `name` asked as "your full name?");
    each variable feeds one input."""
    found: dict[str, str] = {}
    for rule in (_same, _initials, _suffix):
        for param in params:
            for name, variable in asked.items():
                if param not in found and name not in found.values() and rule(
                        param, name, variable.description.lower()):
                    found[param] = name
    return found


def _same(param: str, name: str, question: str) -> bool:
    return param == name


def _initials(param: str, name: str, question: str) -> bool:
    return name == "".join(word[0] for word in param.split("_") if word)


def _suffix(param: str, name: str, question: str) -> bool:
    return param.endswith("_" + name) and all(word in question for word in param.split("_"))


def _schema(item: dict) -> dict:
    schema: dict = {"type": _TYPES.get(str(item.get("Type")), "string")}
    if item.get("Categories"):
        schema["enum"] = [str(c) for c in item["Categories"]]
    return schema
