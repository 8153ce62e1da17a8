"""The per-test sandbox of conftest.py: every user-level location the app or a CLI subprocess
would write to lies inside pytest's temporary folder, never in the user's real HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sopstudio.store import default_path, resolve_path

LOCATIONS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
             "XDG_RUNTIME_DIR", "TMPDIR", "SOPSTUDIO_DB", "SOPSTUDIO_SETTINGS")


def inside(path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


def test_user_locations_are_in_the_temporary_folder(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    assert all(inside(os.environ[name], base) for name in LOCATIONS)
    assert inside(tempfile.gettempdir(), base)
    assert inside(resolve_path(None), base)  # the store; autosave lives beside it


def test_the_default_store_without_the_variable_is_in_the_fake_home(monkeypatch):
    monkeypatch.delenv("SOPSTUDIO_DB")
    assert inside(resolve_path(None), Path(os.environ["XDG_DATA_HOME"]))
    assert resolve_path(None) == default_path()


def test_each_test_starts_with_empty_folders(tmp_path):
    home = Path(os.environ["HOME"])
    assert sorted(p.name for p in home.iterdir()) == [".cache", ".config", ".local"]
    assert [p for p in home.rglob("*") if not p.is_dir()] == []
    assert list(tmp_path.iterdir()) == []  # the store and settings files are made on first use


def test_a_cli_subprocess_inherits_the_sandbox():
    code = ("import json, os, tempfile; "
            "print(json.dumps([os.environ['HOME'], tempfile.gettempdir()]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert json.loads(result.stdout) == [os.environ["HOME"], os.environ["TMPDIR"]]
