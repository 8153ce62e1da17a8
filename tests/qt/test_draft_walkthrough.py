"""The README's "Draft your first SOP" walk-through, end to end on one window (offscreen, real
key and mouse events): New, title, nodes, connections, asks and tools, the Declare quick fix, a
new tool named as the node already calls it, conditions, save (a version of its own) and
export (its losses listed)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import QPushButton

from sopstudio.core.validate import validate
from sopstudio.formats.losses import losses

from qt_helpers import drag


def _retype(qtbot, widget, text: str, enter: bool = True) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key_Delete)
    qtbot.keyClicks(widget, text)
    if enter:
        qtbot.keyClick(widget, Qt.Key_Return)


def _add(window, action: str) -> str:
    before = {n.id for n in window.session.sop.nodes}
    window.actions_by_name[action].trigger()
    (added,) = {n.id for n in window.session.sop.nodes} - before
    return added


def _connect(window, source: str, target: str) -> str:
    item = window.scene.nodes[source]
    before = {e.id for e in window.session.sop.edges}
    drag(window.view, item.scenePos() + item.port_center(),
         window.scene.nodes[target].scenePos() + QPointF(0, 10))
    (added,) = {e.id for e in window.session.sop.edges} - before
    return added


def _node(qtbot, window, node_id: str, **fields) -> None:
    window.scene.select_ids([node_id])
    form = window.inspector.form("node")
    for field, text in fields.items():
        _retype(qtbot, form.bindings[field].widget, text, enter=field != "title")


def test_draft_a_password_reset_sop_from_scratch(open_main_window, qtbot, tmp_path):
    window = open_main_window(None, size=(1400, 900))
    window.actions_by_name["new"].trigger()
    window.inspector.show_sop()
    _retype(qtbot, window.inspector.form("sop").bindings["title"].widget, "Password reset",
            enter=False)
    assert window.session.sop.id.startswith("password-reset-")

    ask = _add(window, "add_task")
    window.view.centerOn(window.scene.nodes[ask])
    lookup = _add(window, "add_task")
    done = _add(window, "add_end")
    assert window.session.sop.start == ask
    window.view.fit_all()
    _connect(window, ask, lookup)
    to_done = _connect(window, lookup, done)
    _node(qtbot, window, ask, title="Ask for the email", ask="email")
    _node(qtbot, window, lookup, title="Look up the account", tools="get_account_status")

    problems = window.problems
    problems.schedule(immediate=True)
    codes = {i.code for i in problems.issues}
    assert {"unknown-variable", "unknown-tool"} <= codes
    window.scene.select_ids([ask])
    form = window.inspector.form("node")
    qtbot.mouseClick(form.declare, Qt.LeftButton)
    assert window.session.sop.variable("email") is not None

    tools = window.tool_dock
    qtbot.mouseClick(next(b for b in tools.findChildren(QPushButton) if b.text() == "New tool"),
                     Qt.LeftButton)
    assert window.inspector.current == "tool"
    tool_form = window.inspector.form("tool")
    _retype(qtbot, tool_form.bindings["name"].widget, "get_account_status")
    qtbot.mouseClick(next(b for b in tool_form.parameters.findChildren(QPushButton)
                          if b.text() == "Add parameter"), Qt.LeftButton)

    window.scene.select_ids([], [to_done])
    _retype(qtbot, window.inspector.form("edge").condition, "else")
    problems.schedule(immediate=True)
    assert not {"unknown-variable", "unknown-tool"} & {i.code for i in problems.issues}
    assert [i for i in validate(window.session.sop) if i.severity == "error"] == []

    path = tmp_path / "password_reset.sop.json"
    assert window.files.save_to(path)
    assert len(window.store_link.store().history.versions(window.session.sop.id)) == 1

    def export():
        dialog = window.export_dialog
        try:  # the dialog closes whatever happens: a failed check must not hang the test
            dialog.format.setCurrentText("text")
            assert dialog.dropped.toPlainText().splitlines() == [
                f"• {line}" for line in losses(window.session.sop, "text")]
            assert dialog.export_to(tmp_path / "out.txt")
        finally:
            dialog.accept()
    QTimer.singleShot(0, export)
    window.actions_by_name["export"].trigger()
    assert (tmp_path / "out.txt").exists()
    while window.session.undo_stack.canUndo():  # every gesture undoes, back to the blank SOP
        window.session.undo_stack.undo()
    assert window.session.sop.nodes == [] and window.session.sop.title == "Untitled SOP"
