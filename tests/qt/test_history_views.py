"""History and the views around it (offscreen, real mouse and key events): two versions
compared with each other, Restore refreshing every view, New clearing the previous SOP's chat,
runs and diff, Escape closing only the completer, chosen items bringing the Inspector forward."""

from __future__ import annotations

from PySide6.QtCore import Qt

from sopstudio.core.document import Document
from sopstudio.core.edits import SetField
from sopstudio.core.edits_refactor import SetTitle
from sopstudio.core.io import load_sop

from qt_helpers import SAMPLES, in_front, step_once


def _click_row(qtbot, widget, row: int, modifier=Qt.NoModifier) -> None:
    rect = widget.visualItemRect(widget.item(row))
    qtbot.mouseClick(widget.viewport(), Qt.LeftButton, modifier, rect.center())


def _three_versions(window, tmp_path):
    path = tmp_path / "t.sop.json"
    assert window.files.save_to(path)
    window.session.push(SetTitle("Second title"))
    assert window.files.save_to(path)
    window.session.push(SetField("node", "ask", "title", "Third"))
    assert window.files.save_to(path)
    assert window.history.versions.count() == 3


def test_two_selected_versions_are_compared_with_each_other(window, qtbot, tmp_path):
    _three_versions(window, tmp_path)
    history = window.history
    _click_row(qtbot, history.versions, 2)  # the oldest
    assert "→ current document" in history.diff.toPlainText()
    _click_row(qtbot, history.versions, 1, Qt.ControlModifier)
    text = history.diff.toPlainText()
    oldest, middle = (history.versions.item(r).text().split()[0] for r in (2, 1))
    assert text.startswith(f"{oldest} → {middle}")
    assert "Second title" in text and "Third" not in text
    assert not history.restore_button.isEnabled()  # restore needs one version


def test_restore_refreshes_every_view(window, qtbot, tmp_path):
    _three_versions(window, tmp_path)
    window.scene.select_ids(["ask"])
    history = window.history
    _click_row(qtbot, history.versions, 2)
    qtbot.mouseClick(history.restore_button, Qt.LeftButton)
    assert window.session.sop.title == "Test SOP"
    assert window.session.sop.node("ask").title == "Ask id"
    assert window.inspector.form("node").bindings["title"].widget.text() == "Ask id"
    assert history.diff.toPlainText().endswith("No differences.")
    assert window.scene.nodes["ask"].title == "Ask id"


def test_new_clears_chat_runs_and_diff(open_main_window, qtbot):
    path = SAMPLES / "listing_blocked.sop.json"
    window = open_main_window(Document(load_sop(path), path), simulation=True)
    dock = window.simulation.dock
    step_once(qtbot, dock)
    assert dock.chat_lines
    window.session.mark_saved()
    assert window.files.new()
    assert dock.chat_lines == [] and dock.events == []
    assert window.history.diff.toPlainText() == ""
    assert window.simulation.runs.runs.count() == 0  # the new SOP has no stored runs


def test_escape_closes_only_the_completer(window, qtbot):
    window.scene.select_ids([], ["e2"])
    edit = window.inspector.form("edge").condition
    edit.setFocus()
    edit.clear()
    qtbot.keyClicks(edit, "sta")
    popup = edit.completer_.popup()
    assert popup.isVisible()
    qtbot.keyClick(edit, Qt.Key_Escape)
    assert not popup.isVisible() and edit.text() == "sta"
    qtbot.keyClicks(edit, "t")
    assert popup.isVisible()
    qtbot.keyClick(popup, Qt.Key_Escape)
    assert not popup.isVisible() and edit.text() == "stat"
    qtbot.keyClick(edit, Qt.Key_Escape)  # with no list open, Escape reverts
    assert edit.text() == "status == 'ok'"


def test_choosing_a_tool_or_variable_brings_the_inspector_forward(window, qtbot):
    window.tools_dock.raise_()
    qtbot.waitUntil(lambda: in_front(window.tools_dock))
    tools = window.tool_dock.sop_tools
    _click_row(qtbot, tools, 0)
    qtbot.waitUntil(lambda: in_front(window.inspector_dock))
    assert window.inspector.current == "tool"
    window.data_dock.raise_()
    window.data.declare("account")
    qtbot.waitUntil(lambda: in_front(window.inspector_dock))
    assert window.inspector.current == "variable"
