"""Generated scenarios realise their journeys, and the scripted agent follows them: nodes that
take every matching branch (`branching: all`) and conditions on dotted paths (`response.x`)."""

from __future__ import annotations

from sopstudio.core.expr import parse
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.metrics import run_metrics, summarize
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import generate
from sopstudio.engine.values_solve import satisfy

from helpers import sop_of


def branching_all_sop():
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["name"], "branching": "all"},
         {"id": "b", "kind": "end", "say": "B done", "outcome": "resolved"},
         {"id": "c", "kind": "end", "say": "C done", "outcome": "notified"}],
        [{"id": "e1", "source": "a", "target": "b", "when": "name != ''"},
         {"id": "e2", "source": "a", "target": "c", "when": "name != ''"}],
        variables=[{"name": "name", "type": "string", "source": "user"}])


def test_branching_all_scenarios_are_realised_and_scripted_scores_one():
    cs = CompiledSop(branching_all_sop())
    scenarios = generate(cs)
    assert scenarios and all(s.realized for s in scenarios)
    rows = [run_metrics(run_scenario(cs, s), s) for s in scenarios]
    overall = summarize(rows)["overall"]
    assert overall["tsr"] == 1.0 and overall["path_accuracy"] == 1.0 and overall["tta"] == 1.0
    correct = [s for s in scenarios if s.type == "correct"]
    assert {s.expected["end_node"] for s in correct} == {"c"}  # the last end reached
    assert all(s.expected["edges"] == ["e1", "e2"] for s in correct)


def test_branching_all_journey_not_taken_is_still_unrealised():
    sop = sop_of(
        [{"id": "a", "kind": "task", "ask": ["name"], "branching": "all"},
         {"id": "b", "kind": "end"}, {"id": "c", "kind": "end"}],
        [{"id": "e1", "source": "a", "target": "b", "when": "name == 'x'"},
         {"id": "e2", "source": "a", "target": "c", "when": "nmae == 'y'"}],  # misspelt name
        variables=[{"name": "name", "type": "string", "source": "user"}])
    cs = CompiledSop(sop)
    by_end = {s.journey["nodes"][-1]: s for s in generate(cs, types=("correct",))}
    assert by_end["b"].realized and not by_end["c"].realized


def dotted_sop():
    return sop_of(
        [{"id": "a", "kind": "task", "ask": ["client"], "tools": ["assess"]},
         {"id": "low", "kind": "end", "outcome": "approved"},
         {"id": "high", "kind": "end", "outcome": "rejected"}],
        [{"id": "e1", "source": "a", "target": "low", "when": "response.riskLevel == 'low'"},
         {"id": "e2", "source": "a", "target": "high", "when": "else"}],
        tools=[{"name": "assess", "parameters": {"type": "object", "properties": {
            "client": {"type": "string"}}, "required": ["client"]},
            "outputs": [{"name": "response", "type": "object"}]}],
        variables=[{"name": "client", "type": "string", "source": "user"}])


def test_satisfy_nests_dotted_names_under_the_root():
    found = satisfy(parse("response.riskLevel == 'low' and response.score > 3").node, True,
                    lambda n: None)
    assert found == {"response": {"riskLevel": "low", "score": 4}}
    assert satisfy(parse("a.b == 1 and a.b == 2").node, True, lambda n: None) is None


def test_dotted_condition_journeys_are_realised():
    cs = CompiledSop(dotted_sop())
    scenarios = generate(cs, types=("correct",))
    by_end = {s.journey["nodes"][-1]: s for s in scenarios}
    assert set(by_end) == {"low", "high"} and all(s.realized for s in scenarios)
    low = by_end["low"].responses["assess"][0]["outputs"]["response"]
    assert low["riskLevel"] == "low"
    high = by_end["high"].responses["assess"][0]["outputs"]["response"]
    assert high.get("riskLevel") != "low"
    for s in scenarios:
        trace = run_scenario(cs, s)
        assert run_metrics(trace, s)["correct"] and trace.end_node == s.journey["nodes"][-1]
