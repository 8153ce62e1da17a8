"""validate(): the must-availability dataflow behind undefined-variable / unobtainable-parameter."""

from __future__ import annotations

from sopstudio.core.model import SOP
from sopstudio.core.validate import validate

TOOLS = [{"name": "lookup",
          "parameters": {"type": "object", "properties": {"account": {"type": "string"}},
                         "required": ["account"]},
          "outputs": [{"name": "balance", "type": "number"},
                      {"name": "response", "type": "object"}],
          "errors": ["not_found"]},
         {"name": "score", "parameters": {"type": "object", "properties": {}},
          "outputs": [{"name": "risk", "type": "number"}]}]


def sop(nodes, edges, variables=("account", "reason")) -> SOP:
    called = {name for node in nodes for name in node.get("tools", [])}
    tools = [tool for tool in TOOLS if tool["name"] in called]
    return SOP.model_validate({
        "id": "flow", "start": nodes[0]["id"], "tools": tools, "nodes": nodes, "edges": edges,
        "variables": [{"name": v, "source": "user"} for v in variables]})


def undefined(model: SOP) -> list[tuple[str, str | None, str | None]]:
    return [(i.node, i.edge, i.variable) for i in validate(model) if i.code == "undefined-variable"]


def codes(model: SOP) -> list[str]:
    return [i.code for i in validate(model)]


def test_variable_asked_on_one_branch_only_is_undefined_after_the_join():
    model = sop(
        [{"id": "start", "ask": ["account"]},
         {"id": "why", "ask": ["reason"]},
         {"id": "join", "say": "ok"},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "start", "target": "why", "when": "account == 'x'"},
         {"id": "e2", "source": "start", "target": "join", "when": "else"},
         {"id": "e3", "source": "why", "target": "join"},
         {"id": "e4", "source": "join", "target": "end", "when": "reason != ''"},
         {"id": "e5", "source": "join", "target": "end", "when": "else"}])
    assert undefined(model) == [("join", "e4", "reason")]
    message = next(i.message for i in validate(model) if i.code == "undefined-variable")
    assert "not set on every path to node join" in message and "asked in node why" in message


def test_variable_set_on_both_branches_is_available():
    model = sop(
        [{"id": "start", "ask": ["account"]},
         {"id": "left", "set": {"level": "1"}},
         {"id": "right", "set": {"level": "2"}},
         {"id": "join", "say": "ok"},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "start", "target": "left", "when": "account == 'x'"},
         {"id": "e2", "source": "start", "target": "right", "when": "else"},
         {"id": "e3", "source": "left", "target": "join"},
         {"id": "e4", "source": "right", "target": "join"},
         {"id": "e5", "source": "join", "target": "end", "when": "level > 1"},
         {"id": "e6", "source": "join", "target": "end", "when": "else"}], variables=["account"])
    assert validate(model) == []


def test_variable_set_later_in_a_loop_is_not_available_at_the_loop_head():
    model = sop(
        [{"id": "head", "say": "hi", "max_attempts": 3},
         {"id": "body", "set": {"count": "1"}},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "head", "target": "body", "when": "count == 1"},
         {"id": "e2", "source": "head", "target": "body", "when": "else"},
         {"id": "e3", "source": "body", "target": "head", "when": "count < 3"},
         {"id": "e4", "source": "body", "target": "end", "when": "else"}], variables=[])
    assert undefined(model) == [("head", "e1", "count")]


def test_error_is_available_on_failure_edges_only_and_outputs_on_success_only():
    model = sop(
        [{"id": "ask", "ask": ["account"], "max_attempts": 2},
         {"id": "call", "tools": ["lookup"]},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "ask", "target": "call"},
         {"id": "e2", "source": "call", "target": "end", "when": "error == 'x'"},
         {"id": "e3", "source": "call", "target": "end", "when": "else"},
         {"id": "e4", "source": "call", "target": "ask", "on": "failure",
          "when": "error == 'not_found' and balance > 0"}], variables=["account"])
    assert undefined(model) == [("call", "e2", "error"), ("call", "e4", "balance")]


