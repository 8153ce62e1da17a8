"""The inspector's forms: the SOP itself, a node, an edge, a tool. Each field is a Binding."""

from __future__ import annotations

import json

from pydantic import ValidationError

from PySide6.QtWidgets import (QComboBox, QFormLayout, QLabel, QLineEdit, QPlainTextEdit,
                               QSpinBox, QWidget)

from ...core.expr import ExprSyntaxError, parse
from ...core.model import ToolOutput
from . import fields as f
from ..canvas.style import WARNING
from .condition_edit import ConditionEdit, parse_condition, unknown_names_warning
from .names import names_available


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
        finder = {"sop": lambda _: sop, "node": sop.node, "edge": sop.edge, "tool": sop.tool}
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


def _text(height=70):
    box = QPlainTextEdit()
    box.setFixedHeight(height)
    return box


def _combo(*items):
    box = QComboBox()
    box.addItems(list(items))
    return box


class SopForm(Form):
    kind = "sop"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Title", "title", QLineEdit())
        self.add("Description", "description", _text(110))
        self.add("Start node", "start", QLineEdit(), parse=f.optional_text, on_finish=True)


class NodeForm(Form):
    kind, key_field = "node", "id"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Id", "id", QLineEdit(), parse=f.identifier, on_finish=True)
        self.add("Title", "title", QLineEdit())
        self.add("Kind", "kind", _combo("task", "end", "subflow"))
        self.add("Instructions", "instructions", _text(90))
        self.add("Steps (one a line)", "steps", _text(70), parse=f.line_list,
                 show=f.show_line_list)
        self.add("Ask (comma list)", "ask", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list, on_finish=True)
        self.add("Tools (comma list)", "tools", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list, on_finish=True)
        self.add("Say", "say", _text(60), parse=f.optional_text)
        self.add("Set (name = expr)", "set", _text(60), parse=parse_assignments,
                 show=show_assignments, on_finish=True)
        spin = QSpinBox()
        spin.setRange(0, 99)
        spin.setSpecialValueText("default (3)")
        self.add("Max attempts", "max_attempts", spin, parse=f.optional_count,
                 show=lambda v: str(v or 0))
        self.add("Branching", "branching", _combo("first", "all"))
        self.add("Outcome (end)", "outcome", QLineEdit(), parse=f.optional_text)


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
        self.add("Label", "label", QLineEdit())
        self.add("On", "on", _combo("success", "failure"))

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


class ToolForm(Form):
    kind, key_field = "tool", "name"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Name", "name", QLineEdit(), parse=f.identifier, on_finish=True)
        self.add("Description", "description", _text(60))
        method = _combo("GET", "POST", "PUT", "PATCH", "DELETE")
        method.setEditable(True)
        self.add("Method", "method", method)
        self.add("URL", "url", QLineEdit())
        self.add("Parameters (JSON Schema)", "parameters", _text(120), parse=parse_schema,
                 show=show_json, on_finish=True)
        self.add("Outputs (JSON list)", "outputs", _text(120), parse=parse_outputs,
                 show=show_outputs, on_finish=True)
        self.add("Errors (comma list)", "errors", QLineEdit(), parse=f.comma_list,
                 show=f.show_comma_list)


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
