"""The pseudocode `text` format reads back what it writes: failure branches, loop-backs,
attempt limits, say / ask / call / set lines; identifiers are kept; non-SOP text is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from sopstudio.core.io import load_sop
from sopstudio.core.validate import ERROR, validate
from sopstudio.formats import FormatError, export_sop, import_file, import_text

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "sample_sops").glob("*.sop.json"))


def errors(sop) -> list:
    return [(i.code, i.message) for i in validate(sop) if i.severity == ERROR]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_text_export_reimports_valid_with_same_shape(path):
    sop = load_sop(path)
    again = import_text(export_sop(sop, "text"), "text").sop
    assert errors(again) == []
    assert len(again.nodes) == len(sop.nodes) and len(again.edges) == len(sop.edges)
    assert sorted(t.name for t in again.tools) == sorted(t.name for t in sop.tools)
    assert {n.id for n in again.nodes} == {n.id for n in sop.nodes}
    assert again.start == sop.start


def test_failure_branch_loop_back_and_attempts_survive():
    sop = load_sop(SAMPLES[[p.name for p in SAMPLES].index("listing_blocked.sop.json")])
    text = export_sop(sop, "text")
    assert "go to [ask_listing]" in text and "(max 3 attempts)" in text
    again = import_text(text, "text").sop
    first = again.node("check_user")
    assert first.ask == ["seller_id"] and first.tools == ["check_user_status"]  # one step
    assert first.max_attempts == 3
    failure = [(e.target, e.when) for e in again.edges if e.on == "failure"]
    assert ("ask_listing", "error == 'invalid_id'") in failure
    assert ("check_user", "error == 'invalid_id'") in failure
    assert "invalid_id" in again.tool("check_listing_status").errors
    assert again.node("end_onboarding").say == sop.node("end_onboarding").say


def test_set_lines_and_quoted_say_with_and():
    text = ("# Scoring\n"
            "ask user to provide smoking_index and call scoreRisk and set total = smoking_index + "
            "extra  [score]\n"
            "if total >= 4:\n"
            "  say \"Call us and ask for help\" and terminate the flow (referred)  [high]\n"
            "if total < 4:\n"
            "  terminate the flow (ok)  [low]\n")
    sop = import_text(text, "text").sop
    score = sop.node("score")
    assert score.set == {"total": "smoking_index + extra"} and score.tools == ["scoreRisk"]
    assert sop.node("high").say == "Call us and ask for help"
    assert [o.name for o in sop.tool("scoreRisk").outputs] == ["extra"]
    assert len(sop.nodes) == 3 and errors(sop) == []


def test_go_to_an_unknown_step_is_an_error():
    with pytest.raises(FormatError, match=r"line 3: 'go to \[nowhere\]'"):
        import_text("call check_user  [a]\non failure:\n  go to [nowhere]\n"
                    "terminate the flow\n", "text")


@pytest.mark.parametrize("line, expected", [
    ("ask user to provide date_of_birth", ["date_of_birth"]),
    ("ask user to provide applicantId", ["applicantId"]),
    ("ask user to provide applicantId and loanAmount", ["applicantId", "loanAmount"]),
    ("ask the user for their date of birth", ["date_birth"]),  # plain words: filler dropped
])
def test_identifiers_are_kept_verbatim(line, expected):
    sop = import_text(f"{line}\ncall check_it\nterminate the flow\n", "text").sop
    assert sop.nodes[0].ask == expected
    assert [v.name for v in sop.variables] == expected


@pytest.mark.parametrize("text", [
    '<?xml version="1.0"?>\n<svg><g><text>call me</text></g></svg>\n',
    '{\n  "format": "sopstudio",\n  "sop": {}\n}\n',
    "MIT License\n\nPermission is hereby granted, free of charge, to any person\n"
    "obtaining a copy of this software.\n",
    "Some notes\ncall the bank\nmore prose here\nand more prose\nstill prose\n",
])
def test_text_that_is_no_sop_is_refused(text):
    with pytest.raises(FormatError, match=r"line \d+: .* does not look like an SOP in text form"):
        import_text(text, "text")


def test_refusal_also_when_guessed_from_a_file(tmp_path):
    licence = tmp_path / "LICENSE"
    licence.write_text("MIT License\n\nCopyright (c) 2024 Someone\n\nTHE SOFTWARE IS PROVIDED "
                       "AS IS, WITHOUT WARRANTY OF ANY KIND.\n")
    with pytest.raises(FormatError, match="does not look like an SOP"):
        import_file(licence)
    svg = tmp_path / "listing.svg"
    svg.write_text(export_sop(load_sop(SAMPLES[0]), "svg"))
    with pytest.raises(FormatError, match="line 1: .*does not look like an SOP"):
        import_file(svg)
