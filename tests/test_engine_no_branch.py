"""A finished node none of whose branches accepts the values: the end says why (code, text)."""

from __future__ import annotations

from pathlib import Path

from sopstudio.core.io import load_sop
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.orchestrator import GRACE_MESSAGE, Orchestrator
from sopstudio.engine.orchestrator import NO_MATCHING_EDGE, no_branch_text
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

SAMPLE = Path(__file__).resolve().parents[1] / "sample_sops" / "telecom_troubleshooting.sop.json"


def _run_with_issue(issue_type: str):
    cs = CompiledSop(load_sop(SAMPLE))
    user = ScriptedUser({"phone_number": "+15550100", "issue_type": issue_type})
    orch = Orchestrator(cs, ScriptedAgent(cs), user, MockTools(cs.tools))
    return orch.run()


def test_unaccepted_answer_ends_technical_issue_with_a_reason():
    trace = _run_with_issue("yes")
    end = trace.events[-1]
    assert trace.outcome == "technical-issue"
    assert end.type == "end" and end.code == NO_MATCHING_EDGE
    assert end.text == "no branch of 'Classify the issue' accepts issue_type='yes'"
    assert end.node == "ask_issue"
    # the customer still hears the grace message
    assert trace.events[-2].type == "say" and trace.events[-2].text == GRACE_MESSAGE


def test_accepted_answer_does_not_take_that_path():
    trace = _run_with_issue("no_service")
    assert "check_status_bar" in trace.path
    assert all(e.code != NO_MATCHING_EDGE for e in trace.events if e.type == "end")


def test_text_marks_unset_and_dotted_names():
    cs = CompiledSop(load_sop(SAMPLE))
    cnode = cs.nodes["ask_issue"]
    assert no_branch_text(cnode, {}) == "no branch of 'Classify the issue' accepts issue_type unset"
