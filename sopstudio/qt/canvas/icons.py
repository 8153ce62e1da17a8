"""Toolbar icons: SVG files shipped in the package (sopstudio/resources/icons), the same on every
platform, drawn in the canvas's own colours so a task icon looks like a task node.

The files are written in the light theme's colours. Each icon is painted when the toolbar asks
for it, with the colours of the theme in use at that moment (the canvas's light colours are
swapped for their dark counterparts, see style.py): switching the theme recolours the icons on
the next repaint, and nothing else has to remember to refresh them.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from . import style

FOLDER = "resources/icons"
# action name -> icon file (without .svg)
FILES = {"new": "new", "open": "open", "save": "save", "undo": "undo", "redo": "redo",
         "layout": "layout", "find": "find", "add_task": "task", "add_decision": "decision",
         "add_end": "end", "fit": "fit", "zoom_in": "zoom_in", "zoom_out": "zoom_out"}
DISABLED_OPACITY = 0.35


def icon(name: str) -> QIcon | None:
    """The icon of the action called `name`, or None when it has none."""
    if name not in FILES:
        return None
    return QIcon(_ThemedSvgEngine(svg_text(FILES[name])))


@lru_cache(maxsize=None)
def svg_text(stem: str) -> str:
    """The SVG source of an icon, read from the installed package's data."""
    return (resources.files("sopstudio") / FOLDER / f"{stem}.svg").read_text(encoding="utf-8")


def dark_colours() -> dict[str, str]:
    """Light colour -> dark colour, for every canvas colour the icons use."""
    pairs = {style.LIGHT[name].name(): style.DARK[name].name() for name in style.DARK}
    (light_fills, light_default), (dark_fills, dark_default) = (style.LIGHT_OUTCOMES,
                                                                style.DARK_OUTCOMES)
    for (_, light), (_, dark) in zip(light_fills, dark_fills):
        pairs[light.name()] = dark.name()
    pairs[light_default.name()] = dark_default.name()
    return pairs


def themed(svg: str, dark: bool) -> str:
    """The SVG in the light or the dark theme's colours."""
    if not dark:
        return svg
    for light, colour in dark_colours().items():
        svg = svg.replace(light, colour)
    return svg


def dark_theme() -> bool:
    """Whether the canvas (and so the window) is dark now."""
    return style.BACKGROUND.lightness() < 128


class _ThemedSvgEngine(QIconEngine):
    """Renders one SVG at any size, in the current theme's colours, greyed when disabled."""

    def __init__(self, svg: str) -> None:
        super().__init__()
        self.svg = svg
        self._renderers: dict[bool, QSvgRenderer] = {}

    def _renderer(self) -> QSvgRenderer:
        dark = dark_theme()
        if dark not in self._renderers:
            self._renderers[dark] = QSvgRenderer(QByteArray(themed(self.svg, dark).encode()))
        return self._renderers[dark]

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        if mode == QIcon.Disabled:
            painter.setOpacity(DISABLED_OPACITY)
        self._renderer().render(painter, QRectF(rect))
        painter.restore()

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        pixmap = QPixmap(size)
        pixmap.fill(Qt.transparent)
        painter = QPainter(pixmap)
        self.paint(painter, QRect(0, 0, size.width(), size.height()), mode, state)
        painter.end()
        return pixmap

    def clone(self) -> QIconEngine:
        return _ThemedSvgEngine(self.svg)
