"""The `Issue` record that `validate` returns, and the severity of every issue code (DESIGN §4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"

# Every code validate() can emit. DESIGN §4 names most of them (tests outside the code rely on
# those); the last group is ours. Codes not marked as warnings are errors: the SOP cannot run right.
CODES: dict[str, str] = {
    "no-start": ERROR,
    "unknown-node": ERROR,
    "unreachable": WARNING,
    "dead-end": ERROR,
    "no-end": ERROR,
    "unbounded-cycle": ERROR,
    "bad-condition": ERROR,
    "undefined-variable": ERROR,
    "missing-default": ERROR,
    "overlapping-conditions": WARNING,
    "unknown-tool": ERROR,
    "unobtainable-parameter": ERROR,
    "unused-tool": WARNING,
    "unused-variable": WARNING,
    "duplicate-edge": WARNING,
    # Ours:
    "duplicate-id": ERROR,        # two nodes/edges/tools/variables share an id (non-strict loads)
    "end-has-exits": ERROR,       # an end node with outgoing edges: they can never be taken
    "unknown-variable": ERROR,    # a node asks for a variable that sop.variables does not declare
    "unknown-parameter": WARNING,  # tool_args maps a parameter the tool does not declare
    # a node on a cycle assigns a name from itself (`n = n + 1`): the loop's exit is not provable
    "self-referencing-set": WARNING,
    # a tool parameter fed by an output or variable declared with another type (types.py)
    "type-mismatch": WARNING,
    # a journey needs more conversation turns than a run is allowed (turns.py)
    "long-journey": WARNING,
}


@dataclass(frozen=True)
class Issue:
    """One problem found in an SOP; `node`/`edge` name the culprit so the editor can select it."""

    code: str
    severity: str
    message: str
    node: str | None = None
    edge: str | None = None
    tool: str | None = None
    variable: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "severity": self.severity,
                                "message": self.message, "node": self.node, "edge": self.edge}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.variable is not None:
            data["variable"] = self.variable
        return data


def make_issue(code: str, message: str, **where: str | None) -> Issue:
    """An Issue whose severity comes from CODES, so no check can get a severity wrong."""
    return Issue(code=code, severity=CODES[code], message=message, **where)
