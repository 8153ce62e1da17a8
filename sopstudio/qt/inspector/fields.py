"""Field bindings of the inspector: one widget edits one field of one document object.

A binding converts widget text to a value (`parse`, which raises ValueError on bad input) and
pushes a SetField edit; bad input is shown under the widget and never reaches the document.
Each keystroke is an edit, and consecutive edits of one field merge into one undo entry.
"""

from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QLabel, QLineEdit, QPlainTextEdit, QSizePolicy,
                               QSpinBox, QVBoxLayout, QWidget)

from ...core.edits import SetField
from ..canvas import style


class Binding:
    """Connects `widget` to `field` of the object the form shows (form.kind, form.ident)."""

    def __init__(self, form, field: str, widget, parse=None, show=None, on_finish=False):
        self.form, self.field, self.widget = form, field, widget
        self.parse = parse or (lambda text: text)
        self.show = show or (lambda value: "" if value is None else str(value))
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.ERROR.name()};")
        self.error.hide()
        self.loading = False
        self._connect(on_finish)

    def _connect(self, on_finish: bool) -> None:
        w = self.widget
        if isinstance(w, QLineEdit):
            (w.editingFinished if on_finish else w.textEdited).connect(lambda *_: self.commit())
        elif isinstance(w, QPlainTextEdit):
            w.textChanged.connect(self.commit)
        elif isinstance(w, QComboBox):
            w.currentTextChanged.connect(lambda *_: self.commit())
        elif isinstance(w, QSpinBox):
            w.valueChanged.connect(lambda *_: self.commit())

    def row(self) -> QWidget:
        box = QWidget()
        box.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.widget)
        layout.addWidget(self.error)
        return box

    def text(self) -> str:
        w = self.widget
        if isinstance(w, QPlainTextEdit):
            return w.toPlainText()
        if isinstance(w, QComboBox):
            return w.currentText()
        if isinstance(w, QSpinBox):
            return str(w.value())
        return w.text()

    def load(self, value) -> None:
        """Show `value` without pushing an edit; leaves the widget alone if it already says it
        (so the cursor does not jump while the user types)."""
        self.loading = True
        try:
            self.set_error("")
            shown = self.show(value)
            if shown == self.text():
                return
            w = self.widget
            if isinstance(w, QPlainTextEdit):
                w.setPlainText(shown)
            elif isinstance(w, QComboBox):
                w.setCurrentText(shown)
            elif isinstance(w, QSpinBox):
                w.setValue(int(shown or 0))
            else:
                w.setText(shown)
        finally:
            self.loading = False

    def commit(self) -> bool:
        if self.loading or self.form.ident is None and self.form.kind != "sop":
            return False
        try:
            value = self.parse(self.text())
        except ValueError as problem:
            self.set_error(str(problem))
            return False
        current = self.form.current_value(self.field)
        if value == current:
            self.set_error("")
            return False
        ok = self.form.session.push(SetField(self.form.kind, self.form.ident, self.field, value))
        self.set_error("" if ok else self.form.session.last_error)
        if ok and self.field == self.form.key_field:
            self.form.ident = value  # renamed: keep editing the same object
        return ok

    def set_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))


# --- conversions between widget text and field values ------------------------------------------
def comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def show_comma_list(value) -> str:
    return ", ".join(value or [])


def line_list(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def show_line_list(value) -> str:
    return "\n".join(value or [])


def optional_text(text: str):
    return text if text.strip() else None


def optional_count(text: str):
    number = int(text or 0)
    return number if number > 0 else None
