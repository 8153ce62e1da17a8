"""Helpers for the subcommands that touch the store: the `--db` flag and revision loading."""

from __future__ import annotations

from ..core.model import SOP
from ..store import Store, open_store

WORKING = ("working", "file")  # revision names meaning "FILE as it is on disk"


def add_db_argument(parser) -> None:
    parser.add_argument("--db", metavar="PATH",
                        help="store database (default: $SOPSTUDIO_DB, else the user data folder)")


def open_from_args(args, must_exist: bool = False) -> Store:
    """The store chosen by --db / $SOPSTUDIO_DB. Read-only commands pass `must_exist`, so a
    mistyped path fails ("no store at PATH") instead of showing a new, empty store."""
    return open_store(getattr(args, "db", None), must_exist=must_exist)


def load_revision(store: Store, sop: SOP, revision: str) -> tuple[str, SOP]:
    """(label, document) for a revision string; `working`/`file` is the file on disk."""
    if revision.lower() in WORKING:
        return "working", sop
    version = store.history.resolve(sop.id, revision)
    return version.short, store.history.load_hash(version.hash)
