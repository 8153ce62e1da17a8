"""The inline editor of a mocked tool result, shown while the run waits for the operator.

The result is edited as JSON (parsed with `json.loads`, never evaluated) and returned as is, or
replaced by one of the tool's declared errors. Returning it unchanged records no operator input.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QPlainTextEdit,
                               QPushButton, QVBoxLayout)


class ToolResultEditor(QFrame):
    returned = Signal(object)  # the result dict to return ({"outputs"} or {"error"})

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setMaximumHeight(110)
        self.errors = QComboBox()
        self.errors.setEditable(True)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #d93025")
        self.return_button = QPushButton("Return result")
        self.error_button = QPushButton("Force error")
        self.return_button.clicked.connect(self.submit)
        self.error_button.clicked.connect(lambda: self.force_error(self.errors.currentText()))
        row = QHBoxLayout()
        row.addWidget(self.return_button)
        row.addStretch(1)
        row.addWidget(self.errors)
        row.addWidget(self.error_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addWidget(self.problem)
        layout.addLayout(row)

    def ask(self, tool: str, arguments: dict, result: dict, errors: list[str]) -> None:
        args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        self.title.setText(f"<b>{tool}</b>({args}) will return:")
        self.text.setPlainText(json.dumps(result, indent=2, ensure_ascii=False))
        self.errors.clear()
        self.errors.addItems(errors or ["api_error"])
        self.problem.clear()
        self.show()
        self.text.setFocus()

    def set_outputs(self, outputs: dict) -> None:
        """Replace the outputs in the editor (tests and quick edits)."""
        self.text.setPlainText(json.dumps({"outputs": outputs}, indent=2, ensure_ascii=False))

    def submit(self) -> None:
        try:
            value = json.loads(self.text.toPlainText())
        except json.JSONDecodeError as error:
            self.problem.setText(f"Not valid JSON: {error.msg} (line {error.lineno})")
            return
        if not isinstance(value, dict):
            self.problem.setText('A result is an object: {"outputs": {...}} or {"error": "code"}')
            return
        self.returned.emit(value)

    def force_error(self, code: str) -> None:
        self.returned.emit({"error": code.strip() or "api_error"})
