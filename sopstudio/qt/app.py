"""Starting the application: the QApplication, the store link, the main window, and
`--screenshot` rendering (see screenshot.py and sim/screenshot.py)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

from ..core.document import Document
from ..core.io import load_sop
from .settings import APPLICATION, ORGANISATION
from .store_link import StoreLink


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        QCoreApplication.setOrganizationName(ORGANISATION)
        QCoreApplication.setApplicationName(APPLICATION)
        app = QApplication(sys.argv[:1])
        app.setApplicationDisplayName("SOP Studio")
    return app


def open_window(path=None, settings=None, simulation: bool = False, saved_layout: bool = True,
                store_link: StoreLink | None = None):
    """The main window on `path`; with `simulation`, its docks are added before the saved
    layout is restored, so the layout covers them and the Inspector stays in front. Without
    `saved_layout` (screenshots) the default layout is used: a layout saved with other docks
    would leave stray tab bars, and pictures should not depend on the user's settings.
    `store_link` is the application's link to the store (a new one when not given)."""
    from .main_window import MainWindow
    document = Document(load_sop(path, strict=False), path) if path else None
    window = MainWindow(document, settings, restore=False, store_link=store_link)
    if simulation:
        from .sim.integration import attach_simulation
        attach_simulation(window)
    window.restore_state(saved_layout)
    return window


def run(path=None, screenshot_path=None, simulate: dict | None = None) -> int:
    app = application()
    store_link = StoreLink(app)
    try:
        return _run(app, store_link, path, screenshot_path, simulate)
    finally:
        store_link.close()


def _run(app, store_link, path, screenshot_path, simulate) -> int:
    # A screenshot has no simulation docks unless --simulate asks (then it adds them itself).
    window = open_window(path, simulation=not screenshot_path, saved_layout=not screenshot_path,
                         store_link=store_link)
    if screenshot_path:
        if simulate is not None:
            from .sim.screenshot import simulate_and_screenshot
            simulate_and_screenshot(window, screenshot_path, **simulate)
        else:
            from .screenshot import screenshot
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
