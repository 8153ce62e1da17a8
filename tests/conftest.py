"""Shared fixtures. Qt runs offscreen; nothing here reaches the network.

Every test runs in its own sandbox: HOME, the XDG folders, the store database (and so the
autosave folder beside it), the Qt settings file and the temporary-file folder all point into
pytest's per-test temporary folders, so no test reads or writes the user's real files.
Subprocesses started by a test inherit that environment.
"""

from __future__ import annotations

import os
import sys
import tempfile

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.configuration import set_hypothesis_home_dir

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Hypothesis keeps failing examples in ./.hypothesis by default: that would write into the
# checkout. Tests shrink and report a failure in the run that finds it, so no database.
hypothesis_settings.register_profile("sopstudio", database=None)
hypothesis_settings.load_profile("sopstudio")

# Folders under the fake HOME that the app or its libraries may write to.
SANDBOX_FOLDERS = {"HOME": "home", "XDG_CONFIG_HOME": "home/.config",
                   "XDG_DATA_HOME": "home/.local/share", "XDG_CACHE_HOME": "home/.cache",
                   "XDG_STATE_HOME": "home/.local/state", "XDG_RUNTIME_DIR": "runtime",
                   "TMPDIR": "tmp"}


@pytest.fixture(autouse=True, scope="session")
def _hypothesis_home(tmp_path_factory):
    """Hypothesis also caches Unicode tables in its home folder (./.hypothesis by default)."""
    set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    set_hypothesis_home_dir(None)


@pytest.fixture(autouse=True)
def _sandbox(tmp_path, tmp_path_factory, monkeypatch):
    """Point every user-level location at temporary folders for the length of one test.

    The store and settings files sit in the test's own `tmp_path` (tests read them there);
    the HOME-like folders go in a sibling folder so that a test listing `tmp_path` sees only
    what it wrote."""
    root = tmp_path_factory.mktemp("sandbox")
    for variable, relative in SANDBOX_FOLDERS.items():
        folder = root / relative
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(variable, str(folder))
    (root / "runtime").chmod(0o700)  # Qt ignores a runtime folder others can read
    monkeypatch.setattr(tempfile, "tempdir", str(root / "tmp"))
    monkeypatch.setenv("SOPSTUDIO_DB", str(tmp_path / "store.sqlite"))  # autosave: beside it
    monkeypatch.setenv("SOPSTUDIO_SETTINGS", str(tmp_path / "settings.ini"))
    _point_qt_user_settings_at(root / "home/.config")


def _point_qt_user_settings_at(folder) -> None:
    """QSettings caches its per-user folder at first use, so the XDG variable alone is not
    enough once Qt is loaded; only a test that already imported Qt needs this."""
    qtcore = sys.modules.get("PySide6.QtCore")
    if qtcore is not None:
        for fmt in (qtcore.QSettings.NativeFormat, qtcore.QSettings.IniFormat):
            qtcore.QSettings.setPath(fmt, qtcore.QSettings.UserScope, str(folder))

