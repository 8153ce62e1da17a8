"""Defects found by a new-user trial of the editor (offscreen): docks in front, readable zoom,
stale inspector commits, id syntax, fixed undo buttons, the START marker on top, paste spacing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRectF, QSettings, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from sopstudio.core.document import Document
from sopstudio.core.edits import SetField
from sopstudio.qt.app import open_window
from sopstudio.qt.canvas import style
from sopstudio.qt.canvas.view import READABLE_SCALE
from sopstudio.qt.commands import describe
from sopstudio.qt.main_window import MainWindow

from test_qt_canvas import make_sop

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_sops" / "telecom_troubleshooting.sop.json"
TAU2_DOT = Path("/work/shared/external/tau2-telecom/tech_support_path1_no_service.dot")


def _settings(tmp_path, name="settings.ini") -> QSettings:
    return QSettings(str(tmp_path / name), QSettings.IniFormat)


def _close(window) -> None:
    window.session.mark_saved()
    if getattr(window, "simulation", None) is not None:
        window.simulation.shutdown()
    window.close()
    window.deleteLater()


def _in_front(dock) -> bool:
    """Shown and not covered by another tab (hidden tabs are moved out of sight)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


@pytest.fixture
def window(qtbot, tmp_path):
    win = MainWindow(Document(make_sop(), tmp_path / "t.sop.json"), _settings(tmp_path))
    win.show()
    qtbot.waitExposed(win)
    yield win
    _close(win)


@pytest.fixture
def sim_window(qtbot, tmp_path):
    win = open_window(SAMPLE, _settings(tmp_path), simulation=True)
    win.show()
    qtbot.waitExposed(win)
    yield win
    _close(win)


# --- 1. docks -----------------------------------------------------------------------------------
def test_inspector_and_problems_are_in_front_on_first_launch(sim_window):
    sim = sim_window.simulation
    assert _in_front(sim_window.inspector_dock) and not _in_front(sim.sim_dock)
    assert _in_front(sim_window.problems_dock) and not _in_front(sim.runs_dock)


def test_selecting_raises_the_inspector_tab(sim_window, qtbot):
    sim = sim_window.simulation
    sim.sim_dock.raise_()
    qtbot.waitUntil(lambda: _in_front(sim.sim_dock))
    assert not _in_front(sim_window.inspector_dock)
    node_id = sim_window.session.sop.nodes[0].id
    sim_window.scene.select_ids([node_id])
    qtbot.waitUntil(lambda: _in_front(sim_window.inspector_dock))
    assert sim_window.inspector.form("node").ident == node_id
    edge_id = sim_window.session.sop.edges[0].id
    sim.sim_dock.raise_()
    sim_window.scene.select_ids([], [edge_id])
    qtbot.waitUntil(lambda: _in_front(sim_window.inspector_dock))


def test_saved_layout_covers_the_simulation_docks(qtbot, tmp_path):
    first = open_window(SAMPLE, _settings(tmp_path), simulation=True)
    first.show()
    qtbot.waitExposed(first)
    first.simulation.runs_dock.hide()
    first.simulation.sim_dock.raise_()
    first.session.mark_saved()
    first.simulation.shutdown()
    first.close()
    again = open_window(SAMPLE, _settings(tmp_path), simulation=True)
    again.show()
    qtbot.waitExposed(again)
    assert again.simulation.runs_dock.isHidden()  # restoreState knew the simulation docks
    assert _in_front(again.simulation.sim_dock)  # and which tab was in front
    _close(again)


# --- 3. readable zoom ---------------------------------------------------------------------------
@pytest.mark.skipif(not TAU2_DOT.exists(), reason="the tau2 DOT export is not available")
def test_big_imported_graph_opens_at_a_readable_scale(qtbot, tmp_path):
    from sopstudio.formats import import_file
    sop = import_file(str(TAU2_DOT)).sop
    assert len(sop.nodes) >= 30
    win = MainWindow(Document(sop, None), _settings(tmp_path))
    win.show()
    qtbot.waitExposed(win)
    assert win.size().width() == 1500 and win.size().height() == 950
    rect = win.scene.itemsBoundingRect()
    qtbot.waitUntil(lambda: win.view.mapToScene(win.view.viewport().rect()).boundingRect()
                    .contains(QPointF(rect.center().x(), rect.top() + 40)))
    assert win.view.scale_factor() >= READABLE_SCALE
    # Fit again by hand: same rule, the top of the graph (where it starts) is in view.
    win.view.zoom_out()
    win.view.fit_all()
    assert win.view.scale_factor() >= READABLE_SCALE
    start = win.scene.nodes[sop.start]
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(start.sceneBoundingRect().center())
    # A screenshot asks for the whole graph, whatever the scale.
    win.view.fit_all(floor=0.0)
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(rect)
    _close(win)


