"""Batch scenarios are generated while the first runs go on, and Cancel stops generation too:
a scenario source that never ends is cut off by Cancel, its runs so far counted."""

from __future__ import annotations

import itertools
import threading

import pytest

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.engine.compiled import CompiledSop
from sopstudio.qt.sim.batch_job import BatchRequest, build_scenarios

from qt_helpers import SAMPLES, TIMEOUT


@pytest.fixture
def batch_window(open_main_window):
    path = SAMPLES / "email_update.sop.json"
    return open_main_window(Document(load_sop(path), path), simulation=True, show=False)


class EndlessScenarios:
    """Real scenarios, again and again, forever: generation never ends by itself."""

    def __init__(self):
        self.closed = threading.Event()

    def __call__(self, compiled, request):
        return self._generate(build_scenarios(compiled, request))

    def _generate(self, scenarios):
        try:
            yield from itertools.cycle(scenarios)
        finally:
            self.closed.set()


def test_runs_start_while_generation_goes_on_and_cancel_stops_both(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    source = dialog.scenario_source = EndlessScenarios()
    assert dialog.start(BatchRequest(source="covering", types=("correct",), workers=1,
                                     store_runs=False))
    # rows appear although generation has not ended (it never would)
    qtbot.waitUntil(lambda: dialog.results.rowCount() > 0, timeout=TIMEOUT)
    assert not source.closed.is_set()
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        dialog.cancel()
    qtbot.waitUntil(source.closed.is_set, timeout=TIMEOUT)
    assert dialog.result.cancelled
    assert dialog.eta.text().startswith("Cancelled: ")


def test_a_finite_stream_runs_every_scenario(qtbot, batch_window):
    dialog = batch_window.simulation.open_batch()
    request = BatchRequest(source="covering", types=("correct",), store_runs=False)
    expected = build_scenarios(CompiledSop(batch_window.session.sop), request)
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        assert dialog.start(request)
    assert len(dialog.result.results) == dialog.results.rowCount() == len(expected) > 1
    assert sorted(r.scenario.id for r in dialog.result.results) == \
        sorted(s.id for s in expected)
    assert not dialog.result.cancelled
    assert all(r.trace is not None for r in dialog.result.results)
