"""Property tests: any text either parses/evaluates or raises ExprError, never anything else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.core.expr import ExprError, evaluate, names_read, parse
from sopstudio.core.expr import ast as A

ENV = {
    "a": 1, "b": 2.5, "s": "text", "t": "", "flag": True, "n": None, "zero": 0,
    "items": [1, "x", None, [2]], "obj": {"k": "v", "deep": {"x": 3}, "list": [1, 2]},
    "big": 10 ** 200, "neg": -3,
}

TOKENS = [
    "a", "b", "s", "t", "flag", "n", "zero", "items", "obj", "obj.k", "obj.deep.x", "obj.list.1",
    "big", "neg", "missing", "{a}", "{obj.k}", "{", "}", "x.__class__", "__import__",
    "0", "1", "2", "3.5", "100", "-1", "'str'", '"dq"', "'it\\'s'", "'", '"', "''",
    "true", "false", "null", "True", "False", "None", "else",
    "==", "!=", "<", "<=", ">", ">=", "in", "not", "and", "or", "&&", "||", "!",
    "+", "-", "*", "/", "%", "(", ")", "[", "]", ",", ".", "=", "&", "|",
    "len", "lower", "upper", "contains", "startswith", "endswith", "abs", "min", "max", "round",
    "open", "eval",
]


def _check(text: str) -> None:
    try:
        expr = parse(text)
    except ExprError as err:
        assert err.position is None or 0 <= err.position <= len(text)
        assert str(err)
        return
    assert isinstance(expr.names(), set)
    for node in A.walk(expr.node):
        assert 0 <= node.pos <= len(text)
    try:
        evaluate(text, ENV)
    except ExprError as err:
        assert err.position is None or 0 <= err.position <= len(text)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_only_raises_expr_error(text):
    _check(text)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="ab01 .'\"\\{}()[],=!<>&|+-*/%_un", max_size=60))
def test_random_symbol_text_only_raises_expr_error(text):
    _check(text)


@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=30), st.sampled_from([" ", ""]))
def test_token_soup_only_raises_expr_error(tokens, separator):
    _check(separator.join(tokens))


def _valid_expr(depth: int = 3):
    """Well-formed expressions built from the grammar, to exercise evaluation."""
    leaves = st.sampled_from(["a", "b", "s", "flag", "n", "items", "obj.k", "{a}", "1", "2.5", "'x'",
                              "true", "null", "[1, 'x']", "missing"])
    if depth == 0:
        return leaves
    inner = _valid_expr(depth - 1)
    binary = st.tuples(inner, st.sampled_from(["==", "!=", "<", ">=", "in", "not in", "and", "or", "&&",
                                               "||", "+", "-", "*", "/", "%"]), inner)
    return st.one_of(
        leaves,
        binary.map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
        inner.map(lambda e: f"not {e}"), inner.map(lambda e: f"-{e}"),
        st.tuples(st.sampled_from(["len", "lower", "abs", "round", "min", "max"]), inner)
        .map(lambda p: f"{p[0]}({p[1]})"),
        st.tuples(st.sampled_from(["contains", "startswith", "min"]), inner, inner)
        .map(lambda p: f"{p[0]}({p[1]}, {p[2]})"),
    )


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(_valid_expr())
def test_grammatical_expressions_parse_and_evaluate_safely(text):
    expr = parse(text)  # generated from the grammar: must always parse
    assert names_read(text) <= {"a", "b", "s", "flag", "n", "items", "obj.k", "missing"}
    try:
        result = expr.evaluate(ENV)
    except ExprError:
        return
    assert result is None or isinstance(result, (bool, int, float, str, list))


@settings(max_examples=300)
@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))
def test_arithmetic_and_comparison_match_python_on_numbers(x, y):
    env = {"x": x, "y": y}
    assert evaluate("x + y * 2 - x % 7", env) == x + y * 2 - x % 7
    assert evaluate("x < y", env) == (x < y)
    assert evaluate("x == y or x >= y", env) == (x >= y)
    assert evaluate("not x != y", env) == (x == y)
