"""Orchestrator semantics, the scripted agent and user, guardrail hook, overrides and replay."""

from __future__ import annotations

import json

from sopstudio.core.model import SOP
from sopstudio.engine.agents.base import ACTION_KINDS, Action, AgentError, call, finish, say
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator
from sopstudio.engine.orchestrator_replay import replay
from sopstudio.engine.tools import MockTools
from sopstudio.engine.trace import Trace
from sopstudio.engine.users import ScriptedUser, UserTurn

SEED = {"seller_id": "S1", "listing_id": "LST9"}
OK = {"check_user_status": [{"outputs": {"user_status": "active"}}],
      "check_listing_status": [{"outputs": {"listing_status": "inactive"}}]}


def make(responses=None, user=None, agent=None, sop=None, **kwargs):
    cs = CompiledSop(sop or listing_blocked())
    return Orchestrator(cs, agent or ScriptedAgent(cs), user or ScriptedUser(SEED),
                        MockTools(cs.tools, responses or OK), **kwargs)


def test_step_returns_one_event_at_a_time_until_the_end():
    orch = make()
    events = []
    while (event := orch.step()) is not None:
        events.append(event)
    assert [e.index for e in events] == list(range(len(events)))
    assert events[-1].type == "end" and events[-1].outcome == "resolved"
    assert orch.trace.path == ["check_user", "ask_listing", "check_listing", "done_inactive"]
    assert orch.trace.tool_trace == [
        {"tool": "check_user_status", "arguments": {"seller_id": "S1"}},
        {"tool": "check_listing_status", "arguments": {"listing_id": "LST9"}}]
    kinds = [m.action.split(":")[0] for m in orch.trace.memory]
    assert kinds == ["ask_user_input", "api_call", "ask_user_input", "api_call",
                     "message_to_user"]
    assert all(m.feedback == "success" for m in orch.trace.memory)


def test_knowledge_question_is_answered_then_the_ask_resumes():
    user = ScriptedUser(SEED, question="How do I find my listing ID?", question_at="listing_id")
    trace = make(user=user).run()
    texts = [(e.type, e.knowledge) for e in trace.events if e.type in ("say", "ask", "user")]
    i = texts.index(("say", "How do I find my listing ID?"))
    assert texts[i - 1][0] == "user" and texts[i + 1][0] == "ask"
    assert "Seller Hub" in trace.events[[e.type for e in trace.events].index("say")].text
    assert trace.outcome == "resolved"


def test_withheld_value_blocks_before_any_tool_needing_it():
    trace = make(user=ScriptedUser(SEED, withheld=["listing_id"])).run()
    assert trace.outcome == "blocked" and trace.end_node is None
    assert [c["tool"] for c in trace.tool_trace] == ["check_user_status"]


def test_failure_edge_loops_back_and_the_visit_bound_ends_gracefully():
    responses = dict(OK, check_listing_status=[{"error": "invalid_id"}])
    trace = make(responses).run()
    assert trace.outcome == "technical-issue"
    assert trace.path.count("ask_listing") == 3  # max_attempts entries, the 4th is refused
    assert trace.events[-2].text == GRACE_MESSAGE


def test_uncaught_error_is_retried_then_technical_issue():
    responses = dict(OK, check_user_status=[{"error": "api_error"}, {"error": "api_error"},
                                            {"outputs": {"user_status": "onboarding"}}])
    trace = make(responses).run()
    assert trace.outcome == "resolved" and trace.end_node == "done_onboarding"
    attempts = [e.attempt for e in trace.events if e.type == "tool_result"]
    assert attempts == [1, 2, 3]
    failed = make(dict(OK, check_user_status=[{"error": "api_error"}])).run()
    assert failed.outcome == "technical-issue" and len(failed.tool_trace) == 3
    assert [m.feedback for m in failed.memory if m.action.startswith("api_call")] == ["fail"] * 3


def test_branching_all_follows_every_true_edge_depth_first():
    sop = SOP.model_validate({"id": "all", "start": "a", "nodes": [
        {"id": "a", "branching": "all"}, {"id": "b"}, {"id": "x", "kind": "end", "outcome": "ox"},
        {"id": "y", "kind": "end", "outcome": "oy"}, {"id": "z", "kind": "end"}],
        "edges": [{"id": "ab", "source": "a", "target": "b", "when": "1 == 1"},
                  {"id": "az", "source": "a", "target": "z", "when": "1 == 2"},
                  {"id": "ay", "source": "a", "target": "y"},
                  {"id": "bx", "source": "b", "target": "x"}]})
    trace = make({}, sop=sop, user=ScriptedUser({})).run()
    assert trace.path == ["a", "b", "x", "y"] and trace.ends == ["x", "y"]
    assert trace.outcome == "oy"


