"""Drafting a new SOP in the GUI (offscreen, real key and mouse events): unique ids that follow
the title, editable id, separate store histories, autosave slots; variables and knowledge in the
Data dock, renames as one undo entry, and the Declare quick fixes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from sopstudio.core.document import Document
from sopstudio.core.edits import SetField
from sopstudio.core.io import load_sop, save_sop
from sopstudio.core.model import Edge
from sopstudio.qt.autosave import autosave_path

from qt_helpers import make_sop


def _retype(qtbot, widget, text: str, enter: bool = True) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key_Delete)
    qtbot.keyClicks(widget, text)
    if enter:
        qtbot.keyClick(widget, Qt.Key_Return)


def _right_click(qtbot, tree, row) -> None:
    """The context-menu event a right-click on the row sends (QTest's right click makes none)."""
    point = tree.visualItemRect(row).center()
    qtbot.mouseClick(tree.viewport(), Qt.RightButton, pos=point)
    QApplication.sendEvent(tree.viewport(), QContextMenuEvent(
        QContextMenuEvent.Mouse, point, tree.viewport().mapToGlobal(point)))
    qtbot.waitUntil(lambda: getattr(tree.parentWidget(), "menu", None) is not None
                    and tree.parentWidget().menu.isVisible())


def _sop_form(window):
    window.scene.clearSelection()
    window.inspector.show_sop()
    return window.inspector.form("sop")


def test_new_gives_a_unique_id_that_follows_the_title(open_main_window, qtbot):
    window = open_main_window(None)
    first = window.session.sop.id
    assert window.files.new()
    second = window.session.sop.id
    assert first != second and second.startswith("untitled-sop-")
    form = _sop_form(window)
    _retype(qtbot, form.bindings["title"].widget, "Password reset", enter=False)
    suffix = second.rsplit("-", 1)[1]
    assert window.session.sop.id == f"password-reset-{suffix}"
    assert form.bindings["id"].widget.text() == f"password-reset-{suffix}"
    assert window.session.undo_stack.count() == 1  # typing the title is one entry
    _retype(qtbot, form.bindings["id"].widget, "pw-reset")  # edited by hand: stops following
    assert window.session.sop.id == "pw-reset"
    _retype(qtbot, form.bindings["title"].widget, "Reset a password", enter=False)
    assert window.session.sop.id == "pw-reset"
    _retype(qtbot, form.bindings["id"].widget, "bad id")
    assert window.session.sop.id == "pw-reset" and form.bindings["id"].error.isVisibleTo(form)
    window.session.undo_stack.undo()
    window.session.undo_stack.undo()
    assert window.session.sop.id == f"password-reset-{suffix}"


def test_a_saved_sop_keeps_its_id_when_retitled(open_main_window, qtbot, tmp_path):
    window = open_main_window(None)
    form = _sop_form(window)
    _retype(qtbot, form.bindings["title"].widget, "Alpha", enter=False)
    assert window.session.sop.id.startswith("alpha-")
    assert window.files.save_to(tmp_path / "a.sop.json")
    saved_id = window.session.sop.id
    _retype(qtbot, form.bindings["title"].widget, "Alpha two", enter=False)
    assert window.session.sop.id == saved_id  # its history stays its history


def test_two_new_sops_keep_separate_histories_and_autosaves(open_main_window, qtbot, tmp_path):
    window = open_main_window(None)
    window.files.new()
    window.session.push(_title("Alpha"))
    assert window.files.save_to(tmp_path / "a.sop.json")
    a_id = window.session.sop.id
    window.files.new()
    window.session.push(_title("Beta"))
    b_slot = window.autosaver.save_now()
    assert window.files.save_to(tmp_path / "b.sop.json")
    b_id = window.session.sop.id
    store = window.store_link.store()
    assert a_id != b_id
    assert len(store.history.versions(a_id)) == 1 and len(store.history.versions(b_id)) == 1
    assert b_slot != autosave_path(a_id) and not b_slot.exists()
    assert autosave_path("x", tmp_path / "one.json") != autosave_path("x", tmp_path / "two.json")


def _title(text):
    from sopstudio.core.edits_refactor import SetTitle
    return SetTitle(text)


def test_saving_a_copy_with_the_same_id_asks_for_a_new_id(open_main_window, monkeypatch,
                                                          tmp_path):
    original, copy = tmp_path / "a.sop.json", tmp_path / "copy.sop.json"
    save_sop(make_sop(), original)
    save_sop(make_sop(), copy)
    window = open_main_window(None)
    window.files.open_path(original, ask=False)
    assert window.files.save_to(original)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", staticmethod(
        lambda *args, **kw: asked.append(args[2]) or QMessageBox.Yes))
    window.files.open_path(copy, ask=False)
    assert window.files.save_to(copy)
    assert asked and str(original.resolve()) in asked[0]
    new_id = window.session.sop.id
    assert new_id != "t" and load_sop(copy).id == new_id
    store = window.store_link.store()
    assert len(store.history.versions("t")) == 1 and len(store.history.versions(new_id)) == 1


def _asking_window(open_main_window, tmp_path):
    sop = make_sop()
    sop.variables = []  # `ask` asks for an undeclared `account`
    sop.nodes[0].set = {"account_upper": "upper(account)"}
    sop.edges.append(Edge(id="e9", source="check", target="ok", when="account != ''"))
    return open_main_window(Document(sop, tmp_path / "t.sop.json"), size=(1200, 800))


