"""Help ▸ Quick start and Help ▸ Keyboard shortcuts: short, generated from the real actions."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidget, QTableWidgetItem, \
    QTextBrowser, QVBoxLayout

QUICK_START = """
<h3>SOP Studio in one minute</h3>
<ol>
<li><b>Add steps</b>: double-click the canvas (or press <b>T</b>, <b>D</b>, <b>E</b> for a task,
decision or end), or paste an SOP (text, JSON, DOT or Mermaid) with <b>Ctrl+V</b>.</li>
<li><b>Connect</b>: drag from the small port at a step's lower edge onto another step.</li>
<li><b>Edit</b>: select a step or an edge; its fields are in the Inspector. Conditions are
checked as you type; the Problems pane lists what is wrong — click a row to go there.</li>
<li><b>Arrange</b>: drag steps, or Graph ▸ Auto-layout (<b>Ctrl+L</b>); it runs in the
background and can be cancelled from the status bar. <b>Ctrl+0</b> fits the graph.</li>
<li><b>Simulate</b>: the Simulation pane steps through a journey or runs a batch of
scenarios with coverage on the graph.</li>
<li><b>Save</b> (<b>Ctrl+S</b>) writes the file and records a version (History pane).</li>
</ol>
<p>View ▸ Theme switches between the system, light and dark colours.</p>
"""


def _dialog(parent, title: str, widget) -> QDialog:
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    layout = QVBoxLayout(dialog)
    layout.addWidget(widget)
    buttons = QDialogButtonBox(QDialogButtonBox.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.resize(560, 460)
    return dialog


def quick_start(parent) -> QDialog:
    text = QTextBrowser()
    text.setHtml(QUICK_START)
    dialog = _dialog(parent, "Quick start", text)
    dialog.show()
    return dialog


def shortcut_rows(actions: dict) -> list[tuple[str, str]]:
    """(what, keys) for every action that has a shortcut, in menu order."""
    rows = []
    for action in actions.values():
        keys = action.shortcut().toString(QKeySequence.NativeText)
        if keys:
            rows.append((action.text().replace("&", "").rstrip("…"), keys))
    return rows


def keyboard_shortcuts(parent, actions: dict) -> QDialog:
    rows = shortcut_rows(actions)
    table = QTableWidget(len(rows), 2)
    table.setHorizontalHeaderLabels(["Action", "Shortcut"])
    table.verticalHeader().hide()
    for row, (what, keys) in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(what))
        table.setItem(row, 1, QTableWidgetItem(keys))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    dialog = _dialog(parent, "Keyboard shortcuts", table)
    dialog.show()
    return dialog
