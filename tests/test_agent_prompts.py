"""The prompt pane is exact for every LLM agent: the request(s) an agent lists just before a
decision (`agent.requests(ctx)`, what `prompt_text` shows) are the requests the model server then
receives — messages, tools and tool_choice — through the real `openai` client. The fake server
answers as the scripted oracle would (a branch / intent as the scenario's journey goes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer, tool
from llm_support import STATE, named, oracle_model, refund_sop, settings
from sopstudio.core.io import load_sop
from sopstudio.engine.agents.agent_s import AgentSAgent
from sopstudio.engine.agents.dpa import DpaAgent, function_names
from sopstudio.engine.agents.marco import MarcoAgent
from sopstudio.engine.agents.react import ReactAgent
from sopstudio.engine.agents.sop_agent import SopAgent
from sopstudio.engine.agents.spa import SpaAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.llm_client import LLMClient
from sopstudio.engine.runner import orchestrator_for
from sopstudio.engine.scenarios import generate
from sopstudio.engine.session import prompt_text

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sops"
TWO_SOPS = [SAMPLES / "listing_blocked.sop.json", SAMPLES / "telecom_troubleshooting.sop.json"]


def previewed_run(path, agent_class, handler=None, **options):
    """Run the first correct scenario; before every decision keep the agent's preview and the
    number of requests the server had. Returns [(preview, sent requests)], the trace, agent."""
    cs = CompiledSop(load_sop(path))
    scenario = generate(cs, types=("correct",))[0]
    answer, holder = oracle_model(scenario, function_names(cs.sop))
    previews: list = []
    with FakeLLMServer(handler=handler or answer) as server:
        agent = agent_class(cs, client=LLMClient(settings(server, timeout=5)), **options)
        decide = agent.next_action

        def next_action(ctx):
            previews.append((agent.requests(ctx), len(server.requests),
                             dict(getattr(agent, "state", {}))))
            return decide(ctx)
        agent.next_action = next_action
        holder["orchestrator"] = orchestrator = orchestrator_for(cs, scenario, agent)
        trace = orchestrator.run()
    bounds = [start for _, start, _ in previews] + [len(server.requests)]
    pairs = [(preview, server.requests[bounds[i]:bounds[i + 1]], state)
             for i, (preview, _, state) in enumerate(previews)]
    return pairs, trace, agent


def same(request, body: dict) -> bool:
    return (request.messages == body["messages"] and request.functions == body.get("tools", [])
            and request.tool_choice == body.get("tool_choice"))


@pytest.mark.parametrize("path", TWO_SOPS, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("agent_class", [DpaAgent, SopAgent, MarcoAgent])
def test_the_preview_is_what_the_dpa_family_sends(path, agent_class):
    pairs, trace, _ = previewed_run(path, agent_class)
    assert len(pairs) > 3 and trace.outcome != "technical-issue"
    for preview, sent, _ in pairs:
        assert 1 <= len(sent) <= len(preview)
        assert all(same(request, body) for request, body in zip(preview, sent))
    if agent_class is SopAgent:  # a finished branching step sent the branch request shown
        branch = [(p, s) for p, s, _ in pairs if len(s) == 2]
        assert branch and all(named(s[1]) == "choose_branch" for _, s in branch)
        assert all("sent when the step finishes" in p[1].label for p, _ in branch)
    if agent_class is MarcoAgent:  # the intent call, shown first, then the DPA request
        intent = [(p, s) for p, s, _ in pairs if named(s[0]) == "classify_intent"]
        assert len(intent) == 1 and len(intent[0][1]) == 2
        assert intent[0][0][0].label.startswith("classify_intent")
        assert intent[0][1][0]["messages"][-1]["role"] == "user"  # after the customer spoke


@pytest.mark.parametrize("path", TWO_SOPS, ids=lambda p: p.name.split(".")[0])
def test_the_preview_is_what_agent_s_sends(path):
    pairs, trace, _ = previewed_run(path, AgentSAgent)
    assert len(pairs) > 3
    for preview, sent, state in pairs:
        assert len(sent) == len(preview) == 2
        assert same(preview[0], sent[0]) and named(sent[0]) == "update_state"
        action = preview[1]
        if state == STATE:  # the tracked state did not change: the action request is exact
            assert same(action, sent[1])
        else:  # the first decision: the state call's reply replaced the state shown
            system = action.messages[0]["content"].replace(json.dumps(state), json.dumps(STATE))
            assert same(type(action)(action.label, [{"role": "system", "content": system},
                                                    *action.messages[1:]],
                                     action.functions, action.tool_choice), sent[1])
    assert sum(1 for _, _, state in pairs if state == STATE) >= 3


REACT_STEPS = [{"content": 'Thought: I need details.\nAction: ask_user\nAction Input: '
                            '{"question": "What is your account id?", "variables": []}'},
               {"content": 'Action: stop\nAction Input: {"reason": "user_request", '
                           '"message": "Bye."}'}]
SPA_STEPS = [tool("ask_user", {"question": "May I have your details?", "variables": []}),
             tool("stop_conversation", {"reason": "user_request", "message": "Bye."})]


@pytest.mark.parametrize("path", TWO_SOPS, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("agent_class", [ReactAgent, SpaAgent])
def test_the_preview_is_what_the_static_agents_send(path, agent_class):
    steps = iter(REACT_STEPS if agent_class is ReactAgent else SPA_STEPS)
    pairs, _, _ = previewed_run(path, agent_class, handler=lambda body: next(steps))
    assert len(pairs) == 2
    for preview, sent, _ in pairs:
        assert len(preview) == len(sent) == 1 and same(preview[0], sent[0])
    if agent_class is ReactAgent:
        assert "tools" not in pairs[0][1][0] and "text protocol" in pairs[0][0][0].label


def test_the_pane_shows_every_request_with_its_label():
    cs = CompiledSop(refund_sop())  # starts at a node with two success edges
    scenario = generate(cs, types=("correct",))[0]
    for agent_class, labels in [(SopAgent, ["DPA request", "choose_branch request"]),
                                (AgentSAgent, ["state-tracking request", "action request"]),
                                (MarcoAgent, ["DPA request"]),  # the customer has not spoken
                                (ReactAgent, ["ReAct request"])]:
        orchestrator = orchestrator_for(cs, scenario, agent_class(cs, client=object()))
        text = prompt_text(orchestrator)
        headers = [line for line in text.splitlines() if line.startswith("=== ")]
        assert [h[4:].split(" (")[0] for h in headers] == labels, agent_class
        assert text.count("[system]") == len(labels) and "{known_information}" not in text
