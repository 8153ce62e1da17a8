"""Double-clicking a subflow node opens its child file with a breadcrumb bar; clicking the
parent's crumb goes back; unsaved changes are asked about as File ▸ Open does."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sopstudio.core.document import Document
from sopstudio.core.edits_fields import SetField
from sopstudio.core.io import load_sop

from qt_helpers import FIXTURES, TIMEOUT

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


def copy_fixtures(folder):
    for name in ("refund.sop.json", "verify.sop.json"):
        (folder / name).write_text((PARENT.parent / name).read_text("utf-8"), "utf-8")
    return folder / "refund.sop.json"


def edit_child_then_climb_back(qtbot, win, monkeypatch, answer) -> list:
    """Open the child, retitle its first step (unsaved), click the parent's crumb and answer
    the unsaved-changes question with `answer`; the questions asked."""
    double_click_node(qtbot, win, "verify")
    qtbot.waitUntil(lambda: win.session.document.path.name == "verify.sop.json")
    win.session.push(SetField("node", "ask_customer", "title", "Check the customer id"))
    asked = []

    def reply(*args, **kwargs):
        asked.append(args[1])
        return answer
    monkeypatch.setattr(QMessageBox, "question", reply)
    qtbot.mouseClick(win.subflows.bar.buttons[0], Qt.LeftButton)
    qtbot.waitUntil(lambda: win.session.document.path.name == "refund.sop.json")
    return asked


def run_parent(qtbot, win) -> list[str]:
    dock = win.simulation.dock
    dock.select(scenario="correct", agent="scripted")
    dock.run()
    qtbot.waitUntil(lambda: dock.state == "finished", timeout=TIMEOUT)
    return dock.chat_lines


@pytest.mark.parametrize("answer, title", [(QMessageBox.Save, "Check the customer id"),
                                           (QMessageBox.Discard, "Ask for the customer id")])
def test_a_parents_run_uses_the_childs_saved_file(qtbot, open_main_window, monkeypatch,
                                                   tmp_path, answer, title):
    parent = copy_fixtures(tmp_path)
    win = open_main_window(Document(load_sop(parent), parent), simulation=True,
                           size=(1200, 800))
    assert edit_child_then_climb_back(qtbot, win, monkeypatch, answer) == ["Unsaved changes"]
    saved = load_sop(tmp_path / "verify.sop.json").node("ask_customer").title
    assert saved == title
    assert f"→ Verify identity › {title}" in run_parent(qtbot, win)
    status = win.simulation.dock.status
    assert "sub-SOPs as saved: verify.sop.json" in status.text()
    assert str(tmp_path / "verify.sop.json") in status.toolTip()
