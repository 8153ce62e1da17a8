"""Runs in the store: saving a finished simulation or batch run, and the run history pane.

Saving and loading go through the store's own `sopstudio.store.traces` (the CLI's path too), so
a GUI run is stored exactly like a `simulate` run: the document it ran, its scenario, every event,
the trace's final state (path, memory, variables, ...), metrics and meta. Opening a stored run
replays it in the simulation dock without any model call. The store is optional: without one the
pane says why it is empty. The search box filters the runs by full-text search over their traces
and version messages (`store.runs.search`), off the GUI thread and debounced while typing.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from ..store_link import STORE_ERRORS
from ..workers import BackgroundRunner

log = logging.getLogger(__name__)


def save_gui_run(store, sop, trace, scenario=None, model: str | None = None,
                 metrics: dict | None = None) -> int:
    """Store one finished run with `store.traces.save_trace`; returns the run id. `metrics`
    defaults to the engine's per-run metrics against `scenario` (when there is one)."""
    # Imported here: the store (and the engine parts it pulls in) loads only once it is used.
    from ...store.traces import save_trace
    return save_trace(store, sop, scenario, trace, agent=trace.meta.get("agent"), model=model,
                      metrics=metrics)


def load_stored_run(store, run_id: int) -> tuple:
    """(trace, the SOP version it ran or None, its scenario or None) of a stored run; the trace
    equals the one saved (see `store.traces.load_trace`)."""
    from ...engine.scenarios import Scenario
    from ...store.traces import trace_from_record
    record = store.runs.load(run_id)
    sop = store.history.load_hash(record.version) if record.version else None
    scenario = None
    if record.scenario_id:
        scenario = Scenario.from_dict(store.runs.scenario(record.scenario_id)["data"])
    return trace_from_record(record), sop, scenario


class RunHistoryPane(QWidget):
    """Stored runs of the current SOP, newest first; `open_requested(run_id)` on open."""

    open_requested = Signal(int)

    def __init__(self, session, store_link, parent=None):
        super().__init__(parent)
        self.session, self.store_link = session, store_link
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search runs: a tool, an error code, words said…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Full-text search over the traces and version messages of the "
                               "stored runs of this SOP; every word must occur")
        # Typing restarts the timer: one search per pause, not one per key.
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda *_: self._debounce.start())
        self._searcher = BackgroundRunner(self)
        self._searcher.done.connect(self._show_hits)
        self._searcher.failed.connect(self._search_failed)
        self.runs = QListWidget()
        self.runs.itemDoubleClicked.connect(lambda *_: self.open_selected())
        self.open_button = QPushButton("Replay in simulation")
        self.open_button.clicked.connect(self.open_selected)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        self.status = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addWidget(refresh)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.runs)
        layout.addLayout(row)
        layout.addWidget(self.status)

    def refresh(self) -> None:
        """List the stored runs of the SOP, or, with text in the search box, start a search."""
        self.runs.clear()
        store = self.store_link.store()
        if store is None:
            self.status.setText(f"No store: {self.store_link.last_error}")
            return
        text = self.search.text().strip()
        if text:
            self.status.setText("Searching…")
            self._searcher.submit(store.runs.search, text, self.session.sop.id, 200)
            return
        try:
            records = store.runs.list(sop_id=self.session.sop.id, limit=500)
        except STORE_ERRORS as problem:  # shown, never fatal
            log.warning("listing stored runs failed: %s", problem)
            self.status.setText(str(problem))
            return
        for record in records:
            name = (record.settings.get("meta") or {}).get("scenario") or "hand-run"
            item = QListWidgetItem(f"#{record.id}  {when(record.created)}  "
                                   f"{record.agent or '?'}  {name}  → "
                                   f"{record.outcome or record.status}"
                                   f"  ({record.event_count} events)")
            item.setData(Qt.UserRole, record.id)
            item.setToolTip(f"agent {record.agent or '?'}"
                            f"{' · model ' + record.model if record.model else ''}"
                            f" · status {record.status} · stored {record.created}")
            self.runs.addItem(item)
        self.status.setText(f"{len(records)} stored run(s)")

    def _show_hits(self, hits: list) -> None:
        self.runs.clear()
        for hit in hits:
            scenario = hit.get("scenario_name") or hit.get("scenario") or "hand-run"
            item = QListWidgetItem(f"#{hit['run_id']}  {when(hit['created'])}  "
                                   f"{hit.get('agent') or '?'}  {scenario}  → "
                                   f"{hit.get('outcome') or hit.get('status')}\n    "
                                   f"{hit.get('snippet') or ''}")
            item.setData(Qt.UserRole, hit["run_id"])
            item.setToolTip(hit.get("snippet") or "")
            self.runs.addItem(item)
        found = f"{len(hits)} run(s) match" if hits else "No stored run matches"
        self.status.setText(f"{found} '{self.search.text().strip()}'")

    def _search_failed(self, message: str) -> None:
        log.warning("searching stored runs failed: %s", message)
        self.status.setText(f"Search failed: {message}")

    def open_selected(self) -> None:
        item = self.runs.currentItem()
        if item is not None:
            self.open_requested.emit(int(item.data(Qt.UserRole)))


def when(created) -> str:
    """A stored run's time to the minute, as people write it ("2026-11-22 18:15")."""
    return str(created)[:16].replace("T", " ")
