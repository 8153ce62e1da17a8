"""Fixtures of the Qt tests: windows and docks on temporary settings and a temporary store
(the root conftest points SOPSTUDIO_DB and SOPSTUDIO_SETTINGS into the test's tmp folder)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop
from sopstudio.qt.main_window import MainWindow
from sopstudio.qt.session import EditSession
from sopstudio.qt.settings import app_settings
from sopstudio.qt.sim.dock import SimulationDock
from sopstudio.qt.sim.integration import attach_simulation
from sopstudio.qt.store_link import StoreLink

from qt_helpers import SAMPLES, make_sop


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)


@pytest.fixture
def store_link():
    link = StoreLink()
    yield link
    link.close()


@pytest.fixture
def open_main_window(qtbot, settings, store_link):
    """Make main windows: `open_main_window(document=None, simulation=False, show=True)`;
    each is closed (nothing asked, workers stopped) after the test."""
    made = []

    def make(document=None, simulation: bool = False, show: bool = True, size=None):
        win = MainWindow(document, settings, restore=False, store_link=store_link)
        if simulation:
            attach_simulation(win)
        win.restore_state()
        if size:
            win.resize(*size)
        made.append(win)
        if show:
            win.show()
            qtbot.waitExposed(win)
        else:
            qtbot.addWidget(win)
        return win
    yield make
    for win in made:
        win.session.mark_saved()  # nothing to ask about when the window closes
        if getattr(win, "simulation", None) is not None:
            win.simulation.shutdown()
        win.close()
        win.deleteLater()


@pytest.fixture
def window(open_main_window, tmp_path):
    """The editor on `helpers.make_sop()` (saved as t.sop.json in tmp), shown at 1200×800,
    at scale 1 centred on the graph."""
    win = open_main_window(Document(make_sop(), tmp_path / "t.sop.json"), size=(1200, 800))
    win.view.resetTransform()
    win.view.centerOn(0, 200)
    return win


@pytest.fixture
def sim_window(open_main_window):
    """The listing-blocked sample with the simulation docks, not shown."""
    path = SAMPLES / "listing_blocked.sop.json"
    return open_main_window(Document(load_sop(path), path), simulation=True, show=False)


@pytest.fixture
def make_dock(qtbot, store_link):
    """Make simulation docks on a sample: `make_dock("email_update.sop.json")`."""
    made = []

    def make(sample: str = "listing_blocked.sop.json") -> SimulationDock:
        session = EditSession(Document(load_sop(SAMPLES / sample)))
        dock = SimulationDock(session, app_settings(), store_link)
        qtbot.addWidget(dock)
        made.append(dock)
        return dock
    yield make
    for dock in made:
        dock.shutdown()