def test_tool_is_available_next_to_error_on_failure_edges_only():
    # The engine sets both `error` and `tool` (the failing tool's name) when it follows a
    # failure edge, so conditions there may read `tool`; a success edge may not.
    model = sop(
        [{"id": "ask", "ask": ["account"], "max_attempts": 2},
         {"id": "call", "tools": ["lookup", "score"]},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "ask", "target": "call"},
         {"id": "e2", "source": "call", "target": "end", "when": "tool == 'score'"},
         {"id": "e3", "source": "call", "target": "end", "when": "else"},
         {"id": "e4", "source": "call", "target": "ask", "on": "failure",
          "when": "tool == 'lookup' and error == 'not_found'"}], variables=["account"])
    assert undefined(model) == [("call", "e2", "tool")]
    message = next(i.message for i in validate(model) if i.code == "undefined-variable")
    assert "a failure edge" in message


def test_dotted_names_count_by_first_segment():
    model = sop(
        [{"id": "ask", "ask": ["account"]},
         {"id": "call", "tools": ["lookup"]},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "ask", "target": "call"},
         {"id": "e2", "source": "call", "target": "end",
          "when": "response.riskLevel == 'high' or result.code == 1"},
         {"id": "e3", "source": "call", "target": "end", "when": "else"}], variables=["account"])
    assert undefined(model) == [("call", "e2", "result")]


def test_order_inside_a_node_tools_then_set():
    model = sop(
        [{"id": "ask", "ask": ["account"]},
         {"id": "call", "tools": ["score", "lookup"],
          "tool_when": {"score": "balance > 0", "lookup": "risk > 1"},
          "set": {"total": "balance + risk", "double": "total * 2", "bad": "later + 1",
                  "later": "1"}},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "ask", "target": "call"},
         {"id": "e2", "source": "call", "target": "end", "when": "double > 0"},
         {"id": "e3", "source": "call", "target": "end", "when": "else"}], variables=["account"])
    issues = [(i.node, i.tool, i.variable) for i in validate(model)
              if i.code == "undefined-variable"]
    assert issues == [("call", "score", "balance"), ("call", None, "later")]


def test_required_parameter_asked_on_one_path_only_is_unobtainable():
    model = sop(
        [{"id": "start", "say": "hi"},
         {"id": "ask", "ask": ["account"]},
         {"id": "call", "tools": ["lookup"]},
         {"id": "end", "kind": "end"}],
        [{"id": "e1", "source": "start", "target": "ask", "when": "1 == 1"},
         {"id": "e2", "source": "start", "target": "call", "when": "else"},
         {"id": "e3", "source": "ask", "target": "call"},
         {"id": "e4", "source": "call", "target": "end"}], variables=["account"])
    issues = [i for i in validate(model) if i.code == "unobtainable-parameter"]
    assert [(i.node, i.tool, i.variable) for i in issues] == [("call", "lookup", "account")]
    assert "asked in node ask" in issues[0].message


def test_unreachable_nodes_are_not_dataflow_checked():
    model = sop(
        [{"id": "start", "ask": ["account"]},
         {"id": "end", "kind": "end"},
         {"id": "island", "say": "x"}],
        [{"id": "e1", "source": "start", "target": "end"},
         {"id": "e2", "source": "island", "target": "end", "when": "nothing == 1"},
         {"id": "e3", "source": "island", "target": "end", "when": "else"}],
        variables=["account"])
    assert codes(model) == ["unreachable", "unused-variable"]


def test_long_chain_validates_without_recursion_problems():
    size = 3000
    nodes = [{"id": "n0", "ask": ["account"]}]
    nodes += [{"id": f"n{i}", "set": {f"v{i}": f"v{i - 1} + 1" if i > 1 else "1"}}
              for i in range(1, size)]
    nodes.append({"id": "end", "kind": "end"})
    edges = [{"id": f"e{i}", "source": f"n{i}", "target": f"n{i + 1}"} for i in range(size - 1)]
    edges.append({"id": "last", "source": f"n{size - 1}", "target": "end",
                  "when": f"v{size - 1} > account"})
    edges.append({"id": "other", "source": f"n{size - 1}", "target": "end", "when": "else"})
    assert validate(sop(nodes, edges, variables=["account"])) == []
