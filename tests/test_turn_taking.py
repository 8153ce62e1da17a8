"""Turn-taking as in a chat (DESIGN §6): a model's plain-text reply is a message to the user and
hands the turn to the user — scripted, LLM-simulated or the operator — and an agent that sends the
same message three times in a row is stopped with outcome `stopped` (code repeated-message)."""

from __future__ import annotations

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import RESPONSES, refund_sop, settings
from sopstudio.engine.agents.dpa import DpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient
from sopstudio.engine.llm_user import LLMUser
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import NEUTRAL_REPLY, ScriptedUser

LOOKUP = tool("lookup_order", {"order_id": "ORD-123"})
STOP = tool("stop_conversation", {"reason": "user_request", "message": "Bye."})


def orchestrate(server, user, guidance="off", **kwargs):
    cs = CompiledSop(refund_sop())
    agent = DpaAgent(cs, client=LLMClient(settings(server)), guidance=guidance)
    return Orchestrator(cs, agent, user, MockTools(cs.tools, RESPONSES), checks=agent.checks,
                        **kwargs)


def kinds(trace) -> list[str]:
    return [e.type for e in trace.events if e.type in ("say", "ask", "user")]


def test_a_text_question_is_answered_by_the_scripted_user_from_its_seed():
    steps = [reply("Hello! What is your order id?"), LOOKUP, STOP]
    with FakeLLMServer(steps) as server:
        trace = orchestrate(server, ScriptedUser({"order_id": "ORD-123"})).run()
    assert kinds(trace) == ["say", "user", "say"]  # the text, the user's answer, stop's message
    answer = next(e for e in trace.events if e.type == "user")
    assert answer.text == "It's ORD-123." and answer.values == {"order_id": "ORD-123"}
    # the model saw the user's answer before its next call, and the value is known
    assert {"role": "user", "content": "It's ORD-123."} in server.requests[1]["messages"]
    assert "order_id = \"ORD-123\"" in server.requests[1]["messages"][0]["content"]


def test_a_text_that_asks_nothing_gets_a_neutral_reply_and_a_withheld_value_is_not_given():
    steps = [reply("Welcome to the refund desk."), reply("Could you share your order id?"), STOP]
    with FakeLLMServer(steps) as server:
        trace = orchestrate(server, ScriptedUser({"order_id": "ORD-123"}, ["order_id"])).run()
    users = [e for e in trace.events if e.type == "user"]
    assert users[0].text == NEUTRAL_REPLY and not users[0].values
    assert users[1].missing == ["order_id"] and not users[1].values
    assert trace.outcome == "stopped"


def test_the_llm_user_answers_a_text_in_persona():
    user_steps = [reply("Hi, my order ORD-123 never arrived."), reply("Sure, it is ORD-123.")]
    agent_steps = [reply("I'm sorry to hear that. Which order is it?"), STOP]
    with FakeLLMServer(user_steps) as user_server, FakeLLMServer(agent_steps) as server:
        user = LLMUser(LLMClient(settings(user_server)), "Get a refund for a lost order",
                       {"order_id": "ORD-123"})
        trace = orchestrate(server, user).run()
    users = [e for e in trace.events if e.type == "user"]
    assert [u.text for u in users] == ["Hi, my order ORD-123 never arrived.",
                                       "Sure, it is ORD-123."]
    assert users[1].values == {"order_id": "ORD-123"}
    # the user-model saw the agent's text as the other side of the chat
    assert user_server.requests[1]["messages"][-1] == {
        "role": "user", "content": "I'm sorry to hear that. Which order is it?"}


def test_the_operator_answers_a_text_in_the_users_place():
    asked = []

    def operator(variables, text):
        asked.append((variables, text))
        return "ORD-123 is the order."
    with FakeLLMServer([reply("Which order?"), STOP]) as server:
        trace = orchestrate(server, ScriptedUser({}), user_override=operator).run()
    assert asked == [([], "Which order?")]
    typed = next(e for e in trace.events if e.type == "user")
    assert typed.text == "ORD-123 is the order." and typed.operator == {"typed": True}


def test_the_same_message_three_times_in_a_row_stops_the_run():
    with FakeLLMServer(handler=lambda body: reply("Could you tell me more?")) as server:
        trace = orchestrate(server, ScriptedUser({"order_id": "ORD-123"})).run()
    assert len(server.requests) == 3  # never left to the turn limit
    assert kinds(trace) == ["say", "user", "say", "user", "say"]
    assert trace.outcome == "stopped" and trace.events[-1].code == "repeated-message"
    note = trace.events[-2]
    assert note.type == "note" and "same message 3 times in a row" in note.text


def test_only_repeats_in_a_row_count():
    texts = iter(["Hello?", "Hello?", "Which order is it?", "Hello?", "Hello?", "Hello?"])
    with FakeLLMServer(handler=lambda body: reply(next(texts))) as server:
        trace = orchestrate(server, ScriptedUser({"order_id": "ORD-123"})).run()
    messages = [e.text for e in trace.events if e.type == "say"]
    assert messages == ["Hello?", "Hello?", "Which order is it?", "Hello?", "Hello?", "Hello?"]
    assert len(server.requests) == 6 and trace.events[-1].code == "repeated-message"
