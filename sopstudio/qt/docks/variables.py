"""The Data dock: the SOP's declared variables and its knowledge entries, each a list with Add
and Delete. Choosing an item opens it in the Inspector, where its fields are edited (renaming a
variable there rewrites every reference). Every change is one undoable edit."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from ...core.edits import AddKnowledge, AddVariable, RemoveKnowledge, RemoveVariable
from ...core.model import Knowledge, Variable

LIST_KINDS = ("variables", "knowledge", "reset")


class DataDock(QWidget):
    variable_chosen = Signal(str)
    knowledge_chosen = Signal(int)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.variables, var_box = self._section("Variables", self.add_variable,
                                                self.delete_variable)
        self.knowledge, know_box = self._section("Knowledge", self.add_knowledge,
                                                 self.delete_knowledge)
        self.variables.itemClicked.connect(lambda item: self.variable_chosen.emit(
            item.data(Qt.UserRole)))
        self.knowledge.itemClicked.connect(lambda item: self.knowledge_chosen.emit(
            item.data(Qt.UserRole)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(var_box, 3)
        layout.addWidget(know_box, 2)
        session.changed.connect(self._on_changed)
        session.replaced.connect(self.refresh)
        self.refresh()

    def _on_changed(self, change) -> None:
        if change.by_kind.keys() & set(LIST_KINDS):
            self.refresh()

    def _section(self, title: str, add, delete) -> tuple[QListWidget, QGroupBox]:
        box = QGroupBox(title)
        items = QListWidget()
        # Long questions end in "…" (their full text is the tooltip), never a sideways scroll.
        items.setTextElideMode(Qt.ElideRight)
        items.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        add_button = QPushButton(f"Add {title.lower().rstrip('s')}")
        delete_button = QPushButton("Delete")
        add_button.clicked.connect(add)
        delete_button.clicked.connect(delete)
        buttons = QHBoxLayout()
        buttons.addWidget(add_button)
        buttons.addWidget(delete_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(box)
        layout.addWidget(items)
        layout.addLayout(buttons)
        return items, box

    def refresh(self) -> None:
        sop = self.session.sop
        self._fill(self.variables, [(f"{v.name}  ({v.type}, {v.source})", v.name)
                                    for v in sop.variables])
        self._fill(self.knowledge, [(k.question or "(no question yet)", i)
                                    for i, k in enumerate(sop.knowledge)])

    @staticmethod
    def _fill(widget: QListWidget, rows: list) -> None:
        current = widget.currentItem().data(Qt.UserRole) if widget.currentItem() else None
        widget.clear()
        for text, key in rows:
            item = QListWidgetItem(text)
            item.setToolTip(text)
            item.setData(Qt.UserRole, key)
            widget.addItem(item)
            if key == current:
                widget.setCurrentItem(item)

    # -- changes (each one edit) ------------------------------------------------------------------
    def declare(self, name: str, **fields) -> bool:
        """Declare variable `name` (the quick fix of unknown/undefined-variable) and open it."""
        if self.session.sop.variable(name) is None and not self.session.push(
                AddVariable(Variable(name=name, **fields))):
            return False
        self.variable_chosen.emit(name)
        return True

    def add_variable(self) -> bool:
        taken = {v.name for v in self.session.sop.variables}
        number = 1
        while f"variable_{number}" in taken:
            number += 1
        return self.declare(f"variable_{number}")

    def delete_variable(self) -> bool:
        item = self.variables.currentItem()
        return item is not None and self.session.push(RemoveVariable(item.data(Qt.UserRole)))

    def add_knowledge(self) -> bool:
        if not self.session.push(AddKnowledge(Knowledge(question="", answer=""))):
            return False
        self.knowledge_chosen.emit(len(self.session.sop.knowledge) - 1)
        return True

    def delete_knowledge(self) -> bool:
        item = self.knowledge.currentItem()
        return item is not None and self.session.push(RemoveKnowledge(item.data(Qt.UserRole)))
