"""Shared fixtures of the LLM-agent tests: a small refund SOP, its scenario, a well-behaved
model's replies and a run helper."""

from __future__ import annotations

from sopstudio.core.model import SOP, Edge, Node, Tool, ToolOutput, Variable
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient, LLMSettings
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

from fake_llm_server import reply, tool

ORDER = {"type": "string", "pattern": "^ORD-[0-9]{3}$", "description": "order id"}


def refund_sop() -> SOP:
    return SOP(
        id="refund", title="Refund a lost order", start="verify",
        variables=[Variable(name="order_id", pattern="^ORD-[0-9]{3}$")],
        tools=[Tool(name="lookup_order", description="Look an order up.",
                    parameters={"type": "object", "properties": {"order_id": ORDER},
                                "required": ["order_id"]},
                    outputs=[ToolOutput(name="status", enum=["lost", "delivered"]),
                             ToolOutput(name="total", type="number")]),
               Tool(name="issue_refund", description="Refund an order.",
                    parameters={"type": "object", "required": ["order_id", "amount"],
                                "properties": {"order_id": ORDER,
                                               "amount": {"type": "number", "minimum": 0,
                                                          "maximum": 500}}},
                    outputs=[ToolOutput(name="refund_id")])],
        nodes=[Node(id="verify", title="Verify the order", ask=["order_id"],
                    tools=["lookup_order"], instructions="Find the customer's order."),
               Node(id="refund", title="Refund", tools=["issue_refund"],
                    instructions="Refund the full order total."),
               Node(id="done", title="Done", kind="end", outcome="resolved"),
               Node(id="reject", title="Not refundable", kind="end", outcome="rejected")],
        edges=[Edge(id="e1", source="verify", target="refund", when="status == 'lost'"),
               Edge(id="e2", source="verify", target="reject", when="else"),
               Edge(id="e3", source="refund", target="done")])


# A well-behaved DPA model's replies on the refund SOP, and the steps they are made of.
ASK = tool("ask_user", {"question": "What is your order id?", "variables": ["order_id"]})
LOOKUP = tool("lookup_order", {"order_id": "ORD-123"})
FINISH = tool("finish_step", {})
REFUND = tool("issue_refund", {"order_id": "ORD-123", "amount": 42.5})
GOOD = [ASK, LOOKUP, FINISH, REFUND, reply("Your refund R-9 is on its way."), FINISH, FINISH]

RESPONSES = {"lookup_order": [{"outputs": {"status": "lost", "total": 42.5}}],
             "issue_refund": [{"outputs": {"refund_id": "R-9"}}]}


def settings(server, **changes) -> LLMSettings:
    values = {"base_url": server.url, "model": "fake-model", "api_key": "sk-test-key",
              "timeout": 0.5, "retries": 0, "backoff": 0.01}
    values.update(changes)
    return LLMSettings(**values)


def run(agent_class, server, seed=None, client=None, guidance="off", **changes):
    """Run the refund SOP with `agent_class` (DPA guidance off unless asked: these tests script
    the model's every reply and look at the full function list); returns (trace, tools, agent)."""
    cs = CompiledSop(refund_sop())
    agent = agent_class(cs, client=client or LLMClient(settings(server, **changes)),
                        guidance=guidance)
    user = ScriptedUser(seed if seed is not None else {"order_id": "ORD-123"})
    tools = MockTools(cs.tools, RESPONSES)
    orchestrator = Orchestrator(cs, agent, user, tools, checks=agent.checks)
    return orchestrator.run(), tools, agent


def oracle_step(orchestrator, names=None):
    """What a model that follows the SOP exactly would answer now: the scripted oracle's next
    action at the orchestrator's current context, as a chat-completions step of the fake server
    (for a FakeLLMServer `handler`; the orchestrator waits on the HTTP call meanwhile)."""
    from fake_llm_server import reply, tool
    from sopstudio.engine.agents.scripted import ScriptedAgent
    action = ScriptedAgent(orchestrator.compiled).next_action(orchestrator.context())
    if action.kind == "say":
        return reply(action.text)
    if action.kind == "ask":
        return tool("ask_user", {"question": action.text, "variables": action.variables})
    if action.kind == "call":
        name = names.model_name(action.tool) if names else action.tool
        return tool(name, action.arguments)
    if action.kind == "finish":
        return tool("finish_step", {})
    return tool("stop_conversation", {"reason": "blocked", "message": action.text or "Sorry."})


STATE = {"values": {}, "complete": False}  # what oracle_model's Agent-S state tracker reports


def named(body: dict) -> str | None:
    return ((body.get("tool_choice") or {}).get("function") or {}).get("name")


def oracle_model(scenario, names):
    """A FakeLLMServer handler for every agent with function calls: the oracle's step (see
    oracle_step; set `holder["orchestrator"]`), the branch / intent the scenario's journey
    takes, and a constant Agent-S state. Returns (handler, holder)."""
    holder: dict = {}

    def answer(body: dict) -> dict:
        choice, enum = named(body), _enum(body)
        if choice == "choose_branch":
            taken = [e for e in enum if e in scenario.expected["edges"]]
            return tool("choose_branch", {"branch": (taken or enum)[0]})
        if choice == "classify_intent":
            taken = [e for e in enum if e in scenario.expected["path"]]
            return tool("classify_intent", {"intent": (taken or enum)[0]})
        if choice == "update_state":
            return tool("update_state", STATE)
        return oracle_step(holder["orchestrator"], names)
    return answer, holder


def _enum(body: dict) -> list:
    tools = body.get("tools") or [{}]
    properties = tools[0].get("function", {}).get("parameters", {}).get("properties", {})
    return next((p.get("enum") for p in properties.values() if "enum" in p), [])


def guided_model(body: dict) -> dict:
    """A model that does what guidance names (the last branch when asked for one), else
    finishes the step: enough to walk the SOP and make sop-agent choose branches."""
    named = (body.get("tool_choice") or {}).get("function", {}).get("name")
    offered = {t["function"]["name"]: t["function"] for t in body.get("tools", [])}
    if named == "choose_branch":
        enum = offered[named]["parameters"]["properties"]["branch"]["enum"]
        return tool(named, {"branch": enum[-1]})  # the last edge: the conditions may disagree
    if named == "ask_user":
        wanted = offered[named]["parameters"]["properties"]["variables"]["items"].get("enum", [])
        return tool(named, {"question": "May I have " + ", ".join(wanted) + "?",
                            "variables": wanted})
    if named and named in offered:  # a tool: the known values guidance offers for each input
        properties = offered[named].get("parameters", {}).get("properties", {})
        return tool(named, {k: (v.get("enum") or ["x"])[0] for k, v in properties.items()})
    return tool("finish_step", {}) if "finish_step" in offered else reply("Done.")
