"""Rasa CALM flows imported as SOPs: steps, conditions, domain texts, one file per flow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sopstudio.cli_main import run
from sopstudio.core.io import dumps, load_sop
from sopstudio.core.validate import validate
from sopstudio.formats import FormatError, guess_format, import_text
from sopstudio.formats.rasa import import_flows, import_project
from sopstudio.formats.rasa_domain import Domain, load_domain
from sopstudio.formats.rasa_conditions import translate_condition

RASA = Path(__file__).resolve().parent / "fixtures" / "rasa"
FIXTURES = RASA / "parcel"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_sops" / "order_return.sop.json"


def _flows(domain: bool = True) -> dict:
    text = (FIXTURES / "flows.yml").read_text()
    dom = load_domain((FIXTURES / "domain.yml").read_text(), "domain.yml") if domain else None
    return {r.sop.id: r for r in import_flows(text, "flows.yml", dom)}


@pytest.mark.parametrize("pypred, ours", [
    ("slots.age > 18 and slots.country = 'FR'", "age > 18 and country == 'FR'"),
    ("slots.status is not 'closed'", "status != 'closed'"),
    ("slots.status is \"open\" or not slots.vip", "status == 'open' or not vip"),
    ("context.collect is null", "collect == null"),
    ("slots.tags contains 'urgent'", "contains(tags, 'urgent')"),
    ("not (slots.tags) contains slots.tag", "not contains((tags), tag)"),
    ("{'WARN' 'ERR' 'CRIT'} contains slots.level", "contains(['WARN', 'ERR', 'CRIT'], level)"),
    ("(slots.age > 18 and (slots.consent = \"yes\" or slots.consent = 'y'))",
     "(age > 18 and (consent == 'yes' or consent == 'y'))"),
    ("slots.amount <= 100.5", "amount <= 100.5"),
    (True, "true"),
])
def test_pypred_conditions_translate_to_the_expression_language(pypred, ours):
    assert translate_condition(pypred) == (ours, True)


def test_matches_becomes_a_function_call_kept_as_written_until_the_language_has_it():
    text, ok = translate_condition('slots.code matches "^[A-Z]{2}$"')
    assert text in ("matches(code, '^[A-Z]{2}$')", 'slots.code matches "^[A-Z]{2}$"')
    assert ok == (text.startswith("matches("))


def test_an_untranslatable_condition_is_kept_noted_and_flagged_by_validation():
    flows = "flows:\n  f:\n    description: d\n    steps:\n      - action: act\n" \
            "        next:\n          - if: slots.x ~~ 3\n            then: END\n" \
            "          - else: END\n"
    result = import_flows(flows, "f.yml")[0]
    edge = next(e for e in result.sop.edges if e.when and e.when != "else")
    assert edge.when == "slots.x ~~ 3"
    assert any("kept as written" in note for note in result.notes)
    assert any("untranslated Rasa condition" in n for n in result.sop.node("act").notes)
    assert "bad-condition" in {i.code for i in validate(result.sop)}


def test_collect_action_branches_and_set_slots_become_nodes_and_edges():
    sop = _flows()["redirect_parcel"].sop
    collect = sop.node("collect_tracking_number")
    assert collect.ask == ["tracking_number"] and collect.say.startswith("What is the tracking")
    assert "two letters" in collect.instructions and collect.max_attempts == 3
    rejected = sop.node("collect_tracking_number_rejected_1")
    assert rejected.say == "A tracking number has no spaces."
    out = [(e.target, e.when) for e in sop.edges if e.source == "collect_tracking_number"]
    assert out[0] == ("collect_tracking_number_rejected_1", "contains(tracking_number, ' ')")
    assert out[1] == ("check_parcel_status", None)
    branches = [(e.target, e.when) for e in sop.edges if e.source == "check_parcel_status"]
    assert branches == [("utter_already_delivered", "parcel_status == 'delivered'"),
                        ("ask_address", "parcel_status == 'in_transit' and redirects_left > 0"),
                        ("utter_cannot_redirect", "else")]
    tool = next(t for t in sop.tools if t.name == "check_parcel_status")
    assert {o.name: o.enum for o in tool.outputs} == {
        "parcel_status": ["in_transit", "delivered", "lost"], "redirects_left": None}
    assert sop.node("set_slots").set == {"confirm_redirect": "null"}
    assert sop.node("end_of_flow").kind == "end"
    assert "redirect_parcel" in sop.description or "Started by the intents" in sop.description
    assert validate(sop) == [] or all(i.severity == "warning" for i in validate(sop))


def test_without_a_domain_the_response_name_is_said_and_noted():
    result = _flows(domain=False)["redirect_parcel"]
    assert result.sop.node("utter_already_delivered").say == "utter_already_delivered"
    assert any("give --domain" in note for note in result.notes)


def test_call_link_guard_and_pattern_flows():
    flows = _flows()
    damage = flows["report_damage"].sop
    call = damage.node("call_redirect_parcel")
    assert call.kind == "subflow" and call.subflow == "redirect_parcel.sop.json"
    link = damage.node("link_redirect_parcel")
    assert link.kind == "end" and "redirect_parcel" in link.instructions
    assert damage.start == "flow_guard"
    guard = [(e.target, e.when) for e in damage.edges if e.source == "flow_guard"]
    assert guard == [("call_redirect_parcel", "logged_in"), ("not_started", "else")]
    pattern = flows["pattern_completed"].sop
    assert pattern.title.startswith("[pattern]") and "pattern flow" in pattern.description


def test_next_may_list_steps_without_conditions():
    text = ("flows:\n  f:\n    description: d\n    steps:\n      - collect: name\n"
            "        next:\n          - collect: age\n          - action: utter_ok\n"
            "      - action: utter_skipped\n")
    sop = import_flows(text, "f.yml")[0].sop
    assert [(e.source, e.target) for e in sop.edges if e.source == "collect_name"] == [
        ("collect_name", "collect_age")]
    assert ("collect_age", "utter_ok") in [(e.source, e.target) for e in sop.edges]


def test_a_next_to_an_unknown_step_is_one_clear_error():
    with pytest.raises(FormatError, match="names no step 'nowhere'"):
        import_flows("flows:\n  a:\n    steps:\n      - collect: x\n        next: nowhere\n",
                     "a.yml")


def test_yaml_aliases_and_bad_yaml_are_refused_with_one_line():
    with pytest.raises(FormatError, match="aliases"):
        import_flows("x: &a [1]\nflows:\n  f:\n    steps: *a\n", "a.yml")
    with pytest.raises(FormatError, match=r"b.yml: line \d+: not valid YAML"):
        import_flows("flows:\n  f: [\n", "b.yml")


def test_flows_text_is_detected_and_the_registry_imports_the_first_flow():
    text = (FIXTURES / "flows.yml").read_text()
    assert guess_format(text) == "rasa"
    result = import_text(text)
    assert result.format == "rasa" and result.sop.id == "redirect_parcel"
    assert any("report_damage" in note for note in result.notes)


def test_import_folder_writes_one_file_per_flow_with_the_folders_domain(tmp_path, capsys):
    out = tmp_path / "flows"
    assert run(["import", str(FIXTURES), "--from", "rasa", "-o", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == ["pattern_completed.sop.json", "redirect_parcel.sop.json",
                       "report_damage.sop.json"]
    sop = load_sop(out / "redirect_parcel.sop.json")
    assert sop.node("utter_cannot_redirect").say.startswith("Sorry")
    assert "(pattern)" in capsys.readouterr().out


def test_import_with_domain_option_and_several_flows_to_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "one.sop.json"
    code = run(["import", str(FIXTURES / "flows.yml"), "--from", "rasa", "--domain",
                str(FIXTURES / "domain.yml"), "-o", str(target)])
    assert code != 0 and not target.exists()
    assert "holds 3 flows" in capsys.readouterr().err


def test_the_sample_is_what_the_importer_makes_of_its_rasa_source():
    folder = RASA / "order_return"
    sources = [(str(p), p.read_text()) for p in sorted(folder.glob("*.yml"))]
    (result,) = import_project(sources)
    assert json.loads(dumps(result.sop)) == json.loads(SAMPLE.read_text())
    assert validate(result.sop) == []


def test_domain_responses_take_the_first_variant_and_slots_their_type():
    domain = load_domain((FIXTURES / "domain.yml").read_text(), "domain.yml")
    assert isinstance(domain, Domain)
    assert domain.responses["utter_parcel_redirected"].startswith("Done")
    assert domain.slots["confirm_redirect"]["type"] == "bool"
    sop = _flows()["redirect_parcel"].sop
    assert {v.name: v.type for v in sop.variables}["confirm_redirect"] == "boolean"


def test_stubs_of_test_files_beside_the_flows_give_action_outputs():
    flows = "flows:\n  f:\n    description: d\n    steps:\n      - action: lookup\n"
    tests = ("stub_custom_actions:\n  case1::lookup:\n    events:\n      - event: slot\n"
             "        name: balance\n        value: 10\ntest_cases: []\n")
    (result,) = import_project([("flows.yml", flows), ("tests.yml", tests)])
    (tool,) = result.sop.tools
    assert [o.name for o in tool.outputs] == ["balance"]
    assert any("its test stub sets it" in note for note in result.notes)


def test_a_byte_order_mark_changes_nothing():
    text = (FIXTURES / "flows.yml").read_text()
    assert import_text("\ufeff" + text, "rasa").sop == import_text(text, "rasa").sop


def test_a_rejection_of_values_not_matching_a_pattern_is_the_variables_pattern():
    text = ("flows:\n  f:\n    description: d\n    steps:\n      - collect: code\n"
            "        rejections:\n          - if: not (slots.code matches \"^[A-Z]{2}[0-9]{3}$\")\n"
            "            utter: utter_bad_code\n")
    result = import_flows(text, "f.yml")[0]
    (variable,) = result.sop.variables
    assert variable.pattern == "^[A-Z]{2}[0-9]{3}$"
    assert "utter_bad_code" in result.sop.node("collect_code").instructions
    assert [e.when for e in result.sop.edges] == [None]  # no re-ask loop needed
    assert [i for i in validate(result.sop) if i.severity == "error"] == []


@pytest.mark.parametrize("text", [
    "flows: {f: {steps: [1]}}\n", "flows: {f: {steps: [{collect: x, next: 5}]}}\n",
    "flows: {f: {steps: [{action: a, next: [{if: x}]}]}}\n", "flows: {f: {steps: []}}\n",
    "flows: {f: {steps: [{collect: x, rejections: [1, {if: 2}]}]}}\n",
    "flows: {f: {steps: [{set_slots: 3}, {bogus: 1}]}}\n",
])
def test_odd_flow_shapes_give_a_format_error_or_a_flow_never_a_crash(text):
    try:
        import_flows(text, "f.yml")
    except FormatError as error:
        assert str(error)


def test_a_domain_with_odd_shapes_is_one_clear_error():
    with pytest.raises(FormatError, match="are mappings"):
        load_domain("responses: 5\n", "d.yml")


LOOP_FLOW = """flows:
  top_up:
    description: add credit to a prepaid card
    steps:
      - id: ask_amount
        collect: top_up_amount
      - action: check_card_limit
        next:
          - if: not slots.within_limit
            then:
              - action: utter_over_limit
              - set_slots:
                  - top_up_amount: null
                  - within_limit: null
                next: ask_amount
          - else: done
      - id: done
        action: utter_topped_up
  pattern_example:
    description: reads the dialogue context
    steps:
      - noop: true
        next:
          - if: context.previous_flow = "top_up"
            then: END
          - else: END
