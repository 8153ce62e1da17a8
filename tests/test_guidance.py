"""Guided function choice (DESIGN §6, `--guidance`): at each model turn only the functions legal
now are offered; `auto` names one in tool_choice when exactly one is legal, `strict` always names
the expected one, `off` offers all and names none. A server that refuses a named tool_choice is
remembered per endpoint and the run goes on without it, with a trace note. Guardrails stay."""

from __future__ import annotations

import itertools

import pytest

from fake_llm_server import FakeLLMServer, reply, status, tool
from llm_support import RESPONSES, refund_sop, settings
from sopstudio.engine.agents.dpa import DpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient, named_choice_support
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

ASK = tool("ask_user", {"question": "What is your order id?", "variables": ["order_id"]})
LOOKUP = tool("lookup_order", {"order_id": "ORD-123"})
REFUND = tool("issue_refund", {"order_id": "ORD-123", "amount": 42.5})
FINISH = tool("finish_step", {})
CONTROLS = ["ask_user", "finish_step", "stop_conversation"]


def guided_sop(say: str | None = None):
    """The refund SOP with the refund amount mapped from the looked-up total (so the SOP says
    where every input comes from), optionally with a message to deliver at the end."""
    sop = refund_sop()
    sop.node("refund").tool_args = {"issue_refund": {"amount": "total"}}
    if say:
        sop.node("done").say = say
    return sop


def run(server, guidance, seed=None, responses=None, sop=None):
    cs = CompiledSop(sop or guided_sop())
    agent = DpaAgent(cs, client=LLMClient(settings(server)), guidance=guidance)
    user = ScriptedUser(seed if seed is not None else {"order_id": "ORD-123"})
    tools = MockTools(cs.tools, responses or RESPONSES)
    return Orchestrator(cs, agent, user, tools, checks=agent.checks).run(), tools


def offered(request) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def named(request) -> str | None:
    choice = request.get("tool_choice")
    return choice["function"]["name"] if isinstance(choice, dict) else choice


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_each_turn_offers_and_names_the_one_legal_function(mode):
    with FakeLLMServer([ASK, LOOKUP, FINISH, REFUND, FINISH, FINISH]) as server:
        trace, tools = run(server, mode)
    assert trace.outcome == "resolved" and trace.path == ["verify", "refund", "done"]
    expected = ["ask_user", "lookup_order", "finish_step", "issue_refund", "finish_step",
                "finish_step"]
    assert [offered(r) for r in server.requests] == [[name] for name in expected]
    assert [named(r) for r in server.requests] == expected
    assert tools.calls == {"lookup_order": 1, "issue_refund": 1}
    # the model writes the argument, choosing among the known values that fit the schema
    lookup = server.requests[1]["tools"][0]["function"]["parameters"]["properties"]
    assert lookup["order_id"]["enum"] == ["ORD-123"]
    refund = server.requests[3]["tools"][0]["function"]["parameters"]["properties"]
    assert refund["amount"]["enum"] == [42.5] and refund["order_id"]["enum"] == ["ORD-123"]
    # nothing left to collect: finish_step has no argument to write
    assert server.requests[2]["tools"][0]["function"]["parameters"] == {"type": "object",
                                                                       "properties": {}}


def test_off_offers_every_function_of_the_node_and_names_none():
    with FakeLLMServer([ASK, LOOKUP, FINISH, REFUND, FINISH, FINISH]) as server:
        trace, _ = run(server, "off")
    assert trace.outcome == "resolved"
    assert offered(server.requests[0]) == ["lookup_order", *CONTROLS]
    assert all("tool_choice" not in r for r in server.requests)
    assert "enum" not in server.requests[1]["tools"][0]["function"]["parameters"][
        "properties"]["order_id"]


def test_after_a_failed_call_auto_names_nothing_and_strict_names_the_retry():
    failing = {**RESPONSES, "lookup_order": [{"error": "timeout"},
                                             RESPONSES["lookup_order"][0]]}
    for mode, choice in (("auto", None), ("strict", "lookup_order")):
        with FakeLLMServer([ASK, LOOKUP, LOOKUP, FINISH, REFUND, FINISH, FINISH]) as server:
            trace, tools = run(server, mode, responses=failing)
        assert trace.outcome == "resolved" and tools.calls["lookup_order"] == 2
        retry = server.requests[2]
        assert offered(retry) == ["lookup_order", "stop_conversation"]
        assert named(retry) == choice


