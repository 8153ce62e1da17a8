"""The editor's link to the local store (versions, diffs, tool library).

The store is optional at run time: when it cannot be opened, saving still writes the file and
the history and library docks say why they are empty. One Store per database path is kept open.
"""

from __future__ import annotations

import atexit
import importlib
import os

_open: dict = {}
last_error: str = ""


def store():
    """The open Store for the current database (SOPSTUDIO_DB or the default), or None."""
    global last_error
    try:
        module = importlib.import_module("sopstudio.store")
        key = module.resolve_path(None)
        if key not in _open:
            _open[key] = module.open_store(None)
        return _open[key]
    except Exception as problem:  # noqa: BLE001 - any store failure degrades to "no store"
        last_error = f"{problem.__class__.__name__}: {problem}"
        return None


def record_version(sop, message: str):
    found = store()
    if found is None:
        return None
    try:
        return found.record(sop, message)
    except Exception as problem:  # noqa: BLE001
        global last_error
        last_error = str(problem)
        return None


def close_all() -> None:
    for opened in _open.values():
        try:
            opened.close()
        except Exception:  # noqa: BLE001 - closing at exit must never raise
            pass
    _open.clear()


atexit.register(close_all)


def database_hint() -> str:
    return os.environ.get("SOPSTUDIO_DB", "") or "default store"


def library_tools(query: str = "") -> list:
    found = store()
    if found is None:
        return []
    try:
        return found.search_tools(query) if query else found.list_tools()
    except Exception:  # noqa: BLE001 - an unreadable library shows as empty
        return []


def library_tool(name: str):
    found = store()
    if found is None:
        return None
    try:
        return found.get_tool(name)
    except Exception:  # noqa: BLE001 - not in the library
        return None
