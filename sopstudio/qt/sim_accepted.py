"""Which values an asked variable accepts, for the simulation dock's input placeholder.

The variable's `enum` when it has one; otherwise the literals the asking node's outgoing
success conditions compare it to (``issue_type == 'no_service'``, ``plan in ['a', 'b']``), so
the operator typing as the user sees what would let the run go on.
"""

from __future__ import annotations

from typing import Any

from ..core.expr import ExprError, parse
from ..core.expr import ast as A


def accepted_values(sop, node_id: str | None, variable: str) -> list[Any]:
    """Accepted values of `variable` asked at `node_id` (empty when nothing says)."""
    spec = next((v for v in sop.variables if v.name == variable), None)
    if spec is not None and spec.enum:
        return list(spec.enum)
    found: list[Any] = []
    for edge in sop.edges:
        if edge.source != node_id or edge.on != "success" or not edge.when or edge.is_else:
            continue
        try:
            tree = parse(edge.when).node
        except ExprError:
            continue
        for value in _compared_literals(tree, variable):
            if value not in found:
                found.append(value)
    return found


def _compared_literals(tree, variable: str) -> list[Any]:
    """Literals on the other side of a comparison with the name `variable`."""
    values: list[Any] = []
    for node in A.walk(tree):
        if not isinstance(node, A.Compare) or node.op not in ("==", "in"):
            continue
        sides = [(node.left, node.right)] if node.op == "in" else \
            [(node.left, node.right), (node.right, node.left)]
        for name, other in sides:
            if isinstance(name, A.Name) and name.dotted == variable:
                values.extend(_literals(other))
    return values


def _literals(node) -> list[Any]:
    if isinstance(node, A.Literal):
        return [node.value]
    if isinstance(node, A.ListExpr):
        return [item.value for item in node.items if isinstance(item, A.Literal)]
    return []


def one_of(values: list[Any]) -> str:
    """ "one of: mobile_data, no_service" (sorted as text, so the hint is stable)."""
    return "one of: " + ", ".join(sorted(str(v) for v in values))
