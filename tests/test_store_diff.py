"""Structural diffs between SOPs (pure) and between stored versions."""

from __future__ import annotations

import json

from sopstudio.core.model import SOP, Edge, Knowledge, Node, Tool, Variable
from sopstudio.store import diff_sops, diff_values, open_store


def base() -> SOP:
    return SOP(
        id="support", title="Support", start="check_user",
        variables=[Variable(name="user_id"), Variable(name="age", type="integer")],
        tools=[Tool(name="lookup", description="Find a user",
                    parameters={"type": "object", "properties": {"id": {"type": "string"}},
                                "required": ["id"]})],
        knowledge=[Knowledge(question="Hours?", answer="9-5")],
        nodes=[Node(id="check_user", title="A", tools=["lookup"], position=(0, 0)),
               Node(id="n2", title="Two", position=(100, 0)),
               Node(id="end", kind="end", position=(200, 0))],
        edges=[Edge(id="e1", source="check_user", target="n2", when="age > 18"),
               Edge(id="e2", source="n2", target="end")])


def changed() -> SOP:
    sop = base().model_copy(deep=True)
    sop.description = "new description"
    sop.node("check_user").title = "B"
    sop.node("check_user").position = (30, 40)
    sop.nodes = [n for n in sop.nodes if n.id != "n2"] + [Node(id="n3", title="Three")]
    sop.edges = [Edge(id="e1", source="check_user", target="n3", when="age >= 21"),
                 Edge(id="e3", source="n3", target="end", on="failure")]
    sop.tools[0].parameters["properties"]["id"]["type"] = "integer"
    sop.variables = [Variable(name="user_id", description="who"), Variable(name="email")]
    sop.knowledge = [Knowledge(question="Hours?", answer="24/7")]
    return sop


def test_identical_documents_have_an_empty_diff():
    diff = diff_sops(base(), base())
    assert diff.is_empty and diff.to_text() == "no changes"
    assert diff.to_dict() == {"sop": [], "items": []}


def test_diff_as_data():
    diff = diff_sops(base(), changed())
    assert [(c.field, c.old, c.new) for c in diff.sop] == [("description", "", "new description")]
    node = {i.key: i for i in diff.of("node")}
    assert node["n2"].status == "removed" and node["n2"].old["title"] == "Two"
    assert node["n3"].status == "added" and node["n3"].new["title"] == "Three"
    fields = {c.field: (c.old, c.new) for c in node["check_user"].changes}
    assert fields == {"title": ("A", "B"), "position": ([0.0, 0.0], [30.0, 40.0])}
    edge = {i.key: i for i in diff.of("edge")}
    assert {c.field: (c.old, c.new) for c in edge["e1"].changes} == {
        "target": ("n2", "n3"), "when": ("age > 18", "age >= 21")}
    assert edge["e2"].status == "removed" and edge["e3"].status == "added"
    tool = diff.of("tool", "changed")[0]
    assert [(c.field, c.old, c.new) for c in tool.changes] == [
        ("parameters.properties.id.type", "string", "integer")]
    variables = {i.key: i.status for i in diff.of("variable")}
    assert variables == {"user_id": "changed", "age": "removed", "email": "added"}
    knowledge = diff.of("knowledge")[0]
    assert knowledge.key == "Hours?" and knowledge.changes[0].new == "24/7"
    assert json.loads(json.dumps(diff.to_dict()))["items"][0]["kind"] == "node"


def test_diff_as_text():
    text = diff_sops(base(), changed()).to_text()
    lines = text.splitlines()
    assert "~ sop: description '' -> 'new description'" in lines
    assert "~ node check_user: title 'A' -> 'B'" in lines
    assert "- node n2 'Two'" in lines and "+ node n3 'Three'" in lines
    assert "~ edge e1: when 'age > 18' -> 'age >= 21'" in lines
    assert "+ edge e3: n3 -> end on failure" in lines
    assert "- edge e2: n2 -> end" in lines
    assert "~ tool lookup: parameters.properties.id.type 'string' -> 'integer'" in lines
    assert "- variable age (integer)" in lines
    assert "~ moved 1 node: check_user (0, 0) -> (30, 40)" in lines


def test_moves_are_compact_and_order_is_one_change():
    old = base()
    new = old.model_copy(deep=True)
    for i, node in enumerate(new.nodes):
        node.position = (i * 7.5, 1)
    new.nodes = list(reversed(new.nodes))
    diff = diff_sops(old, new)
    assert [c.field for c in diff.sop] == ["order.nodes"]
    assert diff.sop[0].new == ["end", "n2", "check_user"]
    text = diff.to_text()
    assert "~ sop: order of nodes changed" in text
    assert "~ moved 3 nodes: " in text and "(7.5, 1)" in text
    assert len(text.splitlines()) == 2


def test_type_sensitive_values_and_long_values_truncated():
    assert diff_values({"a": 1}, {"a": True})[0].new is True
    assert diff_values({"a": 1}, {"a": 1.0})
    assert not diff_values({"a": {"b": [1, 2]}}, {"a": {"b": [1, 2]}})
    sop = base()
    long = sop.model_copy(deep=True)
    long.node("n2").instructions = "x" * 500
    line = diff_sops(sop, long).to_text(width=40)
    assert len(line) < 120 and line.endswith("…")


def test_diff_between_stored_versions(tmp_path):
    with open_store(tmp_path / "s.sqlite") as store:
        store.history.record(base(), tag="v1")
        store.history.record(changed())
        diff = diff_sops(store.history.load("support", "v1"), store.history.load("support", "@0"))
    assert diff.to_dict() == diff_sops(base(), changed()).to_dict()
