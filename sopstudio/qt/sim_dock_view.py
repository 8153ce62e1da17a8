"""What the simulation dock shows of the worker's reports: chat lines, the current node's prompt,
the execution memory, the status line and plain notes (a mixin of `SimulationDock`)."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from .sim_chat import html_line, note_html, plain_line

SOP_CHANGED_NOTE = "The SOP changed; press Reset to start again."


class DockView:
    """Display half of the dock; expects the widgets `build_dock` creates."""

    # -- what the worker reports ----------------------------------------------------------------
    def _titles(self) -> dict:
        return {n.id: (n.title or n.id) for n in self.session.sop.nodes}

    def _on_stepped(self, events: list, snapshot: dict) -> None:
        titles = self._titles()
        self.events.extend(events)
        for event in events:
            self.chat_lines.append(plain_line(event, titles))
            self.chat.append(html_line(event, titles))
        self._show_snapshot(snapshot)

    def _on_rewound(self, events: list, snapshot: dict) -> None:
        self.events, self.chat_lines = [], []
        self.chat.clear()
        self._on_stepped(events, snapshot)

    def _show_snapshot(self, snapshot: dict) -> None:
        self.snapshot = snapshot
        self.prompt.setPlainText(snapshot.get("prompt") or "(the run has ended)")
        fill_memory(self.memory, snapshot.get("memory", []))
        titles = self._titles()
        where = titles.get(snapshot.get("node"), snapshot.get("node"))
        outcome = f" — outcome {snapshot['outcome']}{snapshot.get('end_reason') or ''}" \
            if snapshot.get("outcome") else ""
        review = " · Step back or Reset to walk through it" \
            if self.replay_title and snapshot.get("done") else ""
        self.status.setText(f"{self.replay_title + ': ' if self.replay_title else ''}"
                            f"at {where} · {snapshot.get('events', 0)} events{outcome}{review}")
        self.snapshot_changed.emit(snapshot)

    def _on_failed(self, text: str) -> None:
        """An engine error, already one plain line: in the chat and the status."""
        self._add_note(text)
        self.status.setText(text)

    def _on_state(self, state: str) -> None:
        self.state = state
        if state == "finished" and self._note_when_stopped:
            self._add_note(self._note_when_stopped)
            self.status.setText(self._note_when_stopped)
            self._note_when_stopped = ""
        self.state_changed.emit(state)

    def _add_note(self, text: str) -> None:
        self.chat_lines.append(text)
        self.chat.append(note_html(text))



def fill_memory(table: QTableWidget, memory: list) -> None:
    """The execution memory as table rows (observations as compact JSON)."""
    table.setRowCount(len(memory))
    for row, entry in enumerate(memory):
        observation = entry.get("observation")
        if not isinstance(observation, str):
            observation = json.dumps(observation, ensure_ascii=False, sort_keys=True)
        for col, value in enumerate((entry.get("node") or "", entry.get("action"),
                                     observation, entry.get("feedback"))):
            table.setItem(row, col, QTableWidgetItem(str(value)))
