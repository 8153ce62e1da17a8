"""Seed-style pseudocode import: the three Agent-S SOPs (verbatim from the seed) and messy text."""

from __future__ import annotations

import pytest

from sopstudio.core import validate as validate_mod
from sopstudio.core.model import SOP
from sopstudio.formats import export_sop, import_text

from helpers import FORMATS


def load(name: str):
    return import_text((FORMATS / name).read_text(encoding="utf-8"))


def branches(sop: SOP, node_id: str) -> dict[str, str]:
    """target -> condition of the node's conditional exits."""
    return {e.target: e.when for e in sop.out_edges(node_id) if e.when is not None}


def next_of(sop: SOP, node_id: str) -> str:
    (edge,) = sop.out_edges(node_id)
    assert edge.when is None
    return edge.target


def errors(sop: SOP) -> list:
    return [i for i in validate_mod.validate(sop) if i.severity == "error"]


def test_listing_blocked_table_1_structure():
    result = load("agent_s_listing_blocked.txt")
    sop = result.sop
    assert result.format == "text" and sop.start == "check_user_status"
    assert sop.node("check_user_status").tools == ["check_user_status"]
    assert branches(sop, "check_user_status") == {
        "show_message_onboarding": "user_status == 'onboarding'",
        "ask_user_provide_listing_id": "user_status in ['active', 'on-hold']"}
    assert sop.node("ask_user_provide_listing_id").ask == ["listing_id"]
    assert next_of(sop, "ask_user_provide_listing_id") == "check_listing_id_status"
    assert branches(sop, "check_listing_id_status") == {
        "show_message_listing_inactive": "listing_id_status == 'inactive'",
        "show_message_active_listing": "listing_id_status == 'active'",
        "check_block_reason": "listing_id_status == 'blocked'"}
    assert branches(sop, "check_block_reason") == {
        "show_message_seller_state_change": "block_reason == 'seller state change'",
        "check_listing_can_be_reactivated": "else"}
    assert branches(sop, "check_listing_can_be_reactivated") == {
        "show_message_reactivation": "listing_can_be_reactivated == true",
        "check_reason_code": "listing_can_be_reactivated == false"}
    assert next_of(sop, "show_message_reactivation") == "create_ticket"
    assert next_of(sop, "check_reason_code") == "inform_user"
    ends = [n for n in sop.nodes if n.kind == "end"]
    assert len(ends) == 6  # one per "terminate the flow"
    assert all(not sop.out_edges(n.id) for n in ends)
    tool = sop.tool("check_listing_id_status")
    assert tool.required_parameters() == ["listing_id"]
    assert tool.outputs[0].name == "listing_id_status"
    assert tool.outputs[0].enum == ["inactive", "active", "blocked"]
    assert sop.node("show_message_onboarding").say == "Onboarding."
    assert errors(sop) == []


def test_listing_blocked_notes_list_derived_names():
    notes = "\n".join(load("agent_s_listing_blocked.txt").notes)
    for name in ("user_status", "listing_id", "check_block_reason", "listing_can_be_reactivated"):
        assert name in notes
    assert "confirm" in notes


def test_email_update_a4_structure():
    sop = load("agent_s_email_update.txt").sop
    assert branches(sop, "check_user_status") == {
        "show_message_email_update_not_possible": "user_status in ['on-hold', 'onboarding']",
        "ask_user_about_access_old_email": "user_status == 'active'"}
    assert sop.node("ask_user_about_access_old_email").ask == ["access_old_email"]
    assert sop.variable("access_old_email").type == "boolean"
    assert branches(sop, "ask_user_about_access_old_email") == {
        "ask_user_provide_old_email": "access_old_email == true",
        "ask_user_provide_phone_number": "access_old_email == false"}
    # "send otp and ask for otp received on old email" is two actions: the tool, then the ask
    assert next_of(sop, "ask_user_provide_old_email") == "send_otp"
    assert sop.node("send_otp").tools == ["send_otp"]
    assert next_of(sop, "send_otp") == "ask_otp_old_email"
    assert sop.node("ask_otp_old_email").ask == ["otp_old_email"]
    assert "otp_old_email" in sop.tool("validate_otp_old_email").required_parameters()
    ends = [n for n in sop.nodes if n.kind == "end"]
    assert len(ends) == 3 and {n.outcome for n in ends} == {"email_update_not_possible",
                                                           "email_updated"}
    assert [t.name for t in sop.tools].count("send_otp") == 1  # one tool, shared by 4 nodes
    assert sum(n.tools == ["send_otp"] for n in sop.nodes) == 4
    assert errors(sop) == []


