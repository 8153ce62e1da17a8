"""Rasa e2e test cases as scenarios: `bench FLOW --rasa-tests TESTS.yml`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import dumps, load_sop
from sopstudio.engine.compiled import CompiledSop, EngineError
from sopstudio.engine.scenarios_rasa import load_tests, scenarios_from_rasa_tests

RASA = Path(__file__).resolve().parent / "fixtures" / "rasa"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_sops" / "order_return.sop.json"
TESTS = RASA / "order_return" / "e2e_tests.yml"


def _bench(capsys, flow, tests) -> dict:
    assert run(["bench", str(flow), "--rasa-tests", str(tests), "--no-store", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _tests(sop, text: str):
    return scenarios_from_rasa_tests(CompiledSop(sop), load_tests(text, "t.yml"))


def test_the_imported_sample_passes_its_own_test_cases_and_skips_another_flows(capsys):
    data = _bench(capsys, SAMPLE, TESTS)
    tests = data["rasa_tests"]
    assert (tests["passed"], tests["failed"], tests["not_applicable"]) == (3, 0, 1)
    skipped = [c for c in tests["cases"] if c["result"] == "not applicable"]
    assert skipped == [{"test_case": "track_my_order", "result": "not applicable",
                        "reason": "starts the flow 'track_order'"}]
    assert data["metrics"]["by_type"]["rasa-e2e"]["tsr"] == 1.0


def test_parcel_flow_imported_from_a_folder_passes_three_and_skips_two(tmp_path, capsys):
    out = tmp_path / "flows"
    assert run(["import", str(RASA / "parcel"), "--from", "rasa", "-o", str(out)]) == 0
    capsys.readouterr()
    data = _bench(capsys, out / "redirect_parcel.sop.json", RASA / "parcel" / "e2e_tests.yml")
    tests = data["rasa_tests"]
    assert (tests["passed"], tests["failed"], tests["not_applicable"]) == (3, 0, 2)
    reasons = {c["test_case"]: c.get("reason") for c in tests["cases"]}
    assert "utter_goodbye" in reasons["say_goodbye"]


def test_stubs_give_tool_responses_and_a_test_specific_stub_wins():
    found = _tests(load_sop(SAMPLE), TESTS.read_text())
    by_id = {s.id: s for s in found.scenarios}
    assert by_id["final_sale_item"].responses["check_return_eligibility"] == [
        {"outputs": {"return_status": "final_sale"}}]
    assert by_id["damaged_item_refunded_to_card"].user["seed"] == {
        "order_id": "ORD12345", "return_reason": "damaged"}
    assert by_id["final_sale_item"].expected["end_node"] == "end_of_flow"


def test_a_flow_that_no_longer_does_what_the_test_says_fails_the_case(tmp_path, capsys):
    sop = load_sop(SAMPLE)
    for edge in sop.edges:  # final-sale items now go on to the reason question
        if edge.when == "return_status == 'final_sale'":
            edge.target = "ask_reason"
    changed = tmp_path / "changed.sop.json"
    changed.write_text(dumps(sop))
    tests = _bench(capsys, changed, TESTS)["rasa_tests"]
    assert (tests["passed"], tests["failed"]) == (2, 1)
    failed = next(c for c in tests["cases"] if c["result"] == "failed")
    assert failed["test_case"] == "final_sale_item" and "utter_final_sale" in failed["reason"]


def test_fixtures_fill_slots_and_a_missing_fixture_is_an_error():
    sop = load_sop(SAMPLE)
    text = ("fixtures:\n  - known:\n      - order_id: ORD1\n"
            "test_cases:\n  - test_case: t\n    fixtures: [known]\n    steps:\n"
            "      - user: hi\n      - utter: utter_ask_return_reason\n")
    (scenario,) = _tests(sop, text).scenarios
    assert scenario.user["seed"] == {"order_id": "ORD1"}
    with pytest.raises(EngineError, match="no fixture named 'other'"):
        _tests(sop, text.replace("[known]", "[other]"))


def test_unknown_actions_slots_and_texts_make_a_case_not_applicable():
    sop = load_sop(SAMPLE)
    cases = {"runs": "      - user: x\n        assertions:\n          - action_executed: act_x\n",
             "slot": "      - slot_was_set:\n          - loyalty_tier: gold\n",
             "text": "      - bot: Hello there\n",
             "builtin": "      - user: x\n        assertions:\n"
                        "          - action_executed: action_listen\n"}
    text = "test_cases:\n" + "".join(f"  - test_case: {name}\n    steps:\n{steps}"
                                     for name, steps in cases.items())
    found = _tests(sop, text)
    reasons = {item["test_case"]: item["reason"] for item in found.not_applicable}
    assert "act_x" in reasons["runs"] and "loyalty_tier" in reasons["slot"]
    assert "Hello there" in reasons["text"]
    assert [s.id for s in found.scenarios] == ["builtin"]


def test_a_file_without_test_cases_is_one_clear_error(tmp_path, capsys):
    bad = tmp_path / "t.yml"
    bad.write_text("stories: []\n")
    assert run(["bench", str(SAMPLE), "--rasa-tests", str(bad), "--no-store"]) == 1
    assert "not a Rasa e2e test file" in capsys.readouterr().err


def test_slot_was_not_set_and_pattern_assertions():
    sop = load_sop(SAMPLE)
    text = ("test_cases:\n"
            "  - test_case: refund_not_store_credit\n    steps:\n"
            "      - slot_was_set:\n          - order_id: ORD1\n          - return_reason: damaged\n"
            "      - slot_was_not_set:\n          - refund_method: store_credit\n"
            "  - test_case: wrongly_says_unset\n    steps:\n"
            "      - slot_was_set:\n          - order_id: ORD1\n          - return_reason: damaged\n"
            "      - slot_was_not_set:\n          - refund_method\n"
            "  - test_case: cancels\n    steps:\n"
            "      - user: stop\n        assertions:\n"
            "          - flow_cancelled:\n              flow_id: order_return\n")
    found = _tests(sop, text)
    realized = {s.id: s.realized for s in found.scenarios}
    assert realized == {"refund_not_store_credit": True, "wrongly_says_unset": False}
    assert "flow_cancelled" in found.not_applicable[0]["reason"]


@pytest.mark.parametrize("text", [
    "test_cases: [5, {test_case: a}]\n",
    "stub_custom_actions: [1]\nfixtures: x\ntest_cases:\n  - test_case: a\n    fixtures: y\n"
    "    steps: [3, {user: u, assertions: 4}, {slot_was_set: 7}, {bot_uttered: 2}]\n",
    "test_cases:\n  - steps:\n      - slot_was_not_set: [{name: order_id}]\n",
])
def test_odd_shapes_give_an_engine_error_or_scenarios_never_a_crash(text):
    try:
        _tests(load_sop(SAMPLE), text)
    except EngineError as error:
        assert "test case" in str(error)


def test_a_tests_folder_merges_its_files(tmp_path, capsys):
    folder = tmp_path / "tests"
    (folder / "more").mkdir(parents=True)
    text = TESTS.read_text()
    stubs, cases = text.split("test_cases:")
    (folder / "stubs.yml").write_text(stubs)
    (folder / "more" / "cases.yml").write_text("test_cases:" + cases)
    tests = _bench(capsys, SAMPLE, folder)["rasa_tests"]
    assert (tests["passed"], tests["not_applicable"]) == (3, 1)


def test_a_missing_tests_file_is_one_line(capsys):
    assert run(["bench", str(SAMPLE), "--rasa-tests", "/nonexistent/t.yml", "--no-store"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and len(err.strip().splitlines()) == 1


def test_outputs_of_actions_without_stubs_are_chosen_to_follow_the_test():
    text = ("test_cases:\n  - test_case: final_sale\n    steps:\n"
            "      - user: return my order\n      - utter: utter_ask_order_id\n"
            "      - user: ORD4\n      - utter: utter_final_sale\n"
            "  - test_case: confirmed_by_reply\n    steps:\n"
            "      - user: return my order\n      - utter: utter_ask_order_id\n"
            "      - user: ORD5\n      - utter: utter_ask_return_reason\n"
            "      - user: changed_mind\n      - utter: utter_label_sent\n")
    found = _tests(load_sop(SAMPLE), text)
    by_id = {s.id: s for s in found.scenarios}
    sale = by_id["final_sale"]
    assert sale.realized and sale.user["seed"] == {"order_id": "ORD4"}  # the reply fills it
    assert sale.responses["check_return_eligibility"][0]["outputs"] == {
        "return_status": "final_sale"}
    assert any("chosen so the run does what the test expects" in n for n in sale.notes)
    reply = by_id["confirmed_by_reply"]
    assert reply.realized and reply.user["seed"]["return_reason"] == "changed_mind"
    assert reply.expected["path"][-2:] == ["utter_label_sent", "end_of_flow"]


def test_rasa_internal_slots_do_not_make_a_case_not_applicable():
    text = ("test_cases:\n  - test_case: routed\n    steps:\n      - user: hi\n"
            "        assertions:\n          - slot_was_set:\n"
            "              - name: route_session_to_calm\n                value: true\n")
    found = _tests(load_sop(SAMPLE), text)
    assert [s.id for s in found.scenarios] == ["routed"] and not found.not_applicable
