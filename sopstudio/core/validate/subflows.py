"""Sub-SOP checks (DESIGN §2): a subflow node must name a readable child, without recursion and
within the nesting bound. Needs the file's loader (`core.subflows.SubflowLoader`): without one
(an SOP held in memory only) just the missing file name is checked."""

from __future__ import annotations

from ..subflows import SubflowLoader, subflow_problem
from .context import Context
from .issue import CODES, ERROR, make_issue

SUBFLOW_CODES = {"missing-subflow": ERROR, "subflow-recursion": ERROR, "subflow-too-deep": ERROR}
# Registered here, beside the check that emits them (issue.py cannot import this module).
CODES.update(SUBFLOW_CODES)


def check_subflows(ctx: Context, loader: SubflowLoader | None) -> None:
    problem = subflow_problem(ctx.sop, loader)
    if problem is not None:
        ctx.issues.append(make_issue(problem.code, str(problem), node=problem.node))
