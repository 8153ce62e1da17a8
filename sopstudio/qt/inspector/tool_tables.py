"""Tables that edit a tool's parameters (a JSON Schema object) and outputs row by row.

Each row is one parameter (name, type, required, description, enum) or one output (name, type,
description, enum). A finished cell edit, Add or Remove is one SetField edit of the whole
`parameters` / `outputs` value; the schema keys the table does not show (formats, nested
schemas, `additionalProperties`...) are kept as they were. The raw JSON stays editable in the
tool form's Advanced tab.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QStyledItemDelegate, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from ...core.edits import SetField
from ...core.model import ToolOutput
from ..canvas import style

TYPES = ("string", "integer", "number", "boolean", "list", "object")
# JSON Schema calls a list an array.
SCHEMA_TYPE = {"list": "array"}
MODEL_TYPE = {"array": "list"}


def _enum_text(values) -> str:
    return ", ".join(v if isinstance(v, str) else json.dumps(v) for v in values or [])


def _enum_value(text: str) -> list | None:
    values: list[Any] = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            try:
                values.append(json.loads(part))
            except ValueError:
                values.append(part)
    return values or None


class TypeDelegate(QStyledItemDelegate):
    """The type cell is edited with a list of the model's value types."""

    def createEditor(self, parent, option, index):
        box = QComboBox(parent)
        box.addItems(list(TYPES))
        return box

    def setEditorData(self, editor, index):
        editor.setCurrentText(index.data() or "string")

    def setModelData(self, editor, model, index):
        model.setData(index, editor.currentText())


class RowsTable(QWidget):
    """The shared machinery: a table, Add/Remove buttons, an error line, pushing edits."""

    columns: tuple[str, ...] = ()
    field = ""
    noun = ""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session, self.tool_name, self.loading = session, None, False
        self.table = QTableWidget(0, len(self.columns))
        self.table.setHorizontalHeaderLabels([c.capitalize() for c in self.columns])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        for wide in ("description", "enum"):  # free text shares what the short columns leave
            header.setSectionResizeMode(self.columns.index(wide), QHeaderView.Stretch)
        self.table.setWordWrap(True)
        self.types = TypeDelegate(self.table)
        self.table.setItemDelegateForColumn(self.columns.index("type"), self.types)
        self.table.verticalHeader().hide()
        # Committed once the cell editor has closed: the push reloads the table, which must
        # not happen inside the view's own commit of the editor's data.
        self.pending = QTimer(self)
        self.pending.setSingleShot(True)
        self.pending.setInterval(0)
        self.pending.timeout.connect(self.commit)
        self.table.itemChanged.connect(lambda *_: self.loading or self.pending.start())
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.ERROR.name()};")
        self.error.hide()
        add, remove = QPushButton(f"Add {self.noun}"), QPushButton(f"Remove {self.noun}")
        add.clicked.connect(self.add_row)
        remove.clicked.connect(self.remove_row)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        layout.addStretch(1)  # the table sits at the top of its tab, whatever the tab's height

    def tool(self):
        return self.session.sop.tool(self.tool_name) if self.tool_name else None

    def load(self, name: str | None) -> None:
        self.tool_name = name
        tool = self.tool()
        rows = self.rows(tool) if tool is not None else []
        self.loading = True
        try:
            self.table.setRowCount(len(rows))
            for r, row in enumerate(rows):
                for c, column in enumerate(self.columns):
                    self.table.setItem(r, c, self._cell(column, row.get(column)))
        finally:
            self.loading = False
        self.table.setFixedHeight(self.table.horizontalHeader().height() + 6
                                  + self.table.verticalHeader().length()
                                  + 2 * self.table.frameWidth() + 24)
        self.table.resizeRowsToContents()
        self.error.hide()

    def _cell(self, column: str, value) -> QTableWidgetItem:
        item = QTableWidgetItem()
        if column == "required":
            item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable | Qt.ItemIsSelectable)
            item.setCheckState(Qt.Checked if value else Qt.Unchecked)
        else:
            item.setText(_enum_text(value) if column == "enum" else str(value or ""))
            item.setToolTip(item.text())  # a narrow inspector elides long cells
        return item

    def read_rows(self) -> list[dict]:
        rows = []
        for r in range(self.table.rowCount()):
            row = {}
            for c, column in enumerate(self.columns):
                item = self.table.item(r, c)
                if column == "required":
                    row[column] = item is not None and item.checkState() == Qt.Checked
                else:
                    row[column] = item.text().strip() if item is not None else ""
            rows.append(row)
        return rows

    def check(self, rows: list[dict]) -> str:
        names = [row["name"] for row in rows]
        if any(not n for n in names):
            return f"Every {self.noun} needs a name"
        if len(set(names)) < len(names):
            return f"Two {self.noun}s have the same name"
        bad = [row["type"] for row in rows if row["type"] not in TYPES]
        if bad:
            return f"Unknown type {bad[0]!r} (use {', '.join(TYPES)})"
        return ""

    def commit(self) -> bool:
        if self.loading or self.tool() is None:
            return False
        rows = self.read_rows()
        problem = self.check(rows)
        self.error.setText(problem)
        self.error.setVisible(bool(problem))
        if problem:
            return False
        value = self.value(self.tool(), rows)
        if value == getattr(self.tool(), self.field):
            return False
        return self.session.push(SetField("tool", self.tool_name, self.field, value))

    def add_row(self) -> bool:
        taken = {row["name"] for row in self.read_rows()}
        number = 1
        while f"{self.noun}_{number}" in taken:
            number += 1
        rows = self.read_rows() + [{"name": f"{self.noun}_{number}", "type": "string",
                                    "required": False, "description": "", "enum": ""}]
        return self.tool() is not None and self.session.push(
            SetField("tool", self.tool_name, self.field, self.value(self.tool(), rows)))

    def remove_row(self) -> bool:
        row = self.table.currentRow()
        rows = self.read_rows()
        if self.tool() is None or not 0 <= row < len(rows):
            return False
        del rows[row]
        return self.session.push(
            SetField("tool", self.tool_name, self.field, self.value(self.tool(), rows)))

    # -- subclasses: model value <-> rows -------------------------------------------------------
    def rows(self, tool) -> list[dict]:
        raise NotImplementedError

    def value(self, tool, rows: list[dict]) -> Any:
        raise NotImplementedError


