"""`bot_uttered` assertions of Rasa e2e tests checked as Rasa does: `utter_name`, `text_matches`
(a regular expression searched in the bot's message, run on RE2) and `buttons` (title and
payload, in order); a pattern RE2 refuses makes its case not applicable, never a crash."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import load_sop
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.scenarios_rasa import load_tests, scenarios_from_rasa_tests

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "rasa" / "appointment"


@pytest.fixture(scope="module")
def flow(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("flows")
    assert run(["import", str(FIXTURE), "--from", "rasa", "-o", str(out)]) == 0
    return out / "book_visit.sop.json"


@pytest.fixture(scope="module")
def results(flow) -> dict:
    return _bench(flow, FIXTURE / "e2e_tests.yml")


def _bench(flow: Path, tests: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run(["bench", str(flow), "--rasa-tests", str(tests), "--no-store", "--json"]) == 0
    cases = json.loads(out.getvalue())["rasa_tests"]["cases"]
    return {c["test_case"]: c for c in cases}


def _case(flow: Path, text: str):
    return scenarios_from_rasa_tests(CompiledSop(load_sop(flow)), load_tests(text, "t.yml"))


def test_text_matches_is_searched_in_the_filled_message_and_buttons_match(results):
    case = results["booked_with_a_code"]
    assert case["result"] == "passed", case


def test_a_pattern_no_message_matches_fails_the_case_and_says_which(results):
    case = results["expects_a_cancellation_text"]
    assert case["result"] == "failed"
    assert "message matching '(?i)cancelled'" in case["reason"]


def test_buttons_must_agree_in_title_and_payload(results):
    case = results["wrong_button_payload"]
    assert case["result"] == "failed" and "buttons 'Monday' ('/monday')" in case["reason"]


def test_a_pattern_re2_refuses_is_not_applicable_with_the_reason(results):
    case = results["look_ahead_pattern"]
    assert case["result"] == "not applicable"
    assert "text_matches pattern cannot be checked" in case["reason"] and "(?=" in case["reason"]


def test_assertions_that_cannot_be_checked_are_said_not_skipped(results):
    case = results["declined"]
    assert case["result"] == "passed"
    assert "not checked: bot_did_not_utter" in case["reason"]


def test_text_matches_is_a_search_not_a_full_match(flow):
    text = ("test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
            "        assertions:\n          - bot_uttered:\n"
            "              text_matches: 'suits'\n")
    (scenario,) = _case(flow, text).scenarios
    assert scenario.realized is not False, scenario.notes


@pytest.mark.parametrize("pattern", ["(unclosed", "x{2,1}", "a" * 1200])
def test_broken_or_huge_patterns_never_crash(flow, pattern):
    text = ("test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
            "        assertions:\n          - bot_uttered:\n"
            f"              text_matches: '{pattern}'\n")
    found = _case(flow, text)
    assert not found.scenarios
    (item,) = found.not_applicable
    assert item["reason"].startswith("its text_matches pattern cannot be checked here")
    assert len(item["reason"]) < 250  # the pattern is quoted shortened

