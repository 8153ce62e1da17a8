"""Behaviour of the expression language (sopstudio.core.expr): syntax, semantics, errors, safety."""

from __future__ import annotations

import pytest

from sopstudio.core.errors import SopStudioError
from sopstudio.core.expr import (
    Expr, ExprError, ExprEvalError, ExprSyntaxError, evaluate, is_else, names_read, parse, suggest,
)
from sopstudio.core.expr import ast as A

ENV = {
    "status": "active",
    "score": 12,
    "ratio": 0.5,
    "flag": True,
    "nothing": None,
    "items": [1, 2, 3],
    "tags": ["vip", "new"],
    "name": "Alice",
    "response": {"riskLevel": "high", "data": {"count": 4}, "rows": [{"id": "r1"}]},
}


def ev(text, env=ENV):
    return evaluate(text, env)


@pytest.mark.parametrize("text, expected", [
    ("1 + 2", 3), ("7 - 10", -3), ("3 * 4", 12), ("7 / 2", 3.5), ("7 % 3", 1), ("-7 % 3", 2),
    ("1.5 + 1", 2.5), ("-score", -12), ("- -3", 3), ("'ab' + 'cd'", "abcd"), ("[1] + [2]", [1, 2]),
    ("1 == 1", True), ("1 != 1", False), ("1 < 2", True), ("2 <= 2", True), ("3 > 2", True),
    ("2 >= 3", False), ("'a' < 'b'", True), ("'b' >= 'a'", True),
    ("2 in items", True), ("9 in items", False), ("9 not in items", True),
    ("'li' in name", True), ("'zz' not in name", True), ("'riskLevel' in response", True),
    ("true and false", False), ("true or false", True), ("not true", False),
    ("true && false", False), ("false || true", True), ("!false", True), ("!flag", False),
])
def test_every_operator(text, expected):
    result = ev(text)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("text, expected", [
    ("len('abc')", 3), ("len(items)", 3), ("len(response)", 3), ("lower('AbC')", "abc"),
    ("upper(name)", "ALICE"), ("contains(name, 'lic')", True), ("contains(tags, 'vip')", True),
    ("contains(tags, 'x')", False), ("startswith(name, 'Al')", True), ("endswith(name, 'ce')", True),
    ("endswith(name, 'x')", False), ("abs(-4)", 4), ("abs(-1.5)", 1.5), ("min(3, 1, 2)", 1),
    ("max(items)", 3), ("min('b', 'a')", "a"), ("round(2.567, 2)", 2.57), ("round(2.4)", 2),
    ("round(ratio)", 0),
])
def test_every_function(text, expected):
    assert ev(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("10 - 4 - 3", 3), ("12 / 3 / 2", 2.0), ("-2 * 3", -6),
    ("2 + 3 > 4", True), ("not 1 == 2", True), ("true or false and false", True),
    ("(true or false) and false", False), ("not false and false", False), ("1 < 2 == true", False),
    ("!flag || score > 10", True), ("score > 10 and status == 'active' or false", True),
    ("1 + 2 in [3]", True), ("10 % 4 * 2", 4),
])
def test_precedence_follows_python(text, expected):
    assert ev(text) == expected


def test_precedence_tree_shape():
    node = parse("a or b and not c == 1 + 2 * -d").node
    assert isinstance(node, A.BoolOp) and node.op == "or"
    conj = node.operands[1]
    assert isinstance(conj, A.BoolOp) and conj.op == "and"
    neg = conj.operands[1]
    assert isinstance(neg, A.Unary) and neg.op == "not"
    cmp = neg.operand
    assert isinstance(cmp, A.Compare) and cmp.op == "=="
    add = cmp.right
    assert isinstance(add, A.Binary) and add.op == "+" and add.right.op == "*"
    assert add.right.right == A.Unary("-", A.Name(("d",), 29), 28)


