"""View ▸ Theme: system, light or dark, for the window's palette and the canvas colours.

The choice is remembered in QSettings ("view/theme"); SOPSTUDIO_THEME (set by
`sopstudio gui --theme`) overrides it for one run, so screenshots need no settings. "system"
keeps the platform's palette and picks the canvas colours that go with it.
"""

from __future__ import annotations

import os

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from .canvas import style

THEMES = ("system", "light", "dark")
SETTING = "view/theme"
_system_palette: QPalette | None = None


def chosen(settings) -> str:
    name = os.environ.get("SOPSTUDIO_THEME") or str(settings.value(SETTING, "system"))
    return name if name in THEMES else "system"


def remember(settings, name: str) -> None:
    settings.setValue(SETTING, name)


def apply(name: str) -> bool:
    """Set the application palette and the canvas colours; True when the canvas is dark."""
    global _system_palette
    app = QApplication.instance()
    if _system_palette is None:
        _system_palette = QPalette(app.palette())
    if name == "dark":
        app.setPalette(_dark_palette())
    elif name == "light":
        app.setPalette(app.style().standardPalette())
    else:
        app.setPalette(_system_palette)
    dark = name == "dark" or (
        name == "system" and _system_palette.color(QPalette.Window).lightness() < 128)
    style.use_palette(dark)
    return dark


def _dark_palette() -> QPalette:
    palette = QPalette()
    colours = {
        QPalette.Window: "#2b2f36", QPalette.WindowText: "#e6ebf0", QPalette.Base: "#1e2228",
        QPalette.AlternateBase: "#262a31", QPalette.ToolTipBase: "#2b2f36",
        QPalette.ToolTipText: "#e6ebf0", QPalette.Text: "#e6ebf0", QPalette.Button: "#353a42",
        QPalette.ButtonText: "#e6ebf0", QPalette.BrightText: "#ff6b6b",
        QPalette.Highlight: "#3d7bd9", QPalette.HighlightedText: "#ffffff",
        QPalette.Link: "#7fb2ff", QPalette.PlaceholderText: "#8a949e"}
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, QColor("#6c757d"))
    return palette
