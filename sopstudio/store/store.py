"""The `Store`: one SQLite database holding versions, the tool library, scenarios and runs."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlite_utils

from .db import StoreError, Transactions, connect, prepare_path
from .redact import environment_secrets
from .runs import RunsMixin
from .schema import migrate
from .search import DEFAULT_LIMIT, search_runs
from .tools import ToolsMixin
from .versions import VersionsMixin


class Store(VersionsMixin, ToolsMixin, RunsMixin):
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

    def search_runs(self, text: str, sop_id: str | None = None,
                    limit: int = DEFAULT_LIMIT) -> list[dict]:
        """Runs whose trace (event text, tool names, arguments, results, error codes) or whose
        version's message matches `text` (every word, in any order; the last word may be a
        prefix), newest first, at most `limit`, only of `sop_id` if given. Each hit has `run_id,
        sop_id, version, agent, scenario` (its type), `outcome, created` and `snippet` (a short
        excerpt with the matched words between « and »), plus `status, model, scenario_id,
        scenario_name, match` ("trace" or "version") and `event` (index of the first matching
        event, None for a version match). Any text is safe: it is never read as FTS syntax."""
        with self.tx.read():
            return search_runs(self.db, text, sop_id, limit)

    def integrity_check(self) -> str:
        with self.tx.lock:
            return self.conn.execute("PRAGMA integrity_check").fetchone()[0]


def open_store(path: str | os.PathLike | None = None, must_exist: bool = False) -> Store:
    """The store at `path`, else $SOPSTUDIO_DB, else the platform's user data folder.

    A missing database file is created (and its folder, at the default location only);
    with `must_exist` a missing file raises StoreError("no store at PATH") instead.
    """
    return Store(prepare_path(path, must_exist))
