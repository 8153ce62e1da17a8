"""Menus and the toolbar of the main window: every action, its shortcut and its handler."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QLineEdit, QMenu

from . import help as help_dialogs
from . import theme
from .canvas import icons

S = QKeySequence.StandardKey


def _action(window, text, handler, shortcut=None, tip=""):
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.setStatusTip(tip or text.replace("&", ""))
    action.triggered.connect(lambda *_: handler())
    window.addAction(action)
    return action


def build(window) -> dict:
    """Create the actions, menus and toolbar of `window` (a MainWindow); return the actions."""
    w, ed, view = window, window.editor, window.view
    a = {
        "new": _action(w, "&New", w.files.new, S.New),
        "open": _action(w, "&Open…", w.files.open_dialog, S.Open),
        "save": _action(w, "&Save", w.files.save, S.Save, "Save and record a version"),
        "save_as": _action(w, "Save &As…", w.files.save_as_dialog, S.SaveAs),
        "import": _action(w, "&Import…", w.files.import_dialog),
        "export": _action(w, "&Export…", w.files.export_dialog, "Ctrl+E",
                          "Export in another format (says what the format drops)"),
        "quit": _action(w, "&Quit", w.close, S.Quit),
        "cut": _action(w, "Cu&t", ed.cut, S.Cut),
        "copy": _action(w, "&Copy", ed.copy, S.Copy),
        "paste": _action(w, "&Paste", ed.paste, S.Paste),
        "delete": _action(w, "&Delete", ed.delete_selection, S.Delete),
        "select_all": _action(w, "Select &All", w.select_all, S.SelectAll),
        "find": _action(w, "&Find…", w.focus_find, S.Find),
        "add_task": _action(w, "Add &Task", lambda: w.add_at_centre("task"), "T"),
        "add_decision": _action(w, "Add D&ecision", lambda: w.add_at_centre("decision"), "D"),
        "add_end": _action(w, "Add E&nd", lambda: w.add_at_centre("end"), "E"),
        "layout": _action(w, "Auto-&layout", w.auto_layout.auto_layout, "Ctrl+L"),
        "zoom_in": _action(w, "Zoom &In", view.zoom_in, S.ZoomIn),
        "zoom_out": _action(w, "Zoom &Out", view.zoom_out, S.ZoomOut),
        "fit": _action(w, "&Fit to Window", view.fit_whole, "Ctrl+0"),
    }
    a["undo"] = _undo_action(w, "&Undo", S.Undo, redo=False)
    a["redo"] = _undo_action(w, "&Redo", S.Redo, redo=True)
    _explain(a)
    _menus(w, a)
    _toolbar(w, a)
    _theme_menu(w)
    _help_menu(w, a)
    return a


# What each action does, for its tooltip (the shortcut is added to it).
EXPLAIN = {
    "new": "Start a new, empty SOP", "open": "Open an SOP file",
    "save": "Save the SOP and record a version in the history",
    "add_task": "Add a task step in free space at the centre of the view",
    "add_decision": "Add a decision (a diamond that branches on conditions)",
    "add_end": "Add an end node (an outcome of the SOP)",
    "layout": "Arrange the whole graph top to bottom with Graphviz (runs in the background; "
              "Cancel in the status bar)",
    "fit": "Zoom to show the whole graph, labels included",
    "zoom_in": "Zoom in (or turn the mouse wheel)", "zoom_out": "Zoom out",
    "find": "Find a node by id or title",
}


def _explain(a: dict) -> None:
    """Icons, and tooltips that say what an action does and show its shortcut."""
    for name, action in a.items():
        found = icons.icon(name)
        if found is not None:
            action.setIcon(found)
        if name in ("undo", "redo"):
            continue  # the stack's own text says what will be undone
        keys = action.shortcut().toString(QKeySequence.NativeText)
        text = EXPLAIN.get(name, action.text().replace("&", "").rstrip("…"))
        action.setToolTip(f"{text} ({keys})" if keys else text)


def _theme_menu(w) -> None:
    menu = w.view_menu.addMenu("&Theme")
    group = QActionGroup(w)
    current = theme.chosen(w.settings)
    w.theme_actions = {}
    for name in theme.THEMES:
        action = menu.addAction(name.capitalize())
        action.setCheckable(True)
        action.setChecked(name == current)
        action.triggered.connect(lambda _=False, n=name: w.set_theme(n))
        group.addAction(action)
        w.theme_actions[name] = action
    w.view_menu.addSeparator()


def _help_menu(w, a) -> None:
    # Help goes last in the menu bar: added once the event loop runs, after menus that other
    # parts add to the window (Simulate).
    menu = w.help_menu = QMenu("&Help", w)
    QTimer.singleShot(0, w, lambda: w.menuBar().addMenu(menu))
    w.help_actions = {
        "quick_start": menu.addAction("&Quick start", lambda: help_dialogs.quick_start(w)),
        "shortcuts": menu.addAction("&Keyboard shortcuts",
                                    lambda: help_dialogs.keyboard_shortcuts(w, a)),
    }
    w.help_actions["shortcuts"].setShortcut("Ctrl+/")


def _undo_action(w, text: str, shortcut, redo: bool):
    """The stack's own action: its text says what it undoes ("Undo Edit condition of e1") in
    the Edit menu and tooltip, while the toolbar button keeps the short, fixed icon text."""
    stack = w.session.undo_stack
    action = (stack.createRedoAction if redo else stack.createUndoAction)(w, text)
    action.setShortcut(shortcut)
    action.setIconText(text.replace("&", ""))
    return action


def _menus(w, a) -> None:
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    for key in ("new", "open"):
        file_menu.addAction(a[key])
    w.recent_menu = file_menu.addMenu("Open &Recent")
    for key in ("save", "save_as", None, "import", "export", None, "quit"):
        file_menu.addSeparator() if key is None else file_menu.addAction(a[key])
    edit_menu = bar.addMenu("&Edit")
    for key in ("undo", "redo", None, "cut", "copy", "paste", "delete", None, "select_all",
                "find"):
        edit_menu.addSeparator() if key is None else edit_menu.addAction(a[key])
    graph_menu = bar.addMenu("&Graph")
    for key in ("add_task", "add_decision", "add_end", None, "layout"):
        graph_menu.addSeparator() if key is None else graph_menu.addAction(a[key])
    view_menu = bar.addMenu("&View")
    for key in ("zoom_in", "zoom_out", "fit"):
        view_menu.addAction(a[key])
    w.view_menu = view_menu


def _toolbar(w, a) -> None:
    bar = w.addToolBar("Main")
    bar.setObjectName("main_toolbar")
    bar.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    for key in ("new", "open", "save", None, "undo", "redo", None, "add_task", "add_decision",
                "add_end", None, "layout", "fit", "zoom_in", "zoom_out"):
        bar.addSeparator() if key is None else bar.addAction(a[key])
    for key in ("new", "open", "save", "undo", "redo", "fit", "zoom_in", "zoom_out"):
        bar.widgetForAction(a[key]).setToolButtonStyle(Qt.ToolButtonIconOnly)  # well known
    bar.addSeparator()
    w.find_field = QLineEdit()
    w.find_field.setPlaceholderText("Find node…")
    w.find_field.setClearButtonEnabled(True)
    w.find_field.setMaximumWidth(220)
    w.find_field.returnPressed.connect(lambda: w.find(w.find_field.text()))
    bar.addWidget(w.find_field)
