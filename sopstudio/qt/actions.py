"""Menus and the toolbar of the main window: every action, its shortcut and its handler."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLineEdit

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
        "layout": _action(w, "Auto-&layout", ed.auto_layout, "Ctrl+L"),
        "zoom_in": _action(w, "Zoom &In", view.zoom_in, S.ZoomIn),
        "zoom_out": _action(w, "Zoom &Out", view.zoom_out, S.ZoomOut),
        "fit": _action(w, "&Fit to Window", view.fit_all, "Ctrl+0"),
    }
    a["undo"] = _undo_action(w, "&Undo", S.Undo, redo=False)
    a["redo"] = _undo_action(w, "&Redo", S.Redo, redo=True)
    _menus(w, a)
    _toolbar(w, a)
    return a


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
    for key in ("new", "open", "save", None, "undo", "redo", None, "add_task", "add_decision",
                "add_end", None, "layout", "fit", "zoom_in", "zoom_out"):
        bar.addSeparator() if key is None else bar.addAction(a[key])
    bar.addSeparator()
    w.find_field = QLineEdit()
    w.find_field.setPlaceholderText("Find node…")
    w.find_field.setClearButtonEnabled(True)
    w.find_field.setMaximumWidth(220)
    w.find_field.returnPressed.connect(lambda: w.find(w.find_field.text()))
    bar.addWidget(w.find_field)
