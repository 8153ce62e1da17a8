"""Double-clicking a subflow node opens its child file with a breadcrumb bar; clicking the
parent's crumb goes back; unsaved changes are asked about as File ▸ Open does."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sopstudio.core.document import Document
from sopstudio.core.edits_fields import SetField
from sopstudio.core.io import load_sop

from qt_helpers import FIXTURES

PARENT = FIXTURES / "subflows" / "refund.sop.json"


def double_click_node(qtbot, win, node_id: str) -> None:
    item = win.scene.nodes[node_id]
    win.view.centerOn(item)
    point = win.view.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseDClick(win.view.viewport(), Qt.LeftButton, pos=point)


def test_double_click_opens_the_child_and_the_crumb_goes_back(qtbot, open_main_window):
    win = open_main_window(Document(load_sop(PARENT), PARENT), size=(1200, 800))
    bar = win.subflows.bar
    assert not bar.isVisible()
    double_click_node(qtbot, win, "verify")
    qtbot.waitUntil(lambda: win.session.document.path.name == "verify.sop.json")
    child_title = win.session.sop.title
    assert bar.isVisible()
    assert bar.text() == f"Refund an order (identity check as a sub-SOP) › {child_title}"
    assert "ask_customer" in win.scene.nodes
    qtbot.mouseClick(bar.buttons[0], Qt.LeftButton)
    qtbot.waitUntil(lambda: win.session.document.path == PARENT)
    assert "verify" in win.scene.nodes and not bar.isVisible()


def test_leaving_an_edited_parent_asks_first(qtbot, open_main_window, monkeypatch):
    win = open_main_window(Document(load_sop(PARENT), PARENT), size=(1200, 800))
    win.session.push(SetField("sop", None, "description", "edited"))
    asked = []

    def cancel(*args, **kwargs):
        asked.append(args[1])
        return QMessageBox.Cancel
    monkeypatch.setattr(QMessageBox, "question", cancel)
    double_click_node(qtbot, win, "verify")
    qtbot.waitUntil(lambda: asked == ["Unsaved changes"])
    assert win.session.document.path == PARENT and win.session.sop.description == "edited"
    assert not win.subflows.bar.isVisible() and not win.subflows.trail


def test_a_subflow_node_names_its_child_file(open_main_window):
    win = open_main_window(Document(load_sop(PARENT), PARENT), show=False)
    item = win.scene.nodes["verify"]
    assert "verify.sop.json" in item.markers
    assert "double-click to open" in item.toolTip()
