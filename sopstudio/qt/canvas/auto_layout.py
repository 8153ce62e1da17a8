"""When and how Graphviz's answers reach the canvas: layout on open, Auto-layout, re-routing.

A document without positions opens at once in `quick_layout` and moves to dot's layout when the
child process answers; Auto-layout is one undoable move when it arrives; after nodes are moved by
hand, their edges are re-routed around the other nodes. The status bar shows a busy bar and a
Cancel button while a layout runs. An answer for a document edited meanwhile is dropped, never
applied over the user's work.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QProgressBar, QPushButton

from ...core.edits import MoveNodes
from ...core.layout import quick_layout
from .layout_job import LayoutJob

REROUTE_DELAY_MS = 300  # a burst of moves (arrow keys, several drags) is re-routed once


class AutoLayout(QObject):
    applied = Signal(str)  # mode, once an answer has reached the canvas

    def __init__(self, window):
        super().__init__(window)
        self.window, self.session, self.scene = window, window.session, window.scene
        self.job = LayoutJob(self)
        self.edits = 0  # document changes so far: an answer to an older state is stale
        self._moved: set[str] = set()
        self._provisional = False  # the open document's positions are the quick layout's
        self._reroute_timer = QTimer(self, singleShot=True, interval=REROUTE_DELAY_MS)
        self._reroute_timer.timeout.connect(self._reroute_now)
        self._build_status()
        self.job.started.connect(self._on_started)
        self.job.finished.connect(self._on_finished)
        self.job.failed.connect(self._on_failed)
        self.job.cancelled.connect(self._on_cancelled)
        self.session.changed.connect(self._count_edit)
        self.scene.move_requested.connect(self._on_moved)

    def _build_status(self) -> None:
        bar = self.window.statusBar()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # dot cannot say how far it is: a busy bar
        self.busy.setMaximumWidth(140)
        self.busy.setFormat("Laying out…")
        self.cancel_button = QPushButton("Cancel layout")
        self.cancel_button.setToolTip("Stop the running layout (the canvas keeps what it shows)")
        self.cancel_button.clicked.connect(self.cancel)
        for widget in (self.busy, self.cancel_button):
            bar.addPermanentWidget(widget)
            widget.hide()

    # --- requests ---------------------------------------------------------------------------
    def place_unplaced(self) -> None:
        """Before the canvas is built for a just-opened document: give nodes without a
        position their place in the quick layered layout, straight in the model (not an edit:
        there is nothing to undo), so every item is built once, already where it goes."""
        sop = self.session.sop
        if any(n.position is None for n in sop.nodes):
            self._provisional = True
            quick = quick_layout(sop)
            for node in sop.nodes:
                if node.position is None:
                    node.position = quick[node.id]

    def on_open(self, route_limit: int) -> None:
        """A document was opened: place unplaced nodes now, and ask dot for the real layout
        (or, for a small laid-out graph, only its routes)."""
        sop = self.session.sop
        unplaced = self._provisional or any(n.position is None for n in sop.nodes)
        self._provisional = False
        if not sop.nodes or (not unplaced and len(sop.nodes) > route_limit):
            return
        if any(n.position is None for n in sop.nodes):
            self._apply_quietly(quick_layout(sop, self._sizes()))
        self._start("layout", "open" if unplaced else "routes")

    def auto_layout(self) -> None:
        if self.session.sop.nodes:
            self._start("layout", "undoable")

    def cancel(self) -> bool:
        return self.job.cancel()

    def shutdown(self) -> None:
        """The window closes: end a running child process quietly (none outlives it)."""
        self._reroute_timer.stop()
        self.job.stop()

    def running(self) -> bool:
        return self.job.running()

    def wait(self, msecs: int = 120000) -> None:
        """Block until the running job has answered (scripts and screenshots only)."""
        process = self.job.process
        if process is not None:
            process.waitForFinished(msecs)

    def _start(self, mode: str, purpose: str, **extra) -> None:
        self.job.start(mode, self.session.sop, self._sizes(), context=(purpose, self.edits),
                       **extra)

    def _sizes(self) -> dict:
        return {i: (item.width, item.height) for i, item in self.scene.nodes.items()}

    # --- re-routing after moves -------------------------------------------------------------
    def _count_edit(self, *_) -> None:
        self.edits += 1

    def _on_moved(self, moved: dict) -> None:
        self._moved.update(moved)
        self._reroute_timer.start()

    def _reroute_now(self) -> None:
        moved, self._moved = self._moved, set()
        if self.job.running() and self.job.mode == "layout":
            self._moved = moved | self._moved  # re-routed once the layout has answered
            return
        sop = self.session.sop
        positions = {n.id: n.position for n in sop.nodes if n.position is not None}
        edges = {e.id for e in sop.edges if e.source in moved or e.target in moved}
        if edges:
            self._start("reroute", "reroute", positions=positions, edges=edges)

    # --- answers ----------------------------------------------------------------------------
    def _on_started(self, mode: str) -> None:
        if self.job.context[0] in ("open", "undoable"):  # routes alone come quietly
            self.busy.show()
            self.cancel_button.show()

    def _idle(self) -> None:
        self.busy.hide()
        self.cancel_button.hide()
        if self._moved:  # moves made while a layout ran
            self._reroute_timer.start()

    def _on_finished(self, mode: str, positions: dict, routes: dict) -> None:
        self._idle()
        purpose, edits = self.job.context
        if edits != self.edits and purpose != "open":
            self.window.statusBar().showMessage("Layout dropped: the graph changed meanwhile",
                                                5000)
            return
        if purpose == "reroute":
            self.scene.merge_routes(routes, positions)
        elif purpose == "open":
            if edits == self.edits:  # nothing touched since the provisional layout
                self._apply_quietly(positions)
            self.scene.set_routes(routes, positions)
            self.window.view.fit_all()
        elif purpose == "routes":
            self.scene.set_routes(routes, positions)
        else:
            self._apply_undoable(positions, routes)
        self.applied.emit(purpose)

    def _on_failed(self, mode: str, message: str) -> None:
        self._idle()
        self.window.statusBar().showMessage(f"Layout failed: {message}", 8000)

    def _on_cancelled(self, mode: str) -> None:
        self._idle()
        self.window.statusBar().showMessage("Layout cancelled", 4000)

    def _apply_quietly(self, positions: dict) -> None:
        """Positions for a document that had none: not an undo entry (nothing to go back to),
        and a document that was saved stays saved."""
        document = self.session.document
        was_dirty = document.dirty
        document.apply(MoveNodes(positions))
        if not was_dirty:
            document.mark_saved()
        self._moved.clear()
        self._reroute_timer.stop()

    def _apply_undoable(self, positions: dict, routes: dict) -> None:
        self.scene.set_routes(routes, positions)
        current = {n.id: n.position for n in self.session.sop.nodes}
        changed = {k: v for k, v in positions.items() if current.get(k) != tuple(v)}
        if changed:
            move = MoveNodes(changed)
            move.description = "Auto-layout"
            self.session.push(move)
