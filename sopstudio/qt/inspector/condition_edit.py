"""A line edit for edge conditions: live syntax check and completion of the word at the cursor."""

from __future__ import annotations

import re

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QLineEdit

from ...core import expr

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*$")


def parse_condition(text: str):
    """The value to store for `text`: None for empty, 'else', or a parsable expression.
    Raises ValueError with the parser's message and column otherwise."""
    text = text.strip()
    if not text:
        return None
    if expr.is_else(text):
        return "else"
    try:
        expr.parse(text)
    except expr.ExprSyntaxError as problem:
        raise ValueError(f"Syntax error: {problem}") from None
    return text


def unknown_names_warning(text: str, names: list[str]) -> str:
    """A non-blocking note on names the condition reads that are not available at the edge's
    source (`names`: what the completer offers), with the closest one; "" when all are known
    or the text does not parse (the syntax error is shown instead)."""
    text = (text or "").strip()
    if not text or expr.is_else(text):
        return ""
    try:
        read = expr.names_read(text)
    except expr.ExprError:
        return ""
    known = set(names)
    unknown = sorted(n for n in read if n not in known and n.split(".", 1)[0] not in known)
    if not unknown:
        return ""
    parts = []
    for name in unknown:
        close = expr.suggest(name, names)
        parts.append(f"'{name}'" + (f" (did you mean '{close}'?)" if close else ""))
    return "Warning: not available at this step: " + ", ".join(parts)


class ConditionEdit(QLineEdit):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setPlaceholderText("e.g. status == 'active'   (empty = always, else = otherwise)")
        self._model = QStringListModel(self)
        self.completer_ = QCompleter(self._model, self)
        self.completer_.setWidget(self)
        self.completer_.setCaseSensitivity(Qt.CaseInsensitive)
        self.completer_.setCompletionMode(QCompleter.PopupCompletion)
        self.completer_.activated.connect(self.insert_completion)
        self.textEdited.connect(self._maybe_complete)

    def set_names(self, names: list[str]) -> None:
        self._model.setStringList(names)

    def names(self) -> list[str]:
        return self._model.stringList()

    def word_before_cursor(self) -> str:
        match = WORD.search(self.text()[: self.cursorPosition()])
        return match.group(0) if match else ""

    def _maybe_complete(self, *_):
        prefix = self.word_before_cursor()
        if not prefix:
            self.completer_.popup().hide()
            return
        self.completer_.setCompletionPrefix(prefix)
        if self.completer_.completionCount() and self.completer_.currentCompletion() != prefix:
            self.completer_.complete()
        else:
            self.completer_.popup().hide()

    def insert_completion(self, name: str) -> None:
        cursor = self.cursorPosition()
        before = self.text()[:cursor]
        start = cursor - len(self.word_before_cursor())
        self.setText(before[:start] + name + self.text()[cursor:])
        self.setCursorPosition(start + len(name))
        self.textEdited.emit(self.text())  # the binding commits on user edits