def _dark_pixels(window, scale: float) -> int:
    item = window.scene.nodes["check"]
    rect = item.sceneBoundingRect()
    image = QImage(int(rect.width() * scale) + 2, int(rect.height() * scale) + 2,
                   QImage.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    window.scene.clearSelection()
    window.scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    return sum(1 for x in range(image.width()) for y in range(image.height())
               if QColor(image.pixel(x, y)).lightness() < 90)


def test_text_is_drawn_at_the_readable_scale(window):
    assert style.TEXT_DETAIL < READABLE_SCALE / 2
    assert _dark_pixels(window, READABLE_SCALE) > 20  # the title's glyphs


# --- 4. inspector commits -----------------------------------------------------------------------
def test_deleting_the_node_being_renamed_gives_no_error(window, qtbot):
    window.scene.select_ids(["ok"])
    form = window.inspector.form("node")
    ident = form.bindings["id"].widget
    ident.setFocus()
    qtbot.keyClicks(ident, "_x")
    window.editor.delete_selection()
    assert window.session.sop.node("ok") is None
    ident.editingFinished.emit()  # what losing focus does after the node is gone
    assert window.statusBar().currentMessage() == ""
    assert window.session.sop.node("ok_x") is None and window.session.undo_stack.count() == 1


def test_node_ids_with_spaces_are_refused_inline(window, qtbot):
    window.scene.select_ids(["check"])
    form = window.inspector.form("node")
    binding = form.bindings["id"]
    binding.widget.selectAll()
    qtbot.keyClicks(binding.widget, "check account")
    assert binding.error.isVisibleTo(form) and "space" in binding.error.text()
    qtbot.keyClick(binding.widget, Qt.Key_Return)
    assert window.session.sop.node("check") is not None
    assert window.session.undo_stack.count() == 0
    binding.widget.selectAll()
    qtbot.keyClicks(binding.widget, "check.account-2")
    qtbot.keyClick(binding.widget, Qt.Key_Return)
    assert window.session.sop.node("check.account-2") is not None
    assert window.inspector.stack.currentWidget() is form and form.ident == "check.account-2"


# --- 4. undo buttons and wording ------------------------------------------------------------------
def test_undo_buttons_keep_their_text_and_describe_in_tooltip_and_menu(window):
    toolbar = window.findChild(type(window.addToolBar("probe")), "main_toolbar")
    undo = window.actions_by_name["undo"]
    button = toolbar.widgetForAction(undo)
    width = button.sizeHint().width()
    window.session.push(SetField("edge", "e2", "when", "status == 'blocked'"))
    assert button.text() == "Undo" and button.sizeHint().width() == width
    assert "Edit condition of e2" in button.toolTip()
    assert undo.text() == "&Undo Edit condition of e2"  # the Edit menu says what it undoes
    window.session.undo_stack.undo()
    redo_button = toolbar.widgetForAction(window.actions_by_name["redo"])
    assert redo_button.text() == "Redo" and "Edit condition of e2" in redo_button.toolTip()


def test_edit_descriptions_are_for_people():
    assert describe(SetField("edge", "e1", "when", "x")) == "Edit condition of e1"
    assert describe(SetField("node", "a", "id", "b")) == "Rename node a to b"
    assert describe(SetField("node", "a", "title", "T")) == "Edit title of a"
    assert describe(SetField("sop", None, "start", "a")) == "Set start node to a"
    assert describe(SetField("tool", "t", "parameters", {})) == "Edit parameters schema of t"


# --- 4. START marker and paste ------------------------------------------------------------------
def test_start_marker_is_drawn_above_simulation_rings(window):
    from sopstudio.qt.sim_overlay import NodeMark
    node = window.scene.nodes["ask"]
    ring = NodeMark(node)
    marker = node.start_marker
    assert marker is not None and marker.zValue() > ring.zValue()
    label = marker.mapToScene(marker.boundingRect().center())
    assert window.scene.items(label)[0] is marker  # topmost where the word START is
    window.session.push(SetField("sop", None, "start", "check"))
    assert node.start_marker is None and window.scene.nodes["check"].start_marker is not None


def test_pasted_copies_never_overlap_originals_or_earlier_copies(window):
    window.scene.select_ids(["ask", "check"])
    assert window.editor.copy()
    first = window.editor.paste()
    second = window.editor.paste()
    assert len(first) == len(second) == 2
    items = list(window.scene.nodes.values())
    for index, item in enumerate(items):
        for other in items[index + 1:]:
            assert not item.sceneBoundingRect().intersects(other.sceneBoundingRect()), \
                (item.node_id, other.node_id)
