"""The expression AST: small frozen dataclasses, each with ``pos`` (0-based offset in the text).

``pos`` is where the node starts, except for Binary and Compare, whose ``pos`` is
the operator (that is where a type error is reported).

The tree is the contract between the parser, the interpreter and the tools that
reason about conditions (validation, condition-driven value generation, DESIGN §4-§5):

- ``Literal(value)``: str, int, float, bool or None. ``-5`` is folded into ``Literal(-5)``.
- ``ListExpr(items)``: a list display ``[a, 'b', 3]``; items are nodes.
- ``Name(path)``: a variable; ``path`` is the dotted path split on dots, e.g.
  ``('response', 'riskLevel')``. ``{status}`` gives ``Name(('status',))``.
- ``Unary(op, operand)``: op is ``'not'`` (also written ``!``) or ``'-'``.
- ``Binary(op, left, right)``: op in ``+ - * / %``.
- ``Compare(op, left, right)``: op in ``== != < <= > >= in`` and ``'not in'``.
  A chain ``a < b < c`` is parsed as Python does:
  ``BoolOp('and', (Compare('<', a, b), Compare('<', b, c)))``.
- ``BoolOp(op, operands)``: op ``'and'`` (also ``&&``) or ``'or'`` (also ``||``);
  ``operands`` holds two or more nodes, flattened (``a and b and c`` is one BoolOp).
- ``Call(func, args)``: one of the built-in functions (see functions.py), arity
  checked at parse time.
- ``Conditional(cond, then, orelse)``: ``then if cond else orelse`` (Python's form and
  precedence: below ``or``, right-associative).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Union


@dataclass(frozen=True, slots=True)
class Literal:
    value: Any
    pos: int = 0


@dataclass(frozen=True, slots=True)
class ListExpr:
    items: tuple["Node", ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Name:
    path: tuple[str, ...]
    pos: int = 0

    @property
    def dotted(self) -> str:
        """The name as written without braces, e.g. ``'response.riskLevel'``."""
        return ".".join(self.path)


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    operand: "Node"
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: "Node"
    right: "Node"
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: "Node"
    right: "Node"
    pos: int = 0


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: str
    operands: tuple["Node", ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Call:
    func: str
    args: tuple["Node", ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Conditional:
    cond: "Node"
    then: "Node"
    orelse: "Node"
    pos: int = 0


Node = Union[Literal, ListExpr, Name, Unary, Binary, Compare, BoolOp, Call, Conditional]


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-nodes of ``node`` (empty for leaves)."""
    if isinstance(node, (Literal, Name)):
        return ()
    if isinstance(node, ListExpr):
        return node.items
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, (Binary, Compare)):
        return (node.left, node.right)
    if isinstance(node, BoolOp):
        return node.operands
    if isinstance(node, Conditional):
        return (node.then, node.cond, node.orelse)
    return node.args


def walk(node: Node) -> Iterator[Node]:
    """Yield every node of the tree, parents before children (iterative: no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def depth(node: Node) -> int:
    """Height of the tree (a leaf has depth 1), computed without recursion."""
    best = 0
    stack = [(node, 1)]
    while stack:
        current, level = stack.pop()
        best = max(best, level)
        stack.extend((child, level + 1) for child in children(current))
    return best
