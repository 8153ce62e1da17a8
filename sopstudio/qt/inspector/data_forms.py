"""The inspector's forms for the SOP's data: a declared variable and a knowledge entry."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QLineEdit

from ...core.edits_refactor import RenameVariable
from . import fields as f
from .forms import Form, combo, text_box


class VariableForm(Form):
    """A declared variable; renaming it rewrites every reference (one undoable edit)."""

    kind, key_field = "variable", "name"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Name", "name", QLineEdit(), parse=f.identifier, on_finish=True,
                 make_edit=lambda old, new: RenameVariable(old, new))
        self.add("Type", "type", combo("string", "integer", "number", "boolean", "list",
                                        "object"))
        self.add("Description", "description", text_box(60))
        self.add("Allowed values (comma list)", "enum", QLineEdit(), parse=parse_enum,
                 show=show_enum, on_finish=True)
        self.add("Pattern (regex)", "pattern", QLineEdit(), parse=f.optional_text,
                 on_finish=True)
        self.add("Source", "source", combo("user", "tool", "set"))


class KnowledgeForm(Form):
    """One knowledge entry (a question the agent can answer and its answer)."""

    kind = "knowledge"

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.add("Question", "question", text_box(60))
        self.add("Answer", "answer", text_box(120))


def parse_enum(text: str):
    """'a, b, 3' -> ['a', 'b', 3] (numbers and true/false as JSON values); empty -> None."""
    values = []
    for part in f.comma_list(text):
        try:
            values.append(json.loads(part))
        except ValueError:
            values.append(part)
    return values or None


def show_enum(value) -> str:
    return ", ".join(v if isinstance(v, str) else json.dumps(v) for v in value or [])
