"""Error messages quote user text shortened (head … tail), and their column still counts in the
whole text: a 5,000-digit number or a 9 KB condition gives a message a person can read."""

from __future__ import annotations

import re

import pytest

from sopstudio.core.expr import ExprError, evaluate, parse
from sopstudio.core.expr.errors import MARK, QUOTE_LIMIT, excerpt, shorten
from sopstudio.core.model import SOP
from sopstudio.core.validate import validate

from test_validate import base, edge, node

READABLE = 2 * QUOTE_LIMIT + 80   # a message quoting at most two shortened texts


def _error(text: str, env: dict | None = None) -> ExprError:
    with pytest.raises(ExprError) as caught:
        evaluate(text, env or {}) if env is not None else parse(text)
    return caught.value


def test_shorten_keeps_head_and_tail_around_an_ellipsis():
    text = "A" * 30 + "x" * 5000 + "Z" * 10
    short = shorten(text)
    assert len(short) == QUOTE_LIMIT and "\u2026" in short
    assert short.startswith("A" * 30) and short.endswith("Z" * 10)
    assert shorten("short text") == "short text"


def test_a_5000_digit_number_is_quoted_shortened_at_its_column():
    error = _error("amount == " + "9" * 5000 + "x")
    assert error.position == len("amount == ")
    assert len(str(error)) < READABLE
    assert str(error).startswith("column 11: invalid number '999")
    assert str(error).endswith("99x'")  # the tail, where the mistake is, survives


def test_unknown_long_names_and_functions_are_quoted_shortened():
    long_name = "customer_" * 500
    assert len(str(_error(f"{long_name} == 1", {"customer": 1}))) < READABLE
    called = _error(f"{long_name}(1)")
    assert "unknown function '" in str(called) and len(str(called)) < 300


def test_a_bad_pattern_and_re2s_reason_are_both_shortened():
    error = _error("matches(x, '" + "(a" * 400 + "')")
    assert "bad pattern '(a(a" in str(error) and len(str(error)) < READABLE + QUOTE_LIMIT


@pytest.mark.parametrize("position", [0, 5, 4000, 8999])
def test_excerpt_marks_the_exact_position_of_the_error(position):
    text = "".join(chr(ord("a") + i % 26) for i in range(9000))
    shown = excerpt(text, position)
    before, after = shown.split(MARK)
    assert after.rstrip("\u2026")[:1] == text[position]
    assert before.lstrip("\u2026") == text[max(0, position - len(before.lstrip("\u2026"))):position]
    assert len(shown) <= 45


def test_validation_of_a_9kb_condition_reports_the_column_with_an_excerpt():
    data = base()
    clauses = " and ".join(f"listing_status != 'v{i}'" for i in range(300))
    bad = clauses + " and listing_status === 'x'"
    edge(data, "e2")["when"] = bad
    (issue,) = [i for i in validate(SOP.model_validate(data)) if i.code == "bad-condition"]
    column = int(re.search(r"column (\d+)", issue.message).group(1))
    assert bad[column - 1] == "="  # the second '=' of '===', where the parser stopped
    assert bad.index("===") + 2 == column - 1
    assert f"{MARK}= 'x'" in issue.message and len(issue.message) < 200


def test_validation_messages_quote_long_names_shortened():
    data = base()
    long_name = "status_of_the_listing_" * 300
    edge(data, "e2")["when"] = f"{long_name} == 'active'"
    issues = validate(SOP.model_validate(data))
    undefined = [i for i in issues if i.code == "undefined-variable"]
    assert undefined and all(len(i.message) < 300 for i in undefined)


def test_enum_values_listed_in_coverage_messages_are_bounded():
    data = base()
    data["tools"][0]["outputs"][0]["enum"] = [f"state_{i}_" + "x" * 200 for i in range(30)]
    edge(data, "e2")["when"] = f"listing_status == 'state_0_{'x' * 200}'"
    data["edges"] = [e for e in data["edges"] if e["id"] != "e3"]
    node(data, "done_blocked")  # still declared; now unreachable
    missing = [i for i in validate(SOP.model_validate(data)) if i.code == "missing-default"]
    assert missing and "and 21 more" in missing[0].message and len(missing[0].message) < 600
