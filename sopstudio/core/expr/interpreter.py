"""The interpreter: an AST is compiled once into nested Python closures (no eval/exec/compile).

Values are plain JSON-like Python values. Names only index Mappings (and lists
by a digit segment): we never call getattr on anything. Arithmetic refuses
string/list repetition and caps result sizes so a runaway ``set`` loop cannot
exhaust memory.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Mapping
from typing import Any, Callable

from . import ast as A
from .errors import ExprError, ExprEvalError, shorten
from .functions import FUNCTIONS, contains, is_number, type_name, values_equal
from .names import lookup_failure

log = logging.getLogger(__name__)

MAX_RESULT_LENGTH = 1_000_000
MAX_INT_BITS = 10_000

Fn = Callable[[Mapping[str, Any]], Any]

_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_NUMERIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": operator.mod}


class Expr:
    """A parsed expression: ``text``, the AST root ``node``, and a compiled evaluator."""

    __slots__ = ("text", "node", "_fn", "_names", "_roots")

    def __init__(self, text: str, node: A.Node) -> None:
        self.text = text
        self.node = node
        self._fn = compile_node(node, text)
        self._names: frozenset[str] | None = None
        self._roots: frozenset[str] | None = None

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Value of the expression in ``env``; raises ExprEvalError on any failure."""
        try:
            return self._fn(env)
        except ExprError:
            raise
        except Exception as exc:
            # Safety net: a foreign value in env misbehaved; callers only ever see ExprError.
            log.debug("evaluating %r raised", self.text, exc_info=True)
            raise ExprEvalError(f"cannot evaluate: {shorten(str(exc))}", None, self.text) from None

    def names(self) -> set[str]:
        """Dotted names the expression reads, e.g. ``{'response.riskLevel', 'status'}``."""
        if self._names is None:
            self._names = frozenset(n.dotted for n in A.walk(self.node) if isinstance(n, A.Name))
        return set(self._names)

    def roots(self) -> set[str]:
        """First path segments of the names read (the variables the expression needs)."""
        if self._roots is None:
            self._roots = frozenset(name.split(".", 1)[0] for name in self.names())
        return set(self._roots)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def compile_node(node: A.Node, text: str) -> Fn:
    """Turn an AST node into a closure ``env -> value``."""
    return _COMPILERS[type(node)](node, text)


def _located(fn: Fn, pos: int, text: str) -> Fn:
    """Wrap ``fn`` so errors raised without a position get ``pos``."""
    def run(env: Mapping[str, Any]) -> Any:
        try:
            return fn(env)
        except ExprError as exc:
            raise exc.locate(pos, text)
    return run


def _literal(node: A.Literal, text: str) -> Fn:
    value = node.value
    return lambda env: value


def _list(node: A.ListExpr, text: str) -> Fn:
    items = tuple(compile_node(item, text) for item in node.items)
    return lambda env: [item(env) for item in items]


def _name(node: A.Name, text: str) -> Fn:
    path, pos = node.path, node.pos
    if len(path) == 1:
        key = path[0]

        def get(env: Mapping[str, Any]) -> Any:
            try:
                return env[key]
            except KeyError:
                raise lookup_failure(env, path, pos, text) from None
        return get
    # Longest flat key first: an env holding 'response.riskLevel' itself wins.
    splits = tuple((".".join(path[:i]), path[i:]) for i in range(len(path), 0, -1))

    def get_path(env: Mapping[str, Any]) -> Any:
        for key, rest in splits:
            if key in env:
                return _walk(env[key], rest, env, path, pos, text)
        raise lookup_failure(env, path, pos, text)
    return get_path


def _walk(value: Any, rest: tuple[str, ...], env: Mapping[str, Any], path: tuple[str, ...],
          pos: int, text: str) -> Any:
    for segment in rest:
        if isinstance(value, Mapping) and segment in value:
            value = value[segment]
        elif isinstance(value, (list, tuple)) and segment.isdigit() and int(segment) < len(value):
            value = value[int(segment)]
        else:
            raise lookup_failure(env, path, pos, text)
    return value


