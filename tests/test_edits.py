"""Every edit type: apply then its inverse gives the same document byte for byte; illegal edits
raise EditError and leave the SOP untouched; reference rewriting on renames and removals."""

from __future__ import annotations

import pytest

from sopstudio.core import io
from sopstudio.core.edits import (AddEdge, AddKnowledge, AddNode, AddTool, AddVariable, Batch,
                                  MoveNodes, RemoveEdge, RemoveKnowledge, RemoveNode, RemoveTool,
                                  RemoveVariable, ReplaceSOP, SetField)
from sopstudio.core.errors import EditError
from sopstudio.core.model import SOP, Edge, Knowledge, Node, Tool, Variable


def make_sop() -> SOP:
    return SOP(
        id="refund", title="Refund", start="ask", description="Handle refunds",
        variables=[Variable(name="order_id"), Variable(name="amount", type="number")],
        tools=[Tool(name="lookup", url="https://x/{order_id}"), Tool(name="refund")],
        knowledge=[Knowledge(question="How long?", answer="5 days"),
                   Knowledge(question="Fees?", answer="None")],
        nodes=[Node(id="ask", title="Ask order", ask=["order_id"], position=(0, 0)),
               Node(id="check", title="Check", tools=["lookup", "refund"],
                    tool_when={"refund": "ok"}, tool_args={"lookup": {"order_id": "order_id"}},
                    position=(0, 100)),
               Node(id="done", kind="end", outcome="resolved", position=(0, 200)),
               Node(id="fail", kind="end", outcome="technical-issue")],
        edges=[Edge(id="e1", source="ask", target="check"),
               Edge(id="e2", source="check", target="done", when="ok"),
               Edge(id="e3", source="check", target="fail", when="else"),
               Edge(id="e4", source="check", target="ask", on="failure")],
        extra_field={"kept": True})


def roundtrip(sop: SOP, edit):
    """Apply `edit` and its inverse; assert the dumps match and return the forward dump."""
    before = io.dumps(sop)
    inverse = edit.apply(sop)
    after = io.dumps(sop)
    assert after != before, f"{edit!r} changed nothing"
    redo = inverse.apply(sop)
    assert io.dumps(sop) == before
    redo.apply(sop)  # the inverse of the inverse re-does the edit
    assert io.dumps(sop) == after
    return after


EVERY_EDIT = [
    AddNode(Node(id="new", title="New")),
    AddNode(Node(id="first"), index=0),
    AddNode({"id": "from_dict", "kind": "end"}, index=2),
    RemoveNode("check"),
    RemoveNode("ask"),
    RemoveNode("fail"),
    AddEdge(Edge(id="e9", source="done", target="ask", when="x > 1")),
    AddEdge(Edge(id="e0", source="ask", target="ask"), index=0),
    RemoveEdge("e2"),
    MoveNodes({"ask": (5.5, -3), "fail": (1, 1), "done": None}),
    SetField("node", "check", "title", "Check order"),
    SetField("node", "ask", "instructions", "Be polite"),
    SetField("node", "check", "max_attempts", 5),
    SetField("node", "check", "id", "verify"),
    SetField("edge", "e2", "when", "amount < 100"),
    SetField("edge", "e2", "target", "fail"),
    SetField("edge", "e1", "id", "first_edge"),
    SetField("sop", None, "title", "Refunds v2"),
    SetField("sop", None, "start", "check"),
    SetField("sop", None, "start", None),
    SetField("sop", None, "extra_field", [1, 2]),
    SetField("tool", "lookup", "name", "find_order"),
    SetField("tool", "refund", "live", True),
    SetField("variable", "order_id", "name", "order"),
    SetField("variable", "amount", "type", "integer"),
    SetField("knowledge", 1, "answer", "Small ones"),
    AddTool(Tool(name="notify")),
    AddTool(Tool(name="zero"), index=0),
    RemoveTool("refund"),
    AddVariable(Variable(name="email"), index=1),
    RemoveVariable("order_id"),
    AddKnowledge(Knowledge(question="Q", answer="A")),
    AddKnowledge({"question": "Q0", "answer": "A0"}, index=0),
    RemoveKnowledge(0),
    ReplaceSOP(SOP(id="other", title="Other", nodes=[Node(id="x")])),
    Batch([AddNode(Node(id="n1")), AddEdge(Edge(id="e5", source="done", target="n1")),
           SetField("node", "n1", "title", "One"), RemoveNode("ask")], "Compound"),
    Batch([Batch([RemoveTool("lookup")], "inner"), MoveNodes({"ask": (9, 9)})], "Nested"),
]


@pytest.mark.parametrize("edit", EVERY_EDIT, ids=lambda e: e.description)
def test_apply_then_inverse_restores_identical_dump(edit):
    roundtrip(make_sop(), edit)


