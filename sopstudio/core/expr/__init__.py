"""SOP Studio's expression language for edge conditions and assignments (DESIGN §3).

A hand-written tokenizer and Pratt parser build an AST (ast.py); the interpreter
compiles it into closures. Nothing here ever calls eval/exec/compile.

    >>> evaluate("{status} == 'active' && len(items) > 0", {"status": "active", "items": [1]})
    True

``else`` is not an expression: edge code tests ``is_else(text)`` first.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .errors import ExprError, ExprEvalError, ExprSyntaxError, quoted, shorten
from .functions import FUNCTIONS
from .ast import ListExpr, Literal, walk
from .interpreter import Expr
from .names import suggest
from .parser import MAX_NESTING, MAX_TREE_DEPTH, parse_tree
from .tokenizer import MAX_LENGTH

__all__ = [
    "parse", "evaluate", "names_read", "is_else", "suggest", "literal_value",
    "Expr", "ExprError", "ExprSyntaxError", "ExprEvalError",
    "FUNCTIONS", "MAX_LENGTH", "MAX_NESTING", "MAX_TREE_DEPTH", "quoted", "shorten",
]


def parse(text: str) -> Expr:
    """Parse ``text`` (cached); raises ExprSyntaxError with a position."""
    if not isinstance(text, str):
        raise ExprSyntaxError(f"an expression must be a string, not {type(text).__name__}")
    return _parse_cached(text)


@lru_cache(maxsize=8192)
def _parse_cached(text: str) -> Expr:
    return Expr(text, parse_tree(text))


def evaluate(text: str, env: Mapping[str, Any]) -> Any:
    """Parse (cached) and evaluate ``text`` against ``env``."""
    return parse(text).evaluate(env)


def names_read(text: str) -> set[str]:
    """Dotted names the expression reads; raises ExprSyntaxError if it does not parse."""
    return parse(text).names()


def is_else(text: Any) -> bool:
    """True for the catch-all edge condition ``else`` (which is not an expression)."""
    return isinstance(text, str) and text.strip() == "else"


def literal_value(text: str) -> Any:
    """The value of a literal written in the language: ``'a'``, ``3.5``, ``None``,
    ``['LINE_INTERFERENCE', 'SIGNAL_FADE']`` (the Python-style lists of SOP-Bench CSV cells).

    Read by our own parser (never Python's own literal evaluator); anything that is not a literal (a name,
    an operator, a call) raises ExprSyntaxError.
    """
    expr = parse(text)
    for node in walk(expr.node):
        if not isinstance(node, (Literal, ListExpr)):
            raise ExprSyntaxError("not a literal value (only strings, numbers, true/false/null "
                                  "and lists of them)", node.pos, text)
    return expr.evaluate({})
