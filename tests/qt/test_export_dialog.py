"""File ▸ Export… (offscreen): every export format is offered, the dialog lists what the chosen
format drops (the same list as the CLI) and warns about validation errors, then writes."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.formats import EXPORT_FORMATS
from sopstudio.formats.losses import losses

from qt_helpers import SAMPLES


def test_export_dialog_lists_losses_and_writes(open_main_window, qtbot, tmp_path):
    sop = load_sop(SAMPLES / "email_update.sop.json")
    sop.start = None
    window = open_main_window(Document(sop, tmp_path / "e.sop.json"))
    seen = {}

    def drive():
        dialog = window.export_dialog
        try:  # the dialog closes whatever happens: a failed check must not hang the test
            box = dialog.format
            seen["formats"] = [box.itemText(i) for i in range(box.count())]
            seen["json"] = dialog.dropped.toPlainText()
            box.setFocus()
            while box.currentText() != "text":  # the pseudocode text drops titles and more
                qtbot.keyClick(box, Qt.Key_Down)
            seen["text"] = dialog.dropped.toPlainText()
            seen["warning"] = dialog.warning.text() if dialog.warning.isVisibleTo(dialog) else ""
            assert dialog.export_to(tmp_path / "out.txt")
        finally:
            dialog.accept()

    QTimer.singleShot(0, drive)
    window.actions_by_name["export"].trigger()
    assert seen["formats"] == list(EXPORT_FORMATS)
    assert seen["json"] == "Nothing: this format keeps the whole SOP."
    assert seen["text"].splitlines() == [f"• {line}" for line in losses(sop, "text")] != []
    assert "validation error" in seen["warning"]
    assert (tmp_path / "out.txt").read_text().strip()
