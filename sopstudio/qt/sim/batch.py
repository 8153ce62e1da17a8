"""The batch dialog: generate scenarios, run them with progress and cancel, read the results.

One row per scenario (journey, type, outcome, TTA, TCA, path and leaf accuracy) and the aggregate
metrics by scenario type as JourneyBench Table 2 lays them out. Double-clicking a row opens that
run in the simulation dock (`open_result`); a finished batch feeds the coverage overlay
(`batch_finished`). Closing while a batch runs asks, then cancels cleanly. The tables' helpers
(one row per run, the summary by type) close the module.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from ...core.subflows import SubflowError
from ...engine.agents import AGENT_KINDS
from ...engine.comparison import branch_agreement, comparison_rows
from ...engine.scenarios import SCENARIO_TYPES
from ...engine.render import path_label
from ...engine.session import agent_extras
from .batch_job import BatchJob, BatchRequest, stream_scenarios
from .settings import load_profiles
from .subsops import children_text, children_tooltip, runnable

SOURCES = (("covering", "Edge-covering journeys"), ("all", "All journeys (up to 500)"),
           ("sample", "Balanced sample of N scenarios"), ("csv", "Imported CSV test set"),
           ("rasa", "Rasa e2e test cases"))
SAMPLE_HELP = ("N = how many scenarios to run: N journeys drawn at random (every journey equally "
               "likely), one scenario each, the checked types taking turns. Other sources run "
               "every checked type of each journey and ignore N.")
SUMMARY_TITLE = "Aggregate metrics by scenario type"
POLL_MS = 100       # how often the GUI takes new results from the job
ROWS_PER_TICK = 250  # rows added per poll: the event loop stays free between chunks
RESIZE_ROWS = 300   # columns fit their contents only while the table is this small
REORDER_ROWS = 500  # a finished batch this small is re-listed in scenario order


class BatchDialog(QDialog):
    open_result = Signal(object)       # engine RunResult of the double-clicked row
    batch_finished = Signal(object)    # engine BatchResult

    def __init__(self, session, settings=None, store_link=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Batch evaluation")
        self.session, self.settings, self.store_link = session, settings, store_link
        self.scenario_source = stream_scenarios  # what a batch runs (tests gate it)
        self.job: BatchJob | None = None
        self.result = None
        self.children = ""    # which sub-SOP files the batch inlined (as saved)
        self.rows: list = []  # RunResults in table order
        self.started_at = 0.0
        self._ended = False   # the job has finished (its last rows may still be coming)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._take_results)
        self._build()
        self.resize(1000, 780)

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
        # the scripted agent needs no endpoint (as in the Simulation dock)
        self.agent.currentTextChanged.connect(
            lambda kind: self.profile.setEnabled(kind != "scripted"))
        self.profile.setEnabled(self.agent.currentText() != "scripted")
        self.workers = QSpinBox()
        self.workers.setRange(1, 64)
        self.workers.setValue(4)
        form = QFormLayout()
        form.addRow("Scenarios from", self.source)
        self.sample_help = QLabel(SAMPLE_HELP)
        self.sample_help.setWordWrap(True)
        self.sample_help.setStyleSheet("color: #5c6b7a; font-size: small")
        self.sample.setToolTip(SAMPLE_HELP)
        # N and its help on one row: a wrapped label on a row of its own left a tall gap.
        sample_row = QHBoxLayout()
        sample_row.addWidget(self.sample)
        sample_row.addWidget(self.sample_help, 1)
        form.addRow("Sample size N", sample_row)
        form.addRow("Types", types)
        self.rasa_path = QLineEdit()
        self.rasa_path.setPlaceholderText("a Rasa e2e tests .yml file (test_cases:)")
        # the file fields of each source, enabled only while that source is chosen
        self.source_fields = {
            "csv": [self._browse_row(self.csv_path, "CSV (*.csv)"),
                    self._browse_row(self.mapping_path, "JSON (*.json)")],
            "rasa": [self._browse_row(self.rasa_path, "YAML (*.yml *.yaml)")]}
        form.addRow("CSV test set", self.source_fields["csv"][0])
        form.addRow("Column mapping", self.source_fields["csv"][1])
        form.addRow("Rasa e2e tests", self.source_fields["rasa"][0])
        self.source.currentIndexChanged.connect(self._source_changed)
        self._source_changed()
        agent_row = QHBoxLayout()
        agent_row.addWidget(self.agent)
        agent_row.addWidget(self.profile, 1)
        agent_row.addWidget(QLabel("parallel runs"))
        agent_row.addWidget(self.workers)
        form.addRow("Agent", agent_row)
        self.compare_boxes = {kind: QCheckBox(kind) for kind in AGENT_KINDS}
        compare_row = QHBoxLayout()
        for box in self.compare_boxes.values():
            box.toggled.connect(self._compare_changed)
            compare_row.addWidget(box)
        compare_row.addStretch(1)
        form.addRow("Compare agents", compare_row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(self._run_row())
        self.results = make_table(RESULT_COLUMNS)
        self.results.itemDoubleClicked.connect(lambda item: self._open_row(item.row()))
        self.summary = make_table(SUMMARY_COLUMNS)
        self.summary.setMinimumHeight(150)
        layout.addWidget(self.results, 3)
        self.summary_label = QLabel(SUMMARY_TITLE)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.summary, 2)
        self.rasa_label = QLabel()
        self.rasa_cases = make_table(RASA_COLUMNS)
        self.rasa_cases.setMinimumHeight(90)
        layout.addWidget(self.rasa_label)
        layout.addWidget(self.rasa_cases, 1)
        self.rasa_label.hide()
        self.rasa_cases.hide()

    def _source_changed(self) -> None:
        """N only counts for the balanced sample, the file fields only for their source: the
        others are off while another source is chosen."""
        source = self.source.currentData()
        self.sample.setEnabled(source == "sample")
        for kind, rows in self.source_fields.items():
            for row in rows:
                row.setEnabled(source == kind)

    def compared(self) -> tuple:
        """The agents ticked for a comparison (two or more), else none."""
        ticked = tuple(kind for kind, box in self.compare_boxes.items() if box.isChecked())
        return ticked if len(ticked) > 1 else ()

    def _compare_changed(self) -> None:
        # Comparing replaces the single agent; model agents share the chosen endpoint profile.
        compared = self.compared()
        self.agent.setEnabled(not compared)
        kinds = compared or (self.agent.currentText(),)
        self.profile.setEnabled(any(kind != "scripted" for kind in kinds))

    def _browse_row(self, field: QLineEdit, pattern: str) -> QWidget:
        button = QPushButton("Browse…")
        button.clicked.connect(lambda: field.setText(
            QFileDialog.getOpenFileName(self, "Choose a file", "", pattern)[0] or field.text()))
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(field, 1)
        line.addWidget(button)
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
        request.compare = self.compared()
        if any(kind != "scripted" for kind in request.compare or (request.agent,)):
            if not self.profiles:
                raise ValueError("model agents need an endpoint profile (Simulation settings)")
            request.profile = self.profiles[self.profile.currentIndex()]
        if request.source == "csv":
            request.csv_text, request.mapping = self._csv_inputs()
        if request.source == "rasa":
            request.rasa_tests = self._rasa_tests()
        return request

    def _csv_inputs(self) -> tuple[str, dict]:
        """The CSV text and its column mapping (none chosen: an empty mapping)."""
        import json
        csv_name, mapping_name = self.csv_path.text().strip(), self.mapping_path.text().strip()
        if not csv_name or not Path(csv_name).is_file():
            raise ValueError("choose a CSV test set file first")
        if mapping_name and not Path(mapping_name).is_file():
            raise ValueError(f"the column mapping file {mapping_name} does not exist")
        mapping = json.loads(Path(mapping_name).read_text("utf-8")) if mapping_name else {}
        if not isinstance(mapping, dict):
            raise ValueError("the column mapping must be a JSON object")
        return Path(csv_name).read_text(encoding="utf-8"), mapping

    def _rasa_tests(self) -> dict:
        """The Rasa test file's content (engine.scenarios_rasa reads it)."""
        from ...core.inputs import InputError
        from ...engine.compiled import EngineError
        from ...engine.scenarios_rasa import load_tests_path
        name = self.rasa_path.text().strip()
        if not name or not Path(name).exists():
            raise ValueError("choose a Rasa e2e tests file first")
        try:
            return load_tests_path(name)
        except (EngineError, InputError) as problem:
            raise ValueError(str(problem)) from None

    def start(self, request: BatchRequest | None = None) -> bool:
        if self.running() or self.poll.isActive():
            return False
        try:
            request = request or self.request()
        except (OSError, ValueError) as problem:
            self.eta.setText(f"Cannot start: {problem}")
            return False
        try:  # its sub-SOPs inlined, as the CLI runs it
            sop, children = runnable(self.session.sop.model_copy(deep=True),
                                     self.session.document.path)
        except SubflowError as problem:
            self.eta.setText(f"Cannot start: {problem}")
            return False
        self._clear()
        self.children = children_text(children, self.session.document.path)
        self.eta.setToolTip(children_tooltip(children))
        request.extras = request.extras or self._agent_extras(request)
        self.job = BatchJob(sop, request, self.store_link,
                            self.scenario_source, self)
        self.job.stage.connect(self.eta.setText)
        self.job.failed.connect(lambda text: self.eta.setText("Failed: " + text))
        self.job.finished.connect(self._on_finished)
        self.started_at = time.monotonic()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job.start()
        self.poll.start()
        return True

    def _agent_extras(self, request: BatchRequest) -> dict:
        """Each agent's options beyond its endpoint (Agent-S: the store's tool library), read
        here on the GUI thread, which owns the store."""
        library = self.store_link.library_tools if self.store_link is not None else None
        return {kind: agent_extras(kind, library) for kind in request.compare or (request.agent,)}

    def _clear(self) -> None:
        """A new batch: no rows, no summary, no progress from the last one."""
        self.result, self.rows, self._ended = None, [], False
        self.results.setRowCount(0)
        self.summary.setRowCount(0)
        self._show_rasa({})
        self.progress.setMaximum(1)
        self.progress.setValue(0)
        self.progress.reset()
        self.eta.setText("")

    def running(self) -> bool:
        return self.job is not None and self.job.running()

    def cancel(self) -> None:
        if self.job is not None and self.running():
            self.job.cancel.set()
            self.eta.setText("Cancelling…")

    def _take_results(self) -> None:
        """Every POLL_MS: add the next chunk of finished runs as rows, update the progress."""
        job = self.job
        new = job.completed[len(self.rows):len(self.rows) + ROWS_PER_TICK]
        if new:
            self._append_rows(new)
        done, total = len(self.rows), job.total
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        if done and total and not self._ended:
            left = (time.monotonic() - self.started_at) / done * (total - done)
            self.eta.setText(f"{done}/{total} · about {left:.0f} s left")
        if self._ended and len(self.rows) >= len(job.completed):
            self.poll.stop()
            self._conclude()

    def _append_rows(self, items: list) -> None:
        # The run's own SOP: a sub-SOP's nodes (`verify/ask`) have their titles there.
        sop = self.job.sop if self.job is not None else self.session.sop
        nodes = {n.id: n for n in sop.nodes}
        table, first = self.results, len(self.rows)
        table.setUpdatesEnabled(False)
        table.setRowCount(first + len(items))
        for offset, item in enumerate(items):
            agent = self.job.agent_of.get(id(item), "") if self.job is not None else ""
            for col, value in enumerate(result_row(item, nodes, agent)):
                cell = QTableWidgetItem(value)
                cell.setToolTip(value)  # a long journey is cut by its column
                table.setItem(first + offset, col, cell)
        self.rows.extend(items)
        if len(self.rows) <= RESIZE_ROWS:
            table.resizeColumnsToContents()
            table.setColumnWidth(0, min(table.columnWidth(0), 200))
        table.setUpdatesEnabled(True)

    def _on_finished(self, result) -> None:
        self.result, self._ended = result, True
        self.cancel_button.setEnabled(False)
        self._take_results()  # concludes at once when every row is already shown

    def _conclude(self) -> None:
        self.run_button.setEnabled(True)
        result = self.result
        if result is None:
            return  # failed: the job has said why
        ran = sum(1 for r in result.results if r.error != "cancelled")
        seconds = time.monotonic() - self.started_at
        if ran < len(result.results) or (result.cancelled and ran < self.job.total):
            self.eta.setText(f"Cancelled: {ran} of {self.job.total} run(s) in {seconds:.1f} s")
        else:  # a Cancel pressed as the last run ended changes nothing: all ran
            self.eta.setText(f"Finished: {ran} run(s) in {seconds:.1f} s"
                             f"{' · ' + self.children if self.children else ''}")
        if len(self.rows) <= REORDER_ROWS and self.rows != list(result.results):
            self.fill(result)  # small enough to show in scenario order at once
        else:
            self._fill_summary(result)
        self.batch_finished.emit(result)

    # -- results ------------------------------------------------------------------------------
    def fill(self, result) -> None:
        """Show a whole BatchResult at once (rows in its order, and its summary)."""
        self.results.setRowCount(0)
        self.rows = []
        self._append_rows(list(result.results))
        self._fill_summary(result)

    def _fill_summary(self, result) -> None:
        """Metrics by scenario type; when agents were compared, by type and agent."""
        comparison = self.job.comparison if self.job is not None else {}
        agent = self.job.request.agent if self.job is not None else self.agent.currentText()
        branches = [line for name, metrics in (comparison or {agent: result.metrics}).items()
                    if (line := branch_agreement(name, metrics.get("overall", {})))]
        self.summary_label.setText("\n".join([SUMMARY_TITLE + (" and agent" if comparison
                                                               else ""), *branches]))
        self._show_rasa(self.job.rasa_results if self.job is not None else {})
        if comparison:
            fill_comparison(self.summary, comparison)
        else:
            fill_summary(self.summary, result.metrics)

    def _show_rasa(self, by_agent: dict[str, dict]) -> None:
        """Passed / failed / not applicable of the Rasa test cases (hidden for other sources)."""
        self.rasa_label.setVisible(bool(by_agent))
        self.rasa_cases.setVisible(bool(by_agent))
        self.rasa_label.setText("Rasa test cases: " + "; ".join(
            f"{agent + ': ' if len(by_agent) > 1 else ''}{s['passed']} passed, {s['failed']} "
            f"failed, {s['not_applicable']} not applicable" for agent, s in by_agent.items()))
        rows = [(case, agent) for agent, s in by_agent.items() for case in s["cases"]]
        self.rasa_cases.setRowCount(len(rows))
        for row, (case, agent) in enumerate(rows):
            cells = (case["test_case"], agent, case["result"], case.get("reason", ""))
            for col, text in enumerate(cells):
                self.rasa_cases.setItem(row, col, QTableWidgetItem(text))
        self.rasa_cases.resizeColumnsToContents()

    def _open_row(self, row: int) -> None:
        if 0 <= row < len(self.rows) and self.rows[row].trace is not None:
            self.open_result.emit(self.rows[row])

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


