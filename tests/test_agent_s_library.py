"""Agent-S's Global Action Repository is the store's tool library in every front end: the CLI's
`simulate` (here) and `bench`, the GUI's dock and batch dialog (tests/qt/test_sim_subflows.py).
A library tool the SOP does not have is offered to the model; called, the door refuses it."""

from __future__ import annotations

import json
from pathlib import Path

from fake_llm_server import FakeLLMServer, reply, tool
from helpers import cli
from sopstudio.core.model import Tool
from sopstudio.engine.session import agent_extras
from sopstudio.store.store import open_store

PARENT = str(Path(__file__).resolve().parent / "fixtures" / "subflows" / "refund.sop.json")
LIBRARY_TOOL = Tool(name="lookup_order_history", description="look up the order history")


def library_db(folder: Path) -> Path:
    db = folder / "store.db"
    with open_store(db) as store:
        store.library.add(LIBRARY_TOOL)
    return db


def offered(server: FakeLLMServer) -> set[str]:
    return {t["function"]["name"] for r in server.requests for t in r.get("tools", [])}


def calling(name: str):
    """A model answering Agent-S's state calls plainly and every action call with `name`."""
    def answer(body: dict) -> dict:
        if (body.get("tool_choice") or {}).get("function", {}).get("name") == "update_state":
            return tool("update_state", {"complete": False})
        return tool(name, {"order_id": "ORD-1"})
    return answer


def simulate(capsys, server, db, *more):
    return cli(capsys, "simulate", PARENT, "--agent", "agent-s", "--model", "m",
               "--base-url", server.url, "--db", db, *more)


def test_simulate_offers_a_library_tool_that_the_sop_does_not_have(capsys, monkeypatch,
                                                                    tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = library_db(tmp_path)
    with FakeLLMServer(handler=lambda body: reply("Hello.")) as server:
        # unguided, every retrieved tool is offered (guided, only the moves legal now)
        code, _, err = simulate(capsys, server, db, "--guidance", "off", "--json")
    assert code == 0, err
    assert "lookup_order_history" in offered(server)


def test_a_called_library_tool_is_refused_by_the_door_never_executed(capsys, monkeypatch,
                                                                      tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = library_db(tmp_path)
    with FakeLLMServer(handler=calling("lookup_order_history")) as server:
        code, out, err = simulate(capsys, server, db, "--json")
    assert code == 0, err
    events = json.loads(out)["events"]
    refused = [e for e in events if e["type"] == "guardrail"]
    assert refused and all(e["code"] == "tool-not-in-node" for e in refused)
    assert not [e for e in events if e["type"] in ("tool_call", "tool_result")
                and e.get("tool") == "lookup_order_history"]
    assert json.loads(out)["outcome"] == "technical-issue"


def test_without_a_store_the_repository_is_the_sops_own_tools(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(handler=lambda body: reply("Hello.")) as server:
        code, _, err = cli(capsys, "simulate", PARENT, "--agent", "agent-s", "--model", "m",
                           "--base-url", server.url, "--no-store")
    assert code == 0, err
    assert "lookup_order_history" not in offered(server)
    assert offered(server) & {"refund_order", "check_customer", "ask_user"}


def test_only_agent_s_reads_the_library():
    reads = []

    def library():
        reads.append(1)
        return [LIBRARY_TOOL]
    assert agent_extras("dpa", library) == {} and not reads
    assert agent_extras("agent-s", library) == {"repository": [LIBRARY_TOOL]}
    assert agent_extras("agent-s", list) == {} == agent_extras("agent-s", None)
