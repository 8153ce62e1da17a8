"""Shared fixtures. Qt runs offscreen; nothing here reaches the network."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch):
    """Every test gets its own store database and settings file, never the user's real ones."""
    monkeypatch.setenv("SOPSTUDIO_DB", str(tmp_path / "store.sqlite"))
    monkeypatch.setenv("SOPSTUDIO_SETTINGS", str(tmp_path / "settings.ini"))