"""


def test_loops_are_bounded_and_slots_set_by_an_action_and_reset_are_its_outputs():
    flows = {r.sop.id: r for r in import_flows(LOOP_FLOW, "loop.yml")}
    sop = flows["top_up"].sop
    assert sop.node("ask_amount").max_attempts == 3
    (check,) = [t for t in sop.tools if t.name == "check_card_limit"]
    assert [o.name for o in check.outputs] == ["within_limit"]
    assert [i for i in validate(sop) if i.severity == "error"] == []
    context = flows["pattern_example"].sop
    assert context.node("noop").ask == ["previous_flow"]
    assert [i for i in validate(context) if i.severity == "error"] == []


def test_a_bounded_loop_runs_with_the_scripted_agent(tmp_path, capsys):
    src = tmp_path / "loop.yml"
    src.write_text(LOOP_FLOW)
    assert run(["import", str(src), "--from", "rasa", "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert run(["bench", str(tmp_path / "out" / "top_up.sop.json"), "--no-store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["overall"]["tsr"] == 1.0


def test_an_nlu_trigger_intent_may_carry_a_confidence_threshold():
    text = ("flows:\n  f:\n    description: d\n    nlu_trigger:\n      - intent:\n"
            "          name: greet\n          confidence_threshold: 0.9\n"
            "    steps:\n      - action: utter_hi\n")
    assert "Started by the intents: greet (confidence at least 0.9)." in import_flows(text, "f.yml")[0].sop.description
