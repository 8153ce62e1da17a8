"""Comparing agents on the same scenarios (`bench --agents`, the GUI's batch comparison): the
rows of one table by scenario type and agent, built from each agent's batch metrics
(engine/metrics.py `summarize`)."""

from __future__ import annotations


def comparison_rows(by_agent: dict[str, dict]) -> list[tuple[str, str, dict]]:
    """(type, agent, metrics) rows: types in the order overall, then the metrics' own by_type
    order (correct, missing-parameter, failing-function), one row per agent within a type."""
    if not by_agent:
        return []
    first = next(iter(by_agent.values()))
    types = ["overall", *first.get("by_type", {})]
    return [(kind, agent, metrics.get("overall", {}) if kind == "overall" else
             metrics.get("by_type", {}).get(kind, {}))
            for kind in types for agent, metrics in by_agent.items()]