class ParametersTable(RowsTable):
    columns = ("name", "type", "required", "description", "enum")
    field, noun = "parameters", "parameter"

    def rows(self, tool) -> list[dict]:
        schema = tool.parameters or {}
        required = set(schema.get("required") or [])
        rows = []
        for name, spec in (schema.get("properties") or {}).items():
            spec = spec if isinstance(spec, dict) else {}
            kind = MODEL_TYPE.get(spec.get("type"), spec.get("type") or "string")
            rows.append({"name": name, "type": kind, "required": name in required,
                         "description": spec.get("description", ""), "enum": spec.get("enum")})
        return rows

    def value(self, tool, rows: list[dict]) -> dict:
        schema = dict(tool.parameters or {})
        old = schema.get("properties") or {}
        properties = {}
        for row in rows:
            spec = dict(old.get(row["name"]) or {})  # keys the table does not show stay
            spec["type"] = SCHEMA_TYPE.get(row["type"], row["type"])
            _put(spec, "description", row["description"])
            _put(spec, "enum", _enum_value(row["enum"]) if isinstance(row["enum"], str)
                 else row["enum"])
            properties[row["name"]] = spec
        schema.update(type="object", properties=properties,
                      required=[row["name"] for row in rows if row["required"]])
        return schema


class OutputsTable(RowsTable):
    columns = ("name", "type", "description", "enum")
    field, noun = "outputs", "output"

    def rows(self, tool) -> list[dict]:
        return [{"name": o.name, "type": o.type, "description": o.description, "enum": o.enum}
                for o in tool.outputs]

    def value(self, tool, rows: list[dict]) -> list[ToolOutput]:
        old = {o.name: o for o in tool.outputs}
        result = []
        for row in rows:
            base = old[row["name"]].model_dump() if row["name"] in old else {}
            enum = _enum_value(row["enum"]) if isinstance(row["enum"], str) else row["enum"]
            result.append(ToolOutput.model_validate({**base, "name": row["name"],
                                                     "type": row["type"],
                                                     "description": row["description"],
                                                     "enum": enum}))
        return result


def _put(spec: dict, key: str, value) -> None:
    if value:
        spec[key] = value
    else:
        spec.pop(key, None)