def test_declare_quick_fix_from_the_problems_context_menu(open_main_window, qtbot, tmp_path):
    window = _asking_window(open_main_window, tmp_path)
    dock = window.problems
    rows = [dock.tree.topLevelItem(i) for i in range(dock.tree.topLevelItemCount())]
    row = next(r for r in rows if r.text(1) == "unknown-variable")
    _right_click(qtbot, dock.tree, row)
    actions = dock.menu.actions()
    assert [a.text() for a in actions] == ["Declare variable ‘account’…"]
    actions[0].trigger()
    assert window.session.sop.variable("account") is not None
    assert window.inspector.current == "variable"
    qtbot.waitUntil(lambda: all(i.code != "unknown-variable" for i in dock.issues))


def test_declare_button_in_the_node_inspector(open_main_window, qtbot, tmp_path):
    window = _asking_window(open_main_window, tmp_path)
    window.scene.select_ids(["ask"])
    form = window.inspector.form("node")
    assert form.declare.isVisibleTo(form) and "account" in form.declare.text()
    qtbot.mouseClick(form.declare, Qt.LeftButton)
    assert window.session.sop.variable("account") is not None
    assert not form.declare.isVisibleTo(form)
    window.session.undo_stack.undo()
    assert window.session.sop.variable("account") is None


def test_variable_rename_in_the_inspector_is_one_undoable_refactor(open_main_window, qtbot,
                                                                   tmp_path):
    window = _asking_window(open_main_window, tmp_path)
    window.data.declare("account")
    form = window.inspector.form("variable")
    assert window.inspector.stack.currentWidget() is form
    count = window.session.undo_stack.count()
    _retype(qtbot, form.bindings["name"].widget, "account_id")
    sop = window.session.sop
    assert sop.node("ask").ask == ["account_id"]
    assert sop.node("ask").set == {"account_upper": "upper(account_id)"}
    assert sop.edge("e9").when == "account_id != ''"
    assert window.inspector.heading.text() == "Variable account_id"
    assert window.session.undo_stack.count() == count + 1
    window.session.undo_stack.undo()
    assert window.session.sop.edge("e9").when == "account != ''"
    assert window.session.sop.node("ask").ask == ["account"]


def test_add_and_edit_variables_and_knowledge_with_the_data_dock(window, qtbot):
    data = window.data
    buttons = {b.text(): b for b in data.findChildren(QPushButton)}
    qtbot.mouseClick(buttons["Add variable"], Qt.LeftButton)
    assert [v.name for v in window.session.sop.variables] == ["variable_1"]
    form = window.inspector.form("variable")
    form.bindings["type"].widget.setCurrentText("integer")
    _retype(qtbot, form.bindings["enum"].widget, "1, 2, 3")
    variable = window.session.sop.variable("variable_1")
    assert variable.type == "integer" and variable.enum == [1, 2, 3]
    qtbot.mouseClick(buttons["Add knowledge"], Qt.LeftButton)
    kform = window.inspector.form("knowledge")
    assert window.inspector.stack.currentWidget() is kform
    kform.bindings["question"].widget.setFocus()
    qtbot.keyClicks(kform.bindings["question"].widget, "Opening hours?")
    assert window.session.sop.knowledge[0].question == "Opening hours?"
    assert data.knowledge.item(0).text() == "Opening hours?"
    data.knowledge.setCurrentRow(0)
    delete = [b for b in data.findChildren(QPushButton) if b.text() == "Delete"]
    qtbot.mouseClick(delete[1], Qt.LeftButton)
    assert window.session.sop.knowledge == []


def test_undefined_variable_offers_asking_for_it_where_it_is_read(open_main_window, qtbot,
                                                                 tmp_path):
    sop = make_sop()
    sop.edges[1].when = "status == 'ok' && region == 'eu'"
    window = open_main_window(Document(sop, tmp_path / "t.sop.json"), size=(1200, 800))
    dock = window.problems
    rows = [dock.tree.topLevelItem(i) for i in range(dock.tree.topLevelItemCount())]
    row = next(r for r in rows if r.text(1) == "undefined-variable" and "region" in r.text(2))
    _right_click(qtbot, dock.tree, row)
    texts = [a.text() for a in dock.menu.actions()]
    assert texts == ["Declare variable ‘region’…", "Ask for ‘region’ at check"]
    dock.menu.actions()[1].trigger()
    assert window.session.sop.node("check").ask == ["region"]
    assert window.session.sop.variable("region") is not None
    qtbot.waitUntil(lambda: not any(i.variable == "region" for i in dock.issues))
    window.session.undo_stack.undo()  # one entry
    assert window.session.sop.variable("region") is None


def test_edge_inspector_offers_asking_for_an_unavailable_name(window, qtbot):
    window.session.push(SetField("edge", "e2", "when", "status == 'ok' && region == 'eu'"))
    window.scene.select_ids([], ["e2"])
    form = window.inspector.form("edge")
    assert form.ask_fix.isVisibleTo(form) and form.ask_fix.text() == "Ask for ‘region’ at check"
    qtbot.mouseClick(form.ask_fix, Qt.LeftButton)
    assert window.session.sop.node("check").ask == ["region"]
    assert window.session.sop.variable("region") is not None
    assert not form.ask_fix.isVisibleTo(form)
