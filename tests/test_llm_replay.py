"""Replaying LLM runs without any model call, the LLM user, and the CLI wiring of dpa/spa."""

from __future__ import annotations

import json

from fake_llm_server import FakeLLMServer, reply, tool
from llm_support import RESPONSES, refund_sop, run
from sopstudio.engine.agents import make_agent
from sopstudio.engine.agents.dpa import DpaAgent
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient, LLMSettings, RecordedLLM
from sopstudio.engine.llm_user import LLMUser
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.orchestrator_replay import replay
from sopstudio.engine.tools import MockTools
from llm_support import ASK, GOOD, REFUND

ROUGH = [ASK, REFUND, tool("lookup_order", "{oops"), *GOOD[1:]]


def test_replaying_a_recorded_dpa_trace_needs_no_model():
    with FakeLLMServer(list(ROUGH)) as server:
        trace, _, _ = run(DpaAgent, server)
    assert trace.outcome == "resolved" and len([e for e in trace.events
                                                if e.type == "guardrail"]) == 2
    recorded = json.loads(json.dumps(trace.to_dict()))  # as the store keeps it
    # the server is stopped: any model call would fail; replay must not make one
    assert replay(CompiledSop(refund_sop()), recorded).to_dict() == trace.to_dict()


def test_replaying_recorded_model_outputs_reproduces_the_run():
    with FakeLLMServer(list(ROUGH)) as server:
        trace, _, agent = run(DpaAgent, server)
    log = json.loads(json.dumps(agent.client.log))
    again, tools, _ = run(DpaAgent, None, client=RecordedLLM(log))
    assert again.to_dict() == trace.to_dict()
    assert tools.calls == {"lookup_order": 1, "issue_refund": 1}


def test_replaying_a_spa_trace():
    steps = [ASK, REFUND, reply("Done."), tool("finish_conversation", {"end_section": "done"})]
    with FakeLLMServer(steps) as server:
        trace, _, _ = run(SpaAgent, server)
    assert replay(CompiledSop(refund_sop()), trace.to_dict()).to_dict() == trace.to_dict()


def _user_handler(body):
    system = body["messages"][0]["content"]
    if system.startswith("Goal:"):
        said = [m for m in body["messages"][1:] if m["role"] == "user"]
        return reply("Hi, my order ORD-123 was lost." if len(said) <= 1 and "[Start" in
                     said[0]["content"] else "It's ORD-123.")
    return None


def test_llm_user_uses_the_appendix_f_prompt_and_its_seed():
    agent_steps = [ASK, tool("lookup_order", {"order_id": "ORD-123"}), tool("finish_step", {}),
                   REFUND, tool("finish_step", {}), tool("finish_step", {})]

    def handler(body):
        return _user_handler(body) or agent_steps.pop(0)

    cs = CompiledSop(refund_sop())
    with FakeLLMServer(handler=handler) as server:
        config = LLMSettings(server.url, "fake-model", timeout=0.5, retries=0)
        user = LLMUser(LLMClient(config), "Get a refund for my lost order.",
                       {"order_id": "ORD-123", "pin": "4321"}, withheld=["pin"])
        agent = DpaAgent(cs, settings=config)
        trace = Orchestrator(cs, agent, user, MockTools(cs.tools, RESPONSES),
                             checks=agent.checks).run()
    assert trace.outcome == "resolved"
    user_requests = [r for r in server.requests if r["messages"][0]["content"].startswith("Goal:")]
    prompt = user_requests[0]["messages"][0]["content"]
    assert "Goal: Get a refund for my lost order." in prompt and "order_id" in prompt
    assert "4321" not in prompt and "<quit>" in prompt
    asked = user_requests[1]["messages"]
    assert asked[-1] == {"role": "user", "content": "What is your order id?"}
    assert [m["role"] for m in asked[:4]] == ["system", "user", "assistant", "user"]
    assert asked[2]["content"] == "Hi, my order ORD-123 was lost."  # its own opening, mirrored
    assert trace.events[0].type == "user" and trace.events[0].values == {"order_id": "ORD-123"}


def test_make_agent_builds_llm_agents_and_reports_missing_settings(monkeypatch):
    cs = CompiledSop(refund_sop())
    for var in ("SOPSTUDIO_BASE_URL", "OPENAI_BASE_URL", "SOPSTUDIO_MODEL"):
        monkeypatch.delenv(var, raising=False)
    agent = make_agent("dpa", cs, model="m", base_url="http://127.0.0.1:9/v1")
    assert agent.name == "dpa" and agent.client.settings.model == "m"
    assert make_agent("spa", cs, model="m", base_url="http://127.0.0.1:9/v1").static
    try:
        make_agent("dpa", cs)
    except Exception as error:  # noqa: BLE001 - EngineError: one clear line for the CLI
        assert "--base-url" in str(error)
    else:
        raise AssertionError("dpa without a model must fail")


def test_cli_simulate_with_dpa_reaches_the_server(tmp_path, capsys):
    from sopstudio.cli_main import run as main
    from sopstudio.core.io import save_sop
    path = tmp_path / "refund.sop.json"
    save_sop(refund_sop(), path)
    stop = tool("stop_conversation", {"reason": "user_request", "message": "Goodbye."})
    with FakeLLMServer([stop]) as server:
        code = main(["simulate", str(path), "--agent", "dpa", "--model", "fake-model",
                     "--base-url", server.url, "--guidance", "off", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["outcome"] == "stopped" and out["meta"]["agent"] == "dpa"
    assert [t["function"]["name"] for t in server.requests[0]["tools"]][0] == "lookup_order"
