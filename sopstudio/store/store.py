"""The `Store`: one SQLite database holding versions, the tool library, scenarios and runs.

The Store owns the connection (opening, migration, closing, integrity check); what it holds is
reached through one object per idea, each over the same connection: `store.history` (versions of
SOPs, versions.py), `store.library` (the tool library, tools.py) and `store.runs` (scenarios and
runs, runs.py).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlite_utils

from .db import StoreError, Transactions, connect, prepare_path
from .redact import environment_secrets
from .runs import Runs
from .schema import migrate
from .tools import ToolLibrary
from .versions import History


class Store:
    """Open with `open_store()`; close with `close()` or use as a context manager.

    One Store may be shared between threads (calls are serialised); several processes may
    open the same file at once.
    """

    def __init__(self, path: Path):
        self.path = path
        conn = connect(path)
        try:
            self.schema_version = migrate(conn)
        except sqlite3.DatabaseError as error:
            conn.close()
            raise StoreError(f"{path}: not a usable SOP Studio store ({error})") from None
        except StoreError:
            conn.close()
            raise
        self.db = sqlite_utils.Database(conn)
        self.tx = Transactions(conn)
        # Secret values seen in run settings or the environment; scrubbed from anything written.
        self.secrets: set[str] = environment_secrets()
        self.history = History(self.tx)
        self.library = ToolLibrary(self.tx, self.history)
        self.runs = Runs(self.db, self.tx, self.secrets)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.tx.conn

    def close(self) -> None:
        with self.tx.lock:
            self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def integrity_check(self) -> str:
        with self.tx.lock:
            return self.conn.execute("PRAGMA integrity_check").fetchone()[0]


def open_store(path: str | os.PathLike | None = None, must_exist: bool = False) -> Store:
    """The store at `path`, else $SOPSTUDIO_DB, else the platform's user data folder.

    A missing database file is created (and its folder, at the default location only);
    with `must_exist` a missing file raises StoreError("no store at PATH") instead.
    """
    return Store(prepare_path(path, must_exist))
