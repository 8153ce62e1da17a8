"""The batch dialog: the coverage action waits for a batch; plain messages, reset progress,
"Finished" after a late Cancel, a real Cancel counts what ran, N as a number of scenarios, and
rows added in chunks; an agent that picks branches itself is told how often the conditions
agreed."""

from __future__ import annotations

import pytest

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.qt.sim import batch as sim_batch
from sopstudio.qt.sim.batch import BatchDialog
from sopstudio.qt.sim.batch_job import BatchRequest
from sopstudio.qt.sim.settings import Profile

from fake_llm_server import FakeLLMServer
from llm_support import guided_model
from qt_helpers import SAMPLES, TIMEOUT, GatedScenarios, run_batch


@pytest.fixture
def batch_window(open_main_window):
    """The email-update sample (18 journeys) with the simulation docks, not shown."""
    path = SAMPLES / "email_update.sop.json"
    return open_main_window(Document(load_sop(path), path), simulation=True, show=False)


def test_coverage_action_waits_for_a_batch(qtbot, batch_window):
    sim = batch_window.simulation
    coverage = sim.actions["coverage"]
    assert not coverage.isEnabled() and "run a batch first" in coverage.toolTip()
    run_batch(qtbot, sim.open_batch(), store_runs=False, source="covering", types=("correct",))
    assert coverage.isEnabled() and coverage.isChecked() and sim.overlay.coverage_visible
    batch_window.session.set_document(Document(load_sop(SAMPLES / "listing_blocked.sop.json")))
    assert not coverage.isEnabled() and not sim.overlay.coverage_visible


def test_file_fields_are_enabled_only_for_their_source(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    enabled = lambda: {kind: [row.isEnabled() for row in rows]  # noqa: E731
                       for kind, rows in dialog.source_fields.items()}
    dialog.source.setCurrentIndex(dialog.source.findData("covering"))
    assert enabled() == {"csv": [False, False], "rasa": [False]}
    dialog.source.setCurrentIndex(dialog.source.findData("csv"))
    assert enabled() == {"csv": [True, True], "rasa": [False]}
    assert dialog.csv_path.isEnabled() and not dialog.rasa_path.isEnabled()
    dialog.source.setCurrentIndex(dialog.source.findData("rasa"))
    assert enabled() == {"csv": [False, False], "rasa": [True]}


def test_csv_source_without_a_file_says_so(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    dialog.source.setCurrentIndex(dialog.source.findData("csv"))
    assert dialog.start() is False
    assert dialog.eta.text() == "Cannot start: choose a CSV test set file first"
    assert not dialog.running()


def test_second_batch_starts_with_fresh_progress(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    first = run_batch(qtbot, dialog, store_runs=False, source="covering")
    total = len(first.results)
    assert dialog.progress.value() == dialog.progress.maximum() == total
    assert dialog.eta.text().startswith(f"Finished: {total} run(s)")
    assert dialog.start(BatchRequest(source="covering", store_runs=False))
    assert dialog.progress.value() <= 0 and dialog.results.rowCount() == 0
    assert dialog.summary.rowCount() == 0 and f"{total}/{total}" not in dialog.eta.text()
    qtbot.waitUntil(lambda: dialog.result is not None and not dialog.poll.isActive(),
                    timeout=TIMEOUT)


def test_cancel_as_the_batch_ends_reports_finished(qtbot, batch_window, monkeypatch):
    import sopstudio.engine.batch as engine_batch
    real = engine_batch.run_batch

    def cancel_at_the_end(cs, scenarios, agent, *, progress, cancel, **options):
        def late(done, total, result):
            if done == total:
                cancel.set()  # the operator's Cancel lands as the last run ends
            progress(done, total, result)
        return real(cs, scenarios, agent, progress=late, cancel=cancel, **options)

    monkeypatch.setattr(engine_batch, "run_batch", cancel_at_the_end)
    dialog = batch_window.simulation.open_batch()
    result = run_batch(qtbot, dialog, store_runs=False, source="covering", types=("correct",))
    assert result.cancelled and all(r.trace is not None for r in result.results)
    assert dialog.eta.text().startswith(f"Finished: {len(result.results)} run(s)")


def test_a_real_cancel_says_how_many_ran(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    dialog.scenario_source = GatedScenarios(dialog)  # runs after the first wait for the cancel
    assert dialog.start(BatchRequest(source="sample", sample=50, workers=1, store_runs=False))
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=TIMEOUT)
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        dialog.cancel()
    assert dialog.eta.text().startswith("Cancelled: ") and "1 of 50 run(s)" in dialog.eta.text()


def test_sample_size_is_the_number_of_scenarios(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    assert "N = how many scenarios" in dialog.sample_help.text()
    result = run_batch(qtbot, dialog, store_runs=False, source="sample", sample=7)
    assert len(result.results) == dialog.results.rowCount() == 7
    types = [r.scenario.type for r in result.results]
    assert len(set(types)) >= 2  # the checked types take turns
    assert len({r.scenario.id for r in result.results}) == 7
    # a small batch ends up listed in scenario order, each row the run it opens
    assert dialog.rows == list(result.results)
    assert [dialog.results.item(r, 0).text() for r in range(7)] == \
        [r.scenario.id for r in result.results]


def test_rows_arrive_in_chunks_while_the_batch_runs(qtbot, batch_window, monkeypatch):
    monkeypatch.setattr(sim_batch, "ROWS_PER_TICK", 40)
    monkeypatch.setattr(sim_batch, "REORDER_ROWS", 0)  # big-batch behaviour: no final re-list
    dialog = batch_window.simulation.open_batch()
    chunks = []
    real_append = dialog._append_rows
    monkeypatch.setattr(dialog, "_append_rows", lambda items: chunks.append(len(items))
                        or real_append(items))
    result = run_batch(qtbot, dialog, store_runs=False, source="sample", sample=300)
    assert sum(chunks) == dialog.results.rowCount() == len(result.results) == 300
    assert len(chunks) >= 300 // 40 and max(chunks) <= 40
    # each row shows the run it opens
    row = 123
    assert dialog.results.item(row, 0).text() == dialog.rows[row].scenario.id
    assert {id(r) for r in dialog.rows} == {id(r) for r in result.results}


def test_batch_profile_box_disabled_for_scripted_agent(window):
    dialog = BatchDialog(window.session, window.settings, window.store_link, window)
    dialog.agent.setCurrentText("scripted")
    assert not dialog.profile.isEnabled()
    other = next(dialog.agent.itemText(i) for i in range(dialog.agent.count())
                 if dialog.agent.itemText(i) != "scripted")
    dialog.agent.setCurrentText(other)
    assert dialog.profile.isEnabled()
    dialog.close()


def test_the_batch_dialog_says_how_often_the_conditions_agreed_with_sop_agent(qtbot, sim_window):
    with FakeLLMServer(handler=guided_model) as server:
        profile = Profile("local", server.url, "fake-model")
        dialog = sim_window.simulation.open_batch()
        result = run_batch(qtbot, dialog, source="covering", types=("correct",),
                           agent="sop-agent", profile=profile, workers=1, store_runs=False)
    overall = result.metrics["overall"]
    assert overall["branch_choices"] > 0
    choices, agreed = overall["branch_choices"], overall["branch_agreements"]
    assert (f"sop-agent: chose {choices} branch(es) itself; the conditions agreed with "
            f"{agreed}") in dialog.summary_label.text()
