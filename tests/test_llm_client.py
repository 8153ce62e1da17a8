"""The LLM client against a local OpenAI-compatible server; the schema checker; guardrail rules."""

from __future__ import annotations

import pytest

from fake_llm_server import FakeLLMServer, garbage, reply, slow, status, tool
from llm_support import refund_sop, settings
from sopstudio.engine.agents.base import AgentContext, call, finish
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.agents.guardrails import GUARDRAILS, check_grounded, check_schema
from sopstudio.engine.llm_client import (LLMClient, LLMError, LLMSettings, ModelUnreachable,
                                         RecordedLLM, check_base_url)
from sopstudio.engine.schema_check import object_errors, schema_errors
from sopstudio.engine.trace import MemoryEntry

MESSAGES = [{"role": "user", "content": "hello"}]


def test_reply_and_tool_calls_come_back_as_plain_data():
    with FakeLLMServer([reply("hi there"), tool("lookup", {"id": "A1"})]) as server:
        client = LLMClient(settings(server, temperature=0.3))
        first = client.complete(MESSAGES)
        second = client.complete(MESSAGES, [{"type": "function", "function": {
            "name": "lookup", "parameters": {"type": "object"}}}])
    assert first.text == "hi there" and first.tool_calls == []
    assert first.raw["choices"][0]["message"]["content"] == "hi there"
    assert [(c.name, c.parsed()) for c in second.tool_calls] == [("lookup", ({"id": "A1"}, None))]
    assert server.requests[0]["model"] == "fake-model"
    assert server.requests[0]["temperature"] == 0.3
    assert "tools" not in server.requests[0] and server.requests[1]["tools"][0]["function"][
        "name"] == "lookup"
    assert [e["reply"]["text"] for e in client.log] == ["hi there", None]


def test_server_errors_are_retried_with_exponential_backoff():
    waits = []
    with FakeLLMServer([status(500), status(503), reply("finally")]) as server:
        client = LLMClient(settings(server, retries=2, backoff=0.25), sleep=waits.append)
        assert client.complete(MESSAGES).text == "finally"
    assert waits == [0.25, 0.5] and len(server.requests) == 3


def test_timeouts_give_up_after_the_retries():
    with FakeLLMServer([slow(2.0), slow(2.0), reply("never")]) as server:
        client = LLMClient(settings(server, timeout=0.2, retries=1), sleep=lambda s: None)
        with pytest.raises(LLMError) as caught:
            client.complete(MESSAGES)
    assert caught.value.code == "timeout" and len(server.requests) == 2
    assert client.log == [{"error": str(caught.value), "code": "timeout"}]


def test_client_errors_and_garbage_are_not_retried():
    with FakeLLMServer([status(400, "bad"), garbage(), reply("unused")]) as server:
        client = LLMClient(settings(server, retries=2), sleep=lambda s: None)
        with pytest.raises(LLMError) as bad:
            client.complete(MESSAGES)
        with pytest.raises(LLMError) as junk:
            client.complete(MESSAGES)
    assert (bad.value.code, junk.value.code) == ("http-400", "malformed-output")
    assert len(server.requests) == 2


def test_the_api_key_is_sent_but_never_serialised(monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "sk-from-env-42")
    with FakeLLMServer([reply("ok")]) as server:
        config = LLMSettings(server.url, "fake-model", api_key_env="MY_LLM_KEY", timeout=0.5)
        client = LLMClient(config)
        client.complete(MESSAGES)
        assert client.models() == ["fake-model"]
    assert server.headers[0]["authorization"] == "Bearer sk-from-env-42"
    explicit = LLMSettings("http://127.0.0.1:1/v1", "m", api_key="sk-session-only")
    assert "api_key" not in explicit.to_dict() and "sk-session-only" not in repr(explicit)
    assert LLMSettings.from_dict(explicit.to_dict()).api_key is None
    assert "sk-from-env-42" not in str(client.log)


def test_recorded_llm_replays_replies_and_errors_without_http():
    with FakeLLMServer([reply("one"), status(500)]) as server:
        client = LLMClient(settings(server))
        client.complete(MESSAGES)
        with pytest.raises(LLMError):
            client.complete(MESSAGES)
    replay = RecordedLLM(client.log)
    assert replay.complete(MESSAGES).text == "one"
    with pytest.raises(LLMError) as caught:
        replay.complete(MESSAGES)
    assert caught.value.code == "http-500"
    with pytest.raises(LLMError):
        replay.complete(MESSAGES)


