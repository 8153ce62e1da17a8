"""The shared tool library: add, update, list, search, import spec files, bind, drift."""

from __future__ import annotations

import json

import pytest

from sopstudio.core.errors import EditError
from sopstudio.core.model import SOP, Node, Tool
from sopstudio.formats import FormatError
from sopstudio.formats.toolspecs import parse_tool_specs
from sopstudio.store import StoreError, bind_tool, open_store

SCHEMA = {"type": "object", "properties": {"account_id": {"type": "string", "pattern": "^A\\d+$"}},
          "required": ["account_id"], "additionalProperties": False}
BEDROCK = [{"toolSpec": {"name": "getAccount", "description": "Look up a customer account",
                         "inputSchema": {"json": SCHEMA}}},
           {"toolSpec": {"name": "closeTicket", "description": "Close a support ticket",
                         "inputSchema": {"json": {"type": "object", "properties": {}}}}}]
OPENAI = [{"type": "function", "function": {"name": "refund", "description": "Refund an order",
                                            "parameters": {"type": "object", "properties": {
                                                "order": {"type": "integer"}}}}},
          {"type": "function", "name": "flat", "description": "Responses API form",
           "parameters": SCHEMA}]


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "tools.sqlite") as opened:
        yield opened


def test_add_get_update_remove(store):
    tool = Tool(name="lookup", description="Find a user", parameters=SCHEMA, method="POST")
    store.library.add(tool)
    assert store.library.get("lookup") == tool
    with pytest.raises(StoreError, match="already exists"):
        store.library.add(tool)
    store.library.update(tool.model_copy(update={"description": "Find a customer"}))
    assert store.library.get("lookup").description == "Find a customer"
    with pytest.raises(StoreError, match="no tool"):
        store.library.update(Tool(name="ghost"))
    store.library.remove("lookup")
    assert store.library.list() == []
    with pytest.raises(StoreError):
        store.library.get("lookup")


def test_list_and_search(store):
    for name, description in (("send_email", "Email the customer"),
                              ("lookup_order", "Find an order by id"),
                              ("refund", "Refund a customer order")):
        store.library.add(Tool(name=name, description=description))
    assert [t.name for t in store.library.list()] == ["lookup_order", "refund", "send_email"]
    assert [t.name for t in store.library.search("ORDER")] == ["lookup_order", "refund"]
    assert [t.name for t in store.library.search("customer order")] == ["refund"]
    assert [t.name for t in store.library.search("email")] == ["send_email"]
    assert store.library.search("nothing-like-this") == []


def test_parse_both_spec_forms_keeps_schema_verbatim():
    tools, notes = parse_tool_specs(BEDROCK + OPENAI)
    assert [t.name for t in tools] == ["getAccount", "closeTicket", "refund", "flat"]
    assert tools[0].parameters == SCHEMA and tools[3].parameters == SCHEMA and notes == []
    assert tools[2].parameters["properties"]["order"] == {"type": "integer"}
    assert parse_tool_specs({"tools": BEDROCK})[0][1].description == "Close a support ticket"
    own = Tool(name="own", method="POST", url="http://127.0.0.1:9/x", errors=["e"])
    assert parse_tool_specs([own.model_dump(mode="json")])[0] == [own]  # every field kept
    for bad in ([{"nothing": 1}], [3], "text", [], [{"toolSpec": {"description": "no name"}}],
                [{"toolSpec": {"name": "x", "inputSchema": {"json": [1]}}}]):
        with pytest.raises(FormatError):
            parse_tool_specs(bad)


