"""What the orchestrator lets a model-driven agent do: repeated tool calls are bounded per node
(failures and successes share the bound), a static agent has a per-run cap, and finish values
must be ones the node asks for."""

from __future__ import annotations

from sopstudio.engine.agents.base import Action, call, finish
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator, static_tool_cap
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

from helpers import LISTING_RESPONSES, LISTING_SEED


class Repeater:
    """A fake model-driven agent: always the same action (a runaway LLM)."""

    name, checks = "fake", []

    def __init__(self, action: Action, static: bool = False):
        self.action, self.static = action, static

    def next_action(self, ctx):
        return self.action


def orchestrate(agent, responses=None, **kwargs):
    cs = CompiledSop(listing_blocked())
    return Orchestrator(cs, agent, ScriptedUser(LISTING_SEED),
                        MockTools(cs.tools, responses or LISTING_RESPONSES), **kwargs)


def test_repeated_successful_call_ends_after_max_attempts():
    orch = orchestrate(Repeater(call("check_user_status", {"seller_id": "S1"})))
    trace = orch.run()
    node = orch.compiled.nodes[orch.sop.start].node
    assert len(trace.tool_trace) == node.attempts
    assert trace.outcome == "technical-issue"
    end = trace.events[-1]
    assert end.type == "end" and end.code == "attempts-exhausted"
    assert trace.events[-2].type == "say" and trace.events[-2].text == GRACE_MESSAGE


def test_failing_then_succeeding_calls_share_one_bound():
    responses = {"check_user_status": [{"error": "api_error"}, {"outputs": {"user_status":
                                                                            "active"}}]}
    orch = orchestrate(Repeater(call("check_user_status", {"seller_id": "S1"})), responses)
    trace = orch.run()
    results = [e for e in trace.events if e.type == "tool_result"]
    assert [e.attempt for e in results] == list(range(1, len(results) + 1))
    assert len(results) == orch.compiled.nodes["check_user"].node.attempts
    assert trace.outcome == "technical-issue"


def test_static_agent_has_a_per_run_tool_call_cap():
    agent = Repeater(call("check_user_status", {"seller_id": "S1"}), static=True)
    failing = {"check_user_status": [{"error": "api_error"}]}
    orch = orchestrate(agent, failing)
    trace = orch.run()
    cap = static_tool_cap(orch.sop)
    assert cap == 3 * len(orch.sop.tools) + 10
    assert len(trace.tool_trace) == cap
    assert trace.outcome == "technical-issue" and trace.events[-1].code == "tool-call-cap"
    assert len(trace.events) < 200  # far below max_events: the cap, not max_events, stopped it


def test_scripted_agent_unaffected_by_the_bound():
    trace = orchestrate(ScriptedAgent(CompiledSop(listing_blocked()))).run()
    assert trace.outcome == "resolved"


class FinishRouter:
    """Asks nothing, calls nothing: claims the tool's output on finish to route itself."""

    name, static, checks = "fake", False, []

    def next_action(self, ctx):
        return finish({"user_status": "active"})


def test_finish_values_outside_the_nodes_ask_are_rejected():
    orch = orchestrate(FinishRouter())
    trace = orch.run()
    guards = [e for e in trace.events if e.type == "guardrail"]
    assert guards and all(g.code == "value-not-askable" for g in guards)
    assert "user_status" in guards[0].text
    assert not trace.tool_trace and trace.outcome == "technical-issue"
    assert "user_status" not in trace.variables
    assert trace.path == ["check_user"]


class FinishAsked:
    name, static, checks = "fake", False, []

    def next_action(self, ctx):
        if ctx.last_result is None:
            return call("check_user_status", {"seller_id": "S1"})
        return finish({"seller_id": "S1"})


def test_finish_values_the_node_asks_are_accepted():
    trace = orchestrate(FinishAsked()).run()
    assert not [e for e in trace.events if e.type == "guardrail" and e.node == "check_user"]
    assert trace.path[:2] == ["check_user", "ask_listing"]