def _shape(node):
    """The tree without positions, to compare structures written differently."""
    fields = [getattr(node, f) for f in node.__dataclass_fields__ if f != "pos"]
    return (type(node).__name__, *[
        tuple(_shape(x) for x in f) if isinstance(f, tuple) and f and hasattr(f[0], "pos")
        else _shape(f) if hasattr(f, "pos") else f
        for f in fields
    ])


def test_symbolic_operators_normalise():
    assert _shape(parse("a && b || !c").node) == _shape(parse("a and b or not c").node)
    assert _shape(parse("a && b || !c").node) != _shape(parse("a or b and not c").node)


def test_bool_ops_flatten_and_negative_literal_folds():
    node = parse("a and b and c").node
    assert isinstance(node, A.BoolOp) and len(node.operands) == 3
    assert parse("-5").node == A.Literal(-5, 0)


def test_chained_comparison_is_and_of_compares():
    node = parse("0 < x <= 10").node
    assert isinstance(node, A.BoolOp) and node.op == "and"
    assert [c.op for c in node.operands] == ["<", "<="]
    assert ev("0 < score <= 12") is True
    assert ev("0 < score < 12") is False


@pytest.mark.parametrize("text, expected", [
    ("'it\\'s'", "it's"), ('"say \\"hi\\""', 'say "hi"'), ("'a\\nb'", "a\nb"), ('"a\'b"', "a'b"),
    ("'\\u00e9'", "é"), ("'back\\\\slash'", "back\\slash"), ("''", ""), ("'tab\\t'", "tab\t"),
])
def test_both_quoting_styles_and_escapes(text, expected):
    assert ev(text) == expected


def test_literals():
    assert ev("[1, 'a', true, null, 2.5]") == [1, "a", True, None, 2.5]
    assert ev("[]") == [] and ev("[1, 2,]") == [1, 2]
    assert ev("True") is True and ev("False") is False and ev("None") is None
    assert ev("null") is None and ev("12345678901234567890") == 12345678901234567890


def test_list_literal_is_fresh_each_time():
    expr = parse("[1, 2]")
    first = expr.evaluate({})
    first.append(3)
    assert expr.evaluate({}) == [1, 2]


def test_braced_names():
    assert ev("{status} == 'active'") is True
    assert ev("{ response.riskLevel } == 'high'") is True
    assert parse("{status}").node == A.Name(("status",), 0)
    assert ev("{in}", {"in": 5}) == 5  # braces let a keyword be used as a name


def test_dotted_paths():
    assert ev("response.riskLevel") == "high"
    assert ev("response.data.count + 1") == 5
    assert ev("response.rows.0.id") == "r1"
    assert parse("response.riskLevel").node == A.Name(("response", "riskLevel"), 0)


def test_flat_dotted_key_wins_over_nested():
    env = {"response.riskLevel": "flat", "response": {"riskLevel": "nested"}}
    assert evaluate("response.riskLevel", env) == "flat"
    assert evaluate("a.b.c", {"a.b": {"c": 1}}) == 1


def test_equality_semantics():
    assert ev("1 == 1.0") is True
    assert ev("flag == 1") is False and ev("1 == flag") is False and ev("flag == true") is True
    assert ev("'1' == 1") is False and ev("'1' != 1") is True
    assert ev("nothing == null") is True and ev("nothing == 0") is False
    assert ev("items == [1, 2, 3.0]") is True and ev("[true] == [1]") is False
    assert evaluate("a == b", {"a": {"x": 1}, "b": {"x": 1.0}}) is True
    assert ev("1 in [true]") is False and ev("true in [1]") is False


def test_and_or_short_circuit_and_return_booleans():
    assert ev("false and missing") is False
    assert ev("true or missing") is True
    assert ev("1 and 'x'") is True and ev("0 or ''") is False
    assert ev("a and b and c", {"a": 1, "b": 2, "c": 0}) is False
    assert ev("a or b or c", {"a": 0, "b": [], "c": "x"}) is True


def test_unknown_name_with_suggestion():
    with pytest.raises(ExprEvalError) as info:
        evaluate("score > 1 and riskLevl == 'x'", {"score": 2, "riskLevel": "x"})
    err = info.value
    assert err.message == "unknown name 'riskLevl' — did you mean 'riskLevel'?"
    assert err.name == "riskLevl" and err.position == 14
    assert str(err) == "column 15: unknown name 'riskLevl' — did you mean 'riskLevel'?"