def test_brand_approval_a5_structure():
    sop = load("agent_s_brand_approval.txt").sop
    assert sop.start == "ask_user_provide_request_id"
    assert next_of(sop, "ask_user_provide_request_id") == "check_request_id_status"
    assert branches(sop, "check_request_id_status") == {
        "show_message_brand_approved": "request_id_status == 'approved'",
        "decide_less_than_or_equal_72_hrs":
            "request_id_status in ['in-progress', 'disapproved']"}
    decision = sop.node("decide_less_than_or_equal_72_hrs")
    assert not decision.has_actions()
    assert branches(sop, decision.id) == {"show_message_less_than_72_hrs": "elapsed_hours <= 72",
                                         "create_ticket_brand_approval": "else"}
    outputs = {o.name: o for o in sop.tool("check_request_id_status").outputs}
    assert outputs["elapsed_hours"].type == "number"
    assert sum(n.kind == "end" for n in sop.nodes) == 3
    assert errors(sop) == []


def test_messy_text_tabs_numbering_bullets_and_notes():
    text = ("# Refund request\n\n1. Ask the user to provide order id\n"
            "2.\tcheck order status\n\n"
            "* if it's delivered or shipped:\n\t• create refund\n\t+ show message refund started\n"
            "\t- end the conversation\n"
            "* otherwise:\n    - show message cannot refund\n    - terminate the flow\n"
            "    - this trailing remark has nowhere to go\n")
    result = import_text(text)
    sop = result.sop
    assert sop.title == "Refund request"
    assert sop.nodes[0].ask == ["order_id"]
    assert branches(sop, "check_order_status") == {
        "create_refund": "order_status in ['delivered', 'shipped']",
        "show_message_cannot_refund": "else"}
    kept = [note for n in sop.nodes for note in n.notes]
    assert any("this trailing remark has nowhere to go" in note for note in kept)
    assert errors(sop) == []


def test_orphan_else_and_unknown_lines_are_notes_not_dropped():
    sop = import_text("check account\nelse:\n  show message odd\n").sop
    kept = " ".join(note for n in sop.nodes for note in n.notes)
    assert "show message odd" in kept and "else" in kept


def test_empty_text_is_an_error():
    from sopstudio.formats import FormatError
    with pytest.raises(FormatError, match="line 1"):
        import_text("   \n\n", "text")


def test_pseudocode_export_reimports_with_same_branches():
    sop = load("agent_s_listing_blocked.txt").sop
    text = export_sop(sop, "text")
    assert "if user_status == 'onboarding':" in text
    again = import_text(text).sop
    assert again.title == sop.title
    assert sum(n.kind == "end" for n in again.nodes) == 6


def test_sop_agent_style_if_always_list():
    text = ("Check the customer's connection status\n"
            "    IF the status is operational:\n"
            "        ALWAYS: check area outages\n"
            "        IF outage reported:\n"
            "            inform the user about the outage\n"
            "            terminate the flow\n"
            "        ELSE:\n"
            "            ask the user to restart the router\n"
            "            terminate the flow\n"
            "    ELSE IF the status is interruption detected:\n"
            "        create ticket\n"
            "        terminate the flow\n")
    sop = import_text(text).sop
    first = sop.nodes[0]
    assert first.tools == ["check_customer_connection_status"]
    assert branches(sop, first.id) == {
        "check_area_outages": "customer_connection_status == 'operational'",
        "create_ticket": "customer_connection_status == 'interruption detected'"}
    assert branches(sop, "check_area_outages") == {
        "inform_user_about_outage": "area_outages == 'outage reported'",
        "ask_user_restart_router": "else"}
    assert sum(n.kind == "end" for n in sop.nodes) == 3
    assert errors(sop) == []
