"""Toolbar icons come from the SVG files shipped in the package, are visible on the light and
the dark theme, follow a theme switch without being set again, and are packaged in the wheel."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from sopstudio.qt import theme
from sopstudio.qt.canvas import icons

ROOT = Path(__file__).resolve().parents[2]
SIZE = 32


@pytest.fixture
def themed(qapp):
    """theme.apply(name), restoring the system theme afterwards."""
    yield theme.apply
    theme.apply("system")


def _pixels(icon: QIcon, mode=QIcon.Normal) -> list[QColor]:
    image = icon.pixmap(SIZE, SIZE, mode).toImage()
    return [image.pixelColor(x, y) for x in range(SIZE) for y in range(SIZE)]


def _contrast(icon: QIcon, background: QColor) -> int:
    """The largest lightness difference between an opaque pixel and the background."""
    return max(abs(c.lightness() - background.lightness()) for c in _pixels(icon)
               if c.alpha() > 200)


def test_every_toolbar_icon_is_an_svg_file_of_the_package(qapp):
    folder = resources.files("sopstudio") / icons.FOLDER
    for name, stem in icons.FILES.items():
        assert (folder / f"{stem}.svg").is_file(), stem
        icon = icons.icon(name)
        assert icon is not None and not icon.isNull()
        opaque = sum(1 for c in _pixels(icon) if c.alpha() > 200)
        assert opaque > SIZE, f"{name} draws almost nothing"
    assert icons.icon("no_such_action") is None


@pytest.mark.parametrize("name", ["light", "dark"])
def test_icons_stand_out_from_the_window_in_both_themes(themed, name):
    themed(name)
    window = QApplication.instance().palette().color(QPalette.Window)
    for action in ("undo", "zoom_in", "find", "add_end", "layout"):
        assert _contrast(icons.icon(action), window) > 90, (name, action)


def test_one_icon_recolours_when_the_theme_changes(themed):
    icon = icons.icon("zoom_in")

    def handle() -> QColor:  # a pixel on the lens's handle, drawn in the ink colour
        return icon.pixmap(SIZE, SIZE).toImage().pixelColor(24, 24)

    themed("light")
    light = handle()
    themed("dark")
    dark = handle()
    assert light.alpha() == dark.alpha() == 255
    assert dark.lightness() > light.lightness() + 40  # the same QIcon paints light ink on dark


def test_the_dark_colours_are_the_canvas_dark_colours():
    svg = icons.svg_text("task")
    dark = icons.themed(svg, dark=True)
    assert "#eef4fb" in svg and "#eef4fb" not in dark
    assert icons.dark_colours()["#eef4fb"] == "#243447"  # style.DARK["TASK_FILL"]


def test_a_disabled_action_draws_its_icon_dimmed(qapp):
    icon = icons.icon("undo")
    normal = sum(c.alpha() for c in _pixels(icon))
    disabled = sum(c.alpha() for c in _pixels(icon, QIcon.Disabled))
    assert 0 < disabled < normal * 0.6


def test_the_window_actions_use_the_packaged_icons(open_main_window):
    win = open_main_window()
    for name in icons.FILES:
        shown = win.actions_by_name[name].icon().pixmap(SIZE, SIZE).toImage()
        assert shown == icons.icon(name).pixmap(SIZE, SIZE).toImage(), name


def test_pyproject_ships_every_icon_in_the_installed_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["sopstudio"]
    shipped = [p.relative_to(ROOT / "sopstudio").as_posix()
               for p in (ROOT / "sopstudio" / icons.FOLDER).glob("*.svg")]
    assert len(shipped) == len(set(icons.FILES.values()))
    for path in shipped:
        assert any(fnmatch.fnmatch(path, pattern) and path.count("/") == pattern.count("/")
                   for pattern in patterns), path
