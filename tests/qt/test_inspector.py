"""Inspector and problems dock (offscreen): plain text edits the document as typed (merged undo
entries); checked fields commit on Enter / leaving the field, and only when valid; invalid
input is shown inline and never reaches the document."""

from __future__ import annotations

import json

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QApplication

from sopstudio.core.model import Node
from sopstudio.qt.inspector.condition_edit import unknown_names_warning



def _edge_form(window, edge_id):
    window.scene.select_ids([], [edge_id])
    form = window.inspector.form("edge")
    assert window.inspector.stack.currentWidget() is form
    return form


def _focus_out(widget) -> None:
    QApplication.sendEvent(widget, QFocusEvent(QEvent.FocusOut, Qt.OtherFocusReason))


def test_valid_condition_is_committed_on_enter_as_one_undo_entry(window, qtbot):
    form = _edge_form(window, "e2")
    edit = form.condition
    edit.clear()
    qtbot.keyClicks(edit, "status == 'blocked'")
    assert window.session.sop.edge("e2").when == "status == 'ok'"  # nothing until Enter
    assert window.session.undo_stack.count() == 0
    qtbot.keyClick(edit, Qt.Key_Return)
    assert window.session.sop.edge("e2").when == "status == 'blocked'"
    assert not form.bindings["when"].error.isVisibleTo(form)
    assert window.session.undo_stack.count() == 1
    window.session.undo_stack.undo()
    assert window.session.sop.edge("e2").when == "status == 'ok'"
    assert edit.text() == "status == 'ok'"  # the form follows undo


def test_half_typed_condition_never_reaches_the_document(window, qtbot):
    form = _edge_form(window, "e2")
    edit = form.condition
    edit.clear()  # an empty field means "always", but it is not committed either
    assert window.session.sop.edge("e2").when == "status == 'ok'"
    qtbot.keyClicks(edit, "status == ")
    error = form.bindings["when"].error
    assert error.isVisibleTo(form) and "Syntax error" in error.text()  # checked live
    assert window.session.sop.edge("e2").when == "status == 'ok'"  # not the prefix "status"
    qtbot.keyClick(edit, Qt.Key_Return)
    assert window.session.sop.edge("e2").when == "status == 'ok'"
    assert window.session.undo_stack.count() == 0
    qtbot.keyClicks(edit, "'blocked'")
    assert not error.isVisibleTo(form)
    qtbot.keyClick(edit, Qt.Key_Return)
    assert window.session.sop.edge("e2").when == "status == 'blocked'"


def test_invalid_text_left_behind_stays_shown_until_fixed_or_escape(window, qtbot):
    form = _edge_form(window, "e2")
    edit = form.condition
    edit.clear()
    qtbot.keyClicks(edit, "status == ")
    edit.editingFinished.emit()  # the user clicks away
    window.scene.select_ids([], ["e1"])  # ... onto another edge
    assert edit.text() == ""
    window.scene.select_ids([], ["e2"])  # ... and back: the typed text, not the stored one
    assert edit.text() == "status == " and form.bindings["when"].error.isVisibleTo(form)
    assert window.session.sop.edge("e2").when == "status == 'ok'"
    qtbot.keyClick(edit, Qt.Key_Escape)  # revert
    assert edit.text() == "status == 'ok'" and not form.bindings["when"].error.isVisibleTo(form)
    window.scene.select_ids([], ["e1"])
    window.scene.select_ids([], ["e2"])
    assert edit.text() == "status == 'ok'"


def test_condition_completion_offers_names_available_at_the_source(window, qtbot):
    form = _edge_form(window, "e2")
    assert {"status", "account"} <= set(form.condition.names())
    form.condition.clear()
    qtbot.keyClicks(form.condition, "sta")
    assert form.condition.word_before_cursor() == "sta"
    form.condition.insert_completion("status")
    assert form.condition.text() == "status"
    form.condition.completer_.popup().hide()
    qtbot.keyClick(form.condition, Qt.Key_Return)
    assert window.session.sop.edge("e2").when == "status"


