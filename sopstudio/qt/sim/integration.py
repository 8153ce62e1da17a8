"""Adding simulation to the editor's main window: `attach_simulation(window)` does all of it.

It uses only the window's public parts (session, scene, view, settings, view_menu,
inspector_dock, history_dock, menuBar, addToolBar) and adds: the simulation dock, the stored-runs
dock, the canvas overlay and its legend, a Simulate menu and toolbar (run, step, coverage, batch,
endpoints), and a close guard that asks before cancelling a running batch and stops the worker.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from shiboken6 import isValid

from ...engine.coverage import coverage_from_results
from .batch import BatchDialog
from .dock import SimulationDock
from .overlay import CoverageLegend, SimOverlay
from .runs import RunHistoryPane, load_stored_run
from .settings import ProfileDialog, save_endpoint_findings


class SimulationUi(QObject):
    """Everything simulation adds to one main window (kept as `window.simulation`)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.dock = SimulationDock(window.session, window.settings, window.store_link)
        self.overlay = SimOverlay(window.scene)
        self.runs = RunHistoryPane(window.session, window.store_link)
        self.legend = CoverageLegend(window.view.viewport())
        self.legend.hide()
        self.batch: BatchDialog | None = None
        self.sim_dock = window.add_dock("Simulation", self.dock, Qt.RightDockWidgetArea)
        self.runs_dock = window.add_dock("Runs", self.runs, Qt.BottomDockWidgetArea)
        window.tabifyDockWidget(window.inspector_dock, self.sim_dock)
        window.tabifyDockWidget(window.history_dock, self.runs_dock)
        self.actions = self._actions()
        self._connect()
        self.runs.refresh()

    # -- wiring -------------------------------------------------------------------------------
    def _actions(self) -> dict:
        w = self.window
        specs = (("run", "&Run journey", "F5", self.run_journey),
                 ("step", "S&tep", "F10", lambda: self._show_dock() or self.dock.step()),
                 ("coverage", "&Coverage overlay", "Ctrl+Shift+C", self.toggle_coverage),
                 ("batch", "&Batch evaluation…", "Ctrl+B", self.open_batch),
                 ("endpoints", "Model &endpoints…", None, self.edit_endpoints))
        actions = {}
        for key, text, shortcut, handler in specs:
            action = QAction(text, w)
            if shortcut:
                action.setShortcut(shortcut)
            action.triggered.connect(lambda *_, h=handler: h())
            w.addAction(action)
            actions[key] = action
        actions["coverage"].setCheckable(True)
        _coverage_ready(actions["coverage"], False)
        menu = w.menuBar().addMenu("Si&mulate")
        toolbar = w.addToolBar("Simulation")
        toolbar.setObjectName("simulation_toolbar")
        for key in ("run", "step", "coverage", "batch", "endpoints"):
            menu.addAction(actions[key])
            if key != "endpoints":
                toolbar.addAction(actions[key])
        w.view_menu.addAction(self.sim_dock.toggleViewAction())
        w.view_menu.addAction(self.runs_dock.toggleViewAction())
        return actions

    def _connect(self) -> None:
        session = self.window.session
        self.dock.snapshot_changed.connect(self.overlay.show_run)
        self.dock.run_finished.connect(lambda *_: self.runs.refresh())
        self.dock.run_finished.connect(self._keep_endpoint_findings)
        self.runs.open_requested.connect(self.open_stored_run)
        session.changed.connect(lambda *_: self.overlay.refresh())  # after the scene synced
        session.replaced.connect(self._on_replaced)
        self.window.installEventFilter(self)
        self.window.view.viewport().installEventFilter(self)
        app = QCoreApplication.instance()
        if app is not None:  # quitting may skip the deferred shutdown after the close event
            app.aboutToQuit.connect(self.shutdown)

    def _keep_endpoint_findings(self, *_) -> None:
        """A run may have found out that its server refuses a named tool_choice: the profile
        remembers it, so the next session does not probe again."""
        if save_endpoint_findings(self.window.settings):
            self.dock.refresh_profiles()

    def _on_replaced(self) -> None:
        self.overlay.show_run(None)
        self.overlay.set_coverage(None)
        self.actions["coverage"].setChecked(False)
        _coverage_ready(self.actions["coverage"], False)  # the old batch says nothing of this SOP
        self.toggle_coverage()
        self.runs.refresh()  # the dock re-lists its journeys itself

    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Close:
            if self.batch is not None and not self.batch.shutdown():
                event.ignore()
                return True  # the operator wants the batch to go on: the window stays
            # The window may still refuse (unsaved changes): stop the worker only once closed.
            QTimer.singleShot(0, self._shutdown_if_closed)
        elif watched is self.window.view.viewport() and event.type() == QEvent.Resize:
            self.legend.place()
        return False

    def _shutdown_if_closed(self) -> None:
        if not self.window.isVisible():
            self.shutdown()

    def shutdown(self) -> None:
        """Stop a batch and the worker thread (waiting for both), and take our event filters
        off: Qt may still send events while tearing the widgets down, when no Python is left
        to answer them."""
        if self.batch is not None and self.batch.running():
            self.batch.job.stop()
        if self.batch is not None:
            self.batch.poll.stop()
        self.dock.shutdown()
        if isValid(self.window):
            for watched in (self.window, self.window.view.viewport()):
                if isValid(watched):
                    watched.removeEventFilter(self)

    # -- actions ------------------------------------------------------------------------------
    def _show_dock(self) -> None:
        self.sim_dock.show()
        self.sim_dock.raise_()

    def run_journey(self) -> None:
        self._show_dock()
        self.dock.run()

    def toggle_coverage(self) -> None:
        visible = self.actions["coverage"].isChecked() and bool(self.overlay.coverage)
        self.overlay.set_coverage_visible(visible)
        self.legend.setVisible(visible)
        if visible:
            self.legend.set_runs(self.overlay.coverage.get("runs", 0))
            self.legend.place()
            self.legend.raise_()

    def show_coverage(self, result) -> None:
        """A finished batch: its coverage replaces the (stale) marks of the last live run."""
        self.overlay.show_run(None)
        self.overlay.set_coverage(coverage_from_results(result.results))
        _coverage_ready(self.actions["coverage"], bool(result.traces))
        self.actions["coverage"].setChecked(bool(result.traces))
        self.toggle_coverage()

    def open_batch(self) -> BatchDialog:
        if self.batch is None:
            self.batch = BatchDialog(self.window.session, self.window.settings,
                                     self.window.store_link, self.window)
            self.batch.batch_finished.connect(self.show_coverage)
            self.batch.batch_finished.connect(lambda *_: self.runs.refresh())
            self.batch.batch_finished.connect(self._keep_endpoint_findings)
            self.batch.open_result.connect(self.open_batch_result)
        self.batch.show()
        self.batch.raise_()
        return self.batch

    def open_batch_result(self, item) -> None:
        self._show_dock()
        self.dock.open_replay(item.trace, None, item.scenario, title=item.scenario.id,
                              to_end=True)

    def open_stored_run(self, run_id: int) -> None:
        store = self.window.store_link.store()
        if store is None:
            return  # the Runs dock and the status bar say why
        trace, sop, scenario = load_stored_run(store, run_id)
        self._show_dock()
        self.dock.open_replay(trace, sop, scenario, title=f"run #{run_id}", to_end=True)

    def edit_endpoints(self) -> None:
        dialog = ProfileDialog(self.window.settings, self.window)
        dialog.profiles_changed.connect(self.dock.refresh_profiles)
        dialog.exec()


COVERAGE_WAITING = ("Coverage overlay: run a batch first (Simulate → Batch evaluation…); "
                    "it then shows how often its runs passed each step")
COVERAGE_READY = "Coverage overlay: how often the last batch's runs passed each step and edge"


def _coverage_ready(action: QAction, ready: bool) -> None:
    """The overlay has nothing to show before a batch has produced runs: say so, disabled."""
    action.setEnabled(ready)
    action.setToolTip(COVERAGE_READY if ready else COVERAGE_WAITING)
    action.setStatusTip(action.toolTip())


def attach_simulation(window) -> SimulationUi:
    """Add simulation to `window` (once); returns what was added (also `window.simulation`)."""
    existing = getattr(window, "simulation", None)
    if existing is None:
        window.simulation = existing = SimulationUi(window)
    return existing
