"""Files, title, versions and the unsaved-changes question (offscreen; message boxes patched)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from sopstudio.core.edits import SetField
from sopstudio.core.io import canonical_json, load_sop, save_sop
from sopstudio.qt import settings as app_settings
from sopstudio.qt.main_window import MainWindow

from qt_helpers import make_sop


@pytest.fixture
def blank_window(open_main_window):
    """A main window with a new, empty document."""
    return open_main_window(None)


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


def test_open_save_round_trip_records_a_version(blank_window, sop_file, tmp_path):
    assert blank_window.files.open_path(sop_file)
    assert set(blank_window.scene.nodes) == {"ask", "check", "ok", "bad"}
    assert blank_window.windowTitle().startswith("Test SOP — in.sop.json")
    blank_window.session.push(SetField("node", "ask", "title", "Ask for the account"))
    assert "Test SOP *" in blank_window.windowTitle()
    out = tmp_path / "out.sop.json"
    assert blank_window.files.save_to(out)
    assert "*" not in blank_window.windowTitle()
    reloaded = load_sop(out)
    assert canonical_json(reloaded) == canonical_json(blank_window.session.sop)
    assert reloaded.node("ask").title == "Ask for the account"
    versions = blank_window.store_link.store().history.versions("t")
    assert len(versions) == 1
    assert blank_window.history.versions.count() == 1
    recent = app_settings.recent_files(blank_window.settings)
    assert recent[0] == str(out.resolve()) and str(sop_file.resolve()) in recent


def test_history_diff_and_restore_is_one_undoable_edit(blank_window, sop_file, tmp_path):
    blank_window.files.open_path(sop_file)
    blank_window.files.save_to(sop_file)
    blank_window.session.push(SetField("node", "ask", "title", "Changed"))
    blank_window.history.refresh()
    blank_window.history.versions.setCurrentRow(0)
    assert "Changed" in blank_window.history.diff.toPlainText()
    count = blank_window.session.undo_stack.count()
    assert blank_window.history.restore_selected()
    assert blank_window.session.sop.node("ask").title == "Ask id"
    assert blank_window.session.undo_stack.count() == count + 1
    assert set(blank_window.scene.nodes) == {"ask", "check", "ok", "bad"}
    blank_window.session.undo_stack.undo()
    assert blank_window.session.sop.node("ask").title == "Changed"


def test_close_with_unsaved_changes_asks_and_cancel_keeps_window(blank_window, sop_file,
                                                                 monkeypatch):
    blank_window.files.open_path(sop_file)
    blank_window.session.push(SetField("sop", None, "title", "Renamed"))
    asked = _answer(monkeypatch, QMessageBox.Cancel)
    assert not blank_window.close()
    assert asked and "Renamed" in asked[0]
    assert blank_window.isVisible()
    assert load_sop(sop_file).title == "Test SOP"


def test_close_with_save_writes_the_file(blank_window, sop_file, monkeypatch):
    blank_window.files.open_path(sop_file)
    blank_window.session.push(SetField("sop", None, "title", "Renamed"))
    asked = _answer(monkeypatch, QMessageBox.Save)
    assert blank_window.close()
    assert asked and load_sop(sop_file).title == "Renamed"


def test_close_discarding_and_clean_close_does_not_ask(blank_window, sop_file, monkeypatch):
    blank_window.files.open_path(sop_file)
    asked = _answer(monkeypatch, QMessageBox.Discard)
    blank_window.session.push(SetField("sop", None, "title", "Renamed"))
    blank_window.session.undo_stack.undo()  # back to the saved content: nothing to ask
    assert blank_window.close() and asked == []
    blank_window.show()
    blank_window.session.push(SetField("sop", None, "title", "Renamed"))
    assert blank_window.close() and len(asked) == 1
    assert load_sop(sop_file).title == "Test SOP"


def test_window_state_is_kept_in_the_given_settings(blank_window, tmp_path):
    blank_window.resize(1000, 700)
    blank_window.tools_dock.hide()
    blank_window.close()
    assert blank_window.settings.value("window/geometry") is not None
    again = MainWindow(None, blank_window.settings)
    again.show()
    assert again.size().height() == 700
    assert again.tools_dock.isHidden() and not again.inspector_dock.isHidden()
    again.close()


def test_open_positionless_file_gets_laid_out(blank_window, tmp_path):
    sop = make_sop()
    for node in sop.nodes:
        node.position = None
    path = tmp_path / "nolayout.sop.json"
    save_sop(sop, path)
    blank_window.files.open_path(path)
    positions = [n.position for n in blank_window.session.sop.nodes]
    assert all(p is not None for p in positions) and len(set(positions)) == 4
    assert not blank_window.session.document.dirty and blank_window.session.undo_stack.count() == 0


def test_autosave_then_recovery_after_a_crash(blank_window, sop_file, tmp_path, monkeypatch):
    blank_window.files.open_path(sop_file)
    blank_window.session.push(SetField("sop", None, "title", "Unsaved work"))
    saved = blank_window.autosaver.save_now()
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
    blank_window.files.save_to(sop_file)  # a save removes the autosave
    assert not saved.exists()


def test_paste_of_dot_text_imports_nodes_as_one_edit(blank_window, qtbot):
    from PySide6.QtWidgets import QApplication
    QApplication.clipboard().setText('digraph g { a [label="Ask"]; b [label="Done"]; '
                                     'a -> b [label="x == 1"]; }')
    before = len(blank_window.session.sop.nodes)
    pasted = blank_window.editor.paste()
    assert len(pasted) == 2 and len(blank_window.session.sop.nodes) == before + 2
    assert all(blank_window.session.sop.node(i).position is not None for i in pasted)
    assert blank_window.session.undo_stack.count() == 1
