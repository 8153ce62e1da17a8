"""Files, title, versions and the unsaved-changes question (offscreen; message boxes patched)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from sopstudio.core.edits import SetField
from sopstudio.core.io import canonical_json, load_sop, save_sop
from sopstudio.qt import settings as app_settings
from sopstudio.qt import store_link
from sopstudio.qt.main_window import MainWindow

from test_qt_canvas import make_sop


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(None, settings)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.session.mark_saved()
    win.close()
    win.deleteLater()
    store_link.close_all()


@pytest.fixture
def sop_file(tmp_path):
    path = tmp_path / "in.sop.json"
    save_sop(make_sop(), path)
    return path


def _answer(monkeypatch, button):
    asked = []

    def fake_question(*args, **kwargs):
        asked.append(args[2] if len(args) > 2 else "")
        return button
    monkeypatch.setattr(QMessageBox, "question", staticmethod(fake_question))
    return asked


def test_open_save_round_trip_records_a_version(window, sop_file, tmp_path):
    assert window.files.open_path(sop_file)
    assert set(window.scene.nodes) == {"ask", "check", "ok", "bad"}
    assert window.windowTitle().startswith("Test SOP — in.sop.json")
    window.session.push(SetField("node", "ask", "title", "Ask for the account"))
    assert "Test SOP *" in window.windowTitle()
    out = tmp_path / "out.sop.json"
    assert window.files.save_to(out)
    assert "*" not in window.windowTitle()
    reloaded = load_sop(out)
    assert canonical_json(reloaded) == canonical_json(window.session.sop)
    assert reloaded.node("ask").title == "Ask for the account"
    versions = store_link.store().versions("t")
    assert len(versions) == 1
    assert window.history.versions.count() == 1
    recent = app_settings.recent_files(window.settings)
    assert recent[0] == str(out.resolve()) and str(sop_file.resolve()) in recent


def test_history_diff_and_restore_is_one_undoable_edit(window, sop_file, tmp_path):
    window.files.open_path(sop_file)
    window.files.save_to(sop_file)
    window.session.push(SetField("node", "ask", "title", "Changed"))
    window.history.refresh()
    window.history.versions.setCurrentRow(0)
    assert "Changed" in window.history.diff.toPlainText()
    count = window.session.undo_stack.count()
    assert window.history.restore_selected()
    assert window.session.sop.node("ask").title == "Ask id"
    assert window.session.undo_stack.count() == count + 1
    assert set(window.scene.nodes) == {"ask", "check", "ok", "bad"}
    window.session.undo_stack.undo()
    assert window.session.sop.node("ask").title == "Changed"


def test_close_with_unsaved_changes_asks_and_cancel_keeps_window(window, sop_file, monkeypatch):
    window.files.open_path(sop_file)
    window.session.push(SetField("sop", None, "title", "Renamed"))
    asked = _answer(monkeypatch, QMessageBox.Cancel)
    assert not window.close()
    assert asked and "Renamed" in asked[0]
    assert window.isVisible()
    assert load_sop(sop_file).title == "Test SOP"


def test_close_with_save_writes_the_file(window, sop_file, monkeypatch):
    window.files.open_path(sop_file)
    window.session.push(SetField("sop", None, "title", "Renamed"))
    asked = _answer(monkeypatch, QMessageBox.Save)
    assert window.close()
    assert asked and load_sop(sop_file).title == "Renamed"


def test_close_discarding_and_clean_close_does_not_ask(window, sop_file, monkeypatch):
    window.files.open_path(sop_file)
    asked = _answer(monkeypatch, QMessageBox.Discard)
    window.session.push(SetField("sop", None, "title", "Renamed"))
    window.session.undo_stack.undo()  # back to the saved content: nothing to ask
    assert window.close() and asked == []
    window.show()
    window.session.push(SetField("sop", None, "title", "Renamed"))
    assert window.close() and len(asked) == 1
    assert load_sop(sop_file).title == "Test SOP"


def test_window_state_is_kept_in_the_given_settings(window, tmp_path):
    window.resize(1000, 700)
    window.tools_dock.hide()
    window.close()
    assert window.settings.value("window/geometry") is not None
    again = MainWindow(None, window.settings)
    again.show()
    assert again.size().height() == 700
    assert again.tools_dock.isHidden() and not again.inspector_dock.isHidden()
    again.close()


def test_open_positionless_file_gets_laid_out(window, tmp_path):
    sop = make_sop()
    for node in sop.nodes:
        node.position = None
    path = tmp_path / "nolayout.sop.json"
    save_sop(sop, path)
    window.files.open_path(path)
    positions = [n.position for n in window.session.sop.nodes]
    assert all(p is not None for p in positions) and len(set(positions)) == 4
    assert not window.session.document.dirty and window.session.undo_stack.count() == 0


def test_autosave_then_recovery_after_a_crash(window, sop_file, tmp_path, monkeypatch):
    window.files.open_path(sop_file)
    window.session.push(SetField("sop", None, "title", "Unsaved work"))
    saved = window.autosaver.save_now()
    assert saved is not None and saved.exists()
    # "Crash": a second window opens the same file while the autosave is still there.
    asked = _answer(monkeypatch, QMessageBox.Yes)
    other = MainWindow(None, QSettings(str(tmp_path / "other.ini"), QSettings.IniFormat))
    assert other.files.open_path(sop_file, ask=False)
    assert asked and other.session.sop.title == "Unsaved work"
    assert other.session.document.dirty and other.session.undo_stack.count() == 1
    other.session.undo_stack.undo()
    assert other.session.sop.title == "Test SOP"
    other.session.mark_saved()
    other.close()
    window.files.save_to(sop_file)  # a save removes the autosave
    assert not saved.exists()


def test_paste_of_dot_text_imports_nodes_as_one_edit(window, qtbot):
    from PySide6.QtWidgets import QApplication
    QApplication.clipboard().setText('digraph g { a [label="Ask"]; b [label="Done"]; '
                                     'a -> b [label="x == 1"]; }')
    before = len(window.session.sop.nodes)
    pasted = window.editor.paste()
    assert len(pasted) == 2 and len(window.session.sop.nodes) == before + 2
    assert all(window.session.sop.node(i).position is not None for i in pasted)
    assert window.session.undo_stack.count() == 1
