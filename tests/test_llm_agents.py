"""DPA and SPA driven through the real `openai` client against a local fake model server."""

from __future__ import annotations

import json
import socket
from types import SimpleNamespace

import pytest

from fake_llm_server import FakeLLMServer, garbage, reply, slow, status, tool
from llm_support import RESPONSES, run, settings
from sopstudio.engine.agents.dpa import DpaAgent
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.formats import export_sop
from sopstudio.engine.audit import audit_trace
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient, ModelUnreachable
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser
from llm_support import refund_sop

from llm_support import ASK, GOOD, LOOKUP, REFUND


def names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def guardrail_codes(trace) -> list[str]:
    return [e.code for e in trace.events if e.type == "guardrail"]


def test_well_behaved_model_completes_the_journey():
    with FakeLLMServer(list(GOOD)) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert trace.outcome == "resolved" and trace.end_node == "done"
    assert trace.path == ["verify", "refund", "done"]
    assert trace.tool_trace == [{"tool": "lookup_order", "arguments": {"order_id": "ORD-123"}},
                                {"tool": "issue_refund",
                                 "arguments": {"order_id": "ORD-123", "amount": 42.5}}]
    assert guardrail_codes(trace) == [] and tools.calls == {"lookup_order": 1, "issue_refund": 1}
    # the prompt holds only the current node: its tools, its instructions
    control = ["ask_user", "finish_step", "stop_conversation"]
    assert names(server.requests[0]) == ["lookup_order", *control]
    assert names(server.requests[3]) == ["issue_refund", *control]
    assert names(server.requests[6]) == control
    first = server.requests[0]["messages"][0]["content"]
    assert "Verify the order" in first and "Refund the full order total" not in first
    later = server.requests[3]["messages"]
    assert "Refund the full order total" in later[0]["content"]
    assert "42.5" in later[0]["content"]  # known variables are shown
    assert {"role": "user", "content": "It's ORD-123."} in later  # the user speaks plainly


def test_tool_outside_the_node_is_reflected_and_never_executed():
    with FakeLLMServer([ASK, REFUND, *GOOD[1:]]) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert guardrail_codes(trace) == ["tool-not-in-node"]
    assert trace.outcome == "resolved"
    assert [t["tool"] for t in trace.tool_trace] == ["lookup_order", "issue_refund"]
    reflection = server.requests[2]["messages"][-1]
    assert reflection["role"] == "user" and "[GUARDRAILS]" in reflection["content"]
    assert "issue_refund" in reflection["content"]


def test_three_forbidden_calls_end_with_a_technical_issue():
    with FakeLLMServer([ASK, REFUND, REFUND, REFUND, LOOKUP]) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert guardrail_codes(trace) == ["tool-not-in-node"] * 3
    assert trace.outcome == "technical-issue" and tools.calls == {}
    assert trace.events[-2].type == "say" and trace.events[-2].text == GRACE_MESSAGE
    assert len(server.requests) == 4  # no call after the third rejection


def test_undeclared_parameters_are_dropped_before_execution():
    extra = tool("lookup_order", {"order_id": "ORD-123", "marketplace": "US"})
    with FakeLLMServer([ASK, extra, *GOOD[2:]]) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert trace.outcome == "resolved" and guardrail_codes(trace) == []
    assert trace.tool_trace[0] == {"tool": "lookup_order", "arguments": {"order_id": "ORD-123"}}
    call_event = next(e for e in trace.events if e.type == "tool_call")
    assert call_event.action["raw"]["dropped_parameters"] == ["marketplace"]


def test_invented_argument_is_rejected_then_corrected():
    invented = tool("lookup_order", {"order_id": "ORD-999"})
    with FakeLLMServer([ASK, invented, *GOOD[1:]]) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert guardrail_codes(trace) == ["ungrounded-argument"]
    assert trace.outcome == "resolved"
    assert {"tool": "lookup_order", "arguments": {"order_id": "ORD-999"}} not in trace.tool_trace
    assert "ORD-999" in server.requests[2]["messages"][-1]["content"]


