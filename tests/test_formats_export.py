"""Every exporter produces its format: DOT/SVG/PNG, Mermaid, pseudocode, prompts, tools."""

from __future__ import annotations

import json

import pytest

from sopstudio.formats import EXPORT_FORMATS, export_sop, import_file

from helpers import FORMATS


@pytest.fixture(scope="module")
def sop():
    return import_file(FORMATS / "journeybench_loan.json").sop


@pytest.fixture(scope="module")
def listing():
    return import_file(FORMATS / "agent_s_listing_blocked.txt").sop


def test_every_export_format_produces_output(sop):
    for fmt in EXPORT_FORMATS:
        out = export_sop(sop, fmt)
        assert isinstance(out, bytes if fmt == "png" else str) and out


def test_dot_export_draws_decisions_as_diamonds_top_to_bottom(listing):
    from sopstudio.formats.graphviz_io import parse_dot
    graph = parse_dot(export_sop(listing, "dot"))
    assert graph.graph_attr["rankdir"] == "TB"
    assert len(graph.nodes()) == len(listing.nodes) and len(graph.edges()) == len(listing.edges)
    shapes = {str(n): graph.get_node(n).attr["shape"] for n in graph.nodes()}
    assert shapes["terminate_flow"] == "oval"
    edge = next(e for e in graph.edges()
                if (str(e[0]), str(e[1])) == ("check_user_status", "show_message_onboarding"))
    # the author's wording is the label; the condition the tooltip (re-import reads sop_edge)
    assert edge.attr["label"] == "its onboarding"
    assert edge.attr["tooltip"] == edge.attr["when"] == "user_status == 'onboarding'"


def test_dot_export_diamond_for_pure_decision():
    from sopstudio.formats import import_text
    sop = import_text("check customer age\nif at least 18:\n  terminate the flow\n"
                      "else:\n  show message too young\n  terminate the flow\n").sop
    sop2 = import_text('digraph { q [shape=diamond, label="Adult?"]; q -> a [label=Yes]; '
                       'q -> b [label=No]; }').sop
    assert 'shape=diamond' in export_sop(sop2, "dot")
    assert sop.node("check_customer_age").tools  # it calls a tool, so it is drawn as a box
    assert "shape=diamond" not in export_sop(sop, "dot")


def test_svg_and_png(listing):
    svg = export_sop(listing, "svg")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "its onboarding" in svg
    png = export_sop(listing, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_mermaid_export(listing):
    text = export_sop(listing, "mermaid")
    assert text.splitlines()[0] == "flowchart TD"
    assert 'check_user_status -->|"its onboarding"| show_message_onboarding' in text
    assert 'terminate_flow(["Terminate the flow"])' in text


def test_text_export_is_seed_style_pseudocode(listing):
    text = export_sop(listing, "text")
    assert "if listing_id_status == 'blocked':" in text
    assert "    else:" in text and "terminate the flow (onboarding)" in text


def test_spa_prompt_has_every_node_and_tool(sop):
    text = export_sop(sop, "spa-prompt")
    assert text.startswith("Format Guide:")
    for node in sop.nodes:
        assert f"[{node.id}]" in text
    for tool in sop.tools:
        assert tool.name in text
    assert "If riskLevel == 'acceptable':\nThen: Below section logic is accessible" in text
    assert "Else: Below section logic is not accessible" in text
    separators = [line for line in text.splitlines() if line == "-----"]
    assert len(separators) == len(sop.nodes)  # between sections, and before the tool reference
    assert "credit_limit_check (requires the earlier tools" in text


def test_dpa_prompts_bundle(sop):
    bundle = json.loads(export_sop(sop, "dpa-prompts"))
    assert bundle["start"] == "1" and [n["id"] for n in bundle["nodes"]] == ["1", "5", "8", "7"]
    risk = bundle["nodes"][1]
    assert [t["function"]["name"] for t in risk["tools"]] == ["risk_evaluation",
                                                               "credit_limit_check"]
    assert risk["tools"][0]["type"] == "function"
    assert "Risk Assessment" in risk["prompt"] and "Approve Loan" not in risk["prompt"]
    assert {t["target"] for t in risk["transitions"]} == {"7", "8"}


def test_openai_tools_export_flat_list(sop):
    tools = json.loads(export_sop(sop, "openai-tools"))
    assert [t["function"]["name"] for t in tools] == [t.name for t in sop.tools]
    assert tools[1]["function"]["parameters"] == sop.tools[1].parameters
