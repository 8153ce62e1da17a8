"""The batch dialog's tables: one row per run, and the aggregate metrics by scenario type
(JourneyBench Table 2's layout). Plain helpers; the dialog decides when to call them."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

RESULT_COLUMNS = ("Scenario", "Type", "Outcome", "Expected", "TTA", "TCA", "Path", "Leaf",
                  "Journey")
METRIC_COLUMNS = (("ujcs", "UJCS"), ("tta", "TTA"), ("tca", "TCA"), ("path_accuracy", "Path"),
                  ("leaf_accuracy", "Leaf"), ("ecr", "ECR"), ("c_tsr", "C-TSR"), ("tsr", "TSR"),
                  ("runs", "Runs"))


def make_table(columns) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)  # one line per run; long journeys are elided
    table.horizontalHeader().setStretchLastSection(True)
    return table


def result_row(item, titles: dict) -> list[str]:
    """The cells of one engine RunResult, in RESULT_COLUMNS order."""
    m = item.metrics or {}
    nodes = item.scenario.journey.get("nodes", []) if item.scenario.journey else []
    journey = " → ".join(titles.get(n, n) for n in nodes) or "(imported)"
    outcome = item.error or (item.trace.outcome if item.trace else "")
    values = (item.scenario.id, item.scenario.type, outcome,
              item.scenario.expected.get("outcome", ""), m.get("tta", ""),
              number_text(m.get("tca")), yes_text(m.get("path")), yes_text(m.get("leaf")),
              journey)
    return [str(v) for v in values]


def fill_summary(table: QTableWidget, metrics: dict) -> None:
    rows = [("overall", metrics.get("overall", {}))] + list(metrics.get("by_type", {}).items())
    table.setRowCount(len(rows))
    for row, (name, values) in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(name))
        for col, (key, _) in enumerate(METRIC_COLUMNS, 1):
            table.setItem(row, col, QTableWidgetItem(number_text(values.get(key))))
    table.resizeColumnsToContents()


def number_text(value) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(int(value))
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def yes_text(value) -> str:
    return "" if value is None else ("✓" if value else "✗")
