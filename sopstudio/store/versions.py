"""Versions of SOPs (`History`, reached as `store.history`): record, list, load, restore, tag,
and resolve revision strings.

A revision string is a tag, `@N` (N versions back from the newest, `@0` = newest, `head` too),
or a prefix (at least 4 hex digits) of a version's hash.
"""

from __future__ import annotations

import getpass
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.model import SOP
from .blobs import SHORT, ensure_sop_row, get_blob, pack, put_blob
from .db import StoreError, Transactions, now_iso

_BACK = re.compile(r"^@(\d+)$")
_HEX = re.compile(r"^[0-9a-f]{4,64}$")
_COLUMNS = "id, sop_id, hash, parent, message, author, created"


@dataclass
class Version:
    id: int
    sop_id: str
    hash: str
    parent: str | None
    message: str
    author: str | None
    created: str
    tags: list[str] = field(default_factory=list)

    @property
    def short(self) -> str:
        return self.hash[:SHORT]

    def to_dict(self) -> dict:
        return {**asdict(self), "short": self.short}


def default_author() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in containers / odd environments
        return "unknown"


class IdentityConflict(StoreError):
    """The SOP id already has history recorded from another file: committing would merge the
    histories of two different documents."""

    def __init__(self, sop_id: str, other: str):
        self.sop_id, self.other = sop_id, other
        super().__init__(f"SOP id '{sop_id}' already has history from {other}; this is a "
                         "different file, so commit it under a new id "
                         "(sopstudio commit FILE --new-id NEW_ID)")


def _same_file(recorded: str, path: str) -> bool:
    """A recorded path is the same document when it is the same file, or when that file is gone
    (it was moved or renamed: its history moves with it)."""
    if recorded == path:
        return True
    return not os.path.exists(recorded)


