"""Where the docks are: the Inspector and Problems in front on first launch (the simulation
docks tab in behind), selecting raises the Inspector, and a saved layout covers the simulation
docks."""

from __future__ import annotations

import pytest

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.qt.app import open_window

from qt_helpers import SAMPLES, in_front

SAMPLE = SAMPLES / "telecom_troubleshooting.sop.json"


@pytest.fixture
def telecom_window(open_main_window):
    """The telecom sample with the simulation docks, shown (its own layout, as on first launch)."""
    return open_main_window(Document(load_sop(SAMPLE), SAMPLE), simulation=True)


def test_inspector_and_problems_are_in_front_on_first_launch(telecom_window):
    sim = telecom_window.simulation
    assert in_front(telecom_window.inspector_dock) and not in_front(sim.sim_dock)
    assert in_front(telecom_window.problems_dock) and not in_front(sim.runs_dock)


def test_selecting_raises_the_inspector_tab(telecom_window, qtbot):
    sim = telecom_window.simulation
    sim.sim_dock.raise_()
    qtbot.waitUntil(lambda: in_front(sim.sim_dock))
    assert not in_front(telecom_window.inspector_dock)
    node_id = telecom_window.session.sop.nodes[0].id
    telecom_window.scene.select_ids([node_id])
    qtbot.waitUntil(lambda: in_front(telecom_window.inspector_dock))
    assert telecom_window.inspector.form("node").ident == node_id
    edge_id = telecom_window.session.sop.edges[0].id
    sim.sim_dock.raise_()
    telecom_window.scene.select_ids([], [edge_id])
    qtbot.waitUntil(lambda: in_front(telecom_window.inspector_dock))


def test_saved_layout_covers_the_simulation_docks(qtbot, settings, store_link):
    first = open_window(SAMPLE, settings, simulation=True, store_link=store_link)
    first.show()
    qtbot.waitExposed(first)
    first.simulation.runs_dock.hide()
    first.simulation.sim_dock.raise_()
    first.session.mark_saved()
    first.simulation.shutdown()
    first.close()
    again = open_window(SAMPLE, settings, simulation=True, store_link=store_link)
    again.show()
    qtbot.waitExposed(again)
    assert again.simulation.runs_dock.isHidden()  # restoreState knew the simulation docks
    assert in_front(again.simulation.sim_dock)  # and which tab was in front
    again.session.mark_saved()
    again.simulation.shutdown()
    again.close()
