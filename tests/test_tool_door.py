"""One door for every agent (issue 17, item 2): only the current node's tools execute.

A static agent (SPA) may propose any tool; the orchestrator executes neither a mocked nor a live
call outside the node the SOP is at, records the attempt (tool_call event with code
`tool-not-in-node`, the run's tool trace) and the audit still counts it as a violation.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_llm_server import FakeLLMServer, tool
from llm_support import RESPONSES, refund_sop, settings as llm_settings
from sopstudio.engine.agents.base import Action
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.audit import audit_trace
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser


class _Counter(BaseHTTPRequestHandler):
    hits: list = []

    def do_GET(self):
        type(self).hits.append(self.path)
        body = json.dumps({"refund_id": "LIVE"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class ScriptedStatic:
    """A static agent that proposes the given tool calls, then finishes at `done`."""

    name, static, checks = "static-script", True, []

    def __init__(self, calls):
        self.calls = list(calls)

    def next_action(self, ctx):
        if self.calls:
            name = self.calls.pop(0)
            return Action("call", tool=name, arguments={"order_id": "ORD-123", "amount": 1})
        return Action("finish", end_node="done")


def _live_refund_sop(url: str):
    sop = refund_sop()
    refund = sop.tool("issue_refund")
    refund.live, refund.url, refund.method = True, url + "/refund", "GET"
    refund.allow_private = True  # the test server is on 127.0.0.1
    return sop


def test_spa_never_makes_a_live_call_outside_the_node():
    _Counter.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cs = CompiledSop(_live_refund_sop(f"http://127.0.0.1:{server.server_port}"))
        always = [tool("issue_refund", {"order_id": "ORD-999", "amount": 400})] * 20
        with FakeLLMServer(always) as llm:
            agent = SpaAgent(cs, client=LLMClient(llm_settings(llm)))
            tools = MockTools(cs.tools, RESPONSES, allow_live=True)
            trace = Orchestrator(cs, agent, ScriptedUser({"order_id": "ORD-123"}), tools).run()
    finally:
        server.shutdown()
        server.server_close()
    assert _Counter.hits == [] and tools.calls == {}
    refused = [e for e in trace.events if e.type == "tool_call"]
    assert refused and all(e.code == "tool-not-in-node" for e in refused)
    assert all(e.result == {"error": "tool-not-in-node"}
               for e in trace.events if e.type == "tool_result")
    assert trace.outcome == "technical-issue"  # the static call cap still ends the run
    assert {v["code"] for v in audit_trace(cs, trace)} == {"tool-not-in-node"}


def test_the_same_live_tool_runs_when_the_sop_is_at_its_node():
    _Counter.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cs = CompiledSop(_live_refund_sop(f"http://127.0.0.1:{server.server_port}"))
        tools = MockTools(cs.tools, RESPONSES, allow_live=True)
        user = ScriptedUser({"order_id": "ORD-123"})
        agent = ScriptedStatic(["lookup_order", "issue_refund"])
        trace = Orchestrator(cs, agent, user, tools).run()
    finally:
        server.shutdown()
        server.server_close()
    assert len(_Counter.hits) == 1 and tools.calls == {"lookup_order": 1, "issue_refund": 1}
    assert "tool-not-in-node" not in {v["code"] for v in audit_trace(cs, trace)}


def test_a_node_confined_agent_is_refused_even_without_guardrails():
    cs = CompiledSop(refund_sop())
    tools = MockTools(cs.tools, RESPONSES)
    orchestrator = Orchestrator(cs, ScriptedStatic([]), ScriptedUser({}), tools, checks=[])
    orchestrator.static = False  # as a node-confined agent whose checks are switched off
    orchestrator.step()
    orchestrator._do_call(Action("call", tool="issue_refund", arguments={}))
    assert tools.calls == {}
    assert orchestrator.trace.events[-1].result == {"error": "tool-not-in-node"}


@settings(max_examples=40, deadline=None)
@given(calls=st.lists(st.sampled_from(["lookup_order", "issue_refund", "nope"]), max_size=12))
def test_executed_calls_are_exactly_the_ones_the_audit_admits(calls):
    cs = CompiledSop(refund_sop())
    tools = MockTools(cs.tools, RESPONSES)
    trace = Orchestrator(cs, ScriptedStatic(calls), ScriptedUser({"order_id": "ORD-123"}),
                         tools).run()
    made = [e for e in trace.events if e.type == "tool_call"]
    refused = [e.index for e in made if e.code == "tool-not-in-node"]
    flagged = [v["index"] for v in audit_trace(cs, trace) if v["code"] == "tool-not-in-node"]
    assert refused == flagged
    assert sum(tools.calls.values()) == len(made) - len(refused)
    assert [c["tool"] for c in trace.tool_trace] == [e.tool for e in made]
