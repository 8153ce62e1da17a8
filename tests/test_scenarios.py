"""Condition-driven values, scenario generation, balanced sampling and CSV import."""

from __future__ import annotations

from collections import Counter

import pytest

from sopstudio.core.journeys import JourneyGraph
from sopstudio.core.model import SOP
from sopstudio.engine.compiled import CompiledSop, EngineError
from sopstudio.engine.examples import listing_blocked, synthetic
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import Scenario, generate, sample_journeys, scenarios_for
from sopstudio.engine.scenarios_csv import scenarios_from_csv


def branching(conditions: list[str], outputs: list[dict], sets: dict | None = None) -> SOP:
    """One tool node 'n' leaving by one edge per condition to end nodes t0, t1, ..."""
    return SOP.model_validate({
        "id": "b", "start": "n",
        "variables": [{"name": "uid"}],
        "tools": [{"name": "probe", "outputs": outputs, "errors": ["boom", "gone"],
                   "parameters": {"type": "object", "properties": {"uid": {"type": "string"}},
                                  "required": ["uid"]}}],
        "nodes": [{"id": "n", "ask": ["uid"], "tools": ["probe"], "set": sets or {}}]
        + [{"id": f"t{i}", "kind": "end", "outcome": f"o{i}"} for i in range(len(conditions))],
        "edges": [{"id": f"e{i}", "source": "n", "target": f"t{i}", "when": c}
                  for i, c in enumerate(conditions)]})


def every_edge_driven(sop: SOP) -> dict:
    cs = CompiledSop(sop)
    reached = {}
    for journey in JourneyGraph(sop).iter_journeys():
        scenario = scenarios_for(cs, journey, 0, ("correct",))[0]
        assert scenario.realized, (journey.edges, scenario.responses, scenario.notes)
        trace = run_scenario(cs, scenario)
        assert trace.edges == list(journey.edges)
        reached[journey.edges[-1]] = scenario.responses["probe"][0]["outputs"]
    return reached


STATUS = [{"name": "status", "enum": ["active", "inactive", "blocked", "closed"]}]
SCORE = [{"name": "score", "type": "integer"}]


def test_equality_and_else_pick_distinct_enum_values():
    reached = every_edge_driven(branching(["status == 'blocked'", "status == 'active'", "else"],
                                          STATUS))
    assert reached["e0"]["status"] == "blocked" and reached["e1"]["status"] == "active"
    assert reached["e2"]["status"] in ("inactive", "closed")


def test_numeric_bounds_respect_first_match_order():
    reached = every_edge_driven(branching(["score >= 720", "score > 600", "score < 300", "else"],
                                          SCORE))
    assert reached["e0"]["score"] >= 720
    assert 600 < reached["e1"]["score"] < 720
    assert reached["e2"]["score"] < 300
    assert 300 <= reached["e3"]["score"] <= 600


def test_and_or_in_not_in_and_negation():
    outputs = STATUS + SCORE + [{"name": "vip", "type": "boolean"}]
    every_edge_driven(branching([
        "status == 'active' && score > 10", "status in ['blocked', 'closed'] || vip",
        "not (status == 'inactive') and score <= 10", "status not in ['active']"], outputs))


def test_fresh_string_for_not_equal_without_enum():
    reached = every_edge_driven(branching(["kind == 'x'", "kind != 'x'"], [{"name": "kind"}]))
    assert reached["e1"]["kind"] != "x"


def test_set_computed_score_is_solved_through_its_inputs():
    outputs = [{"name": "sds_score", "type": "integer"}, {"name": "handling_score",
                                                           "type": "integer"}]
    reached = every_edge_driven(branching(["score_total >= 10", "else"], outputs,
                                          {"score_total": "sds_score + handling_score"}))
    assert reached["e0"]["sds_score"] + reached["e0"]["handling_score"] >= 10
    assert reached["e1"]["sds_score"] + reached["e1"]["handling_score"] < 10


def test_condition_on_earlier_tool_output_at_a_later_decision():
    sop = SOP.model_validate({
        "id": "late", "start": "a", "tools": [{"name": "t", "outputs": SCORE}],
        "nodes": [{"id": "a", "tools": ["t"]}, {"id": "d"}, {"id": "hi", "kind": "end"},
                  {"id": "lo", "kind": "end"}],
        "edges": [{"id": "ad", "source": "a", "target": "d"},
                  {"id": "dh", "source": "d", "target": "hi", "when": "score > 50"},
                  {"id": "dl", "source": "d", "target": "lo", "when": "else"}]})
    cs = CompiledSop(sop)
    for journey in JourneyGraph(sop).iter_journeys():
        scenario = scenarios_for(cs, journey)[0]
        assert scenario.realized and run_scenario(cs, scenario).edges == list(journey.edges)


def test_failure_edge_gets_an_error_code_that_matches_it():
    sop = listing_blocked()
    cs = CompiledSop(sop)
    journey = next(j for j in JourneyGraph(sop).iter_journeys() if "e7" in j.edges)
    scenario = scenarios_for(cs, journey)[0]
    assert scenario.responses["check_listing_status"][0] == {"error": "invalid_id"}
    assert run_scenario(cs, scenario).edges == list(journey.edges)


