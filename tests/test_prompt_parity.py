"""One prompt (DESIGN §6): what `export --to dpa-prompts | spa-prompt` writes, rendered with a
recorded run's values, is exactly the system message the agent sent in that run — for every
sample SOP. The DPA runs against a fake server that answers as the scripted oracle would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer, tool
from llm_support import oracle_step, settings
from sopstudio.core.io import load_sop
from sopstudio.engine.agents.dpa import CONTROLS, DpaAgent
from sopstudio.engine.agents.llm_common import FunctionNames
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient
from sopstudio.engine.runner import orchestrator_for
from sopstudio.engine.scenarios import generate
from sopstudio.formats import export_sop

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_sops").glob("*.sop.json"))
PLACEHOLDER = "{known_information}"


def fill(template: str, variables: dict) -> str:
    """The documented placeholder contract: one '- name = json' line per known value."""
    known = "\n".join(f"- {k} = {json.dumps(v, default=str)}" for k, v in variables.items())
    return template.replace(PLACEHOLDER, known or "(nothing yet)")


def recorded_run(cs, agent_class, respond):
    """Runs the correct scenario of the first covering journey; returns the requests the server
    got and, for each, the node and the values known when the agent sent it."""
    scenario = generate(cs, types=("correct",))[0]
    seen, holder = [], {}

    def handler(body):
        orchestrator = holder["orchestrator"]
        seen.append((orchestrator.node_id, dict(orchestrator.variables)))
        return respond(orchestrator, len(seen))
    with FakeLLMServer(handler=handler) as server:
        agent = agent_class(cs, client=LLMClient(settings(server, timeout=5)))
        holder["orchestrator"] = orchestrator = orchestrator_for(cs, scenario, agent)
        trace = orchestrator.run()
    return server.requests, seen, trace, scenario


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_dpa_system_messages_are_the_exported_node_prompts(path):
    cs = CompiledSop(load_sop(path))
    names = FunctionNames([t.name for t in cs.sop.tools], list(CONTROLS))
    requests, seen, _, _ = recorded_run(
        cs, DpaAgent, lambda orchestrator, n: oracle_step(orchestrator, names))
    bundle = json.loads(export_sop(cs.sop, "dpa-prompts"))
    templates = {node["id"]: node["prompt"] for node in bundle["nodes"]}
    assert PLACEHOLDER in bundle["placeholders"]
    assert len(requests) > 2
    for request, (node_id, variables) in zip(requests, seen):
        assert request["messages"][0]["content"] == fill(templates[node_id], variables)
    assert len({node for node, _ in seen}) > 1  # prompts of several nodes were compared


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_spa_system_messages_are_the_exported_prompt(path):
    cs = CompiledSop(load_sop(path))
    first = next(n for n in cs.sop.nodes if n.ask) if any(n.ask for n in cs.sop.nodes) else None
    wanted = list(first.ask) if first else []
    steps = {1: tool("ask_user", {"question": "May I have your details?", "variables": wanted}),
             2: tool("stop_conversation", {"reason": "user_request", "message": "Bye."})}
    requests, seen, _, _ = recorded_run(cs, SpaAgent, lambda orchestrator, n: steps[n])
    template = export_sop(cs.sop, "spa-prompt").rstrip("\n")
    assert len(requests) == 2
    for request, (_, variables) in zip(requests, seen):
        assert request["messages"][0]["content"] == fill(template, variables)
