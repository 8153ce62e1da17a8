"""The richer expression language (issue 13 item 4): matches() on RE2, the conditional
expression, count/sum/any/all over lists, literal cells, run-time warnings and type mismatches."""

from __future__ import annotations

import pytest

from sopstudio.core.expr import ExprEvalError, ExprSyntaxError, evaluate, literal_value, parse
from sopstudio.core.expr import ast as A
from sopstudio.core.validate import validate
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.metrics import run_metrics, summarize
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.scenarios import Scenario
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

from helpers import sop_of


@pytest.mark.parametrize("text, env, expected", [
    (r"matches(pid, '^P_\\d{5}$')", {"pid": "P_12345"}, True),
    (r"matches(pid, '^P_\\d{5}$')", {"pid": "P_1234"}, False),
    (r"matches(pid, '^P_\\d{5}$')", {"pid": "xP_12345"}, False),
    ("matches(code, 'ERR')", {"code": "an ERR here"}, True),  # search, not full match
])
def test_matches_searches_with_the_pattern(text, env, expected):
    assert evaluate(text, env) is expected


def test_matches_is_linear_on_a_catastrophic_backtracking_pattern():
    # (a+)+$ against 'aaaa...b' takes exponential time in a backtracking engine; RE2 answers.
    assert evaluate("matches(x, '^(a+)+$')", {"x": "a" * 5000 + "b"}) is False
    assert evaluate("matches(x, '^(a+)+b$')", {"x": "a" * 5000 + "b"}) is True


def test_a_bad_literal_pattern_is_a_syntax_error_with_the_pattern_error():
    with pytest.raises(ExprSyntaxError) as caught:
        parse("matches(x, '(unclosed')")
    assert caught.value.position == 11 and "missing )" in str(caught.value)
    with pytest.raises(ExprSyntaxError, match="string pattern"):
        parse("matches(x, 3)")


def test_a_bad_pattern_from_a_variable_fails_at_run_time():
    with pytest.raises(ExprEvalError, match="bad pattern"):
        evaluate("matches(x, p)", {"x": "a", "p": "(("})


def test_bad_pattern_is_a_bad_condition_in_validation():
    sop = sop_of([{"id": "a", "ask": ["pid"]}, {"id": "b", "kind": "end"}],
                 [{"id": "e", "source": "a", "target": "b", "when": "matches(pid, '[')"},
                  {"id": "f", "source": "a", "target": "b", "when": "else"}],
                 variables=[{"name": "pid"}])
    bad = [i for i in validate(sop) if i.code == "bad-condition"]
    assert len(bad) == 1 and bad[0].edge == "e" and "missing ]" in bad[0].message


@pytest.mark.parametrize("text, expected", [
    ("'hi' if x > 1 else 'lo'", "hi"),
    ("'hi' if x > 5 else 'lo'", "lo"),
    ("'a' if x > 5 else 'b' if x > 1 else 'c'", "b"),  # right-associative
    ("x + 1 if x else 0", 3),  # binds more loosely than arithmetic
    ("(1 if false else 2) * 10", 20),
    ("false or true if x > 5 else 'n'", "n"),  # binds more loosely than or, as in Python
])
def test_conditional_expression(text, expected):
    assert evaluate(text, {"x": 2}) == expected


def test_conditional_tree_and_errors():
    node = parse("a if b else c").node
    assert isinstance(node, A.Conditional) and node.then.path == ("a",)
    assert parse("a if b else c").names() == {"a", "b", "c"}
    with pytest.raises(ExprSyntaxError, match="expected 'else'"):
        parse("a if b")
    # only the branch taken is evaluated
    assert evaluate("missing if false else 1", {}) == 1


@pytest.mark.parametrize("text, expected", [
    ("count([a > 1, b, c == 'x', d, e])", 3),
    ("count([a > 1, b, c == 'x', d, e]) >= 3", True),
    ("count(tags, 'red')", 2),
    ("sum([1, 2.5, a])", 5.5),
    ("sum([])", 0),
    ("any([b, d])", False),
    ("any(tags)", True),
    ("all([a, c])", True),
    ("all([])", True),
    ("'red' in tags and 'blue' not in tags", True),
    ("max(tags) if len(tags) > 0 else ''", "red"),
])
def test_list_functions(text, expected):
    env = {"a": 2, "b": 0, "c": "x", "d": False, "e": "yes", "tags": ["red", "green", "red"]}
    assert evaluate(text, env) == expected


