"""JourneyBench, DOT and Mermaid carry failure edges, attempt limits and tools' errors, so our
own round trip validates; labels stay the author's, conditions travel beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.core.io import load_sop
from sopstudio.core.validate import ERROR, validate
from sopstudio.formats import export_sop, import_text
from sopstudio.formats.graphviz_io import parse_dot

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "sample_sops").glob("*.sop.json"))
LISTING = Path(__file__).resolve().parents[1] / "sample_sops" / "listing_blocked.sop.json"


def errors(sop) -> list:
    return [(i.code, i.message) for i in validate(sop) if i.severity == ERROR]


def shape(sop) -> tuple:
    return (len(sop.nodes), len(sop.edges), sorted(t.name for t in sop.tools),
            sorted((e.source, e.target, e.on) for e in sop.edges))


@pytest.mark.parametrize("fmt", ["journeybench", "dot", "mermaid"])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_round_trip_validates_with_same_graph_and_tools(fmt, path):
    sop = load_sop(path)
    again = import_text(export_sop(sop, fmt), fmt).sop
    assert errors(again) == []
    assert shape(again) == shape(sop)
    assert {n.id: n.max_attempts for n in again.nodes} == {n.id: n.max_attempts
                                                            for n in sop.nodes}


def test_journeybench_extra_fields_and_tool_details():
    sop = load_sop(LISTING)
    data = json.loads(export_sop(sop, "journeybench"))
    node = next(n for n in data["nodes"] if n["id"] == "check_user")
    assert node["maxAttempts"] == 3
    failure = [p for p in node["responsePathways"] if p.get("onFailure")]
    assert failure == [{"conditions": [{"algebraicExpression": "{error} == 'invalid_id'"}],
                        "nextNodeId": "check_user", "onFailure": True, "id": "e3",
                        "label": "invalid seller id"}]
    assert node["tools"][0]["errors"] == ["api_error", "invalid_id"]
    again = import_text(json.dumps(data), "journeybench").sop
    ticket = again.tool("create_reactivation_ticket")
    assert ticket.method == "POST" and ticket.errors == ["api_error", "duplicate_ticket"]
    edge = next(e for e in again.edges if e.source == "check_user" and e.on == "failure")
    assert edge.when == "error == 'invalid_id'"


def test_dot_writes_condition_label_tooltip_and_failure_marks():
    sop = load_sop(LISTING)
    graph = parse_dot(export_sop(sop, "dot"))
    edge = graph.get_edge("check_user", "check_user")
    assert edge.attr["style"] == "dashed" and edge.attr["on"] == "failure"
    assert edge.attr["label"] == "invalid seller id"  # the author's label, shown
    assert edge.attr["tooltip"] == "error == 'invalid_id'"
    assert graph.get_node("check_user").attr["tools"] == "check_user_status"
    again = import_text(export_sop(sop, "dot"), "dot").sop
    whens = {(e.source, e.target): e.when for e in again.edges}
    assert whens[("check_user", "end_onboarding")] == "user_status == 'onboarding'"
    assert again.node("check_reactivation").tools == ["check_reactivation_eligibility",
                                                       "create_reactivation_ticket"]


def test_mermaid_dotted_links_are_failures():
    text = export_sop(load_sop(LISTING), "mermaid")
    assert "check_user -.->|\"invalid seller id\"| check_user" in text
    again = import_text(text, "mermaid").sop
    assert [(e.source, e.target) for e in again.edges if e.on == "failure"] == [
        ("check_user", "check_user"), ("check_listing", "ask_listing")]


def test_dot_label_that_is_an_expression_beats_the_choice_heuristic():
    sop = import_text('digraph { c [label="Check"]; c -> a [label="score >= 5"]; '
                      'c -> b [label="score < 5"]; c -> d [label="on failure", on=failure]; }',
                      "dot").sop
    whens = {e.target: (e.when, e.on) for e in sop.edges}
    assert whens == {"a": ("score >= 5", "success"), "b": ("score < 5", "success"),
                     "d": (None, "failure")}
    plain = import_text('digraph { q [shape=diamond, label="Adult?"]; q -> a [label=Yes]; '
                        'q -> b [label=No]; }', "dot").sop
    assert {e.when for e in plain.edges} == {"adult == true", "adult == false"}