def test_three_types_per_journey_and_their_expected_ends():
    cs = CompiledSop(listing_blocked())
    scenarios = generate(cs)
    assert Counter(s.type for s in scenarios) == {"correct": 6, "missing-parameter": 6,
                                                  "failing-function": 6}
    for scenario in scenarios:
        trace = run_scenario(cs, scenario)
        assert trace.tool_trace == scenario.expected["tool_trace"], scenario.id
        assert trace.path == scenario.expected["path"]
        assert trace.outcome == scenario.expected["outcome"]
        if scenario.type == "missing-parameter":
            assert trace.outcome == "blocked" and scenario.withheld not in scenario.user["seed"]
            # the agent never called a tool that takes the withheld value
            assert all(scenario.withheld not in c["arguments"] for c in trace.tool_trace)
        if scenario.type == "failing-function":
            failing = scenario.failing
            assert failing["tool"] in [c["tool"] for c in trace.tool_trace]
            assert trace.outcome == "technical-issue"
            calls = [c["tool"] for c in trace.tool_trace]
            assert calls[-3:] == [failing["tool"]] * 3  # retried up to max_attempts


def test_scenario_round_trips_as_plain_data():
    cs = CompiledSop(listing_blocked())
    scenario = generate(cs)[0]
    assert Scenario.from_dict(scenario.to_dict()) == scenario


def test_balanced_sampling_is_uniform_over_journeys_and_seeded():
    # an unbalanced tree: one branch with 1 leaf, the other with 3 leaves
    sop = SOP.model_validate({"id": "u", "start": "r", "nodes": [
        {"id": "r"}, {"id": "l1", "kind": "end"}, {"id": "m"}, {"id": "l2", "kind": "end"},
        {"id": "l3", "kind": "end"}, {"id": "l4", "kind": "end"}],
        "edges": [{"id": "a", "source": "r", "target": "l1"}, {"id": "b", "source": "r",
                                                                 "target": "m"},
                  {"id": "c", "source": "m", "target": "l2"}, {"id": "d", "source": "m",
                                                                 "target": "l3"},
                  {"id": "e", "source": "m", "target": "l4"}]})
    graph = JourneyGraph(sop)
    draws = sample_journeys(graph, 4000, seed=7)
    first = Counter(j.edges[0] for j in draws)
    assert 0.2 < first["a"] / 4000 < 0.3  # 1 leaf of 4 below branch a
    assert sample_journeys(graph, 20, seed=1) == sample_journeys(graph, 20, seed=1)


def test_csv_rows_become_scenarios_with_expected_final_values():
    sop = branching(["score > 600", "else"], SCORE, {"double": "score * 2"})
    cs = CompiledSop(sop)
    text = "case,uid,score,decision,double\nA,u1,700,o0,1400\nB,u2,100,o1,200\n"
    mapping = {"id": "case", "inputs": ["uid"], "tool_outputs": {"score": "probe.score"},
               "expected": {"decision": "outcome", "double": "double"}}
    scenarios = scenarios_from_csv(cs, text, mapping)
    assert [s.id for s in scenarios] == ["A", "B"]
    assert scenarios[0].responses == {"probe": [{"outputs": {"score": 700}}]}
    assert scenarios[1].expected["outcome"] == "o1" and scenarios[1].expected_values == {
        "double": 200}
    for scenario in scenarios:
        trace = run_scenario(cs, scenario)
        assert trace.outcome == scenario.expected["outcome"]
        assert trace.variables["double"] == scenario.expected_values["double"]


def test_csv_missing_column_is_a_clear_error():
    cs = CompiledSop(branching(["score > 1"], SCORE))
    with pytest.raises(EngineError, match="lacks columns: score"):
        scenarios_from_csv(cs, "uid\nu1\n", {"inputs": ["uid"],
                                             "tool_outputs": {"score": "probe.score"}})


def test_synthetic_sop_every_cover_scenario_realized():
    cs = CompiledSop(synthetic(300, seed=5))
    scenarios = generate(cs, types=("correct",))
    assert scenarios and all(s.realized and not s.notes for s in scenarios)


def misspelt_listing_blocked() -> SOP:
    """listing_blocked whose onboarding edge reads a misspelt name (fails `validate`)."""
    sop = listing_blocked()
    edge = next(e for e in sop.edges if e.when == "user_status == 'onboarding'")
    edge.when = "user_statuss == 'onboarding'"
    return sop, edge.id


def test_broken_sop_expectations_come_from_the_journey_not_the_sop():
    sop, broken = misspelt_listing_blocked()
    cs = CompiledSop(sop)
    journey = next(j for j in JourneyGraph(sop).iter_journeys() if j.edges == (broken,))
    built = {s.type: s for s in scenarios_for(cs, journey, 0)}
    correct = built["correct"]
    end = journey.nodes[-1]
    assert not correct.realized and correct.notes
    assert correct.expected["path"] == list(journey.nodes)
    assert correct.expected["edges"] == [broken]
    assert correct.expected["end_node"] == end
    assert correct.expected["outcome"] == sop.node(end).outcome == "resolved"
    assert [c["tool"] for c in correct.expected["tool_trace"]] == ["check_user_status"]
    # the scripted agent follows the broken SOP and cannot reach the journey's end
    trace = run_scenario(cs, correct)
    assert trace.edges != [broken] and trace.end_node != end
    # derived scenarios follow the journey up to where their own rule stops them
    missing = built["missing-parameter"]
    assert not missing.realized and missing.expected["outcome"] == "blocked"
    assert missing.expected["path"] == [journey.nodes[0]]
    failing = built["failing-function"]
    assert not failing.realized and failing.expected["outcome"] == "technical-issue"


def test_realised_scenarios_keep_the_reference_walk_expectations():
    cs = CompiledSop(listing_blocked())
    for scenario in generate(cs):
        assert scenario.realized
        trace = run_scenario(cs, scenario)
        assert (trace.outcome, trace.end_node, trace.path) == (
            scenario.expected["outcome"], scenario.expected["end_node"],
            scenario.expected["path"])
