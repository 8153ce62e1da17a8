"""FloDial troubleshooting flowcharts and STAR task graphs imported as SOPs."""

from __future__ import annotations

import json
from pathlib import Path

from sopstudio.cli_main import run
from sopstudio.core.io import load_sop
from sopstudio.core.validate import validate
from sopstudio.formats import guess_format, import_text
from sopstudio.formats.star import variable_of

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FLODIAL = FIXTURES / "flodial" / "printer_jam.json"
STAR = FIXTURES / "star" / "library_renew.json"
STAR_API = FIXTURES / "star" / "library_renew_api.json"


def test_flodial_is_detected_not_taken_for_tool_specs():
    assert guess_format(FLODIAL.read_text()) == "flodial"


def test_flodial_questions_become_yes_no_decisions_and_terminals_ends():
    sop = import_text(FLODIAL.read_text()).sop
    assert sop.id == "printer_jam" and "paper jam" in sop.description
    first = sop.node(sop.start)
    assert first.say == "Can you see crumpled paper in the input tray?"
    (variable,) = first.ask
    assert next(v for v in sop.variables if v.name == variable).type == "boolean"
    out = [(e.when, e.label) for e in sop.edges if e.source == first.id]
    assert out == [(f"{variable} == true", "yes"), ("else", "no")]
    ends = [n for n in sop.nodes if n.kind == "end"]
    assert any(n.say.startswith("Pull the sheet out") for n in ends)
    assert [k.question for k in sop.knowledge] == ["Where is the rear door?",
                                                   "Can I use tweezers?"]
    assert [i for i in validate(sop) if i.severity == "error"] == []


def test_flodial_answer_without_a_branch_ends_unresolved_and_is_noted():
    result = import_text(FLODIAL.read_text(), "flodial")
    unresolved = [n for n in result.sop.nodes if n.outcome == "unresolved"]
    assert len(unresolved) == 1 and unresolved[0].id.startswith("n4_")
    assert any("no 'yes' branch" in note for note in result.notes)


def test_flodial_scripted_bench_is_perfect(tmp_path, capsys):
    out = tmp_path / "jam.sop.json"
    assert run(["import", str(FLODIAL), "-o", str(out)]) == 0
    capsys.readouterr()
    assert run(["bench", str(out), "--no-store", "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]["overall"]
    assert metrics["tsr"] == 1.0 and metrics["path_accuracy"] == 1.0


def test_star_asks_query_with_success_and_failure_and_ends():
    assert guess_format(STAR.read_text()) == "star"
    result = import_text(STAR.read_text())
    sop = result.sop
    assert sop.start == "hello"
    assert sop.node("library_ask_card_number").ask == ["card_number"]
    query = [(e.target, e.on) for e in sop.edges if e.source == "query"]
    assert query == [("library_inform_renewed", "success"),
                     ("library_inform_cannot_renew", "failure")]
    assert sop.node("anything_else").kind == "end"
    assert any("info_missing" in note for note in result.notes)


def test_star_api_spec_types_the_tool_and_gives_enums(tmp_path, capsys):
    out = tmp_path / "renew.sop.json"
    assert run(["import", str(STAR), "--from", "star", "--api", str(STAR_API),
                "-o", str(out)]) == 0
    sop = load_sop(out)
    (tool,) = sop.tools
    assert tool.parameters["properties"]["branch"]["enum"] == ["Central", "Harbour", "Hillside"]
    assert tool.parameters["required"] == ["card_number"]
    assert [o.name for o in tool.outputs] == ["due_date"]
    assert next(v for v in sop.variables if v.name == "branch").enum[0] == "Central"
    assert sop.node("query").tool_args == {"library_renew": {"full_name": "name"}}
    assert [i for i in validate(sop) if i.severity == "error"] == []


def test_star_reply_names_give_variables():
    assert variable_of("bank_ask_account_number") == "account_number"
    assert variable_of("ask_name") == "name"
    assert variable_of("bank_inform_balance") is None
    assert variable_of("task_asked") is None


def test_a_byte_order_mark_changes_nothing():
    for path, fmt in ((FLODIAL, "flodial"), (STAR, "star")):
        text = path.read_text()
        assert import_text("\ufeff" + text, fmt).sop == import_text(text, fmt).sop


def test_api_without_star_is_one_clear_error(tmp_path, capsys):
    code = run(["import", str(FLODIAL), "--api", str(STAR_API), "-o", str(tmp_path / "o.json")])
    assert code != 0 and "--api goes with --from star" in capsys.readouterr().err


def test_api_inputs_match_asked_variables_by_name_initials_or_the_questions_words():
    from sopstudio.core.model import Variable
    from sopstudio.formats.star import match_inputs
    asked = {"name": Variable(name="name", description="What is your full name?"),
             "dob": Variable(name="dob", description="When were you born?"),
             "pin": Variable(name="pin", description="Your PIN?")}
    assert match_inputs(["shop_name", "full_name", "date_of_birth", "pin"], asked) == {
        "pin": "pin", "date_of_birth": "dob", "full_name": "name"}
