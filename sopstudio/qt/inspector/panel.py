"""The inspector panel: shows the form for what is selected and keeps it in step with the
document (undo, edits from the canvas) without fighting the user's typing."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from .data_forms import KnowledgeForm, VariableForm
from .forms import EdgeForm, NodeForm, SopForm, ToolForm


class InspectorPanel(QWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.heading = QLabel()
        self.heading.setStyleSheet("font-weight: bold; padding: 4px;")
        self.forms = {"sop": SopForm(session), "node": NodeForm(session),
                      "edge": EdgeForm(session), "tool": ToolForm(session),
                      "variable": VariableForm(session), "knowledge": KnowledgeForm(session)}
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.stack = QStackedWidget()
        for form in self.forms.values():
            self.stack.addWidget(form)
        self.stack.addWidget(self.summary)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.stack)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.heading)
        layout.addWidget(scroll)
        self.setMinimumWidth(320)
        self.current = "sop"

    def _flush(self) -> None:
        if self.current in self.forms:
            self.forms[self.current].flush()

    def _show(self, kind: str, ident, heading: str) -> None:
        self._flush()
        form = self.forms[kind]
        if not form.load(ident):
            self.show_sop()
            return
        self.current = kind
        self.heading.setText(heading)
        self.stack.setCurrentWidget(form)

    def show_node(self, node_id: str) -> None:
        self._show("node", node_id, f"Node {node_id}")

    def show_edge(self, edge_id: str) -> None:
        self._show("edge", edge_id, f"Edge {edge_id}")

    def show_tool(self, name: str) -> None:
        self._show("tool", name, f"Tool {name}")

    def show_variable(self, name: str) -> None:
        self._show("variable", name, f"Variable {name}")

    def show_knowledge(self, index: int) -> None:
        self._show("knowledge", index, f"Knowledge entry {index + 1}")

    def show_sop(self) -> None:
        self._flush()
        self.current = "sop"
        self.forms["sop"].load(None)
        self.heading.setText("SOP")
        self.stack.setCurrentWidget(self.forms["sop"])

    def show_summary(self, nodes: int, edges: int) -> None:
        self._flush()
        self.current = "summary"
        self.heading.setText("Selection")
        self.summary.setText(f"{nodes} node(s) and {edges} edge(s) selected.")
        self.stack.setCurrentWidget(self.summary)

    def clear(self) -> None:
        self.show_sop()

    def refresh(self) -> None:
        """Re-read the shown object after a document change (it may be gone after an undo)."""
        if self.current in self.forms:
            form = self.forms[self.current]
            if not form.load(form.ident):
                self.show_sop()
                return
            if self.current in ("node", "edge", "tool", "variable"):
                kind = self.current.capitalize()
                self.heading.setText(f"{kind} {form.ident}")  # it may have been renamed

    def form(self, kind: str):
        return self.forms[kind]
