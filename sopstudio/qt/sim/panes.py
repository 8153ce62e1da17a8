"""The simulation dock's parts, each a widget owning its own controls: what to run
(`ChoicesForm`), how to drive it (`ControlsBar`), what happened (`ChatView`, `PromptView`,
`MemoryView`) and what the operator types as the user (`InputRow`). `dock.SimulationDock`
composes and wires them; the lines of the chat come from the engine's one event renderer.
"""

from __future__ import annotations

import html
import json
from typing import Any

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QPlainTextEdit, QPushButton, QTableWidget,
                               QTableWidgetItem, QTextBrowser, QToolTip, QVBoxLayout, QWidget)

from ...engine.agents import AGENT_KINDS
from ...engine.render import EventRenderer
from ...engine.scenarios import SCENARIO_TYPES

CONTROLS = (("step", "Step"), ("run", "Run"), ("pause", "Pause"), ("stop", "Stop"),
            ("back", "Step back"), ("reset", "Reset"))
INPUT_HINT = "Type as the user: a bare value, or name=value pairs"
COLOURS = {"agent": "#e8f0fb", "user": "#e9f6ec", "tool": "#f4f1fb", "guard": "#fdecea",
           "note": "#f2f3f5", "end": "#fff4e0"}
SUB_SOP_INDENT = 18  # px per sub-SOP level in the chat
MEMORY_WIDTHS = (150, 130)  # px of the memory's node and action columns (text wraps)
STYLE_OF = {"say": "agent", "ask": "agent", "user": "user", "tool_call": "tool",
            "tool_result": "tool", "guardrail": "guard", "end": "end"}


class ChoicesForm(QWidget):
    """Journey, scenario type, agent and endpoint profile; `changed` when any of them does."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.journey_box, self.scenario_box = QComboBox(), QComboBox()
        self.agent_box, self.profile_box = QComboBox(), QComboBox()
        self.journey_box.setMinimumContentsLength(24)
        self.journey_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.scenario_box.addItems(SCENARIO_TYPES)
        self.agent_box.addItems(AGENT_KINDS)
        # The counts go on a line of their own: beside the box they squeezed it to a sliver.
        self.journey_label = QLabel("")
        self.journey_label.setStyleSheet("color: #5c6b7a; font-size: small")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Journey", self.journey_box)
        form.addRow("", self.journey_label)
        form.addRow("Scenario", self.scenario_box)
        agent_row = QHBoxLayout()
        agent_row.addWidget(self.agent_box)
        agent_row.addWidget(self.profile_box, 1)
        form.addRow("Agent", agent_row)
        for box in (self.journey_box, self.scenario_box, self.profile_box):
            box.currentIndexChanged.connect(lambda *_: self.changed.emit())
        self.agent_box.currentIndexChanged.connect(self._on_agent_changed)
        self._on_agent_changed()

    def _on_agent_changed(self) -> None:
        self.profile_box.setEnabled(self.agent() != "scripted")  # the scripted agent needs none
        self.changed.emit()

    def agent(self) -> str:
        return self.agent_box.currentText()

    def scenario_type(self) -> str:
        return self.scenario_box.currentText()

    def set_profiles(self, names: list[str]) -> None:
        self.profile_box.clear()
        self.profile_box.addItems(names)

    def set_journeys(self, count: int, choices: list, keep: int) -> None:
        """List `choices` (covering ones starred), selecting index `keep` (-1: the first)."""
        self.journey_box.blockSignals(True)
        self.journey_box.clear()
        for number, choice in enumerate(choices):
            mark = "★ " if choice.covering else ""
            self.journey_box.addItem(f"{number}: {mark}{choice.label}")
            self.journey_box.setItemData(number, choice.label, 3)  # tooltip role
        self.journey_box.setCurrentIndex(keep if keep >= 0 else (0 if choices else -1))
        self.journey_box.blockSignals(False)
        covering = sum(1 for c in choices if c.covering)
        self.journey_label.setText(f"{count} journey{'s' * (count != 1)} in all; the "
                                   f"{covering} marked ★ together cover every edge")

    def select(self, journey: int | None = None, scenario: str | None = None,
               agent: str | None = None, profile: str | None = None) -> None:
        if journey is not None:
            self.journey_box.setCurrentIndex(journey)
        if scenario is not None:
            self.scenario_box.setCurrentText(scenario)
        if agent is not None:
            self.agent_box.setCurrentText(agent)
        if profile is not None:
            self.profile_box.setCurrentText(profile)


class ControlsBar(QWidget):
    """Step, Run, Pause, Stop, Step back, Reset, and the operator's two switches."""

    requested = Signal(str)          # "step" | "run" | "pause" | "stop" | "back" | "reset"
    answer_as_user = Signal(bool)
    edit_tool_results = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.buttons = {key: QPushButton(text) for key, text in CONTROLS}
        buttons = QHBoxLayout()
        for key, button in self.buttons.items():
            button.clicked.connect(lambda *_, k=key: self.requested.emit(k))
            buttons.addWidget(button)
        self.as_user = QCheckBox("I answer as the user")
        self.edit_results = QCheckBox("Edit tool results")
        self.as_user.toggled.connect(self.answer_as_user)
        self.edit_results.toggled.connect(self.edit_tool_results)
        options = QHBoxLayout()
        options.addWidget(self.as_user)
        options.addWidget(self.edit_results)
        options.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addLayout(options)


