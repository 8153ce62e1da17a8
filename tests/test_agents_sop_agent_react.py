"""SOP-Agent (the model picks the branch by a function call) and SOP-Bench's ReAct baseline
(text protocol), driven through the real `openai` client against the fake model server: request
shapes, both branch verdicts reported, and containment (foreign tools never execute)."""

from __future__ import annotations

import json

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import ASK, FINISH, LOOKUP, REFUND, run
from sopstudio.engine.agents import AGENT_KINDS
from sopstudio.engine.agents.react import ReactAgent
from sopstudio.engine.agents.sop_agent import SopAgent


def branch(edge: str) -> dict:
    return tool("choose_branch", {"branch": edge})


def notes(trace) -> list:
    return [e for e in trace.events if e.type == "note" and e.code]


def test_both_agents_are_selectable():
    assert {"sop-agent", "react"} <= set(AGENT_KINDS)


def test_sop_agent_follows_its_branch_choice_and_reports_the_conditions_agreeing():
    steps = [ASK, LOOKUP, FINISH, branch("e1"), REFUND, reply("Refund R-9 is on its way."),
             FINISH, FINISH]
    with FakeLLMServer(steps) as server:
        trace, tools, _ = run(SopAgent, server)
    assert trace.outcome == "resolved" and trace.path == ["verify", "refund", "done"]
    assert [(e.code, e.edge) for e in notes(trace)] == [("branch-agree", "e1")]
    assert trace.meta["branch_choices"] == trace.meta["branch_agreements"] == 1
    request = server.requests[3]
    assert request["tool_choice"]["function"]["name"] == "choose_branch"
    enum = request["tools"][0]["function"]["parameters"]["properties"]["branch"]["enum"]
    assert enum == ["e1", "e2"] and len(request["tools"]) == 1
    assert "status == 'lost'" in request["messages"][0]["content"]


def test_sop_agent_disagreeing_with_the_conditions_is_followed_and_counted():
    with FakeLLMServer([ASK, LOOKUP, FINISH, branch("e2"), reply("Sorry."), FINISH]) as server:
        trace, _, _ = run(SopAgent, server)
    assert trace.path == ["verify", "reject"] and trace.outcome == "rejected"
    [note] = notes(trace)
    assert note.code == "branch-disagree"
    # read as steps, with the edge ids kept: "the agent chose → <title> (e2); the conditions
    # choose → <title> (e1)"
    assert "the agent chose → " in note.text and "(e2)" in note.text
    assert "the conditions choose → " in note.text and "(e1)" in note.text
    assert trace.meta["branch_agreements"] == 0


def test_sop_agent_naming_a_foreign_tool_executes_nothing_outside_the_node():
    with FakeLLMServer(handler=lambda body: REFUND) as server:
        trace, tools, _ = run(SopAgent, server)
    assert tools.calls.get("issue_refund", 0) == 0 and trace.outcome == "technical-issue"


def react(text: str) -> dict:
    return reply(text)


def act(name: str, arguments: dict) -> dict:
    return reply(f"Thought: follow the procedure.\nAction: {name}\n"
                 f"Action Input: {json.dumps(arguments)}")


def test_react_runs_the_text_protocol_with_the_whole_sop_in_the_prompt():
    steps = [act("ask_user", {"question": "Your order id?", "variables": ["order_id"]}),
             act("lookup_order", {"order_id": "ORD-123"}),
             act("issue_refund", {"order_id": "ORD-123", "amount": 42.5}),
             react("Final Answer: your refund R-9 is on its way."),
             act("finish", {"end_section": "done"})]
    with FakeLLMServer(steps) as server:
        trace, tools, _ = run(ReactAgent, server)
    assert trace.outcome == "resolved" and trace.end_node == "done"
    assert tools.calls == {"lookup_order": 1, "issue_refund": 1}
    first = server.requests[0]
    assert "tools" not in first  # a text protocol: no function calling
    system = first["messages"][0]["content"]
    assert "Refund the full order total" in system and "Action Input:" in system
    observed = server.requests[2]["messages"]
    assert any(m["role"] == "user" and m["content"].startswith("Observation: ")
               for m in observed)
    assert any(m["role"] == "assistant" and "Action: lookup_order" in m["content"]
               for m in observed)


def test_react_naming_a_foreign_tool_executes_nothing_outside_the_node():
    with FakeLLMServer(handler=lambda body: act("issue_refund", {"order_id": "ORD-1",
                                                                 "amount": 1})) as server:
        trace, tools, _ = run(ReactAgent, server)
    assert tools.calls.get("issue_refund", 0) == 0
    results = [e for e in trace.events if e.type == "tool_result"]
    assert results and all(e.code == "tool-not-in-node" for e in results)
    assert trace.outcome == "technical-issue"


def test_react_malformed_action_input_is_a_reflection():
    steps = [reply("Action: lookup_order\nAction Input: {not json"),
             act("ask_user", {"question": "Your order id?", "variables": ["order_id"]}),
             act("stop", {"reason": "blocked", "message": "bye"})]
    with FakeLLMServer(steps) as server:
        trace, _, _ = run(ReactAgent, server)
    assert [e.code for e in trace.events if e.type == "guardrail"] == ["malformed-output"]
    assert "[GUARDRAILS]" in server.requests[1]["messages"][-1]["content"]
    assert trace.outcome == "blocked"


def test_react_prompt_export_is_the_prompt_the_agent_sends():
    from llm_support import refund_sop
    from sopstudio.engine.prompts import react_prompt
    from sopstudio.formats import export_sop
    assert export_sop(refund_sop(), "react-prompt") == react_prompt(refund_sop()) + "\n"
