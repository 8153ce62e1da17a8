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


def branch_agreement(agent: str, overall: dict) -> str | None:
    """For an agent that picks branches itself (sop-agent, marco), how often the SOP's
    conditions would have chosen the same edge, as one line (None: it chose none). Both are
    reported (DESIGN §6): the CLI prints it after the table, the batch dialog under it."""
    choices = overall.get("branch_choices") or 0
    if not choices:
        return None
    agreed = overall.get("branch_agreements") or 0
    return (f"{agent}: chose {choices} branch(es) itself; the conditions agreed with {agreed} "
            f"({agreed / choices:.0%})")
