"""Agent-S: a state-tracking call then an action call per decision, over the action repository
with top-k retrieval; request shapes and containment against the fake model server."""

from __future__ import annotations

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import ASK, FINISH, LOOKUP, REFUND, run
from sopstudio.engine.agents.agent_s import AgentSAgent


def scripted(actions: list[dict], state: dict):
    """A model answering state calls with `state` and action calls from `actions` in order."""
    queue = list(actions)

    def answer(body: dict) -> dict:
        if (body.get("tool_choice") or {}).get("function", {}).get("name") == "update_state":
            return tool("update_state", state)
        return queue.pop(0) if queue else FINISH
    return answer


def names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def test_state_call_then_action_call_and_tracked_values_reach_finish():
    actions = [ASK, LOOKUP, FINISH, REFUND, reply("Refund R-9 is on its way."), FINISH, FINISH]
    state = {"values": {"order_id": "ORD-123"}, "complete": False}
    with FakeLLMServer(handler=scripted(actions, state)) as server:
        trace, tools, agent = run(AgentSAgent, server)
    assert trace.outcome == "resolved" and trace.path == ["verify", "refund", "done"]
    assert tools.calls == {"lookup_order": 1, "issue_refund": 1}
    state_request, action_request = server.requests[0], server.requests[1]
    assert names(state_request) == ["update_state"]
    assert state_request["tool_choice"]["function"]["name"] == "update_state"
    assert "Tracked state" in action_request["messages"][0]["content"]
    # retrieval by description: both order tools share words with the step
    assert {"lookup_order", "issue_refund"} <= set(names(action_request))
    assert agent.state == state


def test_a_retrieved_tool_of_another_node_is_refused_never_executed():
    state = {"complete": False}
    with FakeLLMServer(handler=scripted([REFUND] * 6, state)) as server:
        trace, tools, _ = run(AgentSAgent, server)
    assert tools.calls.get("issue_refund", 0) == 0
    assert "tool-not-in-node" in [e.code for e in trace.events if e.type == "guardrail"]
    assert trace.outcome == "technical-issue"


def test_guided_action_calls_offer_the_legal_moves_and_name_the_only_one():
    """`--guidance auto` applies to Agent-S's action call as to the DPA's: at the first step the
    only legal move is to ask for the order id, so ask_user alone is offered and named (a small
    model otherwise answers with text and nothing moves)."""
    actions = [ASK, LOOKUP, FINISH, REFUND, reply("Refund R-9 is on its way."), FINISH, FINISH]
    with FakeLLMServer(handler=scripted(actions, {"complete": False})) as server:
        trace, _, agent = run(AgentSAgent, server, guidance="auto")
    assert agent.guidance == "auto" and trace.outcome == "resolved"
    first_action = server.requests[1]
    assert names(first_action) == ["ask_user"]
    assert first_action["tool_choice"]["function"]["name"] == "ask_user"
    state_calls = [r for r in server.requests
                   if (r.get("tool_choice") or {}).get("function", {}).get("name")
                   == "update_state"]
    assert len(state_calls) * 2 == len(server.requests)  # one state call per action call