def test_unknown_nested_name_suggests_nested_key():
    with pytest.raises(ExprEvalError) as info:
        ev("response.riskLevl == 'high'")
    assert info.value.message == "unknown name 'response.riskLevl' — did you mean 'response.riskLevel'?"
    assert info.value.name == "response.riskLevl"


def test_unknown_name_without_suggestion():
    with pytest.raises(ExprEvalError) as info:
        evaluate("zzzz", {"status": 1})
    assert info.value.message == "unknown name 'zzzz'" and info.value.position == 0


def test_path_into_non_object_is_unknown_name():
    with pytest.raises(ExprEvalError):
        ev("status.length")
    with pytest.raises(ExprEvalError):
        ev("items.7")


@pytest.mark.parametrize("text, position, fragment", [
    ("'a' < 3", 4, "cannot compare string and number with '<'"),
    ("len(5)", 0, "len() needs a string, list or object, not number"),
    ("1 / 0", 2, "division by zero"), ("5 % 0", 2, "division by zero"),
    ("'a' - 1", 4, "cannot apply '-' to string and number"),
    ("'ab' * 3", 5, "cannot apply '*' to string and number"),
    ("[1] * 3", 4, "cannot apply '*' to list and number"),
    ("flag + 1", 5, "cannot apply '+' to boolean and number"),
    ("-name", 0, "cannot negate string"), ("lower(3)", 0, "lower() needs a string"),
    ("1 in 'abc'", 2, "'in' on a string needs a string"), ("1 in nothing", 2, "'in' needs a string"),
    ("min(1, 'a')", 0, "min() needs all numbers or all strings"), ("max([])", 0, "max() of an empty list"),
    ("abs('x')", 0, "abs() needs a number"), ("round(1.5, 1000)", 0, "round() digits"),
    ("nothing < 1", 8, "cannot compare null and number"), ("startswith(1, 'a')", 0, "startswith()"),
])
def test_type_errors_are_eval_errors(text, position, fragment):
    with pytest.raises(ExprEvalError) as info:
        ev(text)
    assert fragment in info.value.message
    assert info.value.position == position and info.value.text == text


@pytest.mark.parametrize("text, position, fragment", [
    ("", 0, "empty expression"), ("   ", 0, "empty expression"),
    ("1 +", 3, "unexpected end of expression"), ("(1 + 2", 6, "expected ')'"),
    ("a b", 2, "unexpected name 'b'"), ("'abc", 0, "unterminated string"),
    ("a = 1", 2, "use '=='"), ("a & b", 2, "use '&&'"), ("a | b", 2, "use '||'"),
    ("foo(1)", 0, "unknown function 'foo'"), ("len()", 0, "len() takes 1 argument, got 0"),
    ("round(1, 2, 3)", 0, "round() takes 1 to 2 arguments"), ("min()", 0, "min() takes at least 1"),
    ("else", 0, "'else'"), ("a and else", 6, "'else'"), ("1.", 2, "digits after the decimal point"),
    ("a.", 2, "expected a name after '.'"), ("'\\q'", 1, "unknown escape"),
    ("x $ y", 2, "unexpected character"),
    ("[1 2]", 3, "expected ',' or ']'"), ("{status", 7, "expected '}'"), ("{}", 1, "expected a name"),
    ("a not b", 2, "unexpected 'not'"), ("1abc", 0, "invalid number"), ("(a).b", 3, "unexpected character"),
])
def test_syntax_errors_with_positions(text, position, fragment):
    with pytest.raises(ExprSyntaxError) as info:
        parse(text)
    assert fragment in info.value.message
    assert info.value.position == position
    assert str(info.value).startswith(f"column {position + 1}: ")


