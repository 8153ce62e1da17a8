"""Simulation attached to the editor's main window: toolbar and menu, a batch with its results
table and coverage overlay (and its legend), opening a batch row and a stored run, closing
during a batch."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from sopstudio.qt.sim.batch_job import BatchRequest
from sopstudio.qt.sim.integration import attach_simulation
from sopstudio.qt.sim.overlay import CoverageLegend

from qt_helpers import TIMEOUT, GatedScenarios, run_batch


def test_attach_adds_dock_menu_and_toolbar_once(sim_window):
    sim = attach_simulation(sim_window)
    assert attach_simulation(sim_window) is sim
    menus = [a.text() for a in sim_window.menuBar().actions()]
    assert "Si&mulate" in menus
    assert set(sim.actions) == {"run", "step", "coverage", "batch", "endpoints"}
    assert sim.sim_dock.widget() is sim.dock
    assert sim.dock.choices and sim.dock.choices[0].covering


def test_batch_results_table_and_coverage_overlay(qtbot, sim_window):
    sim = sim_window.simulation
    dialog = sim.open_batch()
    run_batch(qtbot, dialog, source="covering")
    result = dialog.result
    assert dialog.results.rowCount() == len(result.results) > 0
    header = [dialog.results.horizontalHeaderItem(c).text()
              for c in range(dialog.results.columnCount())]
    for row in range(dialog.results.rowCount()):
        cells = {h: dialog.results.item(row, c).text() for c, h in enumerate(header)}
        assert cells["Type"] in ("correct", "missing-parameter", "failing-function")
        if cells["Type"] == "correct":  # the scripted oracle follows its journey exactly
            assert (cells["TTA"], cells["Path"], cells["Leaf"]) == ("1", "✓", "✓")
            assert cells["Outcome"] == cells["Expected"]
    summary = {dialog.summary.item(r, 0).text(): r for r in range(dialog.summary.rowCount())}
    assert {"overall", "correct"} <= set(summary)
    tsr_col = [dialog.summary.horizontalHeaderItem(c).text()
               for c in range(dialog.summary.columnCount())].index("TSR")
    assert dialog.summary.item(summary["correct"], tsr_col).text() == "1.00"
    # coverage: every journey edge is on some run; the overlay marks all scene items
    overlay = sim.overlay
    assert sim.actions["coverage"].isChecked() and overlay.coverage_visible
    assert set(overlay.edge_marks) == set(sim_window.scene.edges)
    assert overlay.coverage["runs"] == len(result.traces)
    assert overlay.coverage["edges"]["e2"] >= 1
    # only runs that missed their expected outcome count as failed (the scripted oracle's
    # failing-function runs end as expected, so they do not)
    missed = [r for r in result.results if r.trace is not None
              and r.trace.outcome != r.scenario.expected.get("outcome")]
    assert bool(overlay.coverage["failed_nodes"]) == bool(missed)
    assert not sim.legend.isHidden()
    sim.actions["coverage"].trigger()  # toggle off
    assert not overlay.coverage_visible and not overlay.node_marks and sim.legend.isHidden()
    # batch runs went to the store and the runs dock lists them
    assert sim.runs.runs.count() == len(result.traces)


def test_double_clicked_batch_row_opens_in_the_dock(qtbot, sim_window):
    sim = sim_window.simulation
    dialog = sim.open_batch()
    run_batch(qtbot, dialog, source="covering", types=("correct",))
    row = 1
    expected = dialog.rows[row].trace  # the run the row shows
    dialog.results.itemDoubleClicked.emit(dialog.results.item(row, 0))
    dock = sim.dock
    # It opens with the whole run shown: chat, path, memory (no Run press needed).
    qtbot.waitUntil(lambda: dock.state == "finished" and len(dock.events) == len(expected.events),
                    timeout=TIMEOUT)
    assert [e["type"] for e in dock.events] == [e.type for e in expected.events]
    assert dock.snapshot["path"] == expected.path
    assert dock.snapshot["outcome"] == expected.outcome
    assert any(line.startswith("Agent: ") for line in dock.chat_lines)
    assert "Agent:" in dock.chat.toPlainText()
    assert dock.memory.rowCount() == len(expected.memory) > 0
    assert "(the run has ended)" in dock.prompt.toPlainText()
    status = dock.status.text()
    assert status.startswith(dialog.rows[row].scenario.id + ": ")
    assert f"{len(expected.events)} events" in status and "Step back" in status


def test_stored_run_replays_from_the_runs_dock(qtbot, sim_window):
    sim = sim_window.simulation
    dock = sim.dock
    with qtbot.waitSignal(dock.run_finished, timeout=TIMEOUT):
        sim.actions["run"].trigger()
    live = list(dock.events)
    assert sim.runs.runs.count() == 1
    row = sim.runs.runs.item(0)
    day, minute = row.text().split()[1:3]  # "#1  2026-11-22 18:15  scripted …"
    assert len(day) == 10 and len(minute) == 5 and "agent scripted" in row.toolTip()
    sim.runs.runs.setCurrentRow(0)
    sim.runs.open_button.click()  # opens at its end: the whole run is on show at once
    qtbot.waitUntil(lambda: dock.events == live and dock.state == "finished", timeout=TIMEOUT)
    assert dock.replay_title == f"run #{dock.last_run_id}"
    dock.reset()  # ...and Reset walks it again from the start, without the agent
    qtbot.waitUntil(lambda: dock.events == [] and dock.state == "idle", timeout=TIMEOUT)
    dock.run()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    assert dock.events == live


def test_closing_during_a_batch_asks_then_cancels(qtbot, sim_window, monkeypatch):
    sim = sim_window.simulation
    sim_window.show()
    qtbot.waitExposed(sim_window)
    dialog = sim.open_batch()
    answers = []
    monkeypatch.setattr(dialog, "confirm_cancel", lambda: answers.append(1) or len(answers) > 1)
    # every run after the first waits for the cancel: the batch is surely running at close
    dialog.scenario_source = GatedScenarios(dialog)
    assert dialog.start(BatchRequest(source="sample", sample=50, workers=1, store_runs=False))
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=TIMEOUT)
    sim_window.close()  # first answer: no -> the window stays, the batch goes on
    assert sim_window.isVisible()
    assert dialog.running() and not dialog.job.cancel.is_set()
    sim_window.session.mark_saved()
    sim_window.close()  # second answer: yes -> cancelled cleanly, then the window closes
    assert answers == [1, 1]
    assert dialog.job.cancel.is_set() and not dialog.running()
    assert not sim_window.isVisible()
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=TIMEOUT)
    assert dialog.result.cancelled and len(dialog.result.traces) == 1


def test_legend_explains_failed(qtbot):
    legend = CoverageLegend()
    qtbot.addWidget(legend)
    labels = [lab.text() for lab in legend.findChildren(QLabel)]
    assert "runs that missed their expected outcome" in labels


def test_runs_dock_search_finds_runs_by_what_their_traces_hold(qtbot, sim_window):
    sim = sim_window.simulation
    dialog = sim.open_batch()
    run_batch(qtbot, dialog, source="covering")
    pane = sim.runs
    qtbot.waitUntil(lambda: pane.runs.count() == len(dialog.result.traces), timeout=TIMEOUT)
    failing = [t for t in dialog.result.traces if t.meta["scenario"].endswith("failing-function")]
    pane.search.setText("api_error")  # the error code the mocked tools return when failing
    qtbot.waitUntil(lambda: "match" in pane.status.text(), timeout=TIMEOUT)
    hits = [pane.runs.item(i).text() for i in range(pane.runs.count())]
    assert len(hits) == len(failing) > 0
    assert all("failing-function" in hit and '"error": "«api_error»"' in hit for hit in hits)
    pane.search.setText("no-such-word-in-any-trace")
    qtbot.waitUntil(lambda: pane.status.text().startswith("No stored run matches"),
                    timeout=TIMEOUT)
    assert pane.runs.count() == 0
    pane.search.clear()
    qtbot.waitUntil(lambda: pane.runs.count() == len(dialog.result.traces), timeout=TIMEOUT)
