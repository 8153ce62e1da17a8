"""JourneyBench JSON and tool-spec (SOP-Bench toolSpec, OpenAI function) import and export."""

from __future__ import annotations

import json

import pytest

from sopstudio.core import validate as validate_mod
from sopstudio.formats import export_sop, import_file, import_text
from sopstudio.formats.journeybench import translate

from helpers import FORMATS


def errors(sop):
    return [(i.code, i.message) for i in validate_mod.validate(sop) if i.severity == "error"]


@pytest.mark.parametrize("source, expected", [
    ("{riskLevel} == 'acceptable'", "riskLevel == 'acceptable'"),
    ("{a} >= 720 && {b} == '{not a name}'", "a >= 720 && b == '{not a name}'"),
    ("{x}   ==  True", "x == True")])
def test_translate_braces_to_names_outside_strings(source, expected):
    assert translate(source) == expected


def test_journeybench_graph_import():
    result = import_file(FORMATS / "journeybench_loan.json")
    sop = result.sop
    assert result.format == "journeybench" and sop.title == "Loan Processing"
    assert sop.start == "1" and [n.id for n in sop.nodes] == ["1", "5", "7", "8"]
    risk = sop.node("5")
    assert risk.title == "Risk Assessment" and len(risk.steps) == 2
    assert risk.tools == ["risk_evaluation", "credit_limit_check"]
    assert risk.tool_when == {"credit_limit_check": "riskLevel == 'acceptable'"}
    assert risk.ask == ["financialStatus"]
    tool = sop.tool("risk_evaluation")
    assert (tool.method, tool.url) == ("POST", "https://api.risk.com/assess")
    assert tool.required_parameters() == ["financialStatus"]
    assert tool.outputs[0].name == "riskLevel" and tool.outputs[0].enum == ["acceptable", "high"]
    assert sop.tool("credit_limit_check").outputs[0].type == "number"
    assert sop.variable("financialStatus").enum == ["Good", "Fair", "Poor"]
    edges = {(e.source, e.target): (e.when, e.label) for e in sop.edges}
    assert edges[("5", "7")] == ("riskLevel == 'acceptable'", "acceptable risk")
    assert edges[("1", "8")] == ("IdentityStatus == 'invalid'", "identity invalid")
    assert [n.kind for n in sop.nodes] == ["task", "task", "end", "end"]
    assert any("renamed 'risk_evaluation'" in note for note in result.notes)
    assert errors(sop) == []


def test_journeybench_single_node_definition_a3():
    node = json.loads((FORMATS / "journeybench_loan.json").read_text())["nodes"][1]
    result = import_text(json.dumps(node))
    assert result.sop.node("5").title == "Risk Assessment"
    assert {n.id for n in result.sop.nodes} == {"5", "7", "8"}  # missing targets become ends
    assert any("not defined" in note for note in result.notes)


def test_journeybench_export_shape_and_reimport():
    sop = import_file(FORMATS / "journeybench_loan.json").sop
    data = json.loads(export_sop(sop, "journeybench"))
    # the format's keys, then our extensions (JourneyBench readers ignore them)
    assert set(data) == {"title", "description", "nodes", "edges", "id", "start", "knowledge",
                         "variables", "edgeOrder"}
    node = data["nodes"][1]
    assert node["task_name"] == "Risk Assessment"
    path = node["responsePathways"][0]
    assert path["conditions"] == [{"algebraicExpression": "{riskLevel} == 'acceptable'"}]
    assert path["nextNodeId"] == "7"
    tool = node["tools"][0]
    assert tool["extractVars"][0]["variableName"] == "financialStatus"
    assert tool["responseData"][0]["name"] == "riskLevel"
    assert "Must be one of" in tool["responseData"][0]["context"]
    assert tool["body"].startswith("{ \"applicantId\"")
    again = import_text(export_sop(sop, "journeybench")).sop
    assert [(e.source, e.target, e.when) for e in again.edges] == \
        [(e.source, e.target, e.when) for e in sop.edges]
    assert errors(again) == []


def test_journeybench_else_becomes_negation_of_siblings():
    sop = import_text("check order status\nif its shipped:\n  terminate the flow\n"
                      "else:\n  show message wait\n  terminate the flow\n").sop
    data = json.loads(export_sop(sop, "journeybench"))
    paths = data["nodes"][0]["responsePathways"]
    assert paths[1]["conditions"][0]["algebraicExpression"] == \
        "not (({order_status} == 'shipped'))"
    assert paths[1]["else"] is True
    assert import_text(json.dumps(data), "journeybench").sop.edges[1].when == "else"


def test_sop_bench_toolspecs_import_keeps_schema():
    result = import_file(FORMATS / "sop_bench_toolspecs.json")
    sop = result.sop
    assert result.format == "toolspecs" and sop.nodes == [] and sop.edges == []
    assert [t.name for t in sop.tools] == ["getPatientId", "calculateLifestyleRisk"]
    risk = sop.tool("calculateLifestyleRisk").parameters
    original = json.loads((FORMATS / "sop_bench_toolspecs.json").read_text())
    assert risk == original[1]["toolSpec"]["inputSchema"]["json"]  # verbatim
    patient = sop.tool("getPatientId").parameters
    assert patient["required"] == ["patient_name"] and patient["additionalProperties"] is False
    assert any("moved required" in note for note in result.notes)


def test_openai_tools_import_and_both_exports():
    sop = import_file(FORMATS / "openai_tools.json").sop
    original = json.loads((FORMATS / "openai_tools.json").read_text())
    assert json.loads(export_sop(sop, "openai-tools")) == original
    specs = json.loads(export_sop(sop, "toolspecs"))
    assert specs[0]["toolSpec"]["inputSchema"]["json"] == original[0]["function"]["parameters"]
    back = import_text(export_sop(sop, "toolspecs")).sop
    assert back.tools == sop.tools


def test_duplicate_tool_names_are_refused():
    from sopstudio.formats import FormatError
    with pytest.raises(FormatError, match="duplicate tool name 'a'"):
        import_text('[{"name": "a", "parameters": {}}, {"name": "a", "parameters": {}}]')


def test_journeybench_condition_that_does_not_parse_is_kept_and_noted():
    data = json.loads((FORMATS / "journeybench_loan.json").read_text())
    data["nodes"][1]["responsePathways"][1]["conditions"][0]["algebraicExpression"] = \
        "{riskLevel} equals 'high'"
    result = import_text(json.dumps(data))
    assert result.sop.edges[3].when == "riskLevel equals 'high'"
    assert any("does not parse" in note for note in result.notes)
    codes = {i.code for i in validate_mod.validate(result.sop)}
    assert "bad-condition" in codes
