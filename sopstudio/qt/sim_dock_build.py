"""The simulation dock's widgets: choice boxes, controls, the chat/prompt/memory tabs and the
input row. Only construction lives here; `sim_dock.SimulationDock` wires and drives them."""

from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QTableWidget,
                               QTabWidget, QTextBrowser, QVBoxLayout)

from .sim_accepted import one_of
from .sim_run import AGENT_KINDS, SCENARIO_TYPES
from .sim_tool_edit import ToolResultEditor

CONTROLS = (("step", "Step"), ("run", "Run"), ("pause", "Pause"), ("stop", "Stop"),
            ("back", "Step back"), ("reset", "Reset"))
INPUT_HINT = "Type as the user: a bare value, or name=value pairs"


def build_dock(dock) -> None:
    """Create every widget of `dock` (a SimulationDock) and lay them out."""
    layout = QVBoxLayout(dock)
    layout.addLayout(_choices(dock))
    dock.buttons = {}
    controls = QHBoxLayout()
    for key, text in CONTROLS:
        dock.buttons[key] = QPushButton(text)
        controls.addWidget(dock.buttons[key])
    dock.as_user = QCheckBox("I answer as the user")
    dock.edit_results = QCheckBox("Edit tool results")
    options = QHBoxLayout()
    options.addWidget(dock.as_user)
    options.addWidget(dock.edit_results)
    options.addStretch(1)
    dock.status = QLabel("Pick a journey and press Step or Run.")
    dock.status.setWordWrap(True)
    layout.addLayout(controls)
    layout.addLayout(options)
    layout.addWidget(dock.status)
    layout.addWidget(_tabs(dock), 1)
    dock.tool_editor = ToolResultEditor()
    dock.tool_editor.hide()
    layout.addWidget(dock.tool_editor)
    layout.addLayout(_input_row(dock))


def _choices(dock) -> QFormLayout:
    dock.journey_box, dock.scenario_box = QComboBox(), QComboBox()
    dock.agent_box, dock.profile_box = QComboBox(), QComboBox()
    dock.journey_box.setMinimumContentsLength(24)
    dock.journey_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    dock.scenario_box.addItems(SCENARIO_TYPES)
    dock.agent_box.addItems(AGENT_KINDS)
    dock.journey_label = QLabel("Journey")
    dock.journey_label.setWordWrap(True)
    form = QFormLayout()
    form.addRow(dock.journey_label, dock.journey_box)
    form.addRow("Scenario", dock.scenario_box)
    agent_row = QHBoxLayout()
    agent_row.addWidget(dock.agent_box)
    agent_row.addWidget(dock.profile_box, 1)
    form.addRow("Agent", agent_row)
    return form


def _tabs(dock) -> QTabWidget:
    dock.chat = QTextBrowser()
    dock.prompt = QPlainTextEdit()
    dock.prompt.setReadOnly(True)
    dock.memory = QTableWidget(0, 4)
    dock.memory.setHorizontalHeaderLabels(["Node", "Action", "Observation", "Feedback"])
    dock.memory.horizontalHeader().setStretchLastSection(True)
    dock.memory.verticalHeader().setVisible(False)
    dock.tabs = QTabWidget()
    dock.tabs.addTab(dock.chat, "Chat")
    dock.tabs.addTab(dock.prompt, "Prompt")
    dock.tabs.addTab(dock.memory, "Memory")
    return dock.tabs


def _input_row(dock) -> QHBoxLayout:
    dock.user_input = QLineEdit()
    dock.user_input.setPlaceholderText(INPUT_HINT)
    dock.send_button = QPushButton("Send")
    row = QHBoxLayout()
    row.addWidget(dock.user_input, 1)
    row.addWidget(dock.send_button)
    return row


def asked_hint(variables: list, text: str, accepted: dict | None = None) -> str:
    """The input's placeholder while the agent waits: its question, what to type, and the
    values each asked variable accepts when the SOP says (`accepted`: name -> values)."""
    accepted = {k: v for k, v in (accepted or {}).items() if v}
    if len(variables) == 1:
        hint = f"The agent asks: {text} — type a bare value, or {variables[0]}=value"
        values = accepted.get(variables[0])
        return f"{hint} ({one_of(values)})" if values else hint
    pairs = ", ".join(f"{name}=… ({one_of(accepted[name])})" if name in accepted
                      else f"{name}=…" for name in variables)
    return f"The agent asks: {text} — type name=value pairs: {pairs}"