class Rogue:
    """Calls a tool of another node, then misbehaves in the ways given."""

    name, static = "rogue", False

    def __init__(self, actions):
        self.actions = list(actions)

    def next_action(self, ctx):
        item = self.actions.pop(0) if self.actions else finish()
        if isinstance(item, Exception):
            raise item
        return item


def test_tool_outside_the_node_is_never_executed_and_retries_are_bounded():
    rogue = Rogue([call("create_ticket", {"listing_id": "X"}), "not an action",
                   AgentError("timed out", "timeout")])
    orch = make(agent=rogue)
    trace = orch.run()
    guard = [e for e in trace.events if e.type == "guardrail"]
    assert [e.code for e in guard] == ["tool-not-in-node", "malformed-output", "timeout"]
    assert trace.tool_trace == [] and orch.tools.calls == {}
    assert trace.outcome == "technical-issue"


def test_guardrail_hook_rejection_reflects_to_the_agent_then_accepts():
    seen = []

    def no_shouting(action, ctx):
        seen.append(list(ctx.reflections))
        return ("shouting", "Do not shout.") if action.text and action.text.isupper() else None

    rogue = Rogue([say("HELLO"), say("hello")])
    trace = make(agent=rogue, checks=[no_shouting]).run()
    assert [e.code for e in trace.events if e.type == "guardrail"] == ["shouting"]
    assert seen[1] == ["Do not shout."]
    assert [e.text for e in trace.events if e.type == "say"][0] == "hello"


def test_operator_overrides_tool_results_and_types_as_the_user():
    def edit(tool, arguments, result):
        if tool == "check_listing_status":
            return {"outputs": {"listing_status": "active"}}
        return None

    cs = CompiledSop(listing_blocked())
    orch = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser(SEED),
                        MockTools(cs.tools, OK, override=edit))
    orch.push_user_input(UserTurn("it's S7", values={"seller_id": "S7"}))
    trace = orch.run()
    assert trace.end_node == "done_active"
    result = next(e for e in trace.events if e.tool == "check_listing_status" and e.result)
    assert result.operator == {"original": {"outputs": {"listing_status": "inactive"}}}
    first_user = next(e for e in trace.events if e.type == "user")
    assert first_user.operator == {"typed": True} and trace.tool_trace[0]["arguments"] == {
        "seller_id": "S7"}


def test_dict_override_forces_an_error():
    cs = CompiledSop(listing_blocked())
    tools = MockTools(cs.tools, OK, override={"check_user_status": {"error": "api_error"}})
    trace = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser(SEED), tools).run()
    assert trace.outcome == "technical-issue"


def test_turn_limit():
    trace = make(max_turns=3).run()
    assert trace.outcome == "turn-limit" and trace.turns == 4  # ask + reply straddle the limit
    assert [e.type for e in trace.events][-3:] == ["ask", "user", "end"]


def test_trace_round_trips_and_replay_reproduces_it_exactly():
    user = ScriptedUser(SEED, question="how to find listing id", question_at="listing_id",
                        opening="Hi, my listing is blocked")
    responses = dict(OK, check_listing_status=[{"error": "invalid_id"},
                                               {"outputs": {"listing_status": "blocked"}}],
                     check_block_reason=[{"outputs": {"block_reason": "policy", "sds_score": 9}}])
    rogue_then_scripted = make(responses, user=user, seed=5, checks=[
        lambda a, c: "no" if a.kind == "say" and a.text == "Listing inactive." else None])
    original = rogue_then_scripted.run()
    data = json.loads(json.dumps(original.to_dict()))
    assert Trace.from_dict(data).to_dict() == data
    again = replay(CompiledSop(listing_blocked()), data)
    assert again.to_dict() == data
    assert original.end_node == "done_ticket"


def test_replay_of_guardrail_and_agent_errors():
    rogue = Rogue([call("create_ticket", {}), AgentError("bad json"), say("ok"), finish()])
    original = make(agent=rogue).run()
    data = json.loads(json.dumps(original.to_dict()))
    assert replay(CompiledSop(listing_blocked()), data).to_dict() == data


def test_static_agent_may_call_any_tool_and_names_its_end():
    class Spa:
        name, static = "spa-like", True

        def __init__(self):
            self.plan = [call("create_ticket", {"listing_id": "L"}),
                         Action("finish", end_node="done_ticket")]

        def next_action(self, ctx):
            assert len(ctx.tools) == 4
            return self.plan.pop(0)

    trace = make(agent=Spa()).run()
    assert trace.tool_trace[0]["tool"] == "create_ticket"
    assert trace.outcome == "resolved" and trace.end_node == "done_ticket"


def test_every_action_kind_has_one_handler():
    compiled = CompiledSop(listing_blocked())
    orch = Orchestrator(compiled, ScriptedAgent(compiled), ScriptedUser({}))
    assert sorted(orch.handlers) == sorted(ACTION_KINDS)
    assert all(callable(handler) for handler in orch.handlers.values())
