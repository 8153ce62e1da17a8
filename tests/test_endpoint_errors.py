"""Endpoint errors say what the server said (DESIGN §6): the error body's message reaches the
LLMError, the trace (guardrail and end events) and the CLI line; `--context-tokens` refuses a
prompt that cannot fit before it is sent, with both counts; a context error ends the run at once."""

from __future__ import annotations

import pytest

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import RESPONSES, refund_sop, settings
from sopstudio.engine.agents.dpa import DpaAgent
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient, LLMError, estimate_tokens
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

CONTEXT_BODY = {"error": {"message": "This model's maximum context length is 2048 tokens. "
                                     "However, you requested 2363 tokens (2363 in the messages).",
                          "type": "invalid_request_error", "code": "context_length_exceeded"}}


def answer(code: int, body) -> dict:
    return {"status": code, "body": body}


def run(agent_class, server, **changes):
    cs = CompiledSop(refund_sop())
    agent = agent_class(cs, client=LLMClient(settings(server, **changes)), guidance="off")
    orchestrator = Orchestrator(cs, agent, ScriptedUser({"order_id": "ORD-123"}),
                                MockTools(cs.tools, RESPONSES), checks=agent.checks)
    return orchestrator.run()


def test_the_error_message_of_an_openai_error_body_is_kept():
    with FakeLLMServer([answer(400, CONTEXT_BODY), answer(422, "plain text reason")]) as server:
        client = LLMClient(settings(server))
        with pytest.raises(LLMError) as context:
            client.complete([{"role": "user", "content": "hi"}])
        with pytest.raises(LLMError) as plain:
            client.complete([{"role": "user", "content": "hi"}])
    assert context.value.code == "context-too-long"
    assert "maximum context length is 2048 tokens" in str(context.value)
    assert "HTTP 422" in str(plain.value) and "plain text reason" in str(plain.value)


def test_a_context_error_ends_the_run_at_once_with_the_servers_words():
    with FakeLLMServer([answer(400, CONTEXT_BODY)] * 3) as server:
        trace = run(SpaAgent, server)
    assert len(server.requests) == 1  # asking again cannot help
    guardrail = next(e for e in trace.events if e.type == "guardrail")
    assert guardrail.code == "context-too-long" and "you requested 2363 tokens" in guardrail.text
    end = trace.events[-1]
    assert trace.outcome == "technical-issue" and end.code == "context-too-long"
    assert "you requested 2363 tokens" in end.text
    assert trace.events[-2].text == GRACE_MESSAGE


def test_other_server_errors_are_retried_as_before_with_their_message():
    steps = [answer(503, {"error": {"message": "model is loading"}})] * 3
    with FakeLLMServer(steps) as server:
        trace = run(DpaAgent, server)
    texts = [e.text for e in trace.events if e.type == "guardrail"]
    assert len(texts) == 3 and all("model is loading" in t for t in texts)
    assert trace.outcome == "technical-issue"


def test_context_tokens_refuse_a_prompt_before_sending_it():
    with FakeLLMServer([reply("never sent")]) as server:
        trace = run(SpaAgent, server, context_tokens=200)
    assert server.requests == []
    end = trace.events[-1]
    assert trace.outcome == "technical-issue" and end.code == "context-too-long"
    assert "holds 200" in end.text and "needs about" in end.text


def test_the_token_estimate_rule():
    messages = [{"role": "system", "content": "x" * 41}, {"role": "user", "content": "hi"}]
    tools = [{"type": "function", "function": {"name": "f"}}]
    import json
    expected = 3 + (11 + 4) + (1 + 4) + -(-len(json.dumps(tools)) // 4)
    assert estimate_tokens(messages, tools) == expected


def test_the_cli_line_shows_what_the_server_said(tmp_path, capsys):
    from sopstudio.cli_main import run as main
    from sopstudio.core.io import save_sop
    path = tmp_path / "refund.sop.json"
    save_sop(refund_sop(), path)
    with FakeLLMServer([answer(400, CONTEXT_BODY)]) as server:
        code = main(["simulate", str(path), "--agent", "spa", "--model", "fake-model",
                     "--base-url", server.url, "--no-store"])
    out = capsys.readouterr().out
    assert code == 0 and "maximum context length is 2048 tokens" in out


def test_a_refused_prompt_is_not_retried_by_the_dpa_either():
    with FakeLLMServer([tool("ask_user", {"question": "Order id?"})]) as server:
        trace = run(DpaAgent, server, context_tokens=50)
    assert server.requests == [] and trace.outcome == "technical-issue"
