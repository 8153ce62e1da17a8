"""Starting the application: the QApplication, the main window, and `--screenshot` rendering."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

from ..core.document import Document
from ..core.io import load_sop
from .settings import APPLICATION, ORGANISATION

SCREENSHOT_SIZE = (1600, 1000)
MAX_SCREENSHOT_HEIGHT = 3000
SCREENSHOT_SCALE = 0.62  # the scale the window is sized for: text stays readable


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        QCoreApplication.setOrganizationName(ORGANISATION)
        QCoreApplication.setApplicationName(APPLICATION)
        app = QApplication(sys.argv[:1])
        app.setApplicationDisplayName("SOP Studio")
    return app


def open_window(path=None, settings=None, simulation: bool = False, saved_layout: bool = True):
    """The main window on `path`; with `simulation`, its docks are added before the saved
    layout is restored, so the layout covers them and the Inspector stays in front. Without
    `saved_layout` (screenshots) the default layout is used: a layout saved with other docks
    would leave stray tab bars, and pictures should not depend on the user's settings."""
    from .main_window import MainWindow
    document = Document(load_sop(path, strict=False), path) if path else None
    window = MainWindow(document, settings, restore=False)
    if simulation:
        _attach_simulation(window)
    window.restore_state(saved_layout)
    return window


def screenshot_size(window) -> tuple[int, int]:
    """A window tall enough that a tall graph is drawn near full size, within reason."""
    width, height = SCREENSHOT_SIZE
    rect = window.scene.itemsBoundingRect()
    if rect.isEmpty():
        return width, height
    canvas_width = width - 400
    scale = min(1.0, canvas_width / (rect.width() + 60))
    wanted = int((rect.height() + 60) * max(scale, SCREENSHOT_SCALE)) + 260  # 260: menus, toolbar, docks
    return width, max(height, min(MAX_SCREENSHOT_HEIGHT, wanted))


def screenshot(window, out_path: str) -> None:
    """Show the window sized for the graph, fit the graph, and save what it shows."""
    app = application()
    window.resize(*screenshot_size(window))
    window.show()
    for _ in range(3):
        app.processEvents()
    window.view.fit_all(floor=0.0)  # the whole graph, even if that is below the readable scale
    app.processEvents()
    window.problems.runner.wait(5000)
    app.processEvents()
    image = window.grab()
    if not image.save(out_path):
        raise OSError(f"cannot write {out_path}")


def _attach_simulation(window) -> None:
    """The simulation pane, when this build has it (it lives in the qt.sim_* modules)."""
    try:
        from .sim_integration import attach_simulation
    except ImportError:
        return
    attach_simulation(window)


def run(path=None, screenshot_path=None, simulate: dict | None = None) -> int:
    app = application()
    # A screenshot has no simulation docks unless --simulate asks (then it adds them itself).
    window = open_window(path, simulation=not screenshot_path, saved_layout=not screenshot_path)
    if screenshot_path:
        if simulate is not None:
            from .sim_screenshot import simulate_and_screenshot
            simulate_and_screenshot(window, screenshot_path, **simulate)
        else:
            screenshot(window, screenshot_path)
        window.session.undo_stack.setClean()
        window.session.document.mark_saved()
        window.keep_state = False  # a screenshot must not change the user's window layout
        window.close()
        return 0
    if path:
        window.files._remember(str(path))
    window.show()
    QTimer.singleShot(0, lambda: window.autosaver.offer_recovery(window))
    return app.exec()