@pytest.mark.parametrize("edit", EVERY_EDIT, ids=lambda e: e.description)
def test_edit_can_be_applied_again_after_undo(edit):
    sop = make_sop()
    inverse = edit.apply(sop)
    forward = io.dumps(sop)
    inverse.apply(sop)
    edit.apply(sop)  # History's redo re-applies the original edit
    assert io.dumps(sop) == forward


ILLEGAL = [
    (AddNode(Node(id="ask")), "already exists"),
    (AddNode(Node(id="z"), index=9), "position"),
    (RemoveNode("nope"), "no node"),
    (AddEdge(Edge(id="e1", source="ask", target="done")), "already exists"),
    (AddEdge(Edge(id="e7", source="ask", target="ghost")), "target names no node"),
    (AddEdge(Edge(id="e7", source="ghost", target="ask")), "source names no node"),
    (RemoveEdge("e99"), "no edge"),
    (MoveNodes({"ask": (1, 1), "ghost": (2, 2)}), "no node"),
    (MoveNodes({"ask": (1, 1), "done": ("a", "b")}), "position"),
    (SetField("node", "ghost", "title", "x"), "no node"),
    (SetField("node", "ask", "nonsense", "x"), "no field"),
    (SetField("node", "ask", "kind", "banana"), "kind"),
    (SetField("node", "ask", "max_attempts", 0), "max_attempts"),
    (SetField("node", "ask", "id", "check"), "already exists"),
    (SetField("node", "ask", "id", ""), "at least 1"),
    (SetField("node", "ask", "id", 5), "string"),
    (SetField("edge", "e1", "target", "ghost"), "no node"),
    (SetField("edge", "e1", "id", "e2"), "already exists"),
    (SetField("edge", "e1", "on", "maybe"), "on"),
    (SetField("sop", None, "start", "ghost"), "no node"),
    (SetField("sop", None, "nodes", []), "add/remove"),
    (SetField("sop", "x", "title", "t"), "no ident"),
    (SetField("tool", "lookup", "name", "refund"), "already exists"),
    (SetField("tool", "lookup", "method", None), "method"),
    (SetField("variable", "amount", "type", "date"), "type"),
    (SetField("knowledge", 7, "answer", "x"), "position"),
    (SetField("knowledge", True, "answer", "x"), "position"),
    (AddTool(Tool(name="lookup")), "already exists"),
    (RemoveTool("ghost"), "no tool"),
    (AddVariable(Variable(name="amount")), "already exists"),
    (RemoveVariable("ghost"), "no variable"),
    (RemoveKnowledge(2), "position"),
    (Batch([AddNode(Node(id="n1")), RemoveNode("ask"), RemoveEdge("e1")], "Broken"), "no edge"),
    (Batch([MoveNodes({"ask": (3, 3)}), SetField("node", "done", "kind", "x")], "Bad"), "kind"),
]


@pytest.mark.parametrize("edit,message", ILLEGAL, ids=lambda x: getattr(x, "description", x))
def test_illegal_edit_raises_and_leaves_sop_untouched(edit, message):
    sop = make_sop()
    before = io.dumps(sop)
    with pytest.raises(EditError, match=message):
        edit.apply(sop)
    assert io.dumps(sop) == before


@pytest.mark.parametrize("bad", [lambda: AddNode({"id": ""}), lambda: AddNode("ask"),
                                 lambda: ReplaceSOP({"title": "no id"}),
                                 lambda: SetField("graph", None, "x", 1),
                                 lambda: Batch(["not an edit"], "x")])
def test_malformed_arguments_raise_edit_error(bad):
    with pytest.raises(EditError):
        bad()


def test_remove_node_carries_edges_and_undo_restores_their_order():
    sop = make_sop()
    inverse = RemoveNode("check").apply(sop)
    assert [e.id for e in sop.edges] == []  # every edge touched `check`
    assert [n.id for n in sop.nodes] == ["ask", "done", "fail"]
    inverse.apply(sop)
    assert [e.id for e in sop.edges] == ["e1", "e2", "e3", "e4"]
    assert [n.id for n in sop.nodes] == ["ask", "check", "done", "fail"]


def test_remove_start_node_clears_start_and_undo_restores_it():
    sop = make_sop()
    inverse = RemoveNode("ask").apply(sop)
    assert sop.start is None
    assert [e.id for e in sop.edges] == ["e2", "e3"]
    inverse.apply(sop)
    assert sop.start == "ask"


def test_renaming_node_rewrites_edges_and_start():
    sop = make_sop()
    SetField("node", "ask", "id", "intake").apply(sop)
    assert sop.start == "intake"
    assert (sop.edge("e1").source, sop.edge("e4").target) == ("intake", "intake")
    assert sop.node("ask") is None


