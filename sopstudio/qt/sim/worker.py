"""Running a simulation off the GUI thread: a worker QObject in its own QThread.

The engine is synchronous; `SimWorker` owns one `SimulationSession` and touches it only on its
thread. The GUI sends requests through `SimController` (queued signals) and gets back events and a
plain-data snapshot. When the operator answers as the user or edits tool results, the worker
thread blocks on a queue until the GUI answers (or the run is stopped): the window stays live.
"""

from __future__ import annotations

import logging
import queue
import threading

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot
from shiboken6 import isValid

log = logging.getLogger(__name__)

WAIT_POLL = 0.05  # seconds between checks of the stop flag while waiting for the operator


def plain_error(problem: Exception) -> str:
    """One plain line for an engine error (never a bare exception name and repr)."""
    from ...core.errors import SopStudioError
    if isinstance(problem, KeyError):
        name = problem.args[0] if problem.args else "?"
        return (f"The simulation stopped: it needs '{name}', which this SOP does not have "
                f"(was it changed?). Press Reset to start again.")
    if isinstance(problem, SopStudioError):
        return f"The simulation stopped: {problem}"
    detail = str(problem).strip().splitlines()[0] if str(problem).strip() else \
        problem.__class__.__name__
    return f"The simulation stopped: {detail}"


class SimWorker(QObject):
    stepped = Signal(list, dict)          # new event dicts, snapshot
    rewound = Signal(list, dict)          # all event dicts, snapshot (load/reset/step back)
    state_changed = Signal(str)           # running | paused | waiting | finished | idle
    user_input_needed = Signal(list, str) # variables asked, the agent's question
    tool_result_needed = Signal(str, dict, dict)  # tool, arguments, mocked result
    failed = Signal(str)
    run_done = Signal(object)             # the Trace of a live run that just ended

    def __init__(self):
        super().__init__()
        self.session = None
        self.pause_flag = threading.Event()
        self.stop_flag = threading.Event()
        self.answer_as_user = False
        self.edit_tool_results = False
        self._reported = False
        self.asking_node: str | None = None
        self._answers: queue.Queue = queue.Queue()
        self._results: queue.Queue = queue.Queue()

    # -- requests (run on the worker thread) --------------------------------------------------
    @Slot(object)
    def load(self, factory) -> None:
        try:
            self.session = factory()
        except Exception as problem:  # shown in the dock, never fatal
            log.warning("loading the simulation failed", exc_info=True)
            self.session = None
            self.failed.emit(plain_error(problem))
            return
        self.session.user_hook = self._ask_operator
        self.session.tool_hook = self._edit_result
        self.stop_flag.clear()
        self._publish_all()

    @Slot(int)
    def step(self, count: int = 1) -> None:
        if self.session is None:
            return
        self.pause_flag.clear()
        self._loop(count)

    @Slot()
    def run(self) -> None:
        if self.session is None:
            return
        self.pause_flag.clear()
        self._loop(None)

    @Slot()
    def step_back(self) -> None:
        if self.session is not None:
            self._guard(self.session.step_back)
            self._publish_all()

    @Slot(int)
    def rewind(self, count: int) -> None:
        if self.session is not None:
            self._guard(lambda: self.session.rewind(count))
            self._publish_all()

    @Slot()
    def reset(self) -> None:
        if self.session is not None:
            self.stop_flag.clear()
            self.session.reset()
            self._publish_all()

    @Slot()
    def stop(self) -> None:
        if self.session is not None and not self.session.done:
            self._stop_session()
            self.state_changed.emit("finished")

    def _stop_session(self) -> None:
        """End the run and deliver what it still had to say (the end event)."""
        self.session.stop()
        events = []
        while (event := self.session.step()) is not None:
            events.append(event.to_dict())
        self._publish(events)

    @Slot(str)
    def type_ahead(self, text: str) -> None:
        if self.session is not None:
            self.session.type_ahead(text)

    # -- the loop ----------------------------------------------------------------------------
    def _loop(self, count: int | None) -> None:
        self.state_changed.emit("running")
        done = 0
        while count is None or done < count:
            if self.pause_flag.is_set() or self.stop_flag.is_set():
                break
            event = self._guard(self.session.step)
            if event is None:
                break
            done += 1
            self._publish([event.to_dict()])
        if self.stop_flag.is_set() and not self.session.done:
            self._stop_session()
        if self.session.done and self.session.recorded is None and not self._reported:
            self._reported = True
            self.run_done.emit(self.session.trace)
        self.state_changed.emit("finished" if self.session.done else "paused")

    def _guard(self, fn):
        try:
            return fn()
        except Exception as problem:  # an engine error ends this request only
            log.warning("a simulation request failed", exc_info=True)
            self.failed.emit(plain_error(problem))
            return None

    def _publish(self, events: list) -> None:
        self.stepped.emit(events, self.session.snapshot())

    def _publish_all(self) -> None:
        self._reported = self.session.done
        events = [e.to_dict() for e in self.session.delivered]
        self.rewound.emit(events, self.session.snapshot())
        self.state_changed.emit("finished" if self.session.done else "idle")

    # -- operator hooks (called by the engine on this thread) ---------------------------------
    def _ask_operator(self, variables: list, text: str) -> str | None:
        try:  # text typed ahead answers the next question at once
            return self._answers.get_nowait()
        except queue.Empty:
            pass
        if not self.answer_as_user:
            return None
        self.state_changed.emit("waiting")
        # The node asking, read by the dock for the accepted values (stable: this thread waits).
        self.asking_node = self.session.asking_node()
        self.user_input_needed.emit(list(variables), text)
        answer = self._wait(self._answers)
        self.state_changed.emit("running")
        return answer  # text (the session reads values from it) or None

    def _edit_result(self, tool: str, arguments: dict, result: dict) -> dict | None:
        if not self.edit_tool_results:
            return None
        self.state_changed.emit("waiting")
        self.tool_result_needed.emit(tool, dict(arguments), dict(result))
        edited = self._wait(self._results)
        self.state_changed.emit("running")
        return edited

    def _wait(self, box: queue.Queue):
        while not self.stop_flag.is_set():
            try:
                return box.get(timeout=WAIT_POLL)
            except queue.Empty:
                continue
        return None


