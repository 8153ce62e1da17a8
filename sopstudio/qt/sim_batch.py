"""The batch dialog: generate scenarios, run them with progress and cancel, read the results.

One row per scenario (journey, type, outcome, TTA, TCA, path and leaf accuracy) and the aggregate
metrics by scenario type as JourneyBench Table 2 lays them out. Double-clicking a row opens that
run in the simulation dock (`open_result`); a finished batch feeds the coverage overlay
(`batch_finished`). Closing while a batch runs asks, then cancels cleanly.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QTableWidget, QTableWidgetItem,
                               QVBoxLayout)

from .sim_batch_worker import BatchJob, BatchRequest
from .sim_run import AGENT_KINDS, SCENARIO_TYPES
from .sim_settings import load_profiles

SOURCES = (("covering", "Edge-covering journeys"), ("all", "All journeys (up to 500)"),
           ("sample", "Balanced sample of N journeys"), ("csv", "Imported CSV test set"))
RESULT_COLUMNS = ("Scenario", "Type", "Outcome", "Expected", "TTA", "TCA", "Path", "Leaf",
                  "Journey")
METRIC_COLUMNS = (("ujcs", "UJCS"), ("tta", "TTA"), ("tca", "TCA"), ("path_accuracy", "Path"),
                  ("leaf_accuracy", "Leaf"), ("ecr", "ECR"), ("c_tsr", "C-TSR"), ("tsr", "TSR"),
                  ("runs", "Runs"))


class BatchDialog(QDialog):
    open_result = Signal(object)       # engine RunResult of the double-clicked row
    batch_finished = Signal(object)    # engine BatchResult

    def __init__(self, session, settings=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Batch evaluation")
        self.session, self.settings = session, settings
        self.job: BatchJob | None = None
        self.result = None
        self.started_at = 0.0
        self._build()
        self.resize(980, 640)

    # -- construction -------------------------------------------------------------------------
    def _build(self) -> None:
        self.source = QComboBox()
        for key, text in SOURCES:
            self.source.addItem(text, key)
        self.sample = QSpinBox()
        self.sample.setRange(1, 100_000)
        self.sample.setValue(50)
        self.type_boxes = {t: QCheckBox(t) for t in SCENARIO_TYPES}
        types = QHBoxLayout()
        for box in self.type_boxes.values():
            box.setChecked(True)
            types.addWidget(box)
        self.csv_path, self.mapping_path = QLineEdit(), QLineEdit()
        self.agent = QComboBox()
        self.agent.addItems(AGENT_KINDS)
        self.profile = QComboBox()
        self.profiles = load_profiles(self.settings)
        self.profile.addItems([p.name for p in self.profiles])
        self.workers = QSpinBox()
        self.workers.setRange(1, 64)
        self.workers.setValue(4)
        form = QFormLayout()
        form.addRow("Scenarios from", self.source)
        form.addRow("Sample size N", self.sample)
        form.addRow("Types", types)
        form.addRow("CSV test set", self._browse_row(self.csv_path, "CSV (*.csv)"))
        form.addRow("Column mapping", self._browse_row(self.mapping_path, "JSON (*.json)"))
        agent_row = QHBoxLayout()
        agent_row.addWidget(self.agent)
        agent_row.addWidget(self.profile, 1)
        agent_row.addWidget(QLabel("parallel runs"))
        agent_row.addWidget(self.workers)
        form.addRow("Agent", agent_row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(self._run_row())
        self.results = _table(RESULT_COLUMNS)
        self.results.itemDoubleClicked.connect(lambda item: self._open_row(item.row()))
        self.summary = _table(("Scenario type",) + tuple(c[1] for c in METRIC_COLUMNS))
        self.summary.setMinimumHeight(150)
        layout.addWidget(self.results, 3)
        layout.addWidget(QLabel("Aggregate metrics by scenario type"))
        layout.addWidget(self.summary)

    def _browse_row(self, field: QLineEdit, pattern: str) -> QHBoxLayout:
        button = QPushButton("Browse…")
        button.clicked.connect(lambda: field.setText(
            QFileDialog.getOpenFileName(self, "Choose a file", "", pattern)[0] or field.text()))
        row = QHBoxLayout()
        row.addWidget(field, 1)
        row.addWidget(button)
        return row

    def _run_row(self):
        self.run_button = QPushButton("Run batch")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.eta = QLabel("")
        self.eta.setMinimumWidth(260)
        row = QHBoxLayout()
        for widget in (self.run_button, self.cancel_button, self.progress, self.eta):
            row.addWidget(widget)
        return row

    # -- running ------------------------------------------------------------------------------
    def request(self) -> BatchRequest:
        request = BatchRequest(source=self.source.currentData(), sample=self.sample.value(),
                               types=tuple(t for t, b in self.type_boxes.items() if b.isChecked()),
                               agent=self.agent.currentText(), workers=self.workers.value())
        if request.agent != "scripted":
            request.profile = self.profiles[self.profile.currentIndex()]
        if request.source == "csv":
            import json
            request.csv_text = Path(self.csv_path.text()).read_text(encoding="utf-8")
            request.mapping = json.loads(Path(self.mapping_path.text()).read_text("utf-8"))
        return request

    def start(self, request: BatchRequest | None = None) -> bool:
        if self.running():
            return False
        try:
            request = request or self.request()
        except (OSError, ValueError) as problem:
            self.eta.setText(f"Cannot start: {problem}")
            return False
        self.job = BatchJob(self.session.sop.model_copy(deep=True), request, self)
        self.job.progress.connect(self._on_progress)
        self.job.stage.connect(self.eta.setText)
        self.job.failed.connect(lambda text: self.eta.setText("Failed: " + text))
        self.job.finished.connect(self._on_finished)
        self.results.setRowCount(0)
        self.started_at = time.monotonic()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job.start()
        return True

    def running(self) -> bool:
        return self.job is not None and self.job.running()

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.set()
            self.eta.setText("Cancelling…")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        if done and total:
            elapsed = time.monotonic() - self.started_at
            left = elapsed / done * (total - done)
            self.eta.setText(f"{done}/{total} · about {left:.0f} s left")

    def _on_finished(self, result) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if result is None:
            return
        self.result = result
        self.fill(result)
        word = "Cancelled" if result.cancelled else "Finished"
        self.eta.setText(f"{word}: {len(result.results)} run(s) in "
                         f"{time.monotonic() - self.started_at:.1f} s")
        self.batch_finished.emit(result)

    # -- results ------------------------------------------------------------------------------
    def fill(self, result) -> None:
        titles = {n.id: (n.title or n.id) for n in self.session.sop.nodes}
        self.results.setRowCount(len(result.results))
        for row, item in enumerate(result.results):
            m = item.metrics or {}
            nodes = item.scenario.journey.get("nodes", []) if item.scenario.journey else []
            journey = " → ".join(titles.get(n, n) for n in nodes) or "(imported)"
            outcome = item.error or (item.trace.outcome if item.trace else "")
            values = (item.scenario.id, item.scenario.type, outcome,
                      item.scenario.expected.get("outcome", ""), m.get("tta", ""),
                      _number(m.get("tca")), _yes(m.get("path")), _yes(m.get("leaf")), journey)
            for col, value in enumerate(values):
                self.results.setItem(row, col, QTableWidgetItem(str(value)))
        self.results.resizeColumnsToContents()
        self.results.setColumnWidth(0, min(self.results.columnWidth(0), 200))
        self._fill_summary(result.metrics)

    def _fill_summary(self, metrics: dict) -> None:
        rows = [("overall", metrics.get("overall", {}))] + list(metrics.get("by_type", {}).items())
        self.summary.setRowCount(len(rows))
        for row, (name, values) in enumerate(rows):
            self.summary.setItem(row, 0, QTableWidgetItem(name))
            for col, (key, _) in enumerate(METRIC_COLUMNS, 1):
                self.summary.setItem(row, col, QTableWidgetItem(_number(values.get(key))))
        self.summary.resizeColumnsToContents()

    def _open_row(self, row: int) -> None:
        if self.result is not None and 0 <= row < len(self.result.results):
            item = self.result.results[row]
            if item.trace is not None:
                self.open_result.emit(item)

    # -- closing ------------------------------------------------------------------------------
    def confirm_cancel(self) -> bool:
        """Ask before cancelling a running batch (tests replace this)."""
        answer = QMessageBox.question(self, "Batch running",
                                      "A batch is still running. Cancel it?")
        return answer == QMessageBox.Yes

    def shutdown(self) -> bool:
        """Cancel a running batch after asking; False when the operator wants it to go on."""
        if not self.running():
            return True
        if not self.confirm_cancel():
            return False
        return self.job.stop()

    def closeEvent(self, event):
        if self.shutdown():
            event.accept()
        else:
            event.ignore()


def _table(columns) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)  # one line per run; long journeys are elided
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _number(value) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(int(value))
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _yes(value) -> str:
    return "" if value is None else ("✓" if value else "✗")
