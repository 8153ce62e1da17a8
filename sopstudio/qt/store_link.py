"""The editor's link to the local store (versions, diffs, tool library, stored runs).

One `StoreLink` is made by the application and handed to the main window, which passes it to the
parts that need the store. The store is optional at run time: when it cannot be opened or a read
or write fails, the link says why through `failed` (the window shows it in the status bar, the
docks in their own status lines) and `last_error`; saving still writes the file. The link opens
one Store per database path (SOPSTUDIO_DB or the default) and closes them in `close()`.
"""

from __future__ import annotations

import logging
import os
import sqlite3

from PySide6.QtCore import QObject, Signal

from ..core.errors import SopStudioError

log = logging.getLogger(__name__)

# What a store failure can raise: the database (sqlite3), the file system, our own errors.
STORE_ERRORS = (sqlite3.Error, OSError, SopStudioError, ValueError)


class StoreLink(QObject):
    failed = Signal(str)  # one plain line: why the store could not do what was asked

    def __init__(self, parent=None):
        super().__init__(parent)
        self._open: dict = {}
        self.last_error = ""

    def _fail(self, action: str, problem: Exception) -> None:
        log.warning("store: %s failed: %s", action, problem)
        self.last_error = f"{problem.__class__.__name__}: {problem}"
        self.failed.emit(f"Store unavailable ({action}): {problem}")

    def store(self):
        """The open Store for the current database, or None (then `last_error` says why)."""
        try:
            from .. import store as store_module  # loaded once the store is first used
            key = store_module.resolve_path(None)
            if key not in self._open:
                self._open[key] = store_module.open_store(None)
            return self._open[key]
        except (ImportError, *STORE_ERRORS) as problem:
            self._fail("opening", problem)
            return None

    def record_version(self, sop, message: str, path=None):
        """Record `sop` (saved to `path`) as a version; None when there is no store or recording
        failed. An id whose history came from another file raises store.IdentityConflict: the
        caller asks the user what to do."""
        found = self.store()
        if found is None:
            return None
        from ..store import IdentityConflict
        try:
            return found.history.record(sop, message, path=path)
        except IdentityConflict:
            raise
        except STORE_ERRORS as problem:
            self._fail("recording a version", problem)
            return None

    def library_tools(self, query: str = "") -> list:
        found = self.store()
        if found is None:
            return []
        try:
            return found.library.search(query) if query else found.library.list()
        except STORE_ERRORS as problem:  # an unreadable library shows as empty, and says why
            self._fail("reading the tool library", problem)
            return []

    def library_tool(self, name: str):
        found = self.store()
        if found is None:
            return None
        from ..store.db import StoreError
        try:
            return found.library.get(name)
        except StoreError:
            return None  # not in the library: the caller makes a new tool
        except STORE_ERRORS as problem:
            self._fail("reading the tool library", problem)
            return None

    def close(self) -> None:
        """Close every store this link opened (closing must never raise: it runs at exit)."""
        for opened in self._open.values():
            try:
                opened.close()
            except STORE_ERRORS as problem:
                log.warning("store: closing failed: %s", problem)
        self._open.clear()

    @staticmethod
    def database_hint() -> str:
        return os.environ.get("SOPSTUDIO_DB", "") or "default store"
