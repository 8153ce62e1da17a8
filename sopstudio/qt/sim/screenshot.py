"""`sopstudio gui FILE --simulate ... --screenshot OUT.png`: simulate, then render the window.

`run_simulation_for_screenshot` drives the simulation dock to K events of a journey (all of them
when K is None) while keeping the event loop turning; `batch_for_screenshot` runs a batch of the
covering scenarios and shows the coverage overlay. `compose` puts several widgets side by side in
one image (the batch dialog is a separate window, so it cannot be in the main window's grab).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QPoint
from PySide6.QtGui import QColor, QImage, QPainter

from ..screenshot import SCREENSHOT_SIZE, screenshot
from .integration import attach_simulation

DEFAULT_TIMEOUT = 60.0


def _spin_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        QCoreApplication.processEvents()
        time.sleep(0.005)
    QCoreApplication.processEvents()
    return True


def _show(window) -> None:
    """Docks tabified before the window is first shown leave a stray tab drawn: show first."""
    if not window.isVisible():
        window.resize(*SCREENSHOT_SIZE)
        window.show()
        QCoreApplication.processEvents()


def run_simulation_for_screenshot(window, journey: int | None = None,
                                  scenario: str | None = None, steps: int | None = None,
                                  timeout: float = DEFAULT_TIMEOUT):
    """Attach simulation, pick journey N and scenario TYPE, and run K events (or to the end)."""
    _show(window)
    sim = attach_simulation(window)
    dock = sim.dock
    dock.select(journey=journey or 0, scenario=scenario or "correct", agent="scripted")
    sim.sim_dock.show()
    sim.sim_dock.raise_()
    if steps is None:
        dock.run()
    else:
        dock.step(steps)

    def done() -> bool:
        enough = steps is not None and len(dock.events) >= steps
        return dock.loaded and (enough or dock.state == "finished") and dock.state != "running"
    if not _spin_until(done, timeout):
        raise TimeoutError("the simulation did not reach the requested step in time")
    return sim


def simulate_and_screenshot(window, out_path: str, journey: int | None = None,
                            scenario: str | None = None, steps: int | None = None,
                            batch: bool = False) -> None:
    """What the gui command calls for --simulate (simulate, render) and --batch (run the
    covering batch, render the window beside the dialog); then stop the workers."""
    if batch:
        sim, dialog = batch_for_screenshot(window)
        dialog.results.scrollToTop()
        QCoreApplication.processEvents()
        compose([window, dialog], out_path)
    else:
        sim = run_simulation_for_screenshot(window, journey, scenario, steps)
        screenshot(window, out_path)
    sim.shutdown()


def batch_for_screenshot(window, timeout: float = DEFAULT_TIMEOUT):
    """Run the covering batch in the batch dialog and show its coverage on the canvas."""
    _show(window)
    sim = attach_simulation(window)
    dialog = sim.open_batch()
    dialog.start()
    # Finished means the last rows are in and the coverage is on the canvas (batch_finished).
    if not _spin_until(lambda: dialog.result is not None and not dialog.running()
                       and not dialog.poll.isActive(), timeout):
        raise TimeoutError("the batch did not finish in time")
    return sim, dialog


def compose(widgets, out_path: str, gap: int = 12) -> None:
    """Grab each widget and save them side by side in one PNG."""
    images = [w.grab().toImage() for w in widgets]
    width = sum(i.width() for i in images) + gap * (len(images) + 1)
    height = max(i.height() for i in images) + 2 * gap
    canvas = QImage(width, height, QImage.Format_ARGB32)
    canvas.fill(QColor("#d5d9de"))
    painter = QPainter(canvas)
    x = gap
    for image in images:
        painter.drawImage(QPoint(x, gap), image)
        x += image.width() + gap
    painter.end()
    if not canvas.save(out_path):
        raise OSError(f"cannot write {out_path}")