def test_renaming_tool_rewrites_bindings_in_place():
    sop = make_sop()
    SetField("tool", "refund", "name", "pay_back").apply(sop)
    check = sop.node("check")
    assert check.tools == ["lookup", "pay_back"]
    assert check.tool_when == {"pay_back": "ok"}


def test_renaming_variable_rewrites_ask_lists():
    sop = make_sop()
    SetField("variable", "order_id", "name", "order").apply(sop)
    assert sop.node("ask").ask == ["order"]


def test_rename_to_a_name_already_referenced_is_refused():
    sop = make_sop()
    sop.nodes[1].tools.append("ghost_tool")  # a dangling binding, as in a hand-edited file
    before = io.dumps(sop)
    with pytest.raises(EditError, match="already referenced"):
        SetField("tool", "lookup", "name", "ghost_tool").apply(sop)
    assert io.dumps(sop) == before


def test_remove_tool_unbinds_it_from_nodes():
    sop = make_sop()
    inverse = RemoveTool("lookup").apply(sop)
    check = sop.node("check")
    assert (check.tools, check.tool_args, check.tool_when) == (["refund"], {}, {"refund": "ok"})
    inverse.apply(sop)
    assert sop.node("check").tools == ["lookup", "refund"]


def test_remove_variable_leaves_asks_alone():
    sop = make_sop()
    RemoveVariable("order_id").apply(sop)
    assert sop.node("ask").ask == ["order_id"]


def test_failed_batch_rolls_back_the_applied_part():
    sop = make_sop()
    before = io.dumps(sop)
    batch = Batch([RemoveNode("check"), SetField("node", "ask", "title", "T"),
                   AddEdge(Edge(id="e8", source="ask", target="check"))], "Bad batch")
    with pytest.raises(EditError, match="target names no node"):
        batch.apply(sop)
    assert io.dumps(sop) == before


def test_batch_inverse_runs_in_reverse_order():
    sop = make_sop()
    before = io.dumps(sop)
    # The second edit depends on the first: undoing in forward order would fail.
    inverse = Batch([AddNode(Node(id="n")), AddEdge(Edge(id="en", source="n", target="ask"))],
                    "Add and connect").apply(sop)
    inverse.apply(sop)
    assert io.dumps(sop) == before


def test_set_field_copies_the_value():
    sop = make_sop()
    steps = ["one"]
    SetField("node", "ask", "steps", steps).apply(sop)
    steps.append("two")
    assert sop.node("ask").steps == ["one"]


def test_added_node_is_a_copy_so_the_edit_can_be_reapplied():
    node = Node(id="n", title="A")
    edit = AddNode(node)
    sop = make_sop()
    inverse = edit.apply(sop)
    SetField("node", "n", "title", "B").apply(sop)
    assert node.title == "A"
    RemoveNode("n").apply(sop)
    edit.apply(sop)
    assert sop.node("n").title == "A"
    assert inverse.description


def test_replace_sop_keeps_the_same_object_and_drops_old_extras():
    sop = make_sop()
    identity = id(sop)
    replacement = SOP(id="other", nodes=[Node(id="x")])
    ReplaceSOP(replacement).apply(sop)
    assert id(sop) == identity
    assert sop.id == "other" and [n.id for n in sop.nodes] == ["x"]
    assert "extra_field" not in io.dumps(sop)
    replacement.nodes.append(Node(id="late"))  # the edit holds its own copy
    assert [n.id for n in sop.nodes] == ["x"]


def test_changed_ids_and_merge_key():
    sop = make_sop()
    edit = RemoveNode("ask")
    edit.apply(sop)
    assert edit.changed_ids() == {"ask", "e1", "e4", "start"}
    assert edit.changes()["edges"] == {"e1", "e4"}
    assert edit.merge_key is None
    move = MoveNodes({"done": (1, 2)})
    move.apply(sop)
    assert move.changes() == {"positions": {"done"}}
    assert SetField("node", "ask", "title", "x").merge_key == ("node", "ask", "title")
    assert SetField("node", "ask", "id", "x").merge_key is None  # renames never merge
    assert SetField("tool", "refund", "name", "x").merge_key is None


def test_inverse_is_exact_on_a_document_with_broken_references():
    sop = make_sop()
    # What a hand-edited file may hold: a dangling edge and a duplicate node id.
    sop.edges.append(Edge(id="e_dangling", source="ghost", target="ask"))
    sop.nodes.append(Node(id="done", title="duplicate"))
    for edit in (RemoveEdge("e_dangling"), AddNode(Node(id="ghost")), RemoveNode("done"),
                 SetField("node", "done", "id", "done2"), RemoveNode("ask")):
        roundtrip(sop, edit)
