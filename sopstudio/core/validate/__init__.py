"""Whole-SOP validation (DESIGN §4): `validate(sop)` returns every problem as an `Issue`.

Checks run in order: structure (ids, start, edges, reachability, cycles), expressions
(`bad-condition`), tool and variable usage, dataflow (`undefined-variable`,
`unobtainable-parameter`, see dataflow.py for the exact semantics), parameter types
(`type-mismatch`, types.py), journeys longer than the turn limit (`long-journey`, turns.py)
and branch coverage
(`missing-default`, `overlapping-conditions`). Errors come before warnings; within a severity,
issues keep the order the checks found them in (document order).
"""

from __future__ import annotations

from ..model import SOP
from ..subflows import SubflowLoader
from .context import build_context
from .coverage import check_coverage
from .dataflow import check_dataflow
from .expressions import MAX_EXPRESSION_LENGTH, check_expressions
from .issue import CODES, ERROR, WARNING, Issue
from .subflows import check_subflows
from .structure import check_counters, check_structure
from .turns import DEFAULT_MAX_TURNS, check_turns
from .types import check_types
from .usage import check_usage

__all__ = ["validate", "Issue", "CODES", "ERROR", "WARNING", "MAX_EXPRESSION_LENGTH",
           "DEFAULT_MAX_TURNS", "dataflow_issues", "has_errors"]


def validate(sop: SOP, subflows: SubflowLoader | None = None,
             max_turns: int = DEFAULT_MAX_TURNS) -> list[Issue]:
    """Every problem of `sop`. `subflows` reads the children of subflow nodes (needs the file's
    path); `max_turns` is the turn limit runs will have (`long-journey`)."""
    ctx = build_context(sop)
    check_subflows(ctx, subflows)
    check_structure(ctx)
    check_expressions(ctx)
    check_counters(ctx)
    check_usage(ctx)
    check_dataflow(ctx)
    check_types(ctx)
    check_turns(ctx, max_turns)
    check_coverage(ctx)
    return sorted(ctx.issues, key=lambda issue: issue.severity != ERROR)


def dataflow_issues(sop: SOP) -> list[Issue]:
    """Only `undefined-variable` / `unobtainable-parameter` (and `bad-condition`): what an
    importer asks to place questions, without the rest of validation."""
    ctx = build_context(sop)
    check_expressions(ctx)
    check_dataflow(ctx)
    return ctx.issues


def has_errors(issues: list[Issue]) -> bool:
    return any(issue.severity == ERROR for issue in issues)
