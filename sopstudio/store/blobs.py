"""Content addressing: the hash of an SOP and how its document is kept in the `blobs` table.

Documents are stored zlib-compressed: successive versions of an SOP are whole documents, and
compression cuts their size several times over for the cost of about a millisecond.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from dataclasses import dataclass

from ..core.io import canonical_json, parse_document
from ..core.model import SOP
from .db import StoreError

SHORT = 12  # hex digits shown for a version


@dataclass(frozen=True)
class Content:
    hash: str
    size: int
    encoding: str
    document: bytes


def hash_sop(sop: SOP) -> str:
    return hashlib.sha256(canonical_json(sop).encode("utf-8")).hexdigest()


def pack(sop: SOP) -> Content:
    raw = canonical_json(sop).encode("utf-8")
    return Content(hashlib.sha256(raw).hexdigest(), len(raw), "zlib", zlib.compress(raw, 6))


def unpack(encoding: str, document: bytes) -> str:
    if encoding == "zlib":
        return zlib.decompress(document).decode("utf-8")
    if encoding == "json":
        return document.decode("utf-8") if isinstance(document, bytes) else document
    raise StoreError(f"unknown document encoding {encoding!r} in the store")


def ensure_sop_row(conn: sqlite3.Connection, sop_id: str, title: str, now: str) -> None:
    conn.execute("INSERT INTO sops (id, title, created, updated) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT(id) DO UPDATE SET title = excluded.title, updated = excluded.updated",
                 (sop_id, title, now, now))


def put_blob(conn: sqlite3.Connection, sop_id: str, content: Content) -> None:
    conn.execute("INSERT OR IGNORE INTO blobs (hash, sop_id, encoding, size, document) "
                 "VALUES (?, ?, ?, ?, ?)",
                 (content.hash, sop_id, content.encoding, content.size, content.document))


def get_blob(conn: sqlite3.Connection, digest: str) -> SOP:
    row = conn.execute("SELECT encoding, document FROM blobs WHERE hash = ?", (digest,)).fetchone()
    if row is None:
        raise StoreError(f"no document with hash {digest[:SHORT]} in the store")
    return parse_document(json.loads(unpack(*row)), f"version {digest[:SHORT]}", strict=False)
