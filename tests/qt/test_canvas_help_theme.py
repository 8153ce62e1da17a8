"""Icons and tooltips that explain with shortcuts, the Help menu, the empty-canvas hint, and
View ▸ Theme (palette and canvas colours, remembered in the settings)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QTableWidget, QTextBrowser

from sopstudio.qt import theme
from sopstudio.qt.canvas import style


def test_toolbar_actions_have_icons_and_tooltips_with_shortcuts(window):
    actions = window.actions_by_name
    for name in ("new", "open", "save", "add_task", "add_decision", "add_end", "layout", "fit",
                 "zoom_in", "zoom_out"):
        assert not actions[name].icon().isNull(), name
    assert actions["add_task"].toolTip() == \
        "Add a task step in free space at the centre of the view (T)"
    assert actions["layout"].toolTip().endswith("(Ctrl+L)")
    assert actions["fit"].toolTip() != actions["fit"].text().replace("&", "")


def test_help_menu_opens_quick_start_and_the_shortcut_list(window, qtbot):
    qtbot.waitUntil(lambda: window.menuBar().actions()[-1].text() == "&Help")
    window.help_actions["shortcuts"].trigger()
    table = next(t for t in window.findChildren(QTableWidget)
                 if t.horizontalHeaderItem(0) and t.horizontalHeaderItem(0).text() == "Action")
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Auto-layout"] == "Ctrl+L" and rows["Add Task"] == "T"
    window.help_actions["quick_start"].trigger()
    browser = window.findChildren(QTextBrowser)[-1]
    assert "double-click the canvas" in browser.toPlainText()


def test_theme_switch_recolours_and_is_remembered(window):
    try:
        window.theme_actions["dark"].trigger()
        assert window.scene.backgroundBrush().color().lightness() < 80
        assert QApplication.instance().palette().color(QPalette.Window).lightness() < 80
        assert style.TEXT.lightness() > 180  # canvas text light on dark
        assert window.settings.value(theme.SETTING) == "dark"
        assert theme.chosen(window.settings) == "dark"
        window.theme_actions["light"].trigger()
        assert window.scene.backgroundBrush().color().lightness() > 200
        assert style.TEXT.lightness() < 80
        assert window.settings.value(theme.SETTING) == "light"
    finally:
        window.set_theme("system")  # other tests in this process see the default colours


def test_an_empty_canvas_shows_where_to_begin(open_main_window):
    win = open_main_window()
    assert not win.scene.nodes
    image = win.view.grab().toImage()
    background = win.scene.backgroundBrush().color()
    centre = image.rect().center()
    band = [QColor(image.pixel(x, centre.y() + dy)) for x in range(centre.x() - 150,
            centre.x() + 150) for dy in range(-8, 9)]
    assert sum(1 for c in band if abs(c.lightness() - background.lightness()) > 60) > 30
