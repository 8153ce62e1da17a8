"""Shared fixtures. Qt runs offscreen; nothing here reaches the network."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_sops").glob("*.sop.json"))


@pytest.fixture
def sample_paths() -> list[Path]:
    return list(SAMPLES)


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch):
    """Every test gets its own store database, never the user's real one."""
    monkeypatch.setenv("SOPSTUDIO_DB", str(tmp_path / "store.sqlite"))
