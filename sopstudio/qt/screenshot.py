"""`sopstudio gui FILE --screenshot OUT.png`: render the main window, sized for its graph, to a PNG.

The simulation's screenshots (`sim/screenshot.py`) drive the simulation first, then call
`screenshot` here.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

SCREENSHOT_SIZE = (1600, 1000)
MAX_SCREENSHOT_HEIGHT = 3000
SCREENSHOT_SCALE = 0.62  # the scale the window is sized for: text stays readable


def screenshot_size(window) -> tuple[int, int]:
    """A window tall enough that a tall graph is drawn near full size, within reason."""
    width, height = SCREENSHOT_SIZE
    rect = window.scene.itemsBoundingRect()
    if rect.isEmpty():
        return width, height
    canvas_width = width - 400
    scale = min(1.0, canvas_width / (rect.width() + 60))
    # 260: menus, toolbar, docks
    wanted = int((rect.height() + 60) * max(scale, SCREENSHOT_SCALE)) + 260
    return width, max(height, min(MAX_SCREENSHOT_HEIGHT, wanted))


def screenshot(window, out_path: str) -> None:
    """Show the window sized for the graph, fit the graph, and save what it shows."""
    window.auto_layout.wait()  # the final layout, not the provisional one
    window.resize(*screenshot_size(window))
    window.show()
    for _ in range(3):
        QCoreApplication.processEvents()
    window.view.fit_all(floor=0.0)  # the whole graph, even if that is below the readable scale
    QCoreApplication.processEvents()
    window.problems.runner.wait(5000)
    QCoreApplication.processEvents()
    image = window.grab()
    if not image.save(out_path):
        raise OSError(f"cannot write {out_path}")
