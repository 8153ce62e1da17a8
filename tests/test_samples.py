"""The six sample SOPs in sample_sops/: they load strictly, round-trip, are well-formed and validate."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from sopstudio.core import io
from sopstudio.core.model import SOP

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_sops"
NAMES = ["listing_blocked", "email_update", "brand_approval", "loan_application",
         "telecom_troubleshooting", "patient_intake"]
PATHS = [SAMPLE_DIR / f"{name}.sop.json" for name in NAMES]


def _load(path: Path) -> SOP:
    return io.load_sop(path, strict=True)


def _cycles(sop: SOP) -> list[list[str]]:
    graph = nx.DiGraph()
    graph.add_edges_from((edge.source, edge.target) for edge in sop.edges)
    return list(nx.simple_cycles(graph))


def test_the_six_samples_exist():
    for path in PATHS:
        assert path.is_file(), path


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_sample_loads_strictly_with_a_sane_size(path):
    sop = _load(path)
    assert 8 <= len(sop.nodes) <= 30
    assert sop.description.strip() and sop.title.strip()
    assert sop.start is not None and sop.node(sop.start) is not None
    assert sop.knowledge and all(k.question.strip() and k.answer.strip() for k in sop.knowledge)


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_sample_round_trips(path):
    sop = _load(path)
    text = io.dumps(sop)
    again = io.loads(text, strict=True)
    assert again == sop
    assert io.dumps(again) == text  # saving is stable
    # Every value in the file survives: the dump only drops fields that equal their defaults.
    assert io.loads(json.dumps(json.loads(path.read_text(encoding="utf-8")))) == again


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_sample_tools_are_complete(path):
    sop = _load(path)
    assert sop.tools
    assert any(out.enum for tool in sop.tools for out in tool.outputs)
    for tool in sop.tools:
        assert tool.description and tool.method and tool.url.startswith("https://")
        assert tool.errors, tool.name
        properties = tool.parameters["properties"]
        assert tool.parameters["type"] == "object" and properties
        assert set(tool.required_parameters()) <= set(properties), tool.name
        assert tool.outputs, tool.name
    used = {name for node in sop.nodes for name in node.tools}
    assert used == {tool.name for tool in sop.tools}


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_sample_nodes_and_variables_are_described(path):
    sop = _load(path)
    for variable in sop.variables:
        assert variable.description, variable.name
        assert variable.source in ("user", "set")
    asked = {name for node in sop.nodes for name in node.ask}
    assert asked == {v.name for v in sop.variables if v.source == "user"}
    assigned = {name for node in sop.nodes for name in node.set}
    assert assigned == {v.name for v in sop.variables if v.source == "set"}
    ends = [node for node in sop.nodes if node.kind == "end"]
    assert len(ends) >= 2
    for node in sop.nodes:
        assert node.title, node.id
        if node.kind == "end":
            assert node.say and node.outcome and not sop.out_edges(node.id), node.id
        else:
            assert node.instructions and sop.out_edges(node.id), node.id
        assert set(node.tool_when) <= set(node.tools)


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_equality_conditions_use_enum_values(path):
    """`output == 'value'` edges name a value the output can really take (catches typos)."""
    sop = _load(path)
    enums = {out.name: out.enum for tool in sop.tools for out in tool.outputs if out.enum}
    enums.update({v.name: v.enum for v in sop.variables if v.enum})
    checked = 0
    for edge in sop.edges:
        parts = (edge.when or "").split(" == ")
        if edge.on == "success" and len(parts) == 2 and parts[0].strip() in enums:
            assert parts[1].strip().strip("'") in enums[parts[0].strip()], edge.id
            checked += 1
    assert checked >= 2


def test_most_samples_bound_their_retries():
    """At least 4 samples have failure edges, and every cycle in every sample has a bounded node."""
    with_failures = 0
    for path in PATHS:
        sop = _load(path)
        for cycle in _cycles(sop):
            assert any(sop.node(node_id).max_attempts for node_id in cycle), (path.name, cycle)
        failure_edges = [edge for edge in sop.edges if edge.on == "failure"]
        for edge in failure_edges:
            assert edge.when and "error" in edge.when, (path.name, edge.id)
        with_failures += bool(failure_edges)
    assert with_failures >= 4


def test_patient_intake_scores_come_from_assignments():
    from sopstudio.core import expr
    sop = _load(SAMPLE_DIR / "patient_intake.sop.json")
    lifestyle = sop.node("lifestyle_risk").set["lifestyle_score"]
    # SOP-Bench sample P100002: Current smoker (2), Moderate alcohol (2), exercise 1-2 times (1).
    score = expr.evaluate(lifestyle, {"smoking_index": 2, "alcohol_index": 2, "exercise_index": 1})
    assert score == 5
    branches = {edge.target: edge.when for edge in sop.out_edges("lifestyle_risk")}
    assert expr.evaluate(branches["refer_wellness"], {"lifestyle_score": score}) is True
    assert expr.evaluate(branches["clinical_risk"], {"lifestyle_score": score}) is False
    overall = sop.node("clinical_risk").set["overall_risk_score"]
    values = {"lifestyle_score": score, "surgical_score": 1, "chronic_score": 2, "comorbidity_score": 0}
    assert expr.evaluate(overall, values) == 8
    high = next(e for e in sop.out_edges("clinical_risk") if e.target == "clinical_review")
    assert expr.evaluate(high.when, {"overall_risk_score": 8}) is True


@pytest.mark.parametrize("path", PATHS, ids=NAMES)
def test_sample_validates_without_errors(path):
    from sopstudio.core import validate
    issues = validate.validate(_load(path))
    errors = [issue for issue in issues if issue.severity == validate.ERROR]
    assert errors == []
