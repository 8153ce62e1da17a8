"""Pratt parser: tokens -> AST (see ast.py). Precedence follows Python.

Binding powers, loosest first: ``or``/``||`` 10, ``and``/``&&`` 20, prefix
``not``/``!`` 30, comparisons and ``in``/``not in`` 40, ``+ -`` 50, ``* / %`` 60,
unary minus 70. Note ``!`` binds like Python's ``not``: ``!a == b`` means
``not (a == b)``. Comparison chains ``a < b < c`` become ``a < b and b < c``.
Nesting (parentheses, lists, calls, prefix operators) is capped at MAX_NESTING
and the finished tree's height at MAX_TREE_DEPTH, so evaluation never hits the
Python recursion limit.
"""

from __future__ import annotations

from . import ast as A
from .errors import ExprSyntaxError, quoted, shorten
from .functions import FUNCTIONS, pattern_problem
from .tokenizer import Token, tokenize

MAX_NESTING = 64
MAX_TREE_DEPTH = 200

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_BINARY_BP = {"+": 50, "-": 50, "*": 60, "/": 60, "%": 60}
_BOOL = {"or": ("or", 10), "||": ("or", 10), "and": ("and", 20), "&&": ("and", 20)}
_LITERAL_KEYWORDS = {
    "true": True, "True": True, "false": False, "False": False, "null": None, "None": None,
}
_CONDITIONAL_BP = 5  # 'a if c else b' binds more loosely than 'or', as in Python
_PREFIX_NOT_BP = 30
_COMPARE_BP = 40
_UNARY_MINUS_BP = 70


def parse_tree(text: str) -> A.Node:
    """Parse ``text`` into an AST root or raise ExprSyntaxError."""
    if not isinstance(text, str):
        raise ExprSyntaxError(f"an expression must be a string, not {type(text).__name__}")
    parser = _Parser(text, tokenize(text))
    if parser.peek().kind == "end":
        raise ExprSyntaxError("empty expression", 0, text)
    node = parser.expression(0)
    if parser.peek().kind != "end":
        raise parser.unexpected(parser.peek(), "expected an operator or the end")
    if A.depth(node) > MAX_TREE_DEPTH:
        raise ExprSyntaxError(f"expression too deeply nested (more than {MAX_TREE_DEPTH} levels)", 0, text)
    return node


