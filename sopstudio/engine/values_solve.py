"""Making a condition true (or false) by choosing values: the heart of condition-driven values.

`satisfy(node, truth, spec)` reads the expression AST constructively (JourneyBench Appendix D):
`==` -> that value; `>`/`>=` -> value + 1; `<`/`<=` -> value - 1; `and` -> all parts; `or` -> one
part; `in` -> a member; `not in` / `!=` -> an enum value not excluded or a fresh string; `not` flips.
It returns a partial assignment or None, keyed by root names: a dotted name is nested under its
root (`response.riskLevel == 'low'` -> {"response": {"riskLevel": "low"}}), the shape tool
outputs have. `candidates(name, ...)` lists values worth trying for a name (its literals in the
conditions and their neighbours, enum members, a fresh value) for the bounded search that backs
the constructive step when it cannot decide (arithmetic, `set`-computed scores, functions).
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.expr import ast as A
from ..core.expr.functions import is_number as _number

Spec = Callable[[str], Any]  # name -> declaration with .type/.enum (or None)
FLIP = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<", "in": "not in",
        "not in": "in"}
MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def fresh(name: str) -> str:
    return f"other_{name}"


def nested(path: str, value: Any) -> dict:
    """{"response.riskLevel": v} as the value tools and users give: {"response": {"riskLevel": v}}
    (a dotted condition reads a field of the root output)."""
    root, *rest = path.split(".")
    for key in reversed(rest):
        value = {key: value}
    return {root: value}


def merge(base: dict, extra: dict) -> dict | None:
    """`extra` merged into a copy of `base`, nested dicts field by field; None on a conflict."""
    merged = dict(base)
    for key, value in extra.items():
        if key in merged and isinstance(merged[key], dict) and isinstance(value, dict):
            inner = merge(merged[key], value)
            if inner is None:
                return None
            merged[key] = inner
        elif key in merged and merged[key] != value:
            return None
        else:
            merged[key] = value
    return merged


def _other(name: str, excluded: list, spec: Spec) -> Any:
    """A value of `name` different from every excluded value."""
    decl = spec(name)
    for value in (getattr(decl, "enum", None) or []):
        if value not in excluded:
            return value
    if excluded and all(isinstance(v, bool) for v in excluded):
        return not excluded[0]
    numbers = [v for v in excluded if _number(v)]
    if numbers:
        return max(numbers) + 1
    return fresh(name)


def _compare(op: str, name: str, value: Any, spec: Spec) -> dict | None:
    found = _compare_flat(op, name, value, spec)
    return None if found is None else merge({}, nested(name, found[name]))


def _compare_flat(op: str, name: str, value: Any, spec: Spec) -> dict | None:
    if op == "==":
        return {name: value}
    if op in ("!=", "not in"):
        excluded = list(value) if op == "not in" and isinstance(value, list) else [value]
        return {name: _other(name, excluded, spec)}
    if op == "in":
        return {name: value[0]} if isinstance(value, list) and value else None
    if not _number(value):
        return None
    return {name: value + 1} if op in (">", ">=") else {name: value - 1}


def _literal(node: Any) -> tuple[bool, Any]:
    if isinstance(node, A.Literal):
        return True, node.value
    if isinstance(node, A.ListExpr):
        values = [i.value for i in node.items if isinstance(i, A.Literal)]
        if len(values) == len(node.items):
            return True, values
    return False, None


def satisfy(node: Any, truth: bool, spec: Spec) -> dict | None:
    """A partial assignment making `node` evaluate to `truth`, or None if not derivable."""
    if isinstance(node, A.Unary) and node.op == "not":
        return satisfy(node.operand, not truth, spec)
    if isinstance(node, A.Name):
        return nested(node.dotted, truth)
    if isinstance(node, A.Literal):
        return {} if bool(node.value) == truth else None
    if isinstance(node, A.BoolOp):
        return _bool_op(node, truth, spec)
    if isinstance(node, A.Compare):
        op = node.op if truth else FLIP[node.op]
        if isinstance(node.left, A.Name):
            ok, value = _literal(node.right)
            return _compare(op, node.left.dotted, value, spec) if ok else None
        if isinstance(node.right, A.Name) and op in MIRROR:
            ok, value = _literal(node.left)
            return _compare(MIRROR[op], node.right.dotted, value, spec) if ok else None
    return None


def _bool_op(node: A.BoolOp, truth: bool, spec: Spec) -> dict | None:
    need_all = (node.op == "and") == truth
    if not need_all:  # one operand decides: the first that can be made so
        for operand in node.operands:
            found = satisfy(operand, truth, spec)
            if found is not None:
                return found
        return None
    merged: dict = {}
    for operand in node.operands:
        part = satisfy(operand, truth, spec)
        combined = None if part is None else merge(merged, part)
        if combined is None:
            return None
        merged = combined
    return merged


def literals_for(nodes: list, name: str) -> list:
    """Values compared with `name` anywhere in these ASTs (list members flattened)."""
    found: list = []
    for root in nodes:
        for node in A.walk(root):
            if not isinstance(node, A.Compare):
                continue
            for mine, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(mine, A.Name) and mine.dotted == name:
                    ok, value = _literal(other)
                    if ok:
                        found.extend(value if isinstance(value, list) else [value])
    return found


def candidates(name: str, asts: list, current: Any, spec: Spec) -> list:
    """Values to try for `name`, most promising first, without duplicates."""
    decl = spec(name)
    kind = getattr(decl, "type", None)
    values: list = [current]
    for lit in literals_for(asts, name):
        values.append(lit)
        if _number(lit):
            values.extend((lit + 1, lit - 1))
    values.extend(getattr(decl, "enum", None) or [])
    if kind in ("integer", "number") or any(_number(v) for v in values):
        values.extend((0, 1, 100))
    elif kind == "boolean":
        values.extend((True, False))
    else:
        values.append(fresh(name))
    unique: list = []
    for value in values:
        if value is not None and not any(value == u and type(value) is type(u) for u in unique):
            unique.append(value)
    return unique
