"""Importers keep the meaning of third-party flowcharts and graphs (issue 13 item 1).

Every input here is written by the test itself: a JourneyBench graph whose tool echoes back a
value it takes, a DOT decision with qualified Yes labels, a box with two unlabelled exits, and
the same end step titled the same way in each format."""

from __future__ import annotations

import json

from sopstudio.core.validate import validate
from sopstudio.engine.batch import run_batch
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.scenarios import generate
from sopstudio.formats import export_sop, import_text

from helpers import sop_of


def problems(sop):
    return [(i.code, i.message) for i in validate(sop) if i.severity == "error"]


def bench(sop):
    cs = CompiledSop(sop)
    return run_batch(cs, generate(cs), "scripted", workers=1)


def _echoing_graph() -> str:
    """Node 1's tool takes incidentType and also returns it; branches read it."""
    tool = {"name": "recordIncident", "method": "POST", "url": "https://x/incidents",
            "extractVars": [{"variableName": "incidentType", "type": "string",
                             "description": "what went wrong"}],
            "responseData": [{"name": "incidentType",
                              "context": "Must be one of: 'outage', 'billing'"}]}
    pathways = [{"conditions": [{"algebraicExpression": "{incidentType} == 'outage'"}],
                 "nextNodeId": "2"},
                {"conditions": [{"algebraicExpression": "{incidentType} == 'billing'"}],
                 "nextNodeId": "3"}]
    return json.dumps({"title": "Incidents", "nodes": [
        {"id": "1", "task_name": "Record incident", "task_description": "", "steps": [],
         "tools": [tool], "responsePathways": pathways},
        {"id": "2", "task_name": "Transfer to human agent", "steps": [], "tools": [],
         "responsePathways": []},
        {"id": "3", "task_name": "Close ticket", "steps": [], "tools": [],
         "responsePathways": []}]})


def test_journeybench_value_a_tool_takes_and_returns_is_asked_in_its_node():
    result = import_text(_echoing_graph(), "journeybench")
    sop = result.sop
    assert sop.node("1").ask == ["incidentType"]
    assert [(v.name, v.description) for v in sop.variables] == [("incidentType",
                                                                  "what went wrong")]
    assert any("'incidentType' is asked there" in note for note in result.notes)
    assert problems(sop) == []
    assert bench(sop).metrics["overall"]["tsr"] == 1.0


def test_journeybench_value_provided_earlier_is_not_asked_again():
    data = json.loads(_echoing_graph())
    data["nodes"][0]["id"] = "4"
    first = {"id": "1", "task_name": "Look up", "steps": [], "responsePathways": [
        {"conditions": [], "nextNodeId": "4"}],
        "tools": [{"name": "lookup", "extractVars": [],
                   "responseData": [{"name": "incidentType", "context": "the kind"}]}]}
    data["nodes"].insert(0, first)
    sop = import_text(json.dumps(data), "journeybench").sop
    assert sop.node("4").ask == [] and problems(sop) == []


QUALIFIED = """digraph speed {
  start [label="Run a speed test"];
  check [label="Is the speed excellent?", shape=diamond];
  start -> check;
  check -> done [label="Yes (speed excellent)"];
  check -> tune [label="Yes (not excellent)"];
  check -> fix [label="No"];
  tune -> done2; fix -> done3;
  done [label="Transfer to human agent"]; done2 [label="Tuned"]; done3 [label="Fixed"];
}"""


def test_dot_qualified_yes_labels_become_distinct_answers_with_the_labels_kept():
    sop = import_text(QUALIFIED, "dot").sop
    exits = sop.out_edges("check")
    assert [e.label for e in exits] == ["Yes (speed excellent)", "Yes (not excellent)", "No"]
    assert len({e.when for e in exits}) == 3
    variable = next(v for v in sop.variables if v.name == sop.node("check").ask[0])
    assert variable.enum == ["Yes (speed excellent)", "Yes (not excellent)", "No"]
    assert problems(sop) == []
    batch = bench(sop)
    assert batch.metrics["overall"]["tsr"] == 1.0
    reached = {t.end_node for t in batch.traces} - {None}  # None: runs blocked on purpose
    assert reached == {"done", "done2", "done3"}  # every branch is taken by some run


def test_plain_yes_no_stays_a_boolean():
    sop = import_text('digraph { q [shape=diamond]; q -> a [label="Yes"]; '
                      'q -> b [label="no"]; }', "dot").sop
    assert sorted(e.when for e in sop.out_edges("q")) == ["q == false", "q == true"]
    yes_or_default = import_text('digraph { q [shape=diamond]; q -> a [label="Yes"]; q -> b; }',
                                 "dot").sop
    assert [e.when for e in yes_or_default.out_edges("q")] == ["q == true", "else"]