class SimController(QObject):
    """The GUI side: owns the worker thread and forwards requests to it."""

    _load = Signal(object)
    _step = Signal(int)
    _run = Signal()
    _back = Signal()
    _rewind = Signal(int)
    _reset = Signal()
    _stop = Signal()
    _type_ahead = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.thread = QThread(self)
        self.thread.setObjectName("simulation-worker")
        self.worker = SimWorker()
        self.worker.moveToThread(self.thread)
        for signal, slot in ((self._load, self.worker.load), (self._step, self.worker.step),
                             (self._run, self.worker.run), (self._back, self.worker.step_back),
                             (self._rewind, self.worker.rewind), (self._reset, self.worker.reset),
                             (self._stop, self.worker.stop),
                             (self._type_ahead, self.worker.type_ahead)):
            signal.connect(slot)
        self.thread.finished.connect(self.worker.deleteLater)
        app = QCoreApplication.instance()
        if app is not None:  # the window may never get its close event: quit is the last call
            app.aboutToQuit.connect(self.shutdown)
        self.thread.start()

    def load(self, factory) -> None:
        self.worker.stop_flag.set()  # release a worker waiting for the operator
        self._load.emit(factory)

    def step(self, count: int = 1) -> None:
        self._step.emit(count)

    def run(self) -> None:
        self._run.emit()

    def pause(self) -> None:
        self.worker.pause_flag.set()

    def stop(self) -> None:
        self.worker.stop_flag.set()
        self._stop.emit()

    def step_back(self) -> None:
        self._back.emit()

    def rewind(self, count: int) -> None:
        self._rewind.emit(count)

    def reset(self) -> None:
        self.worker.stop_flag.set()
        self._reset.emit()

    def answer(self, text_or_turn) -> None:
        self.worker._answers.put(text_or_turn)

    def type_ahead(self, text: str) -> None:
        """Typed while nobody asked: the next question takes it (a queue, not a queued slot,
        so it also reaches a worker that is blocked waiting for the operator)."""
        self.worker._answers.put(text)

    def return_result(self, result: dict | None) -> None:
        self.worker._results.put(result)

    def shutdown(self, msecs: int = 5000) -> bool:
        """Stop the run, end the thread's event loop and wait for it (at most `msecs`); safe to
        call more than once. A worker blocked waiting for the operator is released by the stop
        flag; one inside a slow model call gets the timeout."""
        if not isValid(self) or not isValid(self.thread):
            return True  # already torn down with its window
        self.worker.pause_flag.set()
        self.worker.stop_flag.set()
        if not self.thread.isRunning():
            return True
        self.thread.quit()
        return self.thread.wait(msecs)