def test_schema_breaking_argument_is_never_executed():
    bad = tool("lookup_order", {"order_id": "12345"})
    with FakeLLMServer([ASK, bad, bad, bad]) as server:
        trace, tools, _ = run(DpaAgent, server, seed={"order_id": "12345"})
    assert guardrail_codes(trace) == ["schema-violation"] * 3
    assert trace.outcome == "technical-issue" and tools.calls == {}
    assert "pattern" in server.requests[2]["messages"][-1]["content"]


def test_malformed_json_and_garbage_bodies_are_retried():
    broken = tool("lookup_order", '{"order_id": "ORD-123"')
    with FakeLLMServer([ASK, broken, garbage(), *GOOD[1:]]) as server:
        trace, tools, _ = run(DpaAgent, server)
    assert guardrail_codes(trace) == ["malformed-output", "malformed-output"]
    assert trace.outcome == "resolved" and tools.calls == {"lookup_order": 1, "issue_refund": 1}
    assert "not valid JSON" in server.requests[2]["messages"][-1]["content"]


def test_timeouts_and_server_errors_end_gracefully():
    with FakeLLMServer([ASK, slow(2.0), status(500), slow(2.0)]) as server:
        trace, tools, _ = run(DpaAgent, server, timeout=0.3)
    assert guardrail_codes(trace) == ["timeout", "http-500", "timeout"]
    assert trace.outcome == "technical-issue" and tools.calls == {}


def test_spa_sees_every_tool_and_its_violations_are_measured_not_executed():
    early = tool("issue_refund", {"order_id": "ORD-123", "amount": 99})
    steps = [ASK, early, reply("Refund done."), tool("finish_conversation",
                                                      {"end_section": "done"})]
    with FakeLLMServer(steps) as server:
        trace, tools, _ = run(SpaAgent, server)
    assert tools.calls == {}  # the single door: a tool outside the node never executes
    assert trace.tool_trace == [{"tool": "issue_refund",
                                 "arguments": {"order_id": "ORD-123", "amount": 99}}]
    assert guardrail_codes(trace) == [] and trace.outcome == "resolved"
    assert names(server.requests[0])[:2] == ["lookup_order", "issue_refund"]
    prompt = server.requests[0]["messages"][0]["content"]
    exported = export_sop(refund_sop(), "spa-prompt").rstrip("\n")
    assert prompt == exported.replace("{known_information}", "(nothing yet)")
    assert "Section: Refund [refund]" in prompt and "If status == 'lost'" in prompt
    assert "finish_conversation" in prompt
    found = audit_trace(CompiledSop(refund_sop()), trace)
    assert [v["code"] for v in found] == ["tool-not-in-node"]
    assert found[0]["node"] == "verify" and found[0]["tool"] == "issue_refund"


def test_audit_of_a_compliant_run_is_clean_and_catches_invented_values():
    with FakeLLMServer(list(GOOD)) as server:
        trace, _, _ = run(DpaAgent, server)
    cs = CompiledSop(refund_sop())
    assert audit_trace(cs, trace) == []
    trace.events[3].arguments = {"order_id": "ORD-777"}
    assert [v["code"] for v in audit_trace(cs, trace)] == ["ungrounded-argument"]


def test_no_api_key_in_any_trace():
    with FakeLLMServer([ASK, tool("lookup_order", "{bad"), *GOOD[1:]]) as server:
        trace, _, agent = run(DpaAgent, server, api_key="sk-VERY-SECRET-123")
    assert server.headers[0]["authorization"] == "Bearer sk-VERY-SECRET-123"
    dumped = json.dumps(trace.to_dict()) + json.dumps(agent.client.log)
    assert "sk-VERY-SECRET-123" not in dumped


def test_an_unreachable_model_ends_the_run_instead_of_a_guardrail_retry():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = SimpleNamespace(url=f"http://127.0.0.1:{probe.getsockname()[1]}/v1")
    for agent_class in (DpaAgent, SpaAgent):
        cs = CompiledSop(refund_sop())
        agent = agent_class(cs, client=LLMClient(settings(dead)))
        tools = MockTools(cs.tools, RESPONSES)
        orchestrator = Orchestrator(cs, agent, ScriptedUser({"order_id": "ORD-123"}), tools,
                                    checks=agent.checks)
        with pytest.raises(ModelUnreachable, match="cannot reach the model at"):
            orchestrator.run()
        assert guardrail_codes(orchestrator.trace) == [] and orchestrator.trace.outcome is None
        assert tools.calls == {}
