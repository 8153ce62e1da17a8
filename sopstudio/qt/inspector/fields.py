"""Field bindings of the inspector: one widget edits one field of one document object.

A binding converts widget text to a value (`parse`, which raises ValueError on bad input) and
pushes a SetField edit; bad input is shown under the widget and never reaches the document.

Two ways to commit. Plain text (titles, instructions, choices) commits on every change, and
consecutive edits of one field merge into one undo entry. Checked fields (`on_finish=True`:
conditions, assignments, JSON, ids) check the text as it is typed but commit only on Enter or
leaving the field (Ctrl+Enter in a multi-line box), and only when valid: a half-typed
expression never reaches the document. Text the user left invalid stays shown, with its error,
as a draft of that object's field until it is fixed or Escape reverts it to the stored value.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QComboBox, QLabel, QLineEdit, QPlainTextEdit, QSizePolicy,
                               QSpinBox, QVBoxLayout, QWidget)

from ...core.edits import SetField
from ..canvas import style


class Binding(QObject):
    """Connects `widget` to `field` of the object the form shows (form.kind, form.ident)."""

    def __init__(self, form, field: str, widget, parse=None, show=None, on_finish=False,
                 make_edit=None):
        """`make_edit(ident, value)`: the edit to push instead of SetField (renames that
        rewrite references, a title that carries the id along)."""
        super().__init__(widget)
        self.make_edit = make_edit
        self.form, self.field, self.widget = form, field, widget
        self.parse = parse or (lambda text: text)
        self.show = show or (lambda value: "" if value is None else str(value))
        self.checked = on_finish
        self.drafts: dict = {}  # ident -> text typed but not (yet) committed
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.ERROR.name()};")
        self.error.hide()
        self.loading = False
        self._connect()

    def _connect(self) -> None:
        w = self.widget
        if isinstance(w, QLineEdit):
            w.textEdited.connect(lambda *_: self._typed())
            if self.checked:
                w.editingFinished.connect(lambda: self.commit())
        elif isinstance(w, QPlainTextEdit):
            w.textChanged.connect(self._typed)
        elif isinstance(w, QComboBox):
            w.currentTextChanged.connect(lambda *_: self.commit())
        elif isinstance(w, QSpinBox):
            w.valueChanged.connect(lambda *_: self.commit())
        if self.checked:
            w.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.KeyPress and event.key() == Qt.Key_Escape:
            # Escape closes an open completion list and nothing else; with none open, it
            # reverts the field to the stored value.
            completer = getattr(watched, "completer_", None)
            if completer is not None and completer.popup().isVisible():
                completer.popup().hide()
            else:
                self.revert()
            return True
        if isinstance(watched, QPlainTextEdit):
            if kind == QEvent.FocusOut:
                self.commit()
            elif (kind == QEvent.KeyPress and event.key() in (Qt.Key_Return, Qt.Key_Enter)
                  and event.modifiers() & Qt.ControlModifier):
                self.commit()
                return True
        return False

    def _typed(self) -> None:
        """A user edit: plain fields commit at once; checked ones keep a draft and check it."""
        if self.loading or not self._has_target():
            return
        if not self.checked:
            self.commit()
            return
        self.drafts[self.form.ident] = self.text()
        try:
            self.check()
        except ValueError:
            pass  # shown under the field; committing waits for Enter or leaving the field

    def check(self):
        """Parse the widget's text, showing the problem inline; the value, or raise ValueError."""
        try:
            value = self.parse(self.text())
        except ValueError as problem:
            self.set_error(str(problem))
            raise
        self.set_error("")
        return value

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
        """Show `value` (or this object's draft) without pushing an edit; leaves the widget
        alone if it already says it (so the cursor does not jump while the user types)."""
        draft = self.drafts.get(self.form.ident)
        self._set_text(self.show(value) if draft is None else draft)
        if draft is None:
            self.set_error("")
        else:
            try:
                self.check()
            except ValueError:
                pass

    def _set_text(self, shown: str) -> None:
        if shown == self.text():
            return
        self.loading = True
        try:
            w = self.widget
            if isinstance(w, QPlainTextEdit):
                w.setPlainText(shown)
            elif isinstance(w, QComboBox):
                w.setCurrentText(shown)
            elif isinstance(w, QSpinBox):
                w.setValue(int(shown or 0))
            else:
                w.setText(shown)
                w.setCursorPosition(0)  # a long value shows its start, not its end
        finally:
            self.loading = False

    def revert(self) -> None:
        """Forget the draft and show the stored value again (Escape)."""
        self.drafts.pop(self.form.ident, None)
        if self._has_target():
            self.load(self.form.current_value(self.field))

    def _has_target(self) -> bool:
        return self.form.kind == "sop" or (self.form.ident is not None
                                           and self.form.target() is not None)

    def commit(self) -> bool:
        """Push the widget's value when valid and different; False when nothing was pushed."""
        if self.loading:
            return False
        ident = self.form.ident
        if not self._has_target():
            self.drafts.pop(ident, None)  # its object is gone (deleted, undone): nothing to do
            return False
        try:
            value = self.check()
        except ValueError:
            return False
        draft = self.drafts.pop(ident, None)  # the document's value is shown from now on
        if value == self.form.current_value(self.field):
            return False
        renaming = self.field == self.form.key_field
        if renaming:
            self.form.ident = value  # the refresh during the push must find the renamed object
        edit = (self.make_edit(ident, value) if self.make_edit is not None
                else SetField(self.form.kind, ident, self.field, value))
        if not self.form.session.push(edit):
            self.form.ident = ident
            # A refused name is explained next to the field, and the field shows the stored
            # value again (a draft stays only for text that did not parse).
            self.set_error(self.form.session.last_error)
            if draft is not None and not renaming:
                self.drafts[ident] = draft
            elif renaming:
                error = self.error.text()
                self.load(self.form.current_value(self.field))
                self.set_error(error)
            return False
        return True

    def flush(self) -> None:
        """Commit a pending valid draft of the shown object (before the form shows another)."""
        if self.checked and self.form.ident in self.drafts:
            self.commit()

    def set_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))


# --- conversions between widget text and field values ------------------------------------------
IDENTIFIER = re.compile(r"[A-Za-z0-9_.-]+")


def identifier(text: str) -> str:
    """An id or name: letters, digits, `_`, `-` and `.` only (ids appear in conditions,
    prompts and file names, where spaces and punctuation would break them)."""
    text = text.strip()
    if not text:
        raise ValueError("An id cannot be empty")
    bad = sorted({c for c in text if not IDENTIFIER.fullmatch(c)})
    if bad:
        shown = " ".join("space" if c == " " else repr(c) for c in bad)
        raise ValueError(f"Ids use only letters, digits, _ - and . (not {shown})")
    return text


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
