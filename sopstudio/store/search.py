"""Full-text search over stored runs: their trace events and the messages of their versions.

The index is schema v4's (store/schema.py): `step_search_fts` over one text per trace event
(event type, tool name, text, arguments, result, error or guardrail code, ...) and `versions_fts`
over version messages, both FTS5 and kept in step by triggers. A run matches when one of its
events matches, or when a version message recorded for the document it ran matches.

The user's text is never FTS syntax: sqlite-utils quotes every word (so `NOT`, `*`, `"`, `:`,
`(` are plain characters); the words must all occur (in any order), the last one may be the start
of a word (type-ahead in the GUI's search box). A tool name like `check_listing_status` or an
error code like `invalid_id` matches as the phrase it tokenizes to.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from typing import Any

import sqlite_utils

log = logging.getLogger(__name__)

# Around each matched word in a snippet; the GUI swaps them for its own highlighting.
SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_ELLIPSIS = "\u00ab", "\u00bb", "\u2026"
SNIPPET_TOKENS = 12
DEFAULT_LIMIT = 50
VERSION_PREFIX = "version message: "

_RUNS_SQL = """
WITH trace_hits AS MATERIALIZED (
    SELECT DISTINCT s.run_id AS id FROM step_search_fts
    JOIN step_search AS s ON s.id = step_search_fts.rowid
    WHERE step_search_fts MATCH :query),
version_hits AS MATERIALIZED (
    SELECT v.sop_id, v.hash FROM versions_fts
    JOIN versions AS v ON v.id = versions_fts.rowid
    WHERE versions_fts MATCH :query)
SELECT r.id, r.sop_id, r.version, r.agent, sc.kind, r.outcome, r.created, r.status, r.model,
       r.scenario_id, sc.name
FROM runs AS r LEFT JOIN scenarios AS sc ON sc.id = r.scenario_id
WHERE (:sop_id IS NULL OR r.sop_id = :sop_id)
  AND (r.id IN trace_hits
       OR EXISTS (SELECT 1 FROM version_hits AS h WHERE h.sop_id = r.sop_id AND h.hash = r.version))
ORDER BY r.id DESC LIMIT :limit
"""
_SNIPPET = f"'{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '{SNIPPET_ELLIPSIS}', {SNIPPET_TOKENS}"
_EVENT_SNIPPETS_SQL = f"""
SELECT s.run_id, s.seq, snippet(step_search_fts, 0, {_SNIPPET}) FROM step_search_fts
JOIN step_search AS s ON s.id = step_search_fts.rowid
WHERE step_search_fts MATCH ? AND s.run_id IN ({{marks}})
ORDER BY s.run_id, s.seq
"""
_VERSION_SNIPPETS_SQL = f"""
SELECT v.sop_id, v.hash, snippet(versions_fts, 0, {_SNIPPET}) FROM versions_fts
JOIN versions AS v ON v.id = versions_fts.rowid
WHERE versions_fts MATCH ? ORDER BY v.id DESC
"""
_KEYS = ("run_id", "sop_id", "version", "agent", "scenario", "outcome", "created", "status",
         "model", "scenario_id", "scenario_name")


def match_query(db: sqlite_utils.Database, text: str) -> str | None:
    """The FTS5 query for the user's `text`: every word quoted, the last one a prefix; None
    when the text holds no word at all."""
    quoted = db.quote_fts(text.strip()) if text else ""
    return f"{quoted}*" if quoted else None


def _plain_query(text: str) -> str | None:
    """A stricter fallback: only the word characters of `text` (used if SQLite still refused
    the quoted form)."""
    words = re.findall(r"\w+", text)
    return " ".join(f'"{w}"' for w in words) + "*" if words else None


def search_runs(db: sqlite_utils.Database, text: str, sop_id: str | None = None,
                limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
    """Runs whose trace or version message matches `text`, newest first (see `Runs.search`).
    The caller holds one read transaction on `db.conn`."""
    if limit <= 0:
        return []
    for query in (match_query(db, text), _plain_query(text)):
        if query is None:
            return []
        try:
            return _search(db.conn, query, sop_id, limit)
        except sqlite3.OperationalError as error:  # an FTS syntax error: try the plain words
            log.debug("full-text query %r failed: %s", query, error)
    return []


def _search(conn: sqlite3.Connection, query: str, sop_id: str | None,
            limit: int) -> list[dict[str, Any]]:
    rows = conn.execute(_RUNS_SQL, {"query": query, "sop_id": sop_id, "limit": limit}).fetchall()
    if not rows:
        return []
    events = _event_snippets(conn, query, [row[0] for row in rows])
    versions = _version_snippets(conn, query)
    results = []
    for row in rows:
        hit = dict(zip(_KEYS, row))
        event = events.get(hit["run_id"])
        if event is not None:
            hit.update(match="trace", event=event[0], snippet=event[1])
        else:
            message = versions.get((hit["sop_id"], hit["version"]), "")
            hit.update(match="version", event=None, snippet=VERSION_PREFIX + message)
        results.append(hit)
    return results


def _event_snippets(conn: sqlite3.Connection, query: str,
                    run_ids: list[int]) -> dict[int, tuple[int, str]]:
    """run id -> (index of its first matching event, snippet of it)."""
    sql = _EVENT_SNIPPETS_SQL.format(marks=", ".join("?" * len(run_ids)))
    found: dict[int, tuple[int, str]] = {}
    for run_id, seq, snippet in conn.execute(sql, (query, *run_ids)):
        found.setdefault(run_id, (seq, snippet))
    return found


def _version_snippets(conn: sqlite3.Connection, query: str) -> dict[tuple[str, str], str]:
    """(sop id, document hash) -> snippet of its newest matching version message."""
    found: dict[tuple[str, str], str] = {}
    for sop_id, digest, snippet in conn.execute(_VERSION_SNIPPETS_SQL, (query,)):
        found.setdefault((sop_id, digest), snippet)
    return found