def test_unlabelled_exits_are_a_question_and_a_run_ends_once():
    text = ('digraph { s [label="Diagnose"]; s -> a; s -> b; '
            'a [label="Reset modem"]; b [label="Replace cable"]; }')
    result = import_text(text, "dot")
    sop = result.sop
    assert sop.node("s").branching == "first" and len(sop.node("s").ask) == 1
    assert problems(sop) == []
    batch = bench(sop)
    assert batch.metrics["overall"]["tsr"] == 1.0
    assert all(len(trace.ends) <= 1 for trace in batch.traces)  # never down both branches
    assert {t.end_node for t in batch.traces} - {None} == {"a", "b"}


def test_follow_every_branch_survives_only_when_our_export_says_so():
    sop = sop_of([{"id": "s", "branching": "all"}, {"id": "a", "kind": "end"},
                  {"id": "b", "kind": "end"}],
                 [{"id": "e1", "source": "s", "target": "a"},
                  {"id": "e2", "source": "s", "target": "b"}], start="s")
    again = import_text(export_sop(sop, "dot"), "dot").sop
    assert again.node("s").branching == "all"
    assert [e.when for e in again.out_edges("s")] == [None, None]


def test_outcome_names_are_derived_one_way_in_every_importer():
    title = "Transfer to human agent"
    dot = import_text(f'digraph {{ a -> b; b [label="{title}"]; }}', "dot").sop
    mermaid = import_text(f"flowchart TD\n  a --> b[{title}]\n", "mermaid").sop
    journey = import_text(_echoing_graph(), "journeybench").sop
    outcomes = {dot.node("b").outcome, mermaid.node("b").outcome, journey.node("2").outcome}
    assert outcomes == {"transfer_to_human_agent"}


REFERENCE_DOT = """digraph Support {
  start [shape=oval, label="Start"];
  check [label="Step 3.1: Verify network service"];
  other [label="Run the network procedure first", shape=box, style="filled,dashed"];
  retry [label="Ask the user to retry"];
  ok [shape=oval, label="Resolved"];
  start -> check;
  check -> other [style=dashed, label="Follow the network procedure"];
  check -> retry [label="After the network procedure confirms service"];
  retry -> ok;
}"""


def test_a_dashed_reference_runs_before_the_after_exit_instead_of_ending_the_chart():
    result = import_text(REFERENCE_DOT, "dot")
    sop = result.sop
    assert sop.node("other").kind == "task"  # not an end: the chart goes on after it
    assert [(e.source, e.target) for e in sop.edges] == [
        ("start", "check"), ("check", "other"), ("other", "retry"), ("retry", "ok")]
    assert sop.node("check").ask == []  # no longer a question: one way on
    assert [e.label for e in sop.out_edges("other")] == [
        "After the network procedure confirms service"]
    assert any("'other'" in n and "subflow" in n for n in result.notes)
    assert problems(sop) == []
    batch = bench(sop)
    assert batch.metrics["overall"]["tsr"] == 1.0
    assert {t.end_node for t in batch.traces} == {"ok"}


def test_a_reference_without_an_after_exit_stays_an_end_with_a_note():
    text = ('digraph { a -> b [label="Yes"]; a -> r [label="No", style=dashed]; '
            'a [shape=diamond, label="Works?"]; r [label="Run procedure X"]; }')
    result = import_text(text, "dot")
    assert result.sop.node("r").kind == "end"
    assert any("'r'" in n and "end step" in n for n in result.notes)


def test_a_mermaid_subroutine_reference_is_sequenced_like_a_dashed_box():
    text = """flowchart TD
    A[Check service] -.->|Follow path 1| R[[Run path 1 first]]
    A -->|After path 1 is done| B[Retest]
    B --> C([Resolved])
"""
    sop = import_text(text, "mermaid").sop
    assert [(e.source, e.target, e.on) for e in sop.edges] == [
        ("A", "R", "success"), ("R", "B", "success"), ("B", "C", "success")]
    assert problems(sop) == []


def test_our_own_export_of_a_dashed_failure_edge_is_not_a_reference():
    sop = sop_of([{"id": "s", "tools": []}, {"id": "ok", "kind": "end"},
                  {"id": "bad", "kind": "end"}],
                 [{"id": "e1", "source": "s", "target": "ok"},
                  {"id": "e2", "source": "s", "target": "bad", "on": "failure"}], start="s")
    for fmt in ("dot", "mermaid"):
        again = import_text(export_sop(sop, fmt), fmt).sop
        assert again.node("bad").kind == "end"
        assert [e.on for e in again.edges] == ["success", "failure"]
