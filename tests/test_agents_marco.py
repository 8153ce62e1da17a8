"""MARCO: the intent classifier routes the first customer message to a sub-procedure; the DPA
with guardrails runs it; out-of-domain ends politely; foreign tools never execute."""

from __future__ import annotations

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import settings
from sopstudio.core.model import SOP, Edge, Node, Tool
from sopstudio.engine.agents.marco import MarcoAgent, entry_points
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

FINISH = tool("finish_step", {})


def triage_sop() -> SOP:
    tools = [Tool(name="reset_modem", description="Reset the modem."),
             Tool(name="refund_bill", description="Refund a bill.")]
    return SOP(id="care", title="Customer care", start="triage", tools=tools, nodes=[
        Node(id="triage", title="Triage"),
        Node(id="billing", title="Billing questions", tools=["refund_bill"]),
        Node(id="tech", title="Technical support", tools=["reset_modem"]),
        Node(id="done", kind="end", outcome="resolved")], edges=[
        Edge(id="to_billing", source="triage", target="billing", when="topic == 'billing'"),
        Edge(id="to_tech", source="triage", target="tech", when="else"),
        Edge(id="b_done", source="billing", target="done"),
        Edge(id="t_done", source="tech", target="done")])


class Opening(ScriptedUser):
    def opening(self, sop):
        from sopstudio.engine.users import UserTurn
        return UserTurn("My internet is down.")


def run_marco(server):
    cs = CompiledSop(triage_sop())
    agent = MarcoAgent(cs, client=LLMClient(settings(server)), guidance="off")
    tools = MockTools(cs.tools, {})
    trace = Orchestrator(cs, agent, Opening({}), tools, checks=agent.checks).run()
    return trace, tools


def answering(intent: str, actions: list[dict]):
    queue = list(actions)

    def answer(body: dict) -> dict:
        if (body.get("tool_choice") or {}).get("function", {}).get("name") == "classify_intent":
            return tool("classify_intent", {"intent": intent})
        return queue.pop(0) if queue else FINISH
    return answer


def test_entry_points_of_a_branching_sop():
    assert [e for e, _, _ in entry_points(triage_sop())] == ["billing", "tech"]


def test_intent_routes_to_the_sub_procedure():
    actions = [FINISH, tool("reset_modem", {}), reply("Your modem is reset."), FINISH, FINISH]
    with FakeLLMServer(handler=answering("tech", actions)) as server:
        trace, tools = run_marco(server)
    assert trace.path == ["triage", "tech", "done"] and trace.outcome == "resolved"
    classify = server.requests[0]
    assert classify["tool_choice"]["function"]["name"] == "classify_intent"
    enum = classify["tools"][0]["function"]["parameters"]["properties"]["intent"]["enum"]
    assert enum == ["billing", "tech", "out_of_domain"]
    assert {"role": "user", "content": "My internet is down."} in classify["messages"]
    assert [e.code for e in trace.events if e.type == "note" and e.code] == ["branch-agree"]


def test_out_of_domain_ends_politely():
    with FakeLLMServer(handler=answering("out_of_domain", [])) as server:
        trace, tools = run_marco(server)
    assert trace.outcome == "stopped" and len(server.requests) == 1


def test_a_foreign_tool_is_reflected_and_never_executed():
    with FakeLLMServer(handler=answering("tech", [tool("refund_bill", {})] * 5)) as server:
        trace, tools = run_marco(server)
    assert tools.calls.get("refund_bill", 0) == 0
    assert "tool-not-in-node" in [e.code for e in trace.events if e.type == "guardrail"]