def test_node_fields_edit_the_document(window, qtbot):
    window.scene.select_ids(["ask"])
    form = window.inspector.form("node")
    title = form.bindings["title"].widget
    title.selectAll()
    qtbot.keyClicks(title, "Ask for the account")  # plain text: live, merged
    assert window.session.sop.node("ask").title == "Ask for the account"
    assert window.scene.nodes["ask"].title == "Ask for the account"
    assign = form.bindings["set"]
    assign.widget.setPlainText("x = 1")
    assign.widget.setPlainText("x = 1 +")  # typing on: "x = 1" was valid on the way
    assert assign.error.isVisibleTo(form)
    _focus_out(assign.widget)
    assert window.session.sop.node("ask").set == {}
    assert assign.widget.toPlainText() == "x = 1 +"  # kept, with its error
    assign.widget.setPlainText("total = 1 + 2")
    assert window.session.sop.node("ask").set == {}
    _focus_out(assign.widget)
    assert window.session.sop.node("ask").set == {"total": "1 + 2"}
    form.bindings["max_attempts"].widget.setValue(2)
    assert window.session.sop.node("ask").max_attempts == 2


def test_renaming_a_node_keeps_edges_and_inspector(window, qtbot):
    window.scene.select_ids(["check"])
    form = window.inspector.form("node")
    ident = form.bindings["id"].widget
    ident.setText("check_account")
    ident.editingFinished.emit()
    sop = window.session.sop
    assert sop.node("check_account") is not None and sop.edge("e1").target == "check_account"
    assert form.ident == "check_account" and "check_account" in window.scene.nodes


def test_tool_form_rejects_bad_json(window, qtbot):
    window.inspector.show_tool("check_status")
    form = window.inspector.form("tool")
    form.tabs.setCurrentIndex(2)  # the raw JSON is on the Advanced tab
    outputs = form.bindings["outputs"]
    outputs.widget.setPlainText("[{\"name\": ")
    assert outputs.error.isVisibleTo(form)
    _focus_out(outputs.widget)
    assert [o.name for o in window.session.sop.tool("check_status").outputs] == ["status"]
    outputs.widget.setPlainText(json.dumps([{"name": "status", "enum": ["ok", "blocked", "x"]}]))
    assert window.session.sop.tool("check_status").outputs[0].enum == ["ok", "blocked"]
    _focus_out(outputs.widget)
    assert window.session.sop.tool("check_status").outputs[0].enum == ["ok", "blocked", "x"]
    assert window.session.undo_stack.count() == 1


def test_problem_click_selects_and_centres_the_culprit(window, qtbot):
    from sopstudio.core.edits import AddNode
    window.session.push(AddNode(Node(id="orphan", title="Orphan", ask=["x"],
                                     position=(2000, 2000))))
    window.problems.run_now()
    tree = window.problems.tree
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    row = next(r for r in rows if r.text(3) == "orphan")
    assert window.scene.nodes["orphan"].issue_severity in ("error", "warning")
    window.scene.clearSelection()
    rect = tree.visualItemRect(row)
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert window.scene.selected_ids()[0] == ["orphan"]
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes["orphan"].scenePos())


def test_problems_update_live_after_an_edit(window, qtbot):
    window.problems.run_now()
    before = len(window.problems.issues)
    from sopstudio.core.edits import RemoveEdge
    window.session.push(RemoveEdge("e3"))  # "bad" becomes unreachable
    qtbot.waitUntil(lambda: len(window.problems.issues) != before, timeout=3000)
    assert any(i.node == "bad" for i in window.problems.issues)


def test_big_graph_is_validated_off_the_gui_thread(window, qtbot):
    from sopstudio.core.edits import AddEdge, AddNode, Batch
    from sopstudio.core.model import Edge
    from sopstudio.qt.docks.problems import THREAD_THRESHOLD
    batch = [AddNode(Node(id=f"x{i}", title=f"X{i}", position=(i * 10.0, 900.0)))
             for i in range(THREAD_THRESHOLD)]
    batch += [AddEdge(Edge(id=f"xe{i}", source=f"x{i}", target=f"x{i + 1}"))
              for i in range(THREAD_THRESHOLD - 1)]
    window.session.push(Batch(batch, "Add many"))
    ticket = window.problems.runner.ticket
    window.problems.run_now()
    assert window.problems.runner.ticket == ticket + 1  # went to the worker
    qtbot.waitUntil(lambda: any(i.node == "x0" for i in window.problems.issues), timeout=5000)
    assert window.scene.nodes["x0"].issue_severity is not None


