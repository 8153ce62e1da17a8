"""Metrics: TTA, TCA, UJCS, path/leaf accuracy, ECR / C-TSR / TSR and their aggregation."""

from __future__ import annotations

import pytest

from sopstudio.engine.metrics import aggregate, run_metrics, summarize, tool_call_accuracy
from sopstudio.engine.scenarios import Scenario
from sopstudio.engine.trace import Trace

EXPECTED = [{"tool": "a", "arguments": {"x": 1, "y": 2}}, {"tool": "b", "arguments": {"z": 3}}]


def test_tool_call_accuracy_counts_correct_parameters_when_aligned():
    actual = [{"tool": "a", "arguments": {"x": 1, "y": 5}}, {"tool": "b", "arguments": {"z": 3}}]
    assert tool_call_accuracy(actual, EXPECTED) == (1, pytest.approx(2 / 3))
    assert tool_call_accuracy(EXPECTED, EXPECTED) == (1, 1.0)


@pytest.mark.parametrize("actual", [
    [{"tool": "b", "arguments": {"z": 3}}, {"tool": "a", "arguments": {"x": 1, "y": 2}}],
    [{"tool": "a", "arguments": {"x": 1, "y": 2}}],
    EXPECTED + [{"tool": "c", "arguments": {}}]])
def test_misordered_missing_or_extra_call_scores_zero(actual):
    assert tool_call_accuracy(actual, EXPECTED) == (0, 0.0)


def test_empty_expected_trace_matched_is_perfect():
    assert tool_call_accuracy([], []) == (1, 1.0)


def scenario(kind="correct", outcome="resolved", end="done", path=("s", "done")):
    return Scenario("s1", kind, {}, {"seed": {}}, {},
                    {"tool_trace": EXPECTED, "outcome": outcome, "end_node": end,
                     "path": list(path)})


def test_run_metrics_and_aggregation():
    good = Trace(outcome="resolved", end_node="done", path=["s", "done"], tool_trace=EXPECTED)
    wrong_leaf = Trace(outcome="other", end_node="x", path=["s", "x"],
                       tool_trace=[{"tool": "a", "arguments": {"x": 1, "y": 0}},
                                   {"tool": "b", "arguments": {"z": 3}}])
    timeout = Trace(outcome="turn-limit", path=["s"], tool_trace=[])
    rows = [run_metrics(t, scenario()) for t in (good, wrong_leaf, timeout)]
    m = aggregate(rows)
    assert m["runs"] == 3
    assert m["tta"] == pytest.approx(2 / 3)
    assert m["ujcs"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert m["tca"] == pytest.approx((1 + 2 / 3) / 2)
    assert m["path_accuracy"] == pytest.approx(1 / 3)
    assert m["leaf_accuracy"] == pytest.approx(1 / 3)
    assert m["ecr"] == pytest.approx(2 / 3)
    assert m["c_tsr"] == pytest.approx(1 / 2)
    assert m["tsr"] == pytest.approx(1 / 3)


def test_expected_final_values_must_match_for_success():
    sc = scenario()
    sc.expected_values = {"decision": "approve"}
    trace = Trace(outcome="resolved", end_node="done", path=["s", "done"], tool_trace=EXPECTED,
                  variables={"decision": "reject"})
    assert run_metrics(trace, sc)["correct"] is False
    trace.variables["decision"] = "approve"
    assert run_metrics(trace, sc)["correct"] is True


def test_summary_breaks_down_by_type_with_all_keys():
    good = Trace(outcome="blocked", end_node=None, path=["s"], tool_trace=[])
    rows = [run_metrics(good, scenario("missing-parameter", "blocked", None, ("s",)))]
    summary = summarize(rows)
    assert set(summary["overall"]) == {"ujcs", "tta", "tca", "path_accuracy", "leaf_accuracy",
                                       "ecr", "c_tsr", "tsr", "runs"}
    assert summary["by_type"]["missing-parameter"]["tsr"] == 1.0
    assert aggregate([])["runs"] == 0
