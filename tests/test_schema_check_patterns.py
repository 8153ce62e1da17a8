"""JSON Schema `pattern`s of tool parameters are matched by RE2, like `matches()`: linear time on
whatever value a model writes, and a pattern that is not valid never blocks a call."""

from __future__ import annotations

from sopstudio.engine.schema_check import schema_errors

PRODUCT = {"type": "string", "pattern": "^P_\\d{5}$"}  # SOP-Bench style product ids


def test_a_value_that_fits_the_pattern_passes_and_one_that_does_not_is_named():
    assert schema_errors("P_12345", PRODUCT, "product_id") == []
    assert schema_errors("P_1234", PRODUCT, "product_id") == [
        "product_id must match the pattern ^P_\\d{5}$"]


def test_a_catastrophic_backtracking_pattern_answers_at_once():
    # (a+)+$ on 'aaaa…b' takes exponential time with backtracking engines; RE2 is linear
    schema = {"type": "string", "pattern": "^(a+)+$"}
    assert schema_errors("a" * 5_000 + "b", schema, "x") == ["x must match the pattern ^(a+)+$"]


def test_a_pattern_that_is_not_valid_is_left_to_the_validator():
    assert schema_errors("anything", {"type": "string", "pattern": "(unclosed"}, "x") == []