@pytest.mark.parametrize("value,schema,expected", [
    ("ORD-123", {"type": "string", "pattern": "^ORD-[0-9]{3}$"}, []),
    ("12345", {"type": "string", "pattern": "^ORD-[0-9]{3}$"},
     ["value must match the pattern ^ORD-[0-9]{3}$"]),
    (True, {"type": "integer"}, ["value must be of type integer"]),
    (3, {"type": "integer", "minimum": 5}, ["value must be at least 5"]),
    (9, {"type": "number", "maximum": 5, "exclusiveMinimum": 9},
     ["value must be at most 5", "value must be greater than 9"]),
    ("ab", {"type": "string", "minLength": 3, "maxLength": 1},
     ["value must have at least 3 characters", "value must have at most 1 characters"]),
    ("x", {"enum": ["a", "b"]}, ["value must be one of 'a', 'b'"]),
    ([1, "x"], {"type": "array", "items": {"type": "integer"}},
     ["value[1] must be of type integer"]),
    (None, {"type": ["string", "null"]}, []),
])
def test_schema_subset(value, schema, expected):
    assert schema_errors(value, schema) == expected


def test_object_rules_required_properties_and_extras():
    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"type": "string"}}}
    assert object_errors({"b": 1}, schema) == ["arguments is missing the required 'a'",
                                               "'b' is not a parameter"]


def _ctx(node_id="verify", said=("my order is ORD-123",), variables=None, memory=()):
    cs = CompiledSop(refund_sop())
    node = cs.nodes[node_id].node
    return AgentContext(sop=cs.sop, node=node, instructions="", tools=[cs.tools[t] for t in
                                                                       node.tools],
                        variables=dict(variables or {}), memory=list(memory),
                        transcript=[{"role": "user", "text": s} for s in said], visit=[],
                        reflections=[], rng=None)


def test_grounding_accepts_said_known_and_observed_values_only():
    ctx = _ctx("refund", said=["order ORD-123 please"], variables={"total": 42.5},
               memory=[MemoryEntry("api_call: lookup_order", {"status": "lost", "total": 42.5},
                                   "success")])
    assert check_grounded(call("issue_refund", {"order_id": "ord-123", "amount": 42.5}), ctx) \
        is None
    code, text = check_grounded(call("issue_refund", {"order_id": "ORD-999", "amount": 42.5}),
                                ctx)
    assert code == "ungrounded-argument" and "ORD-999" in text
    assert check_grounded(call("issue_refund", {"order_id": "ORD-123", "amount": 700}), ctx)[0] \
        == "ungrounded-argument"
    numbers = _ctx("refund", said=["it cost 1,250 dollars, order ORD-123"])
    assert check_grounded(call("issue_refund", {"order_id": "ORD-123", "amount": 1250}),
                          numbers) is None


def test_schema_guardrail_covers_tool_arguments_and_finish_values():
    ctx = _ctx(said=["12345"])
    code, text = check_schema(call("lookup_order", {"order_id": "12345"}), ctx)
    assert code == "schema-violation" and "pattern" in text
    assert check_schema(finish({"order_id": "bad"}), ctx)[0] == "schema-violation"
    assert check_schema(finish({"order_id": "ORD-001"}), ctx) is None
    assert all(check(call("lookup_order", {"order_id": "ORD-123"}), _ctx()) is None
               for check in GUARDRAILS)


def dead_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (a port just freed)."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_an_endpoint_nobody_answers_is_unreachable_after_the_retries():
    url = dead_url()
    waits = []
    client = LLMClient(LLMSettings(url, "m", retries=1, backoff=0.01), sleep=waits.append)
    with pytest.raises(ModelUnreachable) as caught:
        client.complete(MESSAGES)
    assert caught.value.code == "connection" and isinstance(caught.value, LLMError)
    assert str(caught.value).startswith(f"cannot reach the model at {url}: ")
    assert waits == [0.01] and client.log[-1]["code"] == "connection"


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/v1", "127.0.0.1:8000/v1", "", "http://"])
def test_a_base_url_without_http_scheme_is_refused_up_front(url):
    with pytest.raises(ModelUnreachable, match="cannot reach the model at .*http"):
        LLMClient(LLMSettings(url, "m"))
    with pytest.raises(ModelUnreachable):
        check_base_url(url)
    assert check_base_url("https://api.example.com/v1") == "https://api.example.com/v1"
