"""DOT and Mermaid import/export, on the real tau2-bench telecom flowchart and small inputs."""

from __future__ import annotations

import pytest

from sopstudio.core import validate as validate_mod
from sopstudio.formats import FormatError, export_sop, import_file, import_text
from sopstudio.formats.dot import is_decision

from helpers import TAU2_DOT


def errors(sop):
    return [(i.code, i.message) for i in validate_mod.validate(sop) if i.severity == "error"]


def decisions(sop):
    return [n.id for n in sop.nodes if is_decision(sop, n)]


def structure(sop):
    return sorted((e.source, e.target, e.when) for e in sop.edges)


def test_tau2_telecom_imports_with_its_structure():
    result = import_file(TAU2_DOT)
    sop = result.sop
    assert result.format == "dot"
    assert (len(sop.nodes), len(sop.edges), len(decisions(sop))) == (33, 42, 11)
    assert sop.start == "Start"
    assert sorted(n.id for n in sop.nodes if n.kind == "end") == ["End_Escalate_Tech",
                                                                 "End_Resolve"]
    assert errors(sop) == []
    airplane = {e.target: e.when for e in sop.out_edges("P1_S1_Decision_AirplaneON")}
    assert airplane == {"P1_S1_Action_TurnAirplaneOFF": "airplane_mode_on == true",
                        "P1_S2_VerifySIM": "airplane_mode_on == false"}
    suspension = {e.target: e.when for e in sop.out_edges("P1_S4_Decision_SuspensionType")}
    assert suspension == {"P1_S4_Decision_OverdueBill": "suspension_type == 'Due to Bill'",
                          "End_Escalate_Tech": "suspension_type == 'Due to Contract End'"}
    assert set(sop.variable("suspension_type").enum) == {"Due to Bill", "Due to Contract End"}
    # four "Service Restored?" decisions get four distinct variables, each asked where it is read
    restored = [v.name for v in sop.variables if v.name.startswith("service_restored")]
    assert len(restored) == 4
    assert any("confirm" in note for note in result.notes)


def test_tau2_exports_back_to_dot_with_the_same_structure():
    sop = import_file(TAU2_DOT).sop
    again = import_text(export_sop(sop, "dot"), "dot").sop
    assert (len(again.nodes), len(again.edges), len(decisions(again))) == (33, 42, 11)
    assert structure(again) == structure(sop)
    assert errors(again) == []


def test_tau2_through_mermaid_keeps_structure():
    sop = import_file(TAU2_DOT).sop
    text = export_sop(sop, "mermaid")
    assert text.startswith("flowchart TD")
    again = import_text(text).sop
    assert (len(again.nodes), len(again.edges), len(decisions(again))) == (33, 42, 11)
    assert structure(again) == structure(sop)


def test_dot_labels_and_several_labelled_exits_branch():
    sop = import_text('digraph G { a [label="Pick plan"]; a -> b [label="basic"]; '
                      'a -> c [label="premium"]; b -> d; c -> d; }').sop
    assert sop.id == "g" and sop.node("a").title == "Pick plan"
    assert {e.when for e in sop.out_edges("a")} == {"pick_plan == 'basic'",
                                                    "pick_plan == 'premium'"}
    assert sop.node("d").kind == "end" and errors(sop) == []


def test_dot_unlabelled_exits_of_a_plain_node_become_a_choice_not_every_branch():
    result = import_text('digraph { a -> b; a -> c; b [label="Reset modem"]; }')
    sop = result.sop
    assert sop.node("a").branching == "first" and sop.node("a").ask == ["decision"]
    assert [e.when for e in sop.out_edges("a")] == ["decision == 'Reset modem'", "decision == 'c'"]
    assert any("2 unlabelled exit(s)" in note for note in result.notes)
    assert errors(sop) == []


def test_malformed_dot_gives_line_number():
    with pytest.raises(FormatError, match=r"line 3: .*syntax error"):
        import_text("digraph {\n  a -> b;\n  c -> ;\n}\n", "dot")


MERMAID = """%% a comment
graph LR
  subgraph intake [Intake]
    A([Start]) --> B{Is it OK?}
  end
  B -->|Yes| C[Do it] --> D((Done))
  B -- No --> E[/Fix/] & F>Log]
  E -.-> D; F ==> D
  classDef red fill:#f00
  style A fill:#f9f
"""


def test_mermaid_shapes_links_chains_and_subgraphs():
    result = import_text(MERMAID)
    sop = result.sop
    assert result.format == "mermaid"
    assert [n.id for n in sop.nodes] == ["A", "B", "C", "D", "E", "F"]
    assert sop.node("B").title == "Is it OK?" and sop.node("E").title == "Fix"
    assert {(e.source, e.target, e.when) for e in sop.edges} == {
        ("A", "B", None), ("B", "C", "it_ok == true"), ("C", "D", None),
        ("B", "E", "it_ok == false"), ("B", "F", "it_ok == false"), ("E", "D", None),
        ("F", "D", None)}
    assert sop.node("D").kind == "end"


def test_mermaid_export_quotes_labels_and_avoids_reserved_end():
    sop = import_text('flowchart TD\n  start["Say #quot;hi#quot;"] --> end\n').sop
    text = export_sop(sop, "mermaid")
    assert "end_2" in text and "end " not in text.replace("end_2", "")
    again = import_text(text).sop
    assert len(again.nodes) == 2 and len(again.edges) == 1
    assert again.nodes[0].title == 'Say "hi"'


@pytest.mark.parametrize("text, line", [("flowchart TD\n  A --> \n", 2),
                                        ("flowchart TD\n  A[open --> B\n", 2),
                                        ("flowchart TD\n  A -> B\n", 2)])
def test_malformed_mermaid_gives_line_number(text, line):
    with pytest.raises(FormatError, match=rf"line {line}: Mermaid"):
        import_text(text, "mermaid")


def test_mermaid_without_header_is_an_error():
    with pytest.raises(FormatError, match="line 1: Mermaid: expected 'flowchart TD'"):
        import_text("A --> B\n", "mermaid")


def test_parallel_edges_survive_dot_export():
    sop = import_text('digraph { a -> b [label="x"]; a -> b [label="y"]; }').sop
    assert len(sop.edges) == 2
    again = import_text(export_sop(sop, "dot")).sop
    assert sorted(e.when for e in again.edges) == sorted(e.when for e in sop.edges)
