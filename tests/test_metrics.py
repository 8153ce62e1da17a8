"""Metrics: TTA, TCA, UJCS, path/leaf accuracy, ECR / C-TSR / TSR and their aggregation."""

from __future__ import annotations

import pytest

from sopstudio.engine.metrics import (RATES, aggregate, run_metrics, summarize,
                                      tool_call_accuracy)
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
                                       "ecr", "c_tsr", "tsr", "runs", "unrealized", "warnings",
                                       "branch_choices", "branch_agreements"}
    assert summary["by_type"]["missing-parameter"]["tsr"] == 1.0
    assert aggregate([])["runs"] == 0


def test_every_type_is_reported_even_without_runs():
    good = Trace(outcome="resolved", end_node="done", path=["s", "done"], tool_trace=EXPECTED)
    summary = summarize([run_metrics(good, scenario())])
    assert list(summary["by_type"]) == ["correct", "missing-parameter", "failing-function"]
    empty = summary["by_type"]["failing-function"]
    assert empty["runs"] == 0 and empty["unrealized"] == 0
    assert all(empty[k] is None for k in RATES)
    assert summary["by_type"]["correct"]["tsr"] == 1.0


def test_unrealized_scenario_counts_as_a_failure_whatever_the_run_did():
    sc = scenario()
    sc.realized = False
    # the run does exactly what the expectation says, yet the SOP cannot realise the journey
    perfect = Trace(outcome="resolved", end_node="done", path=["s", "done"], tool_trace=EXPECTED)
    row = run_metrics(perfect, sc)
    assert (row["tta"], row["tca"], row["path"], row["leaf"], row["correct"]) == \
        (0, 0.0, False, False, False)
    assert row["complete"] is True and row["realized"] is False
    ok = run_metrics(perfect, scenario())
    m = aggregate([row, ok])
    assert (m["runs"], m["unrealized"], m["tsr"], m["path_accuracy"], m["ecr"]) == \
        (2, 1, 0.5, 0.5, 1.0)