def test_library_import_keeps_sop_bench_required_and_reads_tool_config(store, tmp_path):
    # SOP-Bench puts `required` beside `json`; Bedrock wraps the list in `toolConfig`.
    spec = {"toolSpec": {"name": "getPatientId", "description": "Find a patient",
                         "inputSchema": {"json": {"type": "object", "properties": {
                             "patient_name": {"type": "string"}}},
                             "required": ["patient_name"]}}}
    path = tmp_path / "bedrock.json"
    path.write_text(json.dumps({"toolConfig": {"tools": [spec, BEDROCK[1]]}}))
    assert [t.name for t in store.library.import_file(path)] == ["getPatientId", "closeTicket"]
    assert store.library.get("getPatientId").required_parameters() == ["patient_name"]
    assert store.library.get("getPatientId").parameters["properties"] == {
        "patient_name": {"type": "string"}}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"toolSpec": {"description": "no name"}}]))
    with pytest.raises(StoreError, match="bad.json: item 0"):
        store.library.import_file(bad)


def test_import_files(store, tmp_path):
    bedrock, openai = tmp_path / "toolspecs.json", tmp_path / "openai.json"
    bedrock.write_text(json.dumps(BEDROCK))
    openai.write_text(json.dumps(OPENAI))
    store.library.import_file(bedrock)
    store.library.import_file(openai)
    assert [t.name for t in store.library.list()] == ["closeTicket", "flat", "getAccount", "refund"]
    assert store.library.get("getAccount").parameters == SCHEMA
    changed = [dict(BEDROCK[0], toolSpec=dict(BEDROCK[0]["toolSpec"], description="v2"))]
    bedrock.write_text(json.dumps(changed))
    with pytest.raises(StoreError, match="already exists"):
        store.library.import_file(bedrock, replace=False)
    assert store.library.get("getAccount").description == "Look up a customer account"
    store.library.import_file(bedrock)
    assert store.library.get("getAccount").description == "v2"
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    with pytest.raises(StoreError, match="not valid JSON"):
        store.library.import_file(broken)
    with pytest.raises(StoreError, match="cannot read"):
        store.library.import_file(tmp_path / "missing.json")


def test_bind_copies_the_tool_into_the_sop(store):
    store.library.add(Tool(name="lookup", description="v1", parameters=SCHEMA))
    sop = SOP(id="s", nodes=[Node(id="a")])
    bound = store.library.bind(sop, "lookup", node_id="a")
    assert sop.tools == [] and sop.node("a").tools == []  # the input is untouched
    assert bound.tool("lookup") == store.library.get("lookup")
    assert bound.node("a").tools == ["lookup"]
    rebound = bind_tool(bound, Tool(name="lookup", description="v2"), node_id="a")
    assert len(rebound.tools) == 1 and rebound.tool("lookup").description == "v2"
    assert rebound.node("a").tools == ["lookup"]
    with pytest.raises(EditError):
        store.library.bind(sop, "lookup", node_id="missing")
    with pytest.raises(StoreError):
        store.library.bind(sop, "unknown")


def test_drift_reports_latest_versions_that_differ(store):
    store.library.add(Tool(name="lookup", description="v1", parameters=SCHEMA))
    store.library.add(Tool(name="other", description="unused"))
    base = SOP(id="a", nodes=[Node(id="n")])
    in_sync = store.library.bind(base, "lookup")
    store.history.record(in_sync)
    stale = store.library.bind(base.model_copy(update={"id": "b"}), "lookup")
    store.history.record(stale)
    local = SOP(id="c", tools=[Tool(name="local_only")])
    store.history.record(local)
    assert store.library.drift() == []
    store.library.update(Tool(name="lookup", description="v2", parameters=SCHEMA))
    store.history.record(store.library.bind(in_sync, "lookup"))  # 'a' picks up the new library copy
    drift = store.library.drift()
    assert [(d.sop_id, d.tool) for d in drift] == [("b", "lookup")]
    assert [(c.field, c.old, c.new) for c in drift[0].changes] == [("description", "v1", "v2")]
    assert drift[0].version == store.history.head("b").hash
    assert store.library.drift("a") == [] and store.library.drift("b") == drift
    assert store.library.drift("no-such-sop") == []
    store.runs.save(sop_id="runs-only", agent="scripted")  # an SOP row without any version
    assert store.library.drift() == drift
    assert drift[0].to_dict()["changes"][0]["new"] == "v2"
