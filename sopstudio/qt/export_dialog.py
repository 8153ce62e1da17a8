"""File ▸ Export…: choose a format, see what it drops (formats.losses, measured on this SOP)
and whether the SOP has validation errors, then write the file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QLabel, QMessageBox, QPlainTextEdit, QVBoxLayout)

from ..core.validate import validate
from ..formats import EXPORT_FORMATS, FormatError, export_sop
from ..formats.losses import losses
from ..formats.output import write_atomic
from .canvas import style

SUFFIX = {"json": ".sop.json", "text": ".txt", "sop-text": ".sop.txt", "journeybench": ".json",
          "dot": ".dot", "mermaid": ".mmd", "toolspecs": ".json", "openai-tools": ".json",
          "svg": ".svg", "png": ".png", "spa-prompt": ".txt", "dpa-prompts": ".json",
          "react-prompt": ".txt", "sop-agent-prompts": ".json", "agent-s-prompts": ".json",
          "marco-prompts": ".json"}


class ExportDialog(QDialog):
    def __init__(self, sop, folder: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.sop, self.folder = sop, folder
        self.format = QComboBox()
        self.format.addItems(list(EXPORT_FORMATS))
        self.format.currentTextChanged.connect(self.show_losses)
        self.dropped = QPlainTextEdit()
        self.dropped.setReadOnly(True)
        self.dropped.setMinimumSize(480, 280)
        errors = sum(issue.severity == "error" for issue in validate(sop))
        self.warning = QLabel(f"This SOP has {errors} validation error(s) (see Problems); it "
                              "will be exported as it is." if errors else "")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {style.ERROR.name()};")
        self.warning.setVisible(bool(errors))
        buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.export_button = buttons.addButton("Export…", QDialogButtonBox.AcceptRole)
        buttons.accepted.connect(self.choose_file)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Format", self.format)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("What this format drops:"))
        layout.addWidget(self.dropped)
        layout.addWidget(self.warning)
        layout.addWidget(buttons)
        self.show_losses(self.format.currentText())

    def show_losses(self, fmt: str) -> list[str]:
        try:
            found = losses(self.sop, fmt)
        except FormatError as problem:
            found = [f"cannot check ({problem})"]
        self.dropped.setPlainText("\n".join(f"• {line}" for line in found) if found
                                  else "Nothing: this format keeps the whole SOP.")
        return found

    def choose_file(self) -> None:
        fmt = self.format.currentText()
        name = Path(self.folder) / f"{self.sop.id}{SUFFIX.get(fmt, '')}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export as {fmt}", str(name))
        if path and self.export_to(path):
            self.accept()

    def export_to(self, path) -> bool:
        fmt = self.format.currentText()
        try:
            write_atomic(str(path), export_sop(self.sop, fmt))
        except (FormatError, OSError) as problem:
            QMessageBox.warning(self, "Cannot export", f"{path}: {problem}")
            return False
        self.written = Path(path)
        return True
