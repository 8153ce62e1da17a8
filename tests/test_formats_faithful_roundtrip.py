"""Round trips keep what the format can carry (issue 13 item 2): DOT, Mermaid and JourneyBench
exports of our SOPs import back identical; pseudocode export -> import -> export is a fixpoint
for every sample and every import of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.core.io import load_sop
from sopstudio.core.journeys import JourneyGraph
from sopstudio.formats import export_sop, import_text
from sopstudio.formats.graphviz_io import parse_dot

from helpers import sop_of

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "sample_sops").glob("*.sop.json"))
ids = {"ids": lambda p: p.name.split(".")[0]}


def dump(sop) -> dict:
    return sop.model_dump(mode="json")


@pytest.mark.parametrize("fmt", ["dot", "mermaid", "journeybench"])
@pytest.mark.parametrize("path", SAMPLES, **ids)
def test_export_then_import_is_identical(fmt, path):
    sop = load_sop(path)
    assert dump(import_text(export_sop(sop, fmt), fmt).sop) == dump(sop)


def _labelled() -> object:
    """Edge ids that are not e1, e2...; author labels beside conditions; typed variables."""
    return sop_of(
        [{"id": "a", "title": "Speed test", "ask": ["speed"]},
         {"id": "b", "title": "Fast", "kind": "end", "outcome": "fast"},
         {"id": "c", "title": "Slow", "kind": "end", "outcome": "slow"}],
        [{"id": "go-fast", "source": "a", "target": "b", "when": "speed > 100",
          "label": "Yes (speed excellent)"},
         {"id": "go-slow", "source": "a", "target": "c", "when": "else", "label": "otherwise"}],
        variables=[{"name": "speed", "type": "number", "description": "measured Mbit/s"}])


def test_dot_shows_the_author_label_and_keeps_ids_and_variable_types():
    sop = _labelled()
    text = export_sop(sop, "dot")
    graph = parse_dot(text)  # kept alive: its edges' attributes live in the graph
    edge = next(e for e in graph.edges() if e.attr["id"] == "go-fast")
    assert edge.attr["label"] == "Yes (speed excellent)" and edge.attr["tooltip"] == "speed > 100"
    again = import_text(text, "dot").sop
    assert [(e.id, e.label, e.when) for e in again.edges] == [
        ("go-fast", "Yes (speed excellent)", "speed > 100"), ("go-slow", "otherwise", "else")]
    assert again.variables[0].type == "number"
    assert again.variables[0].description == "measured Mbit/s"


def test_mermaid_keeps_real_node_ids_that_mermaid_cannot_spell():
    sop = sop_of([{"id": "check-user"}, {"id": "end", "kind": "end"}],
                 [{"id": "e1", "source": "check-user", "target": "end"}], start="check-user")
    text = export_sop(sop, "mermaid")
    assert "check_user" in text and "--> end_2" in text  # Mermaid's spelling
    assert dump(import_text(text, "mermaid").sop) == dump(sop)


def test_journeybench_writes_braces_and_keeps_each_outcome():
    sop = _labelled()
    data = json.loads(export_sop(sop, "journeybench"))
    path = data["nodes"][0]["responsePathways"][0]
    assert path["conditions"] == [{"algebraicExpression": "{speed} > 100"}]
    assert [n.get("outcome") for n in data["nodes"]] == [None, "fast", "slow"]
    again = import_text(json.dumps(data), "journeybench").sop
    assert [n.outcome for n in again.nodes] == [None, "fast", "slow"]
    assert dump(again) == dump(sop)


def test_journeybench_keeps_follow_every_branch_and_knowledge():
    sop = sop_of([{"id": "a", "branching": "all"}, {"id": "b", "kind": "end"},
                  {"id": "c", "kind": "end"}],
                 [{"id": "e1", "source": "a", "target": "b"},
                  {"id": "e2", "source": "a", "target": "c"}])
    sop.knowledge = [type(sop).model_fields["knowledge"].annotation.__args__[0](
        question="Where?", answer="Here.")]
    again = import_text(export_sop(sop, "journeybench"), "journeybench").sop
    assert again.node("a").branching == "all"
    assert [(k.question, k.answer) for k in again.knowledge] == [("Where?", "Here.")]


VIAS = ["json", "dot", "mermaid", "journeybench", "sop-text", "text"]


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("path", SAMPLES, **ids)
def test_pseudocode_export_import_export_is_a_fixpoint(path, via):
    sop = load_sop(path)
    if via != "json":
        sop = import_text(export_sop(sop, via), via).sop
    text = export_sop(sop, "text")
    again = import_text(text, "text").sop
    assert export_sop(again, "text") == text
    assert JourneyGraph(again).count() == JourneyGraph(sop).count()
    assert sorted(t.name for t in again.tools) == sorted(t.name for t in sop.tools)


def test_pseudocode_keeps_a_literal_condition_and_invents_no_tool():
    sop = sop_of(
        [{"id": "a", "ask": ["n"], "title": "Start"},
         {"id": "b", "title": "Look at the status bar and check if service is restored"},
         {"id": "c", "kind": "end", "outcome": "x", "say": "bye"},
         {"id": "d", "kind": "end", "outcome": "y", "say": "no"}],
        [{"id": "e1", "source": "a", "target": "b", "when": "true"},
         {"id": "e2", "source": "b", "target": "c", "when": "n > 3"},
         {"id": "e3", "source": "b", "target": "d", "when": "else"}],
        variables=[{"name": "n", "type": "integer"}])
    again = import_text(export_sop(sop, "text"), "text").sop
    assert [(e.source, e.target, e.when) for e in again.edges] == [
        ("a", "b", "true"), ("b", "c", "n > 3"), ("b", "d", "else")]
    assert again.tools == [] and again.node("b").title == sop.node("b").title
    assert JourneyGraph(again).count() == JourneyGraph(sop).count() == 2


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_titles_and_labels_edited_in_another_editor_win_over_the_carried_data(fmt):
    sop = _labelled()
    drawn = {"dot": [('label="Speed test"', 'label="Measure the speed"'),
                     ('label="Yes (speed excellent)"', 'label="Very fast"')],
             "mermaid": [('{"Speed test"}', '{"Measure the speed"}'),
                         ('|"Yes (speed excellent)"|', '|"Very fast"|')]}[fmt]
    text = export_sop(sop, fmt)
    for old, new in drawn:  # only the drawing changes, not the carried data
        assert text.count(old) == 1
        text = text.replace(old, new)
    again = import_text(text, fmt).sop
    assert again.node("a").title == "Measure the speed"
    assert again.edges[0].label == "Very fast" and again.edges[0].when == "speed > 100"
