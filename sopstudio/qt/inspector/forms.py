"""The inspector's forms: the SOP itself, a node, an edge, a tool (variables and knowledge
entries: data_forms.py). Each field is a Binding."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QSpinBox, QTabWidget,
                               QWidget)

from ...core.edits_refactor import RenameSop, RenameTool, SetTitle
from ...core import expr
from ...core.expr import ExprSyntaxError, parse
from ...core.model import ToolOutput
from . import fields as f
from . import quick_fixes
from ..canvas.style import WARNING
from .condition_edit import ConditionEdit, parse_condition, unknown_names_warning
from .names import names_available
from .tool_tables import OutputsTable, ParametersTable


class Form(QWidget):
    kind = "sop"
    key_field = None

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session, self.ident, self.bindings = session, None, {}
        self.layout_ = QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)

    def add(self, label, field, widget, **options) -> f.Binding:
        binding = f.Binding(self, field, widget, **options)
        self.bindings[field] = binding
        self.layout_.addRow(label, binding.row())
        return binding

    def target(self):
        sop = self.session.sop
        finder = {"sop": lambda _: sop, "node": sop.node, "edge": sop.edge, "tool": sop.tool,
                  "variable": sop.variable, "knowledge": lambda i: _entry(sop, i)}
        return finder[self.kind](self.ident)

    def current_value(self, field):
        obj = self.target()
        return getattr(obj, field) if obj is not None else None

    def flush(self) -> None:
        """Commit what the user typed but did not confirm yet (the form is about to change)."""
        for binding in list(self.bindings.values()):
            binding.flush()

    def load(self, ident=None) -> bool:
        self.ident = ident
        obj = self.target()
        if obj is None:
            return False
        for field, binding in self.bindings.items():
            binding.load(getattr(obj, field))
        return True


def _entry(sop, index):
    return sop.knowledge[index] if isinstance(index, int) and 0 <= index < len(
        sop.knowledge) else None


def text_box(height=70):
    box = QPlainTextEdit()
    box.setFixedHeight(height)
    return box


def combo(*items):
    box = QComboBox()
    box.addItems(list(items))
    return box


class SopForm(Form):
    kind = "sop"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        # The id names the SOP's store history; a new SOP's id follows its title until it is
        # edited or the SOP is saved.
        self.add("Title", "title", QLineEdit(), make_edit=lambda _, value: SetTitle(
            value, follow_id=session.document.path is None))
        self.add("Id", "id", QLineEdit(), parse=f.identifier, on_finish=True,
                 make_edit=lambda _, value: RenameSop(value))
        self.add("Description", "description", text_box(110))
        self.add("Start node", "start", QLineEdit(), parse=f.optional_text, on_finish=True)


class NodeForm(Form):
    kind, key_field = "node", "id"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Id", "id", QLineEdit(), parse=f.identifier, on_finish=True)
        self.add("Title", "title", QLineEdit())
        self.add("Kind", "kind", combo("task", "end", "subflow"))
        self.subflow_row = self._subflow_field()
        self.add("Instructions", "instructions", text_box(90))
        self.add("Steps (one a line)", "steps", text_box(70), parse=f.line_list,
                 show=f.show_line_list)
        self.add("Ask (comma list)", "ask", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list, on_finish=True)
        # Quick fix for `unknown-variable`: declare what the node asks for but nobody declared.
        self.declare = QPushButton()
        self.declare.clicked.connect(self.declare_missing)
        self.layout_.addRow("", self.declare)
        self.add("Tools (comma list)", "tools", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list, on_finish=True)
        self.add("Say", "say", text_box(60), parse=f.optional_text)
        self.add("Set (name = expr)", "set", text_box(60), parse=parse_assignments,
                 show=show_assignments, on_finish=True)
        spin = QSpinBox()
        spin.setRange(0, 99)
        spin.setSpecialValueText("default (3)")
        self.add("Max attempts", "max_attempts", spin, parse=f.optional_count,
                 show=lambda v: str(v or 0))
        self.add("Branching", "branching", combo("first", "all"))
        self.add("Outcome (end)", "outcome", QLineEdit(), parse=f.optional_text)


    def _subflow_field(self) -> QWidget:
        """The child file of a subflow node (shown for that kind only): typed, or chosen with
        Browse…, and kept relative to this SOP's file as DESIGN §2 writes it."""
        edit = QLineEdit()
        edit.setPlaceholderText("child .sop.json, relative to this file")
        binding = f.Binding(self, "subflow", edit, parse=f.optional_text, on_finish=True)
        self.bindings["subflow"] = binding
        browse = QPushButton("Browse…")
        browse.setToolTip("Choose the sub-SOP's file")
        browse.clicked.connect(self.browse_subflow)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(binding.row(), 1)
        line.addWidget(browse, 0, Qt.AlignTop)
        self.layout_.addRow("Sub-SOP file", row)
        return row

    def browse_subflow(self) -> bool:
        here = self.session.document.path
        folder = str(Path(here).parent) if here else ""
        chosen, _ = QFileDialog.getOpenFileName(self, "Sub-SOP file", folder,
                                                "SOP files (*.sop.json *.json);;All files (*)")
        if not chosen:
            return False
        value = os.path.relpath(chosen, folder) if here else chosen  # unsaved: absolute
        binding = self.bindings["subflow"]
        binding.widget.setText(Path(value).as_posix())
        return binding.commit()

    def load(self, ident=None) -> bool:
        if not super().load(ident):
            return False
        self.layout_.setRowVisible(self.subflow_row, self.target().kind == "subflow")
        missing = self.undeclared()
        self.declare.setText(f"Declare variable{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(missing)}")
        self.declare.setVisible(bool(missing))
        return True

    def undeclared(self) -> list[str]:
        node = self.target()
        sop = self.session.sop
        return [name for name in dict.fromkeys(node.ask) if sop.variable(name) is None]

    def declare_missing(self) -> bool:
        edit = quick_fixes.declare(self.session.sop, self.undeclared())
        return edit is not None and self.session.push(edit)


