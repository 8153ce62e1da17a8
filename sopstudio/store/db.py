"""Opening the store's SQLite file: where it lives, connection settings and write transactions.

Every write runs inside `transaction()`, which starts with BEGIN IMMEDIATE: a deferred
transaction that later upgrades from a read to a write lock gets SQLITE_BUSY at once, without
the busy handler waiting, so two processes writing together would see "database is locked".
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from ..core.errors import SopStudioError

ENV_VAR = "SOPSTUDIO_DB"
DB_FILENAME = "sopstudio.sqlite"
BUSY_TIMEOUT_S = 10.0


class StoreError(SopStudioError):
    """A store operation failed on bad input (unknown revision, duplicate tag, ...)."""


def default_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("sopstudio")) / DB_FILENAME


def resolve_path(path: str | os.PathLike | None = None) -> Path:
    """The database file: explicit path (the --db flag), else $SOPSTUDIO_DB, else the default."""
    if path:
        return Path(path).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return default_path()


def prepare_path(path: str | os.PathLike | None = None, must_exist: bool = False) -> Path:
    """The database file to open, checked before SQLite would quietly create it.

    `must_exist` (read-only commands): the file must already exist, so a mistyped --db or
    $SOPSTUDIO_DB fails instead of showing an empty store. Otherwise a missing file is created,
    but a missing folder only at the default location: anywhere else it is likely a typo.
    """
    resolved = resolve_path(path)
    is_default = resolved == default_path()
    if must_exist:
        if not resolved.exists():
            hint = " yet (recording a version creates it: sopstudio commit FILE)" * is_default
            raise StoreError(f"no store at {resolved}{hint}")
        return resolved
    if resolved.parent.is_dir():
        return resolved
    if is_default:
        try:
            resolved.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"{resolved.parent}: cannot create the store folder "
                             f"({error.strerror or error})") from None
        return resolved
    raise StoreError(f"{resolved}: cannot create the store: no folder {resolved.parent}")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def to_iso(value) -> str | None:
    """Accept a datetime, epoch seconds or an ISO string for a timing column."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.astimezone()
        return value.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc).isoformat(timespec="milliseconds")
    raise StoreError(f"cannot store {value!r} as a time")


def connect(path: Path) -> sqlite3.Connection:
    """A connection in driver autocommit mode (we issue BEGIN ourselves), WAL, foreign keys."""
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                               check_same_thread=False)
    except (OSError, sqlite3.Error) as error:
        raise StoreError(f"{path}: cannot open the store ({error})") from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _set_wal(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        # FULL: a version reported saved survives power loss too, not only a killed process.
        conn.execute("PRAGMA synchronous = FULL")
    except sqlite3.DatabaseError as error:
        conn.close()
        raise StoreError(f"{path}: not a usable SOP Studio store ({error})") from None
    return conn


def _set_wal(conn: sqlite3.Connection) -> None:
    # Switching to WAL needs a brief exclusive lock; a second process opening a fresh file at
    # the same moment can get "locked" here without the busy handler, so retry a little.
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class Transactions:
    """Serialises a connection between threads and wraps writes in BEGIN IMMEDIATE ... COMMIT."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.lock = threading.RLock()

    @contextlib.contextmanager
    def write(self):
        with self.lock:
            if self.conn.in_transaction:  # nested: join the outer transaction
                yield self.conn
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def read(self):
        # One read transaction so multi-query reads see a single snapshot.
        with self.lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            self.conn.execute("BEGIN")
            try:
                yield self.conn
            finally:
                if self.conn.in_transaction:
                    self.conn.execute("COMMIT")
