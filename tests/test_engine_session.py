"""The engine's simulation session (no Qt): stepping, step back and rewind with operator input,
replay of a stored trace, what a front end shows (snapshot, accepted values), the one event
renderer (chat and log styles) and the coverage counts of a batch."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from sopstudio.core.io import load_sop
from sopstudio.core.model import SOP, Edge, Node, Variable
from sopstudio.engine.compiled import EngineError
from sopstudio.engine.coverage import coverage_from_results
from sopstudio.engine.render import EventRenderer
from sopstudio.engine.session import (SimulationSession, accepted_values, journey_choices,
                                      nth_journey, typed_turn)
from sopstudio.engine.trace import Event, Trace

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sops"
LISTING = SAMPLES / "listing_blocked.sop.json"
INACTIVE = ("check_user", "ask_listing", "check_listing", "end_inactive")


def start(kind: str = "correct", journey=INACTIVE) -> SimulationSession:
    sop = load_sop(LISTING)
    _, choices = journey_choices(sop)
    index = next(i for i, c in enumerate(choices) if tuple(c.journey.nodes) == journey)
    return SimulationSession.start(sop, choices[index].journey, index, kind)


# -- stepping ---------------------------------------------------------------------------------
def test_stepping_to_the_end_walks_the_journey():
    session = start()
    first = session.step()
    assert first.type == "transition" and first.node == "check_user"
    trace = session.run()
    assert session.done and trace.outcome == "resolved"
    assert trace.path == list(INACTIVE)
    assert session.step() is None
    assert [e.index for e in session.delivered] == [e.index for e in trace.events]


def test_step_back_reruns_to_the_previous_event_with_the_operator_input():
    session = start()
    session.user_hook = lambda variables, text: "SLR9" if variables == ["seller_id"] else None
    for _ in range(6):
        session.step()
    before = [e.to_dict() for e in session.delivered]
    assert any(e.type == "user" and e.text == "SLR9" for e in session.delivered)
    session.user_hook = None  # a re-run must not ask again: the script remembers the answer
    back = session.step_back()
    assert [e.to_dict() for e in back] == before[:5]
    session.step()
    assert [e.to_dict() for e in session.delivered] == before


def test_a_tool_hook_edits_the_result_and_the_trace_says_so():
    session = start()
    session.tool_hook = lambda tool, args, result: {"error": "api_error"} \
        if tool == "check_user_status" else None
    trace = session.run()
    edited = next(e for e in trace.events if e.type == "tool_result")
    assert edited.result == {"error": "api_error"} and edited.operator
    snapshot = session.snapshot()
    assert "check_user" in snapshot["failed_nodes"] and snapshot["done"]


def test_reset_forgets_the_operator_script():
    session = start()
    session.type_ahead("SLR1")
    session.run()
    assert any(e.type == "user" and e.text == "SLR1" for e in session.trace.events)
    session.reset()
    session.run()
    assert not any(e.type == "user" and e.text == "SLR1" for e in session.trace.events)


def test_replay_gives_back_the_stored_run_without_an_agent():
    live = start().run()
    replay = SimulationSession.replay(load_sop(LISTING), Trace.from_dict(live.to_dict()))
    replay.run()
    assert [e.to_dict() for e in replay.delivered] == [e.to_dict() for e in live.events]


def test_missing_journey_or_scenario_is_an_engine_error():
    sop = load_sop(LISTING)
    with pytest.raises(EngineError, match="does not exist"):
        nth_journey(sop, 999)
    with pytest.raises(EngineError, match="has no failing-function scenario"):
        # with no tool on the journey there is nothing to fail
        plain = SOP(id="p", title="P", start="a", nodes=[Node(id="a"), Node(id="b", kind="end")],
                    edges=[Edge(id="e1", source="a", target="b")])
        SimulationSession.start(plain, nth_journey(plain, 0), 0, "failing-function")


def test_snapshot_has_the_prompt_of_the_current_node():
    session = start()
    session.step()
    snapshot = session.snapshot()
    assert snapshot["node"] == "check_user" and snapshot["events"] == 1
    assert snapshot["prompt"].startswith("=== what a guided DPA would be sent")
    assert "\n[system]\n" in snapshot["prompt"]


def test_typed_turn_reads_pairs_or_the_bare_value():
    assert typed_turn("LST1", ["listing_id"]).values == {"listing_id": "LST1"}
    pairs = typed_turn("a=1; b = two", ["a", "b"])
    assert pairs.values == {"a": "1", "b": "two"} and pairs.text == "a=1; b = two"
    assert typed_turn("hello", ["a", "b"]).values == {}


# -- accepted values --------------------------------------------------------------------------
def test_accepted_values_from_enum_and_from_conditions():
    sop = load_sop(SAMPLES / "telecom_troubleshooting.sop.json")
    assert sorted(accepted_values(sop, "ask_issue", "issue_type")) == ["mobile_data", "no_service"]
    plain = SOP(id="p", title="P", start="a", variables=[Variable(name="plan")],
                nodes=[Node(id="a", ask=["plan"]), Node(id="b", kind="end"),
                       Node(id="c", kind="end"), Node(id="d", kind="end")],
                edges=[Edge(id="e1", source="a", target="b", when="plan == 'gold'"),
                       Edge(id="e2", source="a", target="c", when="plan in ['silver', 'bronze']"),
                       Edge(id="e3", source="a", target="d", when="else")])
    assert accepted_values(plain, "a", "plan") == ["gold", "silver", "bronze"]
    assert accepted_values(plain, "b", "plan") == []


# -- the one renderer -------------------------------------------------------------------------
def test_end_line_shows_code_and_reason():
    event = {"type": "end", "node": "ask_issue", "outcome": "technical-issue",
             "code": "no-matching-edge",
             "text": "no branch of 'Classify the issue' accepts issue_type='yes'"}
    line = EventRenderer({"ask_issue": "Classify the issue"}).line(event)
    assert line == ("End: technical-issue at Classify the issue — [no-matching-edge] "
                    "no branch of 'Classify the issue' accepts issue_type='yes'")
    assert EventRenderer().line({"type": "end", "node": "x", "outcome": "resolved"}) == \
        "End: resolved at x"


def test_chat_and_log_styles_describe_every_event():
    events = [Event("transition", node="a", edge="e1"),
              Event("ask", node="a", text="Your id?"),
              Event("user", node="a", text="It's 7.", operator={"typed": True}),
              Event("tool_call", node="a", tool="t", arguments={"id": "7"}),
              Event("tool_result", node="a", tool="t", result={"error": "api_error"}),
              Event("guardrail", node="a", code="tool-not-in-node", text="Not here."),
              Event("note", node="a", text="live tool mocked"),
              Event("end", node="a", outcome="resolved")]
    chat = EventRenderer({"a": "Ask"}, "chat")
    assert [chat.line(e) for e in events] == [
        "→ Ask", "Agent: Your id?", "User (operator): It's 7.", 'Tool call t({"id": "7"})',
        "Result t → error api_error", "Guardrail [tool-not-in-node]: Not here.",
        "note: live tool mocked", "End: resolved at Ask"]
    log = EventRenderer(style="log")
    assert [log.line(e) for e in events] == [
        "-> a (edge e1)", "[a] agent: Your id?", "[a] user: It's 7.", "[a] call t({'id': '7'})",
        "[a] result t: {'error': 'api_error'}", "[a] guardrail tool-not-in-node: Not here.",
        "[a] note: live tool mocked", "end at a: resolved"]
    with pytest.raises(ValueError):
        EventRenderer(style="html")


# -- coverage ---------------------------------------------------------------------------------
def _result(outcome, expected, events, scenario_type="correct", failing=None, responses=None):
    trace = Trace(events=[Event(kind, node=node, index=i, **fields)
                          for i, (kind, node, fields) in enumerate(events)],
                  outcome=outcome, path=[e[1] for e in events if e[0] == "transition"])
    scenario = SimpleNamespace(type=scenario_type, expected={"outcome": expected},
                               failing=failing, responses=responses or {})
    return SimpleNamespace(trace=trace, scenario=scenario)


def test_coverage_counts_only_runs_that_missed_their_expectations():
    expected_failure = _result("technical-issue", "technical-issue", [
        ("transition", "check", {}),
        ("tool_result", "check", {"tool": "check_status", "result": {"error": "api_error"}}),
        ("end", "check", {"outcome": "technical-issue"})],
        scenario_type="failing-function", failing={"tool": "check_status"})
    missed = _result("technical-issue", "resolved", [
        ("transition", "ask", {}), ("end", "ask", {"outcome": "technical-issue"})])
    unexpected_error = _result("resolved", "resolved", [
        ("transition", "check", {}),
        ("tool_result", "check", {"tool": "check_status", "result": {"error": "timeout"}}),
        ("end", "ok", {"outcome": "resolved"})])
    coverage = coverage_from_results([expected_failure, missed, unexpected_error])
    assert coverage["runs"] == 3
    assert coverage["nodes"] == {"check": 2, "ask": 1}
    assert coverage["failed_nodes"] == {"ask": 1, "check": 1}
    assert coverage_from_results([expected_failure])["failed_nodes"] == {}


def test_prompt_pane_shows_the_guided_request_with_its_named_choice():
    from sopstudio.engine.session import prompt_text
    session = start()
    session.step()  # into check_user, which asks for seller_id first
    text = prompt_text(session.orchestrator)
    assert "===\n[system]\n" in text and "{known_information}" not in text
    assert "[tools]\nask_user" in text and "[tool_choice]\nask_user" in text
    assert "check_user_status" not in text.split("[tools]")[1]  # not legal before seller_id