class EdgeForm(Form):
    kind, key_field = "edge", "id"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.ends = QLabel()
        self.layout_.addRow("Connects", self.ends)
        self.condition = ConditionEdit()
        self.add("Condition", "when", self.condition, parse=parse_condition, on_finish=True)
        self.warning = QLabel()  # unknown names: a warning only, the condition still commits
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {WARNING.name()};")
        self.warning.hide()
        self.layout_.addRow("", self.warning)
        self.condition.textChanged.connect(lambda *_: self._check_names())
        # Quick fix: ask for a name the condition reads where the edge starts.
        self.ask_fix = QPushButton()
        self.ask_fix.clicked.connect(self.ask_for_unknown)
        self.ask_fix.hide()
        self.layout_.addRow("", self.ask_fix)
        self.add("Label", "label", QLineEdit())
        self.add("On", "on", combo("success", "failure"))

    def load(self, ident=None) -> bool:
        if not super().load(ident):
            return False
        edge = self.target()
        self.ends.setText(f"{edge.source} → {edge.target}")
        self.condition.set_names(names_available(self.session.sop, edge.source,
                                                 edge.on == "failure"))
        self._check_names()
        return True

    def _check_names(self) -> None:
        text = unknown_names_warning(self.condition.text(), self.condition.names())
        self.warning.setText(text)
        self.warning.setVisible(bool(text))
        unknown = self.unknown_names()
        edge = self.target()
        if unknown and edge is not None:
            self.ask_fix.setText(f"Ask for ‘{unknown[0]}’ at {edge.source}")
        self.ask_fix.setVisible(bool(unknown) and edge is not None)

    def unknown_names(self) -> list[str]:
        """Plain names the stored condition reads that are not available at its source."""
        edge = self.target()
        if edge is None or not edge.when or edge.is_else:
            return []
        try:
            read = expr.names_read(edge.when)
        except expr.ExprError:
            return []
        known = set(self.condition.names())
        return sorted(n for n in read if "." not in n and n not in known)

    def ask_for_unknown(self) -> bool:
        unknown = self.unknown_names()
        edge = self.target()
        if not unknown or edge is None:
            return False
        edit = quick_fixes.ask_at(self.session.sop, unknown[0], edge.source)
        return edit is not None and self.session.push(edit)


class ToolForm(Form):
    kind, key_field = "tool", "name"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Name", "name", QLineEdit(), parse=f.identifier, on_finish=True,
                 make_edit=lambda old, new: RenameTool(old, new))
        self.add("Description", "description", text_box(60))
        method = combo("GET", "POST", "PUT", "PATCH", "DELETE")
        method.setEditable(True)
        self.add("Method", "method", method)
        self.add("URL", "url", QLineEdit())
        self.add("Errors (comma list)", "errors", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list)
        self.parameters, self.outputs = ParametersTable(session), OutputsTable(session)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.parameters, "Parameters")
        self.tabs.addTab(self.outputs, "Outputs")
        self.tabs.addTab(self._advanced(), "Advanced (JSON)")
        self.layout_.addRow(self.tabs)

    def _advanced(self) -> QWidget:
        """The raw JSON Schema of the parameters and the outputs list, for what the tables
        do not show."""
        page = QWidget()
        layout = QFormLayout(page)
        for label, field, to_value, to_text in (
                ("Parameters (JSON Schema)", "parameters", parse_schema, show_json),
                ("Outputs (JSON list)", "outputs", parse_outputs, show_outputs)):
            binding = f.Binding(self, field, text_box(140), parse=to_value, show=to_text,
                                on_finish=True)
            self.bindings[field] = binding
            layout.addRow(QLabel(label))
            layout.addRow(binding.row())
        return page

    def load(self, ident=None) -> bool:
        if not super().load(ident):
            return False
        self.parameters.load(ident)
        self.outputs.load(ident)
        return True


# --- conversions ------------------------------------------------------------------------------
def parse_assignments(text: str) -> dict[str, str]:
    result = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, sep, expression = line.partition("=")
        if not sep or not name.strip() or not expression.strip():
            raise ValueError(f"line {number}: expected  name = expression")
        try:
            parse(expression.strip())
        except ExprSyntaxError as problem:
            raise ValueError(f"line {number}: {problem}") from None
        result[name.strip()] = expression.strip()
    return result


def show_assignments(value) -> str:
    return "\n".join(f"{k} = {v}" for k, v in (value or {}).items())


def _json(text: str):
    try:
        return json.loads(text)
    except ValueError as problem:
        raise ValueError(f"Not valid JSON: {problem}") from None


def parse_schema(text: str) -> dict:
    value = _json(text or "{}")
    if not isinstance(value, dict):
        raise ValueError("The parameters schema must be a JSON object")
    return value


def show_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def parse_outputs(text: str) -> list:
    value = _json(text or "[]")
    if not isinstance(value, list):
        raise ValueError('Outputs must be a JSON list like [{"name": "status", "enum": [...]}]')
    try:
        return [ToolOutput.model_validate(item) for item in value]
    except ValidationError as problem:  # pydantic's message, one line
        raise ValueError(f"Bad output: {str(problem).splitlines()[0]}") from None


def show_outputs(value) -> str:
    return show_json([o.model_dump(mode="json", exclude_defaults=True) for o in value or []])