class History:
    """The versions of every SOP in the store (`Store.history`), over the store's transactions."""

    def __init__(self, tx: Transactions):
        self.tx = tx

    def record(self, sop: SOP, message: str = "", author: str | None = None,
               tag: str | None = None, path: str | os.PathLike | None = None) -> Version:
        """Record `sop` as its newest version; unchanged content adds nothing (but may add a tag).

        `path`: the file the document was saved to. When the id's history was recorded from
        another file that still exists, IdentityConflict is raised and nothing is recorded."""
        content = pack(sop)  # outside the write lock: serialising is the slow part
        author = author or default_author()
        where = str(Path(path).resolve()) if path is not None else None
        now = now_iso()
        with self.tx.write() as conn:
            if where is not None:
                self._check_identity(conn, sop.id, where)
            head = self._head(conn, sop.id)
            if head is None or head.hash != content.hash:
                ensure_sop_row(conn, sop.id, sop.title, now)
                put_blob(conn, sop.id, content)
                cursor = conn.execute(
                    "INSERT INTO versions (sop_id, hash, parent, message, author, created, path) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (sop.id, content.hash, head.hash if head else None, message, author, now,
                     where))
                head = Version(cursor.lastrowid, sop.id, content.hash,
                               head.hash if head else None, message, author, now)
            else:
                head.tags = self._tags_by_version(conn, sop.id).get(head.id, [])
            if tag:
                self._add_tag(conn, head, tag, now)
        return head

    def versions(self, sop_id: str, limit: int | None = None) -> list[Version]:
        """The history of one SOP, newest first."""
        sql = f"SELECT {_COLUMNS} FROM versions WHERE sop_id = ? ORDER BY id DESC"
        params: tuple = (sop_id,)
        if limit is not None:
            sql, params = sql + " LIMIT ?", (sop_id, limit)
        with self.tx.read() as conn:
            result = [Version(*row) for row in conn.execute(sql, params)]
            tags = self._tags_by_version(conn, sop_id)
        for version in result:
            version.tags = tags.get(version.id, [])
        return result

    def head(self, sop_id: str) -> Version | None:
        with self.tx.read() as conn:
            return self._head(conn, sop_id)

    def resolve(self, sop_id: str, revision: str) -> Version:
        """The version a revision string names; StoreError if none or ambiguous."""
        revision = revision.strip()
        with self.tx.read() as conn:
            found = self._resolve(conn, sop_id, revision)
            found.tags = self._tags_by_version(conn, sop_id).get(found.id, [])
        return found

    def load(self, sop_id: str, revision: str = "@0") -> SOP:
        version = self.resolve(sop_id, revision)
        with self.tx.read() as conn:
            return get_blob(conn, version.hash)

    def load_hash(self, digest: str) -> SOP:
        """A document by its full hash, whichever SOP it belongs to."""
        with self.tx.read() as conn:
            return get_blob(conn, digest)

    def restore(self, sop_id: str, revision: str) -> SOP:
        """The document of an older version, for the caller to apply (the editor: one undoable
        ReplaceSOP edit). Saving it afterwards records it as a new version."""
        return self.load(sop_id, revision)

    def tag(self, sop_id: str, revision: str, name: str) -> Version:
        with self.tx.write() as conn:
            version = self._resolve(conn, sop_id, revision)
            version.tags = self._tags_by_version(conn, sop_id).get(version.id, [])
            self._add_tag(conn, version, name, now_iso())
        return version

    def untag(self, sop_id: str, name: str) -> None:
        with self.tx.write() as conn:
            if conn.execute("DELETE FROM tags WHERE sop_id = ? AND name = ?",
                            (sop_id, name)).rowcount == 0:
                raise StoreError(f"{sop_id}: no tag {name!r}")

    def sops(self) -> list[dict]:
        """Every SOP in the store with its version count and newest version."""
        sql = ("SELECT s.id, s.title, s.updated, COUNT(v.id), "
               "(SELECT hash FROM versions WHERE sop_id = s.id ORDER BY id DESC LIMIT 1) "
               "FROM sops s LEFT JOIN versions v ON v.sop_id = s.id GROUP BY s.id ORDER BY s.id")
        with self.tx.read() as conn:
            rows = conn.execute(sql).fetchall()
        return [{"id": r[0], "title": r[1], "updated": r[2], "versions": r[3], "head": r[4]}
                for r in rows]

    def recorded_path(self, sop_id: str) -> str | None:
        """The file the newest path-carrying version of `sop_id` was committed from."""
        with self.tx.read() as conn:
            return self._recorded_path(conn, sop_id)

    # -- helpers running inside a transaction --------------------------------------------------

    def _recorded_path(self, conn, sop_id: str) -> str | None:
        row = conn.execute("SELECT path FROM versions WHERE sop_id = ? AND path IS NOT NULL "
                           "ORDER BY id DESC LIMIT 1", (sop_id,)).fetchone()
        return row[0] if row else None

    def _check_identity(self, conn, sop_id: str, where: str) -> None:
        recorded = self._recorded_path(conn, sop_id)
        if recorded is not None and not _same_file(recorded, where):
            raise IdentityConflict(sop_id, recorded)

    def _head(self, conn, sop_id: str) -> Version | None:
        row = conn.execute(f"SELECT {_COLUMNS} FROM versions WHERE sop_id = ? "
                           "ORDER BY id DESC LIMIT 1", (sop_id,)).fetchone()
        return Version(*row) if row else None

    def _tags_by_version(self, conn, sop_id: str) -> dict[int, list[str]]:
        tags: dict[int, list[str]] = {}
        for version_id, name in conn.execute(
                "SELECT version_id, name FROM tags WHERE sop_id = ? ORDER BY rowid",
                (sop_id,)):
            tags.setdefault(version_id, []).append(name)
        return tags

    def _add_tag(self, conn, version: Version, name: str, now: str) -> None:
        name = name.strip()
        if not name or _BACK.match(name) or name.lower() in ("head", "working", "file"):
            raise StoreError(f"{name!r} cannot be a tag (reserved or empty)")
        row = conn.execute("SELECT v.hash, v.id FROM tags t JOIN versions v ON v.id = t.version_id "
                           "WHERE t.sop_id = ? AND t.name = ?", (version.sop_id, name)).fetchone()
        if row and row[1] != version.id:
            raise StoreError(f"{version.sop_id}: tag {name!r} already names version "
                             f"{row[0][:SHORT]}")
        if row is None:
            conn.execute("INSERT INTO tags (sop_id, name, version_id, created) VALUES (?, ?, ?, ?)",
                         (version.sop_id, name, version.id, now))
        if name not in version.tags:
            version.tags.append(name)

    def _resolve(self, conn, sop_id: str, revision: str) -> Version:
        back = _BACK.match(revision)
        if back or revision.lower() == "head":
            offset = int(back.group(1)) if back else 0
            row = conn.execute(f"SELECT {_COLUMNS} FROM versions WHERE sop_id = ? "
                               "ORDER BY id DESC LIMIT 1 OFFSET ?", (sop_id, offset)).fetchone()
            if row is None:
                raise StoreError(f"{sop_id}: no version {revision} (history is shorter)")
            return Version(*row)
        row = conn.execute(f"SELECT {', '.join('v.' + c for c in _COLUMNS.split(', '))} "
                           "FROM tags t JOIN versions v ON v.id = t.version_id "
                           "WHERE t.sop_id = ? AND t.name = ?", (sop_id, revision)).fetchone()
        if row:
            return Version(*row)
        return self._resolve_hash(conn, sop_id, revision)

    def _resolve_hash(self, conn, sop_id: str, revision: str) -> Version:
        prefix = revision.lower()
        if not _HEX.match(prefix):
            raise StoreError(f"{sop_id}: unknown revision {revision!r} "
                             "(use a tag, @N or at least 4 hex digits of a hash)")
        rows = conn.execute(f"SELECT {_COLUMNS} FROM versions WHERE sop_id = ? AND hash >= ? "
                            "AND hash < ? ORDER BY id DESC", (sop_id, prefix, prefix + "g")
                            ).fetchall()
        if not rows:
            raise StoreError(f"{sop_id}: no version matches {revision!r}")
        if len({row[2] for row in rows}) > 1:
            raise StoreError(f"{sop_id}: revision {revision!r} is ambiguous "
                             f"({len({row[2] for row in rows})} versions match)")
        return Version(*rows[0])