def describe(token: Token) -> str:
    """How a token is named in error messages."""
    if token.kind == "end":
        return "end of expression"
    if token.kind in ("name", "bname"):
        return f"name {quoted('.'.join(token.value))}"
    if token.kind == "num":
        return f"number {shorten(str(token.value))}"
    if token.kind == "str":
        return "string"
    return f"'{token.value}'"


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.nesting = 0

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.index + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        if token.kind != "end":
            self.index += 1
        return token

    def unexpected(self, token: Token, hint: str = "") -> ExprSyntaxError:
        message = f"unexpected {describe(token)}" + (f"; {hint}" if hint else "")
        return ExprSyntaxError(message, token.pos, self.text)

    def expect(self, op: str, opened: Token) -> None:
        token = self.advance()
        if token.kind != "op" or token.value != op:
            hint = f"expected '{op}' to match '{opened.value}' at column {opened.pos + 1}"
            raise self.unexpected(token, hint)

    def expression(self, rbp: int) -> A.Node:
        """Parse while the next operator binds tighter than ``rbp``."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ExprSyntaxError(f"expression nested too deeply (more than {MAX_NESTING} levels)",
                                  self.peek().pos, self.text)
        left = self.prefix(self.advance())
        while rbp < self.infix_bp():
            left = self.infix(self.advance(), left)
        self.nesting -= 1
        return left

    def infix_bp(self) -> int:
        token = self.peek()
        if token.kind == "op":
            if token.value in _COMPARE:
                return _COMPARE_BP
            if token.value in _BINARY_BP:
                return _BINARY_BP[token.value]
            return _BOOL.get(token.value, ("", 0))[1]
        if token.kind == "kw":
            if token.value == "in":
                return _COMPARE_BP
            if token.value == "not" and self.peek(1).kind == "kw" and self.peek(1).value == "in":
                return _COMPARE_BP
            if token.value == "if":
                return _CONDITIONAL_BP
            return _BOOL.get(token.value, ("", 0))[1]
        return 0

    def prefix(self, token: Token) -> A.Node:
        kind, value, pos = token
        if kind in ("num", "str"):
            return A.Literal(value, pos)
        if kind == "bname":
            return A.Name(value, pos)
        if kind == "name":
            is_call = self.peek().kind == "op" and self.peek().value == "("
            return self.call(token) if is_call else A.Name(value, pos)
        if kind == "kw":
            return self.prefix_keyword(token)
        if kind == "op":
            return self.prefix_operator(token)
        raise self.unexpected(token)

    def prefix_keyword(self, token: Token) -> A.Node:
        if token.value in _LITERAL_KEYWORDS:
            return A.Literal(_LITERAL_KEYWORDS[token.value], token.pos)
        if token.value == "not":
            return A.Unary("not", self.expression(_PREFIX_NOT_BP), token.pos)
        if token.value == "else":
            raise ExprSyntaxError("'else' is only valid alone as an edge condition or after "
                                  "'a if condition'", token.pos, self.text)
        raise self.unexpected(token)

    def prefix_operator(self, token: Token) -> A.Node:
        op = token.value
        if op == "(":
            inner = self.expression(0)
            self.expect(")", token)
            return inner
        if op == "[":
            return A.ListExpr(self.arguments("]", token), token.pos)
        if op == "!":
            return A.Unary("not", self.expression(_PREFIX_NOT_BP), token.pos)
        if op == "-":
            operand = self.expression(_UNARY_MINUS_BP)
            if isinstance(operand, A.Literal) and type(operand.value) in (int, float):
                return A.Literal(-operand.value, token.pos)  # fold so '-5' is a plain literal
            return A.Unary("-", operand, token.pos)
        raise self.unexpected(token)

    def arguments(self, closer: str, opened: Token) -> tuple[A.Node, ...]:
        """Comma-separated expressions up to ``closer`` (a trailing comma is allowed)."""
        items: list[A.Node] = []
        while not (self.peek().kind == "op" and self.peek().value == closer):
            items.append(self.expression(0))
            if self.peek().kind == "op" and self.peek().value == ",":
                self.advance()
            elif not (self.peek().kind == "op" and self.peek().value == closer):
                raise self.unexpected(self.peek(), f"expected ',' or '{closer}'")
        self.expect(closer, opened)
        return tuple(items)

    def call(self, token: Token) -> A.Node:
        name = ".".join(token.value)
        if name not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            raise ExprSyntaxError(f"unknown function {quoted(name)} (known: {known})", token.pos,
                                  self.text)
        args = self.arguments(")", self.advance())
        low, high, _ = FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            wanted = str(low) if low == high else (f"{low} to {high}" if high else f"at least {low}")
            plural = "" if wanted == "1" else "s"
            raise ExprSyntaxError(f"{name}() takes {wanted} argument{plural}, got {len(args)}",
                                  token.pos, self.text)
        if name == "matches" and isinstance(args[1], A.Literal):
            problem = pattern_problem(args[1].value)  # a literal pattern is checked now, once
            if problem:
                raise ExprSyntaxError(problem, args[1].pos, self.text)
        return A.Call(name, args, token.pos)

    def infix(self, token: Token, left: A.Node) -> A.Node:
        value = token.value
        if token.kind == "kw" and value == "if":
            return self.conditional(token, left)
        if value in _BOOL:
            op, bp = _BOOL[value]
            right = self.expression(bp)
            operands = _flatten(op, left) + _flatten(op, right)
            return A.BoolOp(op, operands, _position(left))
        if value in _BINARY_BP:
            return A.Binary(value, left, self.expression(_BINARY_BP[value]), token.pos)
        return self.comparison(token, left)

    def conditional(self, token: Token, then: A.Node) -> A.Node:
        """``then if cond else orelse``: cond stops before another 'if'; orelse may chain."""
        cond = self.expression(_CONDITIONAL_BP)
        other = self.advance()
        if other.kind != "kw" or other.value != "else":
            hint = f"expected 'else' to complete the 'if' at column {token.pos + 1}"
            raise self.unexpected(other, hint)
        orelse = self.expression(_CONDITIONAL_BP - 1)
        return A.Conditional(cond, then, orelse, _position(then))

    def comparison(self, token: Token, left: A.Node) -> A.Node:
        """One comparison, or a Python-style chain ``a < b <= c`` joined with ``and``."""
        parts: list[A.Compare] = []
        while True:
            op = self.compare_op(token)
            right = self.expression(_COMPARE_BP)
            parts.append(A.Compare(op, left, right, token.pos))
            if self.infix_bp() != _COMPARE_BP:
                break
            token, left = self.advance(), right
        return parts[0] if len(parts) == 1 else A.BoolOp("and", tuple(parts), _position(parts[0].left))

    def compare_op(self, token: Token) -> str:
        if token.value == "not":
            self.advance()  # the 'in' of 'not in', checked by infix_bp
            return "not in"
        return str(token.value)


def _flatten(op: str, node: A.Node) -> tuple[A.Node, ...]:
    return node.operands if isinstance(node, A.BoolOp) and node.op == op else (node,)


def _position(node: A.Node) -> int:
    """Leftmost text position of a subtree (a Binary's pos is its operator)."""
    while isinstance(node, (A.Binary, A.Compare, A.BoolOp)):
        node = node.operands[0] if isinstance(node, A.BoolOp) else node.left
    return node.pos
