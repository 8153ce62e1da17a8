"""Undo and redo say what they undo: fixed button text, the edit described in the tooltip and
the Edit menu, in words for people."""

from __future__ import annotations

from sopstudio.core.edits import SetField
from sopstudio.qt.commands import describe


def test_undo_buttons_keep_their_text_and_describe_in_tooltip_and_menu(window):
    toolbar = window.findChild(type(window.addToolBar("probe")), "main_toolbar")
    undo = window.actions_by_name["undo"]
    button = toolbar.widgetForAction(undo)
    width = button.sizeHint().width()
    window.session.push(SetField("edge", "e2", "when", "status == 'blocked'"))
    assert button.text() == "Undo" and button.sizeHint().width() == width
    assert "Edit condition of e2" in button.toolTip()
    assert undo.text() == "&Undo Edit condition of e2"  # the Edit menu says what it undoes
    window.session.undo_stack.undo()
    redo_button = toolbar.widgetForAction(window.actions_by_name["redo"])
    assert redo_button.text() == "Redo" and "Edit condition of e2" in redo_button.toolTip()


def test_edit_descriptions_are_for_people():
    assert describe(SetField("edge", "e1", "when", "x")) == "Edit condition of e1"
    assert describe(SetField("node", "a", "id", "b")) == "Rename node a to b"
    assert describe(SetField("node", "a", "title", "T")) == "Edit title of a"
    assert describe(SetField("sop", None, "start", "a")) == "Set start node to a"
    assert describe(SetField("tool", "t", "parameters", {})) == "Edit parameters schema of t"