def test_a_message_to_deliver_is_a_text_turn_without_functions():
    said = "Your refund is on its way."
    steps = [ASK, LOOKUP, FINISH, REFUND, FINISH, reply(said), FINISH]
    with FakeLLMServer(steps) as server:
        trace, _ = run(server, "auto", sop=guided_sop(say=said))
    assert trace.outcome == "resolved"
    assert "tools" not in server.requests[5] and "tool_choice" not in server.requests[5]
    assert named(server.requests[6]) == "finish_step"  # after the user's reply


def test_a_value_the_user_does_not_have_leaves_only_stop():
    stop = tool("stop_conversation", {"reason": "blocked", "message": "I need the order id."})
    with FakeLLMServer([ASK, stop]) as server:
        trace, _ = run(server, "auto", seed={})
    assert trace.outcome == "blocked"
    assert offered(server.requests[1]) == ["stop_conversation"]
    assert named(server.requests[1]) == "stop_conversation"


def test_a_hallucinated_argument_is_reflected_back_and_retried():
    wrong = tool("lookup_order", {"order_id": "./ORD-123.json"})
    with FakeLLMServer([ASK, wrong, LOOKUP, FINISH, REFUND, FINISH, FINISH]) as server:
        trace, tools = run(server, "strict")
    guardrails = [e for e in trace.events if e.type == "guardrail"]
    assert [g.code for g in guardrails] == ["ungrounded-argument"]
    assert "./ORD-123.json" in guardrails[0].text
    assert tools.calls["lookup_order"] == 1  # the hallucinated call never executed
    assert trace.tool_trace[0] == {"tool": "lookup_order", "arguments": {"order_id": "ORD-123"}}
    retry = server.requests[2]
    assert named(retry) == "lookup_order"
    assert retry["messages"][-1]["content"].startswith("[GUARDRAILS] ")
    assert trace.outcome == "resolved"


@pytest.mark.parametrize("refusal", [status(500, "Internal Server Error"),
                                     status(400, "tool_choice of this kind is not supported")])
def test_a_server_refusing_named_choice_is_remembered_and_the_run_degrades(refusal):
    script = itertools.cycle([ASK, LOOKUP, FINISH, REFUND, FINISH, FINISH])

    def handler(body):
        return refusal if isinstance(body.get("tool_choice"), dict) else next(script)
    with FakeLLMServer(handler=handler) as server:
        assert named_choice_support(server.url) is None
        trace, _ = run(server, "auto")
        assert named_choice_support(server.url) is False
        # detected once: the refused request, then every request without a named choice
        assert named(server.requests[0]) == "ask_user"
        assert [named(r) for r in server.requests[1:]] == [None] * 6
        assert offered(server.requests[2]) == ["lookup_order"]  # still only the legal ones
        again, _ = run(server, "auto")
        assert len(server.requests) == 13 and again.outcome == "resolved"
    assert trace.outcome == "resolved"
    notes = [e for e in trace.events if e.type == "note"]
    assert len(notes) == 1 and "refused a named tool_choice" in notes[0].text
    assert refusal["body"]["error"]["message"] in notes[0].text


def test_a_server_accepting_named_choice_is_remembered_too():
    with FakeLLMServer([ASK, LOOKUP, FINISH, REFUND, FINISH, FINISH]) as server:
        run(server, "auto")
        assert named_choice_support(server.url) is True


def test_a_model_that_follows_the_guidance_finishes_every_covering_journey():
    """listing_blocked, correct scenarios: a model answering as the oracle would (tool names
    and arguments as the SOP says, texts when no function is offered) reaches the expected end
    of every covering journey under auto guidance — the orchestrator's needs match the SOP."""
    from pathlib import Path

    from llm_support import oracle_step
    from sopstudio.core.io import load_sop
    from sopstudio.engine.runner import orchestrator_for
    from sopstudio.engine.scenarios import generate
    path = Path(__file__).resolve().parent.parent / "sample_sops" / "listing_blocked.sop.json"
    cs = CompiledSop(load_sop(path))
    for scenario in generate(cs, types=("correct",)):
        holder = {}
        with FakeLLMServer(handler=lambda body: oracle_step(holder["o"])) as server:
            agent = DpaAgent(cs, client=LLMClient(settings(server, timeout=5)))
            holder["o"] = orchestrator_for(cs, scenario, agent)
            trace = holder["o"].run()
        assert (trace.outcome, trace.end_node) == (scenario.expected["outcome"],
                                                   scenario.expected["end_node"]), scenario.id
        assert trace.tool_trace == scenario.expected["tool_trace"]