def _unary(node: A.Unary, text: str) -> Fn:
    operand = compile_node(node.operand, text)
    if node.op == "not":
        return lambda env: not operand(env)

    def negate(env: Mapping[str, Any]) -> Any:
        value = operand(env)
        if not is_number(value):
            raise ExprEvalError(f"cannot negate {type_name(value)}")
        return -value
    return _located(negate, node.pos, text)


def _binary(node: A.Binary, text: str) -> Fn:
    left, right, op = compile_node(node.left, text), compile_node(node.right, text), node.op
    return _located(lambda env: arithmetic(op, left(env), right(env)), node.pos, text)


def arithmetic(op: str, a: Any, b: Any) -> Any:
    """``+ - * / %`` on numbers; ``+`` also joins two strings or two lists."""
    if is_number(a) and is_number(b):
        if op in "/%" and b == 0:
            raise ExprEvalError("division by zero")
        result = _NUMERIC[op](a, b)
        if type(result) is int and result.bit_length() > MAX_INT_BITS:
            raise ExprEvalError("number too large")
        return result
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        _check_length(len(a) + len(b))
        return a + b
    if op == "+" and isinstance(a, list) and isinstance(b, list):
        _check_length(len(a) + len(b))
        return a + b
    raise ExprEvalError(f"cannot apply '{op}' to {type_name(a)} and {type_name(b)}")


def _check_length(length: int) -> None:
    if length > MAX_RESULT_LENGTH:
        raise ExprEvalError(f"result too long (more than {MAX_RESULT_LENGTH} items)")


def _compare(node: A.Compare, text: str) -> Fn:
    left, right, op = compile_node(node.left, text), compile_node(node.right, text), node.op
    if op == "==":
        return lambda env: values_equal(left(env), right(env))
    if op == "!=":
        return lambda env: not values_equal(left(env), right(env))
    if op == "in":
        fn = lambda env: contains(right(env), left(env), "'in'")  # noqa: E731
    elif op == "not in":
        fn = lambda env: not contains(right(env), left(env), "'not in'")  # noqa: E731
    else:
        fn = lambda env: order(op, left(env), right(env))  # noqa: E731
    return _located(fn, node.pos, text)


def order(op: str, a: Any, b: Any) -> bool:
    """``< <= > >=`` between two numbers or two strings."""
    if (is_number(a) and is_number(b)) or (isinstance(a, str) and isinstance(b, str)):
        return bool(_ORDER[op](a, b))
    raise ExprEvalError(f"cannot compare {type_name(a)} and {type_name(b)} with '{op}'")


def _bool_op(node: A.BoolOp, text: str) -> Fn:
    operands = tuple(compile_node(item, text) for item in node.operands)
    if len(operands) == 2:
        first, second = operands
        if node.op == "and":
            return lambda env: bool(first(env)) and bool(second(env))
        return lambda env: bool(first(env)) or bool(second(env))
    if node.op == "and":
        return lambda env: all(item(env) for item in operands)
    return lambda env: any(item(env) for item in operands)


def _call(node: A.Call, text: str) -> Fn:
    impl = FUNCTIONS[node.func][2]
    args = tuple(compile_node(arg, text) for arg in node.args)
    if len(args) == 1:
        only = args[0]
        return _located(lambda env: impl(only(env)), node.pos, text)
    return _located(lambda env: impl(*[arg(env) for arg in args]), node.pos, text)


def _conditional(node: A.Conditional, text: str) -> Fn:
    cond, then, orelse = (compile_node(n, text) for n in (node.cond, node.then, node.orelse))
    return lambda env: then(env) if cond(env) else orelse(env)


_COMPILERS: dict[type, Callable[[Any, str], Fn]] = {
    A.Literal: _literal,
    A.ListExpr: _list,
    A.Name: _name,
    A.Unary: _unary,
    A.Binary: _binary,
    A.Compare: _compare,
    A.BoolOp: _bool_op,
    A.Call: _call,
    A.Conditional: _conditional,
}