def test_error_hierarchy():
    assert issubclass(ExprSyntaxError, ExprError) and issubclass(ExprEvalError, ExprError)
    assert issubclass(ExprError, SopStudioError)
    with pytest.raises(ExprSyntaxError):
        parse(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("attack", [
    "__import__('os').system('id')", "().__class__", "open('x')", "x.__class__",
    "x.__class__.__bases__", "{__builtins__}", "eval('1')", "exec('1')", "getattr(x, 'y')",
    "lambda: 1", "[c for c in x]", "x[0]", "x.y()", "len.__call__", "'%s' % x", "'a' * 10**9",
])
def test_attack_strings_are_rejected(attack):
    with pytest.raises(ExprError):
        evaluate(attack, {"x": {"y": 1}})


def test_format_operator_is_refused_on_strings():
    with pytest.raises(ExprEvalError):
        evaluate("'%s' % x", {"x": "y"})


def test_megabyte_input_is_rejected_before_parsing():
    with pytest.raises(ExprSyntaxError) as info:
        parse("a" * (1 << 20))
    assert "too long" in info.value.message
    with pytest.raises(ExprSyntaxError):
        parse("1 + " * 300_000 + "1")


def test_nesting_cap():
    assert ev("(" * 60 + "1" + ")" * 60) == 1
    for deep in ("(" * 100 + "1" + ")" * 100, "-" * 100 + "1", "not " * 100 + "x",
                 "[" * 100 + "]" * 100, "abs(" * 100 + "1" + ")" * 100):
        with pytest.raises(ExprSyntaxError) as info:
            parse(deep)
        assert "nested too deeply" in info.value.message


def test_long_flat_chains():
    assert ev(" or ".join(["false"] * 1000) + " or true") is True  # flattened, not deep
    with pytest.raises(ExprSyntaxError) as info:
        parse(" + ".join(["1"] * 2000))
    assert "too deeply nested" in info.value.message


def test_results_cannot_blow_up_memory():
    big = {"s": "x" * 600_000, "n": 10 ** 1500}
    with pytest.raises(ExprEvalError, match="too long"):
        evaluate("s + s", big)
    with pytest.raises(ExprEvalError, match="too large"):
        evaluate("n * n * n", big)
    with pytest.raises(ExprSyntaxError, match="number too long"):
        parse("1" * 200)


def test_getattr_is_never_used_on_objects():
    class Thing:
        secret = "s"
    with pytest.raises(ExprEvalError):
        evaluate("t.secret", {"t": Thing()})


def test_names_read_and_roots():
    text = "response.riskLevel == 'high' and {status} in ['a'] or len(items) > score"
    assert names_read(text) == {"response.riskLevel", "status", "items", "score"}
    expr = parse(text)
    assert expr.names() == names_read(text)
    assert expr.roots() == {"response", "status", "items", "score"}
    assert names_read("1 + 2") == set()
    assert names_read("min(a, b.c)") == {"a", "b.c"}
    with pytest.raises(ExprSyntaxError):
        names_read("a ==")


def test_parse_is_cached_and_expr_is_usable():
    first = parse("score > 3")
    assert parse("score > 3") is first
    assert isinstance(first, Expr) and first.text == "score > 3"
    assert first.evaluate({"score": 4}) is True and first.evaluate({"score": 1}) is False


def test_is_else():
    assert is_else("else") and is_else("  else\n")
    assert not is_else("else == 1") and not is_else("Else") and not is_else(None)


def test_suggest():
    assert suggest("riskLevl", ["riskLevel", "status"]) == "riskLevel"
    assert suggest("STATUS", ["status", "other"]) == "status"
    assert suggest("zzz", ["riskLevel", "status"]) is None
    assert suggest("x", []) is None


def test_foreign_values_never_leak_raw_exceptions():
    class Weird:
        def __bool__(self):
            raise RuntimeError("boom")
    with pytest.raises(ExprEvalError):
        evaluate("round(x)", {"x": float("inf")})
    with pytest.raises(ExprEvalError):
        evaluate("x / 3", {"x": 10 ** 400})
    with pytest.raises(ExprEvalError, match="boom"):
        evaluate("not w", {"w": Weird()})
