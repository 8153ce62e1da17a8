"""Helpers shared by the Qt tests: a small SOP, sample paths, real mouse drags, waiting for a
simulation step, and a scenario source whose batch runs wait for a cancel (no race with time)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from sopstudio.core.model import SOP, Edge, Node, Tool, ToolOutput
from sopstudio.qt.sim.batch_job import build_scenarios

TESTS = Path(__file__).resolve().parent.parent
SAMPLES = TESTS.parent / "sample_sops"
FIXTURES = TESTS / "fixtures"
TAU2_DOT = FIXTURES / "tau2-telecom" / "tech_support_path1_no_service.dot"
TIMEOUT = 20000  # ms: a bound for waits on events, never a race


def make_sop() -> SOP:
    """Ask an account, check it, end fine or blocked (positions set, one enum tool)."""
    tool = Tool(name="check_status", outputs=[ToolOutput(name="status",
                                                         enum=["ok", "blocked"])])
    return SOP(
        id="t", title="Test SOP", start="ask", tools=[tool],
        nodes=[Node(id="ask", title="Ask id", ask=["account"], position=(0, 0)),
               Node(id="check", title="Check", tools=["check_status"], position=(0, 200)),
               Node(id="ok", title="Fine", kind="end", outcome="resolved", position=(-150, 400)),
               Node(id="bad", title="Blocked", kind="end", outcome="rejected",
                    position=(150, 400))],
        edges=[Edge(id="e1", source="ask", target="check"),
               Edge(id="e2", source="check", target="ok", when="status == 'ok'"),
               Edge(id="e3", source="check", target="bad", when="else")])


# -- mouse ------------------------------------------------------------------------------------
def send_mouse(view, kind, scene_pos: QPointF, buttons) -> None:
    point = QPointF(view.mapFromScene(scene_pos))
    button = Qt.NoButton if kind == QEvent.MouseMove else Qt.LeftButton
    event = QMouseEvent(kind, point, view.viewport().mapToGlobal(point), button, buttons,
                        Qt.NoModifier)
    QApplication.sendEvent(view.viewport(), event)


def drag(view, start: QPointF, end: QPointF, steps: int = 6) -> None:
    """A real mouse drag on the viewport: press, several moves with the button held, release."""
    send_mouse(view, QEvent.MouseButtonPress, start, Qt.LeftButton)
    for i in range(1, steps + 1):
        send_mouse(view, QEvent.MouseMove, start + (end - start) * (i / steps), Qt.LeftButton)
    send_mouse(view, QEvent.MouseButtonRelease, end, Qt.NoButton)


def in_front(dock) -> bool:
    """Shown and not covered by another tab (hidden tabs are moved out of sight)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


# -- simulation -------------------------------------------------------------------------------
def journey_index(dock, *node_ids) -> int:
    for index, choice in enumerate(dock.choices):
        if tuple(choice.journey.nodes) == node_ids:
            return index
    raise AssertionError(f"no journey {node_ids}")


def step_once(qtbot, dock) -> dict:
    before = len(dock.events)
    dock.step()
    qtbot.waitUntil(lambda: len(dock.events) > before and dock.state != "running",
                    timeout=TIMEOUT)
    return dock.events[-1]


class GatedScenarios:
    """The dialog's scenarios, but every run after the first waits until the batch is cancelled:
    a test sees a batch that is surely still running, however fast or slow the machine."""

    def __init__(self, dialog):
        self.dialog = dialog

    def __call__(self, compiled, request) -> "_Gated":
        return _Gated(build_scenarios(compiled, request), self.dialog.job.cancel)


class _Gated(list):
    def __init__(self, scenarios: list, cancel):
        super().__init__(scenarios)
        self.cancel = cancel

    def __getitem__(self, index):
        if isinstance(index, int) and index > 0:
            self.cancel.wait()
        return super().__getitem__(index)


def run_batch(qtbot, dialog, **options):
    """Start a batch of `BatchRequest(**options)` in `dialog` and wait for it to finish."""
    from sopstudio.qt.sim.batch_job import BatchRequest
    with qtbot.waitSignal(dialog.batch_finished, timeout=TIMEOUT):
        assert dialog.start(BatchRequest(**options))
    return dialog.result
