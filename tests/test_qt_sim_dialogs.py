"""Simulation dialogs: endpoint profiles keep edits while switching; the coverage action waits for
a batch; the batch dialog's plain messages, reset progress, "Finished" after a late Cancel, N as
a number of scenarios, and rows added in chunks."""

from __future__ import annotations

from pathlib import Path

import pytest


from sopstudio.core.document import Document  # noqa: E402
from sopstudio.core.io import load_sop  # noqa: E402
from sopstudio.qt import sim_batch  # noqa: E402
from sopstudio.qt.main_window import MainWindow  # noqa: E402
from sopstudio.qt.settings import app_settings  # noqa: E402
from sopstudio.qt.sim_batch_worker import BatchRequest  # noqa: E402
from sopstudio.qt.sim_integration import attach_simulation  # noqa: E402
from sopstudio.qt.sim_settings import ProfileDialog, load_profiles  # noqa: E402

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sops"
TIMEOUT = 60000


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SOPSTUDIO_SETTINGS", str(tmp_path / "settings.ini"))
    win = MainWindow(Document(load_sop(SAMPLES / "email_update.sop.json")))
    qtbot.addWidget(win)
    sim = attach_simulation(win)
    yield win
    sim.shutdown()
    win.session.mark_saved()


def run_batch(qtbot, dialog, **options):
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        assert dialog.start(BatchRequest(store_runs=False, **options))
    return dialog.result


def test_profile_edits_survive_switching_until_save_or_close(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SOPSTUDIO_SETTINGS", str(tmp_path / "settings.ini"))
    settings = app_settings()
    dialog = ProfileDialog(settings)
    qtbot.addWidget(dialog)
    first = dialog.model.text()
    dialog._add()  # "New profile"
    new = dialog.chooser.currentIndex()
    dialog.model.setText("llama3")
    dialog.chooser.setCurrentIndex(0)
    assert dialog.model.text() == first
    dialog.model.setText("gpt-4.1")
    dialog.chooser.setCurrentIndex(new)
    assert dialog.model.text() == "llama3"
    dialog.chooser.setCurrentIndex(0)
    assert dialog.model.text() == "gpt-4.1"
    assert len(load_profiles(settings)) == new  # nothing saved yet
    dialog.reject()  # Close drops every edit
    assert [p.model for p in load_profiles(settings)][0] == first
    again = ProfileDialog(settings)
    qtbot.addWidget(again)
    again._add()
    again.model.setText("llama3")
    again.chooser.setCurrentIndex(0)
    again.save()  # Save keeps the edits of every profile, not only the one on show
    saved = load_profiles(settings)
    assert [p.model for p in saved][-1] == "llama3" and len(saved) == new + 1


def test_coverage_action_waits_for_a_batch(qtbot, window):
    sim = window.simulation
    coverage = sim.actions["coverage"]
    assert not coverage.isEnabled() and "run a batch first" in coverage.toolTip()
    run_batch(qtbot, sim.open_batch(), source="covering", types=("correct",))
    assert coverage.isEnabled() and coverage.isChecked() and sim.overlay.coverage_visible
    window.session.set_document(Document(load_sop(SAMPLES / "listing_blocked.sop.json")))
    assert not coverage.isEnabled() and not sim.overlay.coverage_visible


def test_csv_source_without_a_file_says_so(qtbot, window):
    dialog = window.simulation.open_batch()
    dialog.source.setCurrentIndex(dialog.source.findData("csv"))
    assert dialog.start() is False
    assert dialog.eta.text() == "Cannot start: choose a CSV test set file first"
    assert not dialog.running()


def test_second_batch_starts_with_fresh_progress(qtbot, window):
    dialog = window.simulation.open_batch()
    first = run_batch(qtbot, dialog, source="covering")
    total = len(first.results)
    assert dialog.progress.value() == dialog.progress.maximum() == total
    assert dialog.eta.text().startswith(f"Finished: {total} run(s)")
    assert dialog.start(BatchRequest(source="covering", store_runs=False))
    assert dialog.progress.value() <= 0 and dialog.results.rowCount() == 0
    assert dialog.summary.rowCount() == 0 and f"{total}/{total}" not in dialog.eta.text()
    qtbot.waitUntil(lambda: dialog.result is not None and not dialog.poll.isActive(),
                    timeout=TIMEOUT)


def test_cancel_as_the_batch_ends_reports_finished(qtbot, window, monkeypatch):
    import sopstudio.engine.batch as engine_batch
    real = engine_batch.run_batch

    def cancel_at_the_end(cs, scenarios, agent, *, progress, cancel, **options):
        def late(done, total, result):
            if done == total:
                cancel.set()  # the operator's Cancel lands as the last run ends
            progress(done, total, result)
        return real(cs, scenarios, agent, progress=late, cancel=cancel, **options)

    monkeypatch.setattr(engine_batch, "run_batch", cancel_at_the_end)
    dialog = window.simulation.open_batch()
    result = run_batch(qtbot, dialog, source="covering", types=("correct",))
    assert result.cancelled and all(r.trace is not None for r in result.results)
    assert dialog.eta.text().startswith(f"Finished: {len(result.results)} run(s)")


def test_a_real_cancel_says_how_many_ran(qtbot, window):
    dialog = window.simulation.open_batch()
    assert dialog.start(BatchRequest(source="sample", sample=20000, workers=1, store_runs=False))
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=TIMEOUT)
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        dialog.cancel()
    assert dialog.eta.text().startswith("Cancelled: ") and " of 20000 run(s)" in dialog.eta.text()


def test_sample_size_is_the_number_of_scenarios(qtbot, window):
    dialog = window.simulation.open_batch()
    assert "N = how many scenarios" in dialog.sample_help.text()
    result = run_batch(qtbot, dialog, source="sample", sample=7)
    assert len(result.results) == dialog.results.rowCount() == 7
    types = [r.scenario.type for r in result.results]
    assert len(set(types)) >= 2  # the checked types take turns
    assert len({r.scenario.id for r in result.results}) == 7
    # a small batch ends up listed in scenario order, each row the run it opens
    assert dialog.rows == list(result.results)
    assert [dialog.results.item(r, 0).text() for r in range(7)] == \
        [r.scenario.id for r in result.results]


def test_rows_arrive_in_chunks_while_the_batch_runs(qtbot, window, monkeypatch):
    monkeypatch.setattr(sim_batch, "ROWS_PER_TICK", 40)
    monkeypatch.setattr(sim_batch, "REORDER_ROWS", 0)  # big-batch behaviour: no final re-list
    dialog = window.simulation.open_batch()
    chunks = []
    real_append = dialog._append_rows
    monkeypatch.setattr(dialog, "_append_rows", lambda items: chunks.append(len(items))
                        or real_append(items))
    result = run_batch(qtbot, dialog, source="sample", sample=300)
    assert sum(chunks) == dialog.results.rowCount() == len(result.results) == 300
    assert len(chunks) >= 300 // 40 and max(chunks) <= 40
    # each row shows the run it opens
    row = 123
    assert dialog.results.item(row, 0).text() == dialog.rows[row].scenario.id
    assert {id(r) for r in dialog.rows} == {id(r) for r in result.results}
