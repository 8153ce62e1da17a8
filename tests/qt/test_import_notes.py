"""Import and paste show the importer's notes (offscreen, real key events): a dialog, and
`note` rows in the Problems dock until dismissed; a text that says "if … otherwise" whose
result has no branch says so. The CLI prints the same review notes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from sopstudio.cli_main import run

REFUND = """1. Greet the customer.
2. Ask for the order number.
3. Check the order with check_order.
4. If the order is eligible, issue a refund with issue_refund; otherwise tell the customer \
the order is not eligible and end.
5. Thank the customer.
"""


def _rows(dock) -> list[tuple[str, str]]:
    return [(dock.tree.topLevelItem(i).text(0), dock.tree.topLevelItem(i).text(2))
            for i in range(dock.tree.topLevelItemCount())]


def test_paste_shows_notes_in_a_dialog_and_the_problems_dock(window, qtbot):
    QApplication.clipboard().setText(REFUND)
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_V, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.problems.notes != [])
    box = window.import_box
    assert box.isVisible() and "pasted text" in box.text()
    notes = [text for severity, text in _rows(window.problems) if severity == "note"]
    assert any("no branch" in note for note in notes)
    assert any("check_order" in note for note in notes)
    assert "import notes" in window.problems_dock.windowTitle()
    box.accept()
    qtbot.mouseClick(window.problems.dismiss_button, Qt.LeftButton)
    assert not any(severity == "note" for severity, _ in _rows(window.problems))
    assert not window.problems.notes_bar.isVisibleTo(window.problems)


def test_file_import_shows_notes_until_another_document(open_main_window, qtbot, tmp_path,
                                                        monkeypatch):
    source = tmp_path / "refund.txt"
    source.write_text(REFUND, encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(source), "")))
    window = open_main_window(None)
    window.actions_by_name["import"].trigger()
    assert len(window.session.sop.nodes) >= 5
    assert window.session.sop.id.startswith("imported-sop-")  # an id of its own
    assert window.problems.notes and "refund.txt" in window.problems.notes_source
    window.import_box.accept()
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.Discard))
    window.files.new()
    assert window.problems.notes == []


def test_cli_import_prints_the_review_notes(tmp_path, capsys):
    source = tmp_path / "refund.txt"
    source.write_text(REFUND, encoding="utf-8")
    assert run(["import", str(source), "-o", str(tmp_path / "out.sop.json")]) == 0
    err = capsys.readouterr().err
    assert "note: the text says 'if … otherwise', but the imported SOP has no branch" in err
