"""Exhaustiveness of a node's branches: `missing-default` and `overlapping-conditions`.

When every conditional success edge of a node reads one and the same variable, and that variable
has a finite set of values (an enum output of a tool, an enum variable, or a boolean), each
condition is evaluated for each value by our interpreter (an evaluation error counts as false).
A value no condition accepts is a `missing-default` unless the node has an `else` or an
unconditional edge; on a first-match node, a value two conditions accept is an
`overlapping-conditions` (the second edge never fires for it). `branching: all` nodes follow
every true edge, so overlap is intended there.
"""

from __future__ import annotations

from typing import Any

from ..expr import ExprError, is_else, shorten
from ..model import Edge, Node, ToolOutput, Variable
from .context import Context
from .expressions import edge_key


def check_coverage(ctx: Context) -> None:
    for node in ctx.nodes.values():
        if node.kind != "end":
            _check_node(ctx, node)
            if node.branching == "first":
                _check_shadowed(ctx, node)


def _check_shadowed(ctx: Context, node: Node) -> None:
    """On a first-match node, edges behind an unconditional edge (or a second else) never fire."""
    always = elses = None
    for edge in ctx.success_edges(node.id):
        shadow = None
        if edge.when is None:
            # The same target again is a duplicate-edge, reported by the structure checks.
            shadow = always if always is not None and always.target != edge.target else None
            always = always or edge
        elif is_else(edge.when):
            shadow = always or elses
            elses = elses or edge
            if shadow is not None and shadow.target == edge.target and is_else(shadow.when or ""):
                shadow = None
        else:
            shadow = always
        if shadow is not None:
            why = "has no condition" if shadow.when is None else "is already the else edge"
            ctx.add("overlapping-conditions", f"node {node.id}: edge {edge.id} is never taken: "
                    f"edge {shadow.id} {why} and comes first", node=node.id, edge=edge.id)


def _check_node(ctx: Context, node: Node) -> None:
    edges = ctx.success_edges(node.id)
    conditional = [e for e in edges if e.when is not None and not is_else(e.when)]
    parsed = [p for p in (ctx.parsed.get(edge_key(e)) for e in conditional) if p is not None]
    if not conditional or len(parsed) < len(conditional):
        return
    names = set().union(*(p.names() for p in parsed))
    if len(names) != 1:
        return
    (name,) = names
    values = _finite_values(ctx, node, name)
    if not values:
        return
    accepted = {_show(v): [e for e, p in zip(conditional, parsed) if _holds(p, name, v)]
                for v in values}
    if len(conditional) == len(edges):  # no else and no unconditional edge
        _report_missing(ctx, node, name, accepted)
    if node.branching == "first":
        _report_overlaps(ctx, node, name, accepted)


def _finite_values(ctx: Context, node: Node, name: str) -> list[Any] | None:
    """The values `name` can take here; the node's own tools' outputs are the best evidence."""
    own = [o for t in ctx.node_tools(node) for o in t.outputs if o.name == name]
    declared: list[ToolOutput | Variable] = [*own, *ctx.outputs.get(name, [])]
    if name in ctx.variables:
        declared.append(ctx.variables[name])
    for item in declared:
        if item.enum:
            return list(item.enum)
        if item.type == "boolean":
            return [True, False]
    return None


def _holds(parsed: Any, name: str, value: Any) -> bool:
    try:
        return bool(parsed.evaluate({name: value}))
    except (ExprError, ArithmeticError, TypeError, ValueError):
        return False


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _listed(values: list[str], most: int = 8) -> str:
    """Enum values for a message: each shortened, at most ``most`` of them and a count."""
    shown = ", ".join(shorten(v, 40) for v in values[:most])
    return shown + (f" and {len(values) - most} more" if len(values) > most else "")


def _report_missing(ctx: Context, node: Node, name: str, accepted: dict[str, list[Edge]]) -> None:
    missing = [v for v, edges in accepted.items() if not edges]
    if missing:
        ctx.add("missing-default", f"node {node.id}: no edge is taken when {name} is "
                f"{_listed(missing)}; add a condition or an else edge", node=node.id,
                variable=name)


def _report_overlaps(ctx: Context, node: Node, name: str,
                     accepted: dict[str, list[Edge]]) -> None:
    pairs: dict[tuple[str, str], list[str]] = {}
    for value, edges in accepted.items():
        for later in edges[1:]:
            pairs.setdefault((edges[0].id, later.id), []).append(value)
    for (first_id, later_id), values in pairs.items():
        ctx.add("overlapping-conditions", f"node {node.id}: edges {first_id} and {later_id} both "
                f"hold when {name} is {_listed(values)}; {later_id} is never taken for "
                f"{'it' if len(values) == 1 else 'them'}", node=node.id, edge=later_id,
                variable=name)