class ChatView(QTextBrowser):
    """The conversation: one coloured block per event, and notes from the dock itself.
    `lines` keeps the same as plain text (what the tests read). A sub-SOP's events are indented
    by their level; hovering an event shows the id of the step it happened in."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.lines: list[str] = []

    def add_events(self, events: list, renderer: EventRenderer) -> None:
        for event in events:
            line = renderer.line(event)
            self.lines.append(line)
            self.append(event_html(event.get("type"), line, renderer.level(event),
                                   renderer.tooltip(event)))

    def tooltip_at(self, pos) -> str:
        """The tooltip of the event under viewport position `pos` (empty: none)."""
        return self.cursorForPosition(pos).charFormat().toolTip()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.ToolTip:  # a text browser shows no tooltips of its own
            text = self.tooltip_at(event.pos())
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def add_note(self, text: str) -> None:
        self.lines.append(text)
        self.append(note_html(text))

    def clear_all(self) -> None:
        self.lines = []
        self.clear()


def event_html(kind: str | None, line: str, level: int = 0, tooltip: str = "") -> str:
    """A rendered event line as a small coloured block (user lines on the right), indented
    `level` steps (inside a sub-SOP), `tooltip` on its text."""
    style = STYLE_OF.get(kind or "", "note")
    text = html.escape(line)
    head, _, rest = text.partition(": ") if style in ("agent", "user", "guard") else ("", "", text)
    body = f"<b>{head}</b>: {rest}" if head else rest
    if tooltip:
        body = f"<span title='{html.escape(tooltip, quote=True)}'>{body}</span>"
    # Tables, also for notes: an appended paragraph takes the format of the block before it,
    # so its indent would be lost.
    table = (f"<table width='100%' cellspacing='0' cellpadding='{{pad}}' "
             f"style='margin:2px 0 2px {SUB_SOP_INDENT * level}px'><tr>{{cell}}</tr></table>")
    if style == "note":
        return table.format(pad=1, cell=f"<td style='color:#5c6b7a; font-size:small'>"
                                        f"<i>{body}</i></td>")
    align = "right" if style == "user" else "left"
    return table.format(pad=4, cell=f"<td align='{align}' style='background:{COLOURS[style]}'>"
                                    f"{body}</td>")


def note_html(text: str) -> str:
    """A plain note from the dock itself (an error, "the SOP changed"), not from the run."""
    return (f"<p style='margin:4px 0; color:#8a4b00'><b>Note:</b> "
            f"{html.escape(text)}</p>")


class PromptView(QPlainTextEdit):
    """The current node's dynamic prompt, as the model receives it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)

    def show_prompt(self, prompt: str) -> None:
        self.setPlainText(prompt or "(the run has ended)")


class MemoryView(QTableWidget):
    """The execution memory: node, action, observation (compact JSON), feedback."""

    def __init__(self, parent=None):
        super().__init__(0, 4, parent)
        self.setHorizontalHeaderLabels(["Node", "Action", "Observation", "Feedback"])
        # The observation gets the room (feedback is one word); every cell's tooltip is whole.
        header = self.horizontalHeader()
        for col, mode in enumerate((QHeaderView.Interactive, QHeaderView.Interactive,
                                    QHeaderView.Stretch, QHeaderView.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        for col, width in enumerate(MEMORY_WIDTHS):
            self.setColumnWidth(col, width)
        self.verticalHeader().setVisible(False)

    def show_memory(self, memory: list, titles: dict | None = None) -> None:
        """One row per entry; the node by its title (`titles`), its id in the tooltip."""
        titles = titles or {}
        self.setRowCount(len(memory))
        for row, entry in enumerate(memory):
            observation = entry.get("observation")
            if not isinstance(observation, str):
                observation = json.dumps(observation, ensure_ascii=False, sort_keys=True)
            node = entry.get("node") or ""
            for col, value in enumerate((titles.get(node, node), entry.get("action"),
                                         observation, entry.get("feedback"))):
                cell = QTableWidgetItem(str(value))
                cell.setToolTip(str(value))
                self.setItem(row, col, cell)
            self.item(row, 0).setToolTip(node)
        self.resizeRowsToContents()


class InputRow(QWidget):
    """What the operator types as the user; `sent(text)` on Send or Return."""

    sent = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.user_input = QLineEdit()
        self.user_input.setPlaceholderText(INPUT_HINT)
        self.send_button = QPushButton("Send")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.user_input, 1)
        row.addWidget(self.send_button)
        self.send_button.clicked.connect(self._send)
        self.user_input.returnPressed.connect(self._send)

    def _send(self) -> None:
        text = self.user_input.text().strip()
        if text:
            self.user_input.clear()
            self.sent.emit(text)

    def ask(self, variables: list, question: str, accepted: dict) -> None:
        """The agent waits for an answer: say what it asks and what to type."""
        self.user_input.setPlaceholderText(asked_hint(variables, question, accepted))
        self.user_input.setFocus()

    def reset_hint(self) -> None:
        self.user_input.setPlaceholderText(INPUT_HINT)


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


def one_of(values: list[Any]) -> str:
    """ "one of: mobile_data, no_service" (sorted as text, so the hint is stable)."""
    return "one of: " + ", ".join(sorted(str(v) for v in values))
