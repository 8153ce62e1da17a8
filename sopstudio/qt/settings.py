"""Application settings (window state, recent files) in QSettings.

The organisation and application names identify our settings on each platform. Tests and
scripts point SOPSTUDIO_SETTINGS at an INI file so the user's real settings are never touched.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

ORGANISATION = "SOP Studio"
APPLICATION = "sopstudio"
MAX_RECENT = 10


def app_settings() -> QSettings:
    path = os.environ.get("SOPSTUDIO_SETTINGS")
    if path:
        return QSettings(path, QSettings.IniFormat)
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORGANISATION, APPLICATION)


def recent_files(settings: QSettings) -> list[str]:
    value = settings.value("recent_files", [])
    if isinstance(value, str):  # QSettings gives a bare string for a one-item list
        value = [value]
    return [str(v) for v in (value or [])]


def add_recent(settings: QSettings, path: str) -> list[str]:
    files = [path] + [p for p in recent_files(settings) if p != path]
    files = files[:MAX_RECENT]
    settings.setValue("recent_files", files)
    return files
