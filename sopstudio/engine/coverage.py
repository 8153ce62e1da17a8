"""Coverage counts of a batch for the canvas overlay: runs through each node and edge, and the
runs that FAILED at each node.

A run failed when it missed its scenario's expected outcome (the batch table's outcome vs
expected columns), or when a guardrail rejected an action or a tool returned an error that the
scenario did not expect. Ending technical-issue or blocked is no failure when the scenario
expected exactly that (failing-function and missing-parameter scenarios do).
"""

from __future__ import annotations

from collections import Counter


def _expected_tool_errors(scenario) -> set[str]:
    """Tools whose errors the scenario asks for (its failing tool, error responses)."""
    failing = (scenario.failing or {}).get("tool")
    tools: set[str] = {failing} if failing else set()
    for tool, replies in (scenario.responses or {}).items():
        if any(isinstance(r, dict) and "error" in r for r in replies or []):
            tools.add(tool)
    return tools


def _unexpected(event, scenario, error_tools: set[str]) -> bool:
    if event.type == "tool_result" and "error" in (event.result or {}):
        return event.tool not in error_tools
    if event.type == "guardrail":
        # a correct agent may be stopped by a guardrail before calling a tool without the value
        return not str(scenario.type).startswith("missing")
    return False


def failed_nodes(trace, scenario) -> list[str]:
    """Nodes where this run failed (empty when it met its scenario's expectations)."""
    error_tools = _expected_tool_errors(scenario)
    nodes: list[str] = []
    for event in trace.events:
        if event.node and event.node not in nodes and _unexpected(event, scenario, error_tools):
            nodes.append(event.node)
    if trace.outcome != (scenario.expected or {}).get("outcome"):
        end = next((e for e in reversed(trace.events) if e.type == "end"), None)
        where = (end.node if end is not None else None) or (trace.path or [None])[-1]
        if where and where not in nodes:
            nodes.append(where)
    return nodes


def coverage_from_results(results) -> dict:
    """Counts over a batch's RunResults (scenario + trace); runs without a trace are skipped."""
    nodes: Counter[str] = Counter()
    edges: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    runs = 0
    for result in results:
        trace = result.trace
        if trace is None:
            continue
        runs += 1
        nodes.update(set(trace.path))
        edges.update(set(trace.edges))
        failed.update(failed_nodes(trace, result.scenario))
    return {"nodes": dict(nodes), "edges": dict(edges), "failed_nodes": dict(failed),
            "runs": runs}
