"""Running a function off the GUI thread and getting its result back as a Qt signal."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)


class _Relay(QObject):
    done = Signal(int, object)      # ticket, result
    failed = Signal(int, str)       # ticket, message


class _Job(QRunnable):
    def __init__(self, ticket: int, fn, args, relay: _Relay):
        super().__init__()
        self.ticket, self.fn, self.args, self.relay = ticket, fn, args, relay

    def run(self):
        try:
            result = self.fn(*self.args)
        except Exception as problem:  # reported to the GUI, never lost
            log.warning("background job failed", exc_info=True)
            self.relay.failed.emit(self.ticket, f"{problem.__class__.__name__}: {problem}")
            return
        self.relay.done.emit(self.ticket, result)


class BackgroundRunner(QObject):
    """Runs one kind of job at a time; results of superseded jobs are dropped by ticket."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        self.ticket = 0

    def submit(self, fn, *args) -> int:
        self.ticket += 1
        self.pool.start(_Job(self.ticket, fn, args, self._relay))
        return self.ticket

    def _on_done(self, ticket: int, result) -> None:
        if ticket == self.ticket:
            self.done.emit(result)

    def _on_failed(self, ticket: int, message: str) -> None:
        if ticket == self.ticket:
            self.failed.emit(message)

    def wait(self, msecs: int = 5000) -> bool:
        return self.pool.waitForDone(msecs)
