"""What the simulated conversation says: the scripted agent asks in plain English from the
variable's description (or its name, spoken), the scripted user answers plainly (Yes/No,
"It's LST123."), and the input row tells the operator what to type."""

from __future__ import annotations

import pytest

from sopstudio.core.io import load_sop
from sopstudio.engine.agents.scripted import question_text
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import generate
from sopstudio.engine.users import ScriptedUser, answer_text
from sopstudio.formats import import_file

from qt_helpers import SAMPLES, TAU2_DOT



def test_questions_are_plain_english():
    sop = load_sop(SAMPLES / "email_update.sop.json")
    assert question_text(sop, ["new_email"]) == \
        "Could you tell me the email address the seller wants to use?"
    assert question_text(sop, ["old_email_otp"]) == \
        "Could you tell me the OTP received on the old email address?"  # acronym kept
    # a name without a description that reads as a clause is asked with "whether"
    assert question_text(sop, ["status_bar_shows_no_service"]) == \
        "Could you tell me whether your status bar shows no service?"
    assert question_text(sop, ["seller_pin"]) == "Could you tell me your seller pin?"
    both = question_text(sop, ["new_email", "phone_number"])
    assert both == ("Could you tell me the email address the seller wants to use and "
                    "the registered mobile number?")
    listing = load_sop(SAMPLES / "listing_blocked.sop.json")
    assert question_text(listing, ["listing_id"]) == \
        "Could you tell me the id of the listing the seller asks about?"


def test_yes_no_values_are_asked_with_whether():
    sop = import_file(str(TAU2_DOT)).sop
    flags = {v.description: v.name for v in sop.variables if v.type == "boolean"}
    assert question_text(sop, [flags["Airplane Mode ON?"]]) == \
        "Could you tell me whether this applies to you: Airplane Mode ON?"
    shows = next(name for text, name in flags.items() if text.startswith("Status Bar shows"))
    assert question_text(sop, [shows]).startswith("Could you tell me whether the Status Bar "
                                                   "shows no service")


def test_the_scripted_user_answers_plainly():
    user = ScriptedUser({"listing_id": "LST123", "airplane_mode_on": True, "roaming": False,
                         "amount": 42.0}, withheld=["seller_id"])
    assert user.reply(["listing_id"], "?", None).text == "It's LST123."
    assert user.reply(["airplane_mode_on"], "?", None).text == "Yes."
    assert user.reply(["roaming"], "?", None).text == "No."
    assert user.reply(["amount"], "?", None).text == "It's 42."
    turn = user.reply(["listing_id", "roaming"], "?", None)
    assert turn.text == "Listing id: LST123; roaming: No."
    assert turn.values == {"listing_id": "LST123", "roaming": False}  # values stay typed
    missing = user.reply(["seller_id"], "?", None)
    assert missing.text == "Sorry, I don't have my seller id." and missing.missing == ["seller_id"]
    assert answer_text({"flag": True}) == "Yes."


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.sop.json")))
def test_no_robotic_text_in_any_sample_run(sample):
    compiled = CompiledSop(load_sop(SAMPLES / sample))
    for scenario in generate(compiled)[:12]:
        trace = run_scenario(compiled, scenario, "scripted")
        again = run_scenario(compiled, scenario, "scripted")
        assert trace.to_dict() == again.to_dict()  # still deterministic
        for event in trace.events:
            text = event.text or ""
            if event.type in ("ask", "user", "end") or event.type == "say":
                assert " is True" not in text and " is False" not in text
                assert "Could you give me your" not in text
            if event.type == "ask":
                assert "_" not in text.split("?")[0].replace("e_mail", ""), text


def test_the_input_row_says_what_to_type(qtbot, make_dock):
    dock = make_dock("listing_blocked.sop.json")
    assert "a bare value, or name=value pairs" in dock.input_row.user_input.placeholderText()
    dock.select(journey=0, scenario="correct", agent="scripted")
    dock.controls.as_user.setChecked(True)
    dock.run()
    qtbot.waitUntil(lambda: dock.waiting_for == "user", timeout=10000)
    hint = dock.input_row.user_input.placeholderText()
    assert hint.startswith("The agent asks: Could you tell me ")
    assert "type a bare value, or seller_id=value" in hint
    dock.send_user_text("SLR1")
    assert "a bare value, or name=value pairs" in dock.input_row.user_input.placeholderText()