def test_library_tool_dropped_on_a_node_is_copied_and_bound(window):
    from sopstudio.core.model import Tool
    window.store_link.store().library.add(Tool(name="lookup_order", description="Find an order",
                                     method="POST"))
    window.tool_dock.refresh_library()
    assert window.tool_dock.library.count() == 1
    assert window.tool_dock.library.item(0).text().startswith("lookup_order")
    mime = window.tool_dock.library.mimeData([window.tool_dock.library.item(0)])
    name = bytes(mime.data("application/x-sopstudio-tool")).decode()
    window.scene.tool_dropped.emit(name, "ask")
    sop = window.session.sop
    assert sop.node("ask").tools == ["lookup_order"]
    assert sop.tool("lookup_order").method == "POST"
    assert window.session.undo_stack.count() == 1


def test_unknown_names_warning_suggests_the_closest():
    names = ["account", "status"]
    assert unknown_names_warning("status == 'ok'", names) == ""
    assert unknown_names_warning("else", names) == ""
    assert unknown_names_warning("status ==", names) == ""  # syntax error shown elsewhere
    warning = unknown_names_warning("statuss == 'ok' && no_such_var == 1", names)
    assert warning == ("Warning: not available at this step: 'no_such_var', "
                       "'statuss' (did you mean 'status'?)")


def test_condition_warning_is_inline_and_does_not_block_commit(window, qtbot):
    window.scene.select_ids([], ["e2"])
    form = window.inspector.form("edge")
    assert not form.warning.isVisibleTo(form)
    form.condition.selectAll()
    qtbot.keyClicks(form.condition, "no_such_var == 1")
    assert form.warning.isVisibleTo(form)
    assert "'no_such_var'" in form.warning.text()
    form.condition.editingFinished.emit()
    assert window.session.sop.edge("e2").when == "no_such_var == 1"


def test_deleting_the_node_being_renamed_gives_no_error(window, qtbot):
    window.scene.select_ids(["ok"])
    form = window.inspector.form("node")
    ident = form.bindings["id"].widget
    ident.setFocus()
    qtbot.keyClicks(ident, "_x")
    window.editor.delete_selection()
    assert window.session.sop.node("ok") is None
    ident.editingFinished.emit()  # what losing focus does after the node is gone
    assert window.statusBar().currentMessage() == ""
    assert window.session.sop.node("ok_x") is None and window.session.undo_stack.count() == 1


def test_node_ids_with_spaces_are_refused_inline(window, qtbot):
    window.scene.select_ids(["check"])
    form = window.inspector.form("node")
    binding = form.bindings["id"]
    binding.widget.selectAll()
    qtbot.keyClicks(binding.widget, "check account")
    assert binding.error.isVisibleTo(form) and "space" in binding.error.text()
    qtbot.keyClick(binding.widget, Qt.Key_Return)
    assert window.session.sop.node("check") is not None
    assert window.session.undo_stack.count() == 0
    binding.widget.selectAll()
    qtbot.keyClicks(binding.widget, "check.account-2")
    qtbot.keyClick(binding.widget, Qt.Key_Return)
    assert window.session.sop.node("check.account-2") is not None
    assert window.inspector.stack.currentWidget() is form and form.ident == "check.account-2"


def _node_form(window, node_id):
    window.scene.select_ids([node_id], [])
    form = window.inspector.form("node")
    assert window.inspector.stack.currentWidget() is form
    return form


def test_a_subflow_node_takes_its_child_file_relative_to_the_sop(window, qtbot, tmp_path,
                                                                 monkeypatch):
    from PySide6.QtWidgets import QFileDialog
    node_id = window.session.sop.nodes[1].id
    form = _node_form(window, node_id)
    assert not form.subflow_row.isVisibleTo(form)  # a task has no child file
    form.bindings["kind"].widget.setCurrentText("subflow")
    assert window.session.sop.node(node_id).kind == "subflow"
    assert form.subflow_row.isVisibleTo(form)
    child = tmp_path / "children" / "verify.sop.json"
    child.parent.mkdir()
    child.write_text("{}")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(child), ""))
    assert form.browse_subflow()
    assert window.session.sop.node(node_id).subflow == "children/verify.sop.json"
    assert form.bindings["subflow"].widget.text() == "children/verify.sop.json"
    window.session.undo_stack.undo()  # one undo entry per change: the file, then the kind
    assert window.session.sop.node(node_id).subflow is None
    window.session.undo_stack.undo()
    assert window.session.sop.node(node_id).kind == "task"
    assert not form.subflow_row.isVisibleTo(form)