@pytest.mark.parametrize("text, fragment", [
    ("sum(['a'])", "list of numbers"),
    ("count(3)", "needs a list"),
    ("any('abc')", "needs a list"),
])
def test_list_function_type_errors(text, fragment):
    with pytest.raises(ExprEvalError, match=fragment):
        evaluate(text, {})


def test_literal_value_reads_python_style_cells_without_eval():
    assert literal_value("['LINE_INTERFERENCE', 'SIGNAL_FADE']") == ["LINE_INTERFERENCE",
                                                                     "SIGNAL_FADE"]
    assert literal_value("[1, -2.5, True, None, [false]]") == [1, -2.5, True, None, [False]]
    for not_literal in ("[x]", "1 + 2", "len('a')", "__import__('os')"):
        with pytest.raises(ExprSyntaxError):
            literal_value(not_literal)


def _warning_sop():
    """Ask `n`; the first edge's condition divides by it, the assignment indexes nothing."""
    return sop_of(
        [{"id": "a", "ask": ["n"], "set": {"ratio": "10 / n"}},
         {"id": "big", "kind": "end", "outcome": "big"},
         {"id": "other", "kind": "end", "outcome": "other"}],
        [{"id": "e1", "source": "a", "target": "big", "when": "100 / n > 5"},
         {"id": "e2", "source": "a", "target": "other", "when": "else"}],
        variables=[{"name": "n", "type": "integer"}, {"name": "ratio", "type": "number"}])


def test_run_time_errors_in_conditions_and_assignments_are_warning_events():
    cs = CompiledSop(_warning_sop())
    trace = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser({"n": 0}), MockTools(cs.tools)).run()
    warnings = [e for e in trace.events if e.type == "warning"]
    assert [w.text.split(" — ")[0] for w in warnings] == ["10 / n", "100 / n > 5"]
    assert all("division by zero" in w.text and w.node == "a" for w in warnings)
    assert trace.outcome == "other" and "ratio" not in trace.variables  # false, and left unset
    scenario = Scenario(id="s", type="correct", journey={}, user={"seed": {"n": 0}},
                        responses={}, expected={"outcome": "other"})
    row = run_metrics(trace, scenario)
    assert row["warnings"] == 2
    assert summarize([row, {**row, "warnings": 1}])["overall"]["warnings"] == 3


def test_a_run_time_warning_quotes_a_long_expression_shortened():
    long_condition = " or ".join(f"n == {i}" for i in range(2, 400)) + " or 100 / n > 5"
    sop = _warning_sop()
    sop.edges[0].when = long_condition
    cs = CompiledSop(sop)
    trace = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser({"n": 0}), MockTools(cs.tools)).run()
    warning = [e for e in trace.events if e.type == "warning"][-1]
    quoted = warning.text.split(" — ")[0]
    assert "\u2026" in quoted and len(quoted) <= 120  # head … tail, not 4 KB of condition
    assert quoted.startswith("n == 2 or") and quoted.endswith("100 / n > 5")
    assert "division by zero" in warning.text


def test_a_clean_run_has_no_warning_events():
    cs = CompiledSop(_warning_sop())
    trace = Orchestrator(cs, ScriptedAgent(cs), ScriptedUser({"n": 4}), MockTools(cs.tools)).run()
    assert trace.outcome == "big" and not [e for e in trace.events if e.type == "warning"]


def test_type_mismatch_between_an_output_and_the_parameter_it_feeds():
    tools = [{"name": "diagnose", "outputs": [{"name": "issues", "type": "string"}]},
             {"name": "fix", "parameters": {"type": "object", "required": ["issues"],
                                            "properties": {"issues": {"type": "array"},
                                                           "count": {"type": "number"}}}}]
    nodes = [{"id": "a", "tools": ["diagnose"]}, {"id": "b", "tools": ["fix"]},
             {"id": "b2", "tools": ["fix"]}, {"id": "z", "kind": "end"}]
    edges = [{"id": "e1", "source": "a", "target": "b"}, {"id": "e2", "source": "b", "target": "b2"},
             {"id": "e3", "source": "b2", "target": "z"}]
    found = [i for i in validate(sop_of(nodes, edges, tools)) if i.code == "type-mismatch"]
    assert len(found) == 1 and found[0].severity == "warning" and found[0].tool == "fix"
    assert "'issues' as list" in found[0].message and "declared string" in found[0].message
    tools[0]["outputs"] = [{"name": "issues", "type": "list"}, {"name": "count", "type": "integer"}]
    assert not [i for i in validate(sop_of(nodes, edges, tools)) if i.code == "type-mismatch"]
