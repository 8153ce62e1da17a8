"""Run metrics (DESIGN §6), per run and aggregated overall and by scenario type.

Per run, against the scenario's expected values:
- ``tta`` Tool Trace Alignment (JourneyBench §3): 1 if the executed tool names equal the expected
  sequence (no missing, extra or misordered call), else 0;
- ``tca`` Tool Call Accuracy (Eq. 1): if aligned, correct (name, value) parameters over expected
  parameters (1.0 when no parameters are expected), else 0. Aggregated, ``ujcs`` is the mean of
  TCA_conv over all runs (Eq. 2) and ``tca`` the mean over the aligned runs only (parameter
  accuracy when the trace is right);
- ``path_accuracy`` (SOP-Agent §5.1): the visited node path equals the expected path;
  ``leaf_accuracy``: the run stopped at the expected leaf (last node of the path);
- SOP-Bench §5: a run is *complete* when it ended by itself (not turn-limit or stopped); it is
  *correct* when outcome and end node are as expected (and, for imported tests, every expected final
  value); ``ecr`` = complete / runs, ``c_tsr`` = correct / complete, ``tsr`` = correct / runs.

Unrealised scenarios (``scenario.realized`` false: the SOP itself cannot follow the journey, e.g. a
condition reads a misspelt name) are COUNTED AS FAILURES, not left out: their expected values come
from the journey, and every accuracy flag of such a run (tta, tca, path, leaf, correct) is 0 whatever
the agent did, so a broken SOP can never get a perfect score. ``complete`` stays honest (ECR says
whether runs ended by themselves). Each aggregate carries ``unrealized``, the number of such runs,
and ``warnings``, the number of conditions and assignments that failed at run time (``warning``
trace events: a condition taken as false, a variable left unset).

``summarize`` always reports the three scenario types (plus any other type seen, e.g. imported); a
type without runs has ``runs`` 0, ``unrealized`` 0 and every other metric None.
"""

from __future__ import annotations

from .scenarios import SCENARIO_TYPES
from .trace import Trace

INCOMPLETE = frozenset(("turn-limit", "stopped"))
RATES = ("ujcs", "tta", "tca", "path_accuracy", "leaf_accuracy", "ecr", "c_tsr", "tsr")


def tool_call_accuracy(actual: list, expected: list) -> tuple[int, float]:
    if [c["tool"] for c in actual] != [c["tool"] for c in expected]:
        return 0, 0.0
    total = sum(len(c["arguments"]) for c in expected)
    if total == 0:
        return 1, 1.0
    correct = 0
    for got, want in zip(actual, expected):
        args = got.get("arguments") or {}
        correct += sum(1 for k, v in want["arguments"].items() if k in args and args[k] == v)
    return 1, correct / total


def run_metrics(trace: Trace, scenario) -> dict:
    expected = scenario.expected
    tta, tca = tool_call_accuracy(trace.tool_trace, expected.get("tool_trace", []))
    want_path = expected.get("path") or []
    complete = trace.outcome not in INCOMPLETE
    correct = (trace.outcome == expected.get("outcome")
               and trace.end_node == expected.get("end_node")
               and all(trace.variables.get(k) == v
                       for k, v in (scenario.expected_values or {}).items()))
    realized = bool(getattr(scenario, "realized", True))
    row = {"scenario": scenario.id, "type": scenario.type, "tta": tta, "tca": tca,
           "path": trace.path == want_path,
           "leaf": bool(trace.path) and bool(want_path) and trace.path[-1] == want_path[-1],
           "complete": complete, "correct": bool(correct), "outcome": trace.outcome,
           "expected_outcome": expected.get("outcome"), "realized": realized,
           "warnings": sum(1 for event in trace.events if event.type == "warning"),
           # SOP-Agent / MARCO pick branches themselves: how often the conditions agreed
           "branch_choices": trace.meta.get("branch_choices", 0),
           "branch_agreements": trace.meta.get("branch_agreements", 0)}
    if not realized:  # counted as a failure whatever happened (see the module docstring)
        row.update(tta=0, tca=0.0, path=False, leaf=False, correct=False)
    return row


def aggregate(rows: list[dict]) -> dict:
    runs = len(rows)
    if not runs:
        return {k: None for k in RATES} | {"runs": 0, "unrealized": 0, "warnings": 0,
                                           "branch_choices": 0, "branch_agreements": 0}
    aligned = [r for r in rows if r["tta"]]
    complete = [r for r in rows if r["complete"]]
    correct = sum(1 for r in rows if r["correct"])
    return {"ujcs": sum(r["tca"] for r in rows) / runs,
            "tta": len(aligned) / runs,
            "tca": (sum(r["tca"] for r in aligned) / len(aligned)) if aligned else 0.0,
            "path_accuracy": sum(1 for r in rows if r["path"]) / runs,
            "leaf_accuracy": sum(1 for r in rows if r["leaf"]) / runs,
            "ecr": len(complete) / runs,
            "c_tsr": (sum(1 for r in complete if r["correct"]) / len(complete)) if complete else 0.0,
            "tsr": correct / runs,
            "runs": runs,
            "unrealized": sum(1 for r in rows if r.get("realized") is False),
            "warnings": sum(r.get("warnings", 0) for r in rows),
            "branch_choices": sum(r.get("branch_choices", 0) for r in rows),
            "branch_agreements": sum(r.get("branch_agreements", 0) for r in rows)}


def summarize(rows: list[dict]) -> dict:
    """{"overall": M, "by_type": {type: M}}: the three SCENARIO_TYPES always, then other types seen."""
    by_type: dict = {t: [] for t in SCENARIO_TYPES}
    for row in rows:
        by_type.setdefault(row["type"], []).append(row)
    return {"overall": aggregate(rows), "by_type": {t: aggregate(r) for t, r in by_type.items()}}