# -- the tables ------------------------------------------------------------------------------
RESULT_COLUMNS = ("Scenario", "Agent", "Type", "Outcome", "Expected", "TTA", "TCA", "Path",
                  "Leaf", "Journey")
METRIC_COLUMNS = (("ujcs", "UJCS"), ("tta", "TTA"), ("tca", "TCA"), ("path_accuracy", "Path"),
                  ("leaf_accuracy", "Leaf"), ("ecr", "ECR"), ("c_tsr", "C-TSR"), ("tsr", "TSR"),
                  ("runs", "Runs"))
RASA_COLUMNS = ("Test case", "Agent", "Result", "Reason")
SUMMARY_COLUMNS = ("Scenario type",) + tuple(c[1] for c in METRIC_COLUMNS)
COMPARISON_COLUMNS = ("Scenario type", "Agent") + tuple(c[1] for c in METRIC_COLUMNS)


def make_table(columns) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)  # one line per run; long journeys are elided
    table.horizontalHeader().setStretchLastSection(True)
    return table


def result_row(item, nodes: dict, agent: str = "") -> list[str]:
    """The cells of one engine RunResult, in RESULT_COLUMNS order (`nodes`: id -> node of the
    SOP as it ran)."""
    m = item.metrics or {}
    journey_nodes = item.scenario.journey.get("nodes", []) if item.scenario.journey else []
    journey = path_label(journey_nodes, nodes) or "(imported)"
    outcome = item.error or (item.trace.outcome if item.trace else "")
    values = (item.scenario.id, agent, item.scenario.type, outcome,
              item.scenario.expected.get("outcome", ""), m.get("tta", ""),
              number_text(m.get("tca")), yes_text(m.get("path")), yes_text(m.get("leaf")),
              journey)
    return [str(v) for v in values]


def fill_summary(table: QTableWidget, metrics: dict) -> None:
    rows = [("overall", metrics.get("overall", {}))] + list(metrics.get("by_type", {}).items())
    _fill_metrics(table, SUMMARY_COLUMNS, [((name,), values) for name, values in rows])


def fill_comparison(table: QTableWidget, by_agent: dict[str, dict]) -> None:
    """One row per scenario type and agent (as `bench --agents` prints it)."""
    rows = comparison_rows(by_agent)
    _fill_metrics(table, COMPARISON_COLUMNS, [((kind, agent), m) for kind, agent, m in rows])


def _fill_metrics(table: QTableWidget, columns: tuple, rows: list[tuple[tuple, dict]]) -> None:
    table.setColumnCount(len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setRowCount(len(rows))
    for row, (labels, values) in enumerate(rows):
        for col, label in enumerate(labels):
            table.setItem(row, col, QTableWidgetItem(label))
        for col, (key, _) in enumerate(METRIC_COLUMNS, len(labels)):
            table.setItem(row, col, QTableWidgetItem(number_text(values.get(key))))
    table.resizeColumnsToContents()


def number_text(value) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(int(value))
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def yes_text(value) -> str:
    return "" if value is None else ("✓" if value else "✗")
