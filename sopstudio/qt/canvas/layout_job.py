"""Graphviz work off the GUI: auto-layout and edge re-routing in a child process.

Graphviz holds the GIL while it lays out, so a thread would still freeze the window; a child
process (`python -m sopstudio.core.layout`, JSON in and out) does not, and Cancel simply ends it.
One job runs at a time: a new request replaces (and ends) the one running.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QObject, QProcess, Signal


class LayoutJob(QObject):
    started = Signal(str)                  # mode: "layout" | "reroute"
    finished = Signal(str, dict, dict)     # mode, positions, routes
    failed = Signal(str, str)              # mode, message
    cancelled = Signal(str)                # mode

    def __init__(self, parent=None):
        super().__init__(parent)
        self.process: QProcess | None = None
        self.mode = ""
        self.context: object = None  # what the caller needs to apply the answer

    def running(self) -> bool:
        return self.process is not None and self.process.state() != QProcess.NotRunning

    def start(self, mode: str, sop, sizes: dict, positions: dict | None = None,
              edges: set | None = None, context: object = None) -> None:
        """Lay out (`mode="layout"`) or re-route `edges` at `positions` (`"reroute"`)."""
        self._end(quiet=True)
        request = {"mode": mode, "sop": sop.model_dump(mode="json"),
                   "sizes": {k: list(v) for k, v in sizes.items()},
                   "positions": {k: list(v) for k, v in (positions or {}).items()},
                   "edges": sorted(edges) if edges is not None else None}
        self.mode, self.context = mode, context
        process = self.process = QProcess(self)
        process.finished.connect(lambda code, status, p=process: self._on_finished(p, code))
        process.errorOccurred.connect(lambda error, p=process: self._on_error(p, error))
        process.start(sys.executable, ["-m", "sopstudio.core.layout"])
        process.write(json.dumps(request).encode("utf-8"))
        process.closeWriteChannel()
        self.started.emit(mode)

    def cancel(self) -> bool:
        """End the running job; True when there was one."""
        return self._end(quiet=False)

    def stop(self) -> None:
        """End the running job without a `cancelled` signal (the owner is going away)."""
        self._end(quiet=True)

    def _end(self, quiet: bool) -> bool:
        process, self.process = self.process, None
        if process is None or process.state() == QProcess.NotRunning:
            return False
        process.kill()
        process.waitForFinished(2000)
        process.deleteLater()
        if not quiet:
            self.cancelled.emit(self.mode)
        return True

    def _on_finished(self, process: QProcess, code: int) -> None:
        if process is not self.process:
            return  # a replaced or cancelled job
        self.process = None
        try:
            output = bytes(process.readAllStandardOutput()).decode("utf-8", "replace")
            errors = bytes(process.readAllStandardError()).decode("utf-8", "replace")
        except RuntimeError:  # the window (and the process object) went away meanwhile
            return
        process.deleteLater()
        if code != 0:
            lines = [line for line in errors.splitlines() if line.strip()]
            self.failed.emit(self.mode, lines[-1] if lines else f"layout exited with {code}")
            return
        answer = json.loads(output)
        positions = {k: tuple(v) for k, v in answer["positions"].items()}
        routes = {k: ([tuple(p) for p in points], tuple(tip) if tip else None,
                      tuple(label) if label else None)
                  for k, (points, tip, label) in answer["routes"].items()}
        self.finished.emit(self.mode, positions, routes)

    def _on_error(self, process: QProcess, error) -> None:
        if process is self.process and error == QProcess.FailedToStart:
            self.process = None
            self.failed.emit(self.mode, "cannot start the layout process")
