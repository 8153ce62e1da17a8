"""The tool form (offscreen, real key and mouse events): renaming a tool is one undoable
refactor, a refused name is explained next to the field which reverts, and parameters and
outputs are edited in tables (raw JSON in the Advanced tab)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit, QPushButton

from sopstudio.core.document import Document
from sopstudio.core.edits import AddTool
from sopstudio.core.model import Edge, Node, Tool

from qt_helpers import make_sop


def _retype(qtbot, widget, text: str) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key_Delete)
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key_Return)


def _edit_cell(qtbot, table, row: int, column: int, text: str) -> None:
    """Open the cell's editor (F2, as a user would), type `text` over it, press Enter."""
    table.setCurrentCell(row, column)
    qtbot.keyClick(table, Qt.Key_F2)
    editor = next(e for e in table.findChildren(QLineEdit) if e.isVisible())
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return)  # the edit is pushed once the editor has closed


def _tool_window(open_main_window, tmp_path):
    sop = make_sop()
    sop.nodes.append(Node(id="status", tools=["get_account_status"], position=(300, 0)))
    sop.edges.append(Edge(id="e7", source="check", target="status", on="failure",
                          when="tool == 'check_status'"))
    window = open_main_window(Document(sop, tmp_path / "t.sop.json"), size=(1300, 850))
    window.session.push(AddTool(Tool(name="tool_1")))
    window.inspector.show_tool("tool_1")
    return window


def test_naming_a_tool_as_nodes_reference_it_binds_them(open_main_window, qtbot, tmp_path):
    window = _tool_window(open_main_window, tmp_path)
    form = window.inspector.form("tool")
    count = window.session.undo_stack.count()
    _retype(qtbot, form.bindings["name"].widget, "get_account_status")
    sop = window.session.sop
    assert [t.name for t in sop.tools] == ["check_status", "get_account_status"]
    assert window.inspector.heading.text() == "Tool get_account_status"
    window.problems.schedule(immediate=True)
    assert not any(i.code == "unknown-tool" for i in window.problems.issues)
    assert window.session.undo_stack.count() == count + 1
    window.session.undo_stack.undo()
    assert window.session.sop.tool("tool_1") is not None


def test_renaming_a_tool_rewrites_bindings_and_failure_conditions(open_main_window, qtbot,
                                                                   tmp_path):
    window = _tool_window(open_main_window, tmp_path)
    window.inspector.show_tool("check_status")
    form = window.inspector.form("tool")
    _retype(qtbot, form.bindings["name"].widget, "account_status")
    sop = window.session.sop
    assert sop.node("check").tools == ["account_status"]
    assert sop.edge("e7").when == "tool == 'account_status'"
    window.session.undo_stack.undo()
    assert window.session.sop.edge("e7").when == "tool == 'check_status'"


def test_a_refused_name_is_explained_next_to_the_field_which_reverts(open_main_window, qtbot,
                                                                      tmp_path):
    window = _tool_window(open_main_window, tmp_path)
    form = window.inspector.form("tool")
    binding = form.bindings["name"]
    _retype(qtbot, binding.widget, "check_status")
    assert window.session.sop.tool("tool_1") is not None
    assert binding.widget.text() == "tool_1"
    assert binding.error.isVisibleTo(form) and "already exists" in binding.error.text()


def test_parameters_and_outputs_are_edited_in_tables(open_main_window, qtbot, tmp_path):
    window = _tool_window(open_main_window, tmp_path)
    form = window.inspector.form("tool")
    table = form.parameters
    add = next(b for b in table.findChildren(QPushButton) if b.text() == "Add parameter")
    qtbot.mouseClick(add, Qt.LeftButton)
    tool = window.session.sop.tool("tool_1")
    assert tool.parameter_names() == ["parameter_1"]
    _edit_cell(qtbot, table.table, 0, 0, "email")
    qtbot.waitUntil(lambda: window.session.sop.tool("tool_1").parameter_names() == ["email"])
    _edit_cell(qtbot, table.table, 0, 4, "a@x.com, b@y.com")
    qtbot.waitUntil(lambda: "enum" in window.session.sop.tool("tool_1").parameters[
        "properties"]["email"])
    table.table.setCurrentCell(0, 2)
    qtbot.keyClick(table.table, Qt.Key_Space)  # ticks "required"
    qtbot.waitUntil(lambda: window.session.sop.tool("tool_1").required_parameters() == ["email"])
    tool = window.session.sop.tool("tool_1")
    assert tool.parameters["properties"] == {
        "email": {"type": "string", "enum": ["a@x.com", "b@y.com"]}}
    assert tool.required_parameters() == ["email"]
    form.tabs.setCurrentIndex(2)  # the raw schema follows
    assert '"email"' in form.bindings["parameters"].widget.toPlainText()
    outputs = form.outputs
    qtbot.mouseClick(form.tabs.tabBar(), Qt.LeftButton,
                     pos=form.tabs.tabBar().tabRect(1).center())
    assert outputs.isVisible()
    qtbot.mouseClick(next(b for b in outputs.findChildren(QPushButton)
                          if b.text() == "Add output"), Qt.LeftButton)
    assert [o.name for o in window.session.sop.tool("tool_1").outputs] == ["output_1"]
    outputs.table.setCurrentCell(0, 1)
    qtbot.keyClick(outputs.table, Qt.Key_F2)  # the type is chosen from a list
    box = next(b for b in outputs.table.findChildren(QComboBox) if b.isVisible())
    box.setFocus()
    while box.currentText() != "integer":
        qtbot.keyClick(box, Qt.Key_Down)
    qtbot.keyClick(box, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.session.sop.tool("tool_1").outputs[0].type == "integer")
    qtbot.mouseClick(next(b for b in outputs.findChildren(QPushButton)
                          if b.text() == "Add output"), Qt.LeftButton)
    _edit_cell(qtbot, outputs.table, 1, 0, "output_1")  # a name taken twice is refused
    qtbot.waitUntil(lambda: outputs.error.isVisibleTo(outputs))
    assert "same name" in outputs.error.text()
    assert [o.name for o in window.session.sop.tool("tool_1").outputs] == ["output_1",
                                                                          "output_2"]
