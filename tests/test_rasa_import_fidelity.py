"""The Rasa importer keeps the meaning of each flow and step property, or says in an import note
what it dropped (tests/fixtures/rasa/library uses the properties an SOP has no place for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sopstudio.core.validate import validate
from sopstudio.formats.rasa import import_flows, import_project
from sopstudio.formats.rasa_domain import load_domain

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "rasa" / "library"


@pytest.fixture(scope="module")
def renew():
    sources = [(str(p), p.read_text()) for p in sorted(LIBRARY.glob("*.yml"))]
    return next(r for r in import_project(sources) if r.sop.id == "renew_card")


def _note(result, *words) -> str:
    found = [n for n in result.notes if all(w in n for w in words)]
    assert found, (words, result.notes)
    return found[0]


@pytest.mark.parametrize("words", [
    ("always_include_in_prompt", "dropped"),
    ("persisted_slots", "card_number"),
    ("run_pattern_completed: false", "dropped"),
    ("collect_card_number", "ask_before_filling is not kept"),
    ("collect_card_number", "force_slot_filling", "dropped"),
    ("collect_card_number", "reset_after_flow_ends: false"),
    ("set_slots", "reset_after_flow_ends: false", "dropped"),
    ("collect_card_number", "silence_timeout not imported"),
    ("collect_branch_name", "action_ask_branch_name"),
    ("fees_due", "initial value 0"),
])
def test_every_property_without_a_place_in_the_sop_is_named_in_a_note(renew, words):
    _note(renew, *words)


def test_trigger_thresholds_and_initial_values_are_kept_in_the_text(renew):
    assert "renew_card (confidence at least 0.75)" in renew.sop.description
    fees = next(v for v in renew.sop.variables if v.name == "fees_due")
    assert "initial value: 0" in fees.description


def test_a_step_with_only_next_is_a_decision_not_an_unsupported_step(renew):
    branch = next(n for n in renew.sop.nodes if n.id == "branch")
    assert branch.notes == ["rasa: noop"]
    targets = {e.target: e.when for e in renew.sop.edges if e.source == "branch"}
    assert targets == {"utter_pay_fees_first": "fees_due > 0", "renew": "else"}
    assert not [n for n in renew.notes if "unsupported" in n]


def test_the_imported_flow_validates_without_errors(renew):
    errors = [i for i in validate(renew.sop) if i.severity == "error"]
    assert not errors, [i.message for i in errors]


def test_call_link_and_set_slots_keep_their_meaning(renew):
    nodes = {n.id: n for n in renew.sop.nodes}
    assert nodes["call_send_receipt"].kind == "subflow"
    assert nodes["call_send_receipt"].subflow == "send_receipt.sop.json"
    assert nodes["link_feedback_survey"].kind == "end"
    assert "feedback_survey" in nodes["link_feedback_survey"].instructions
    assert nodes["set_slots"].set == {"renewed": "true"}


def test_a_flow_without_extra_properties_gets_no_property_notes():
    text = "flows:\n  f:\n    description: d\n    steps:\n      - action: utter_hi\n"
    (result,) = import_flows(text, "f.yml")
    assert not [n for n in result.notes if "not imported" in n or "dropped" in n]


def test_unknown_flow_keys_are_named():
    text = ("flows:\n  f:\n    description: d\n    colour: blue\n"
            "    steps:\n      - action: utter_hi\n")
    (result,) = import_flows(text, "f.yml")
    _note(result, "colour not imported")


def test_the_domain_lists_its_custom_actions():
    domain = load_domain((LIBRARY / "domain.yml").read_text(), "domain.yml")
    assert domain.actions == {"renew_membership", "action_ask_branch_name"}
    assert domain.slots["fees_due"]["initial_value"] == 0


def test_response_buttons_and_variants_are_kept_or_noted():
    domain = load_domain(
        "responses:\n  utter_ask_ok:\n    - text: Fine?\n      buttons:\n"
        "        - title: 'Yes'\n          payload: /affirm\n        - title: Later\n"
        "    - text: All right?\n", "d.yml")
    text = "flows:\n  f:\n    description: d\n    steps:\n      - collect: ok\n"
    (result,) = import_flows(text, "f.yml", domain)
    node = result.sop.nodes[0]
    assert node.say == "Fine?"
    assert 'rasa: buttons utter_ask_ok [{"title": "Yes", "payload": "/affirm"}, ' \
           '{"title": "Later"}]' in node.notes
    assert "Offer the buttons: Yes (/affirm), Later" in node.instructions
    _note(result, "utter_ask_ok: 2 response variants", "says the first")
