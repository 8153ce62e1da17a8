"""The store's schema and its migrations, tracked by `PRAGMA user_version`.

`MIGRATIONS[k]` turns a database at schema version k into version k + 1 (version 0 is an empty
file). Never edit a released step: append a new one. `migrate(conn, target)` stops at any version,
which lets tests build a database exactly as an older SOP Studio left it. Steps 1-3 are SQL
scripts; from step 4 on, tables, indexes and full-text indexes are made with sqlite-utils (inside
the migration's transaction: sqlite-utils runs scripts statement by statement when one is open).
"""

from __future__ import annotations

import sqlite3

import sqlite_utils

from .db import StoreError

_V1 = """
CREATE TABLE sops (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
-- Document contents, content-addressed by the SHA-256 of their canonical JSON.
CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    sop_id TEXT NOT NULL REFERENCES sops(id),
    encoding TEXT NOT NULL,
    size INTEGER NOT NULL,
    document BLOB NOT NULL
);
-- History entries: the same content may appear twice (A -> B -> A).
CREATE TABLE versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sop_id TEXT NOT NULL REFERENCES sops(id),
    hash TEXT NOT NULL REFERENCES blobs(hash),
    parent TEXT,
    message TEXT NOT NULL DEFAULT '',
    tag TEXT,
    created TEXT NOT NULL
);
CREATE INDEX versions_by_sop ON versions(sop_id, id);
CREATE INDEX versions_by_hash ON versions(hash);
CREATE TABLE tools (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    spec TEXT NOT NULL,
    source TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE scenarios (
    id TEXT PRIMARY KEY,
    sop_id TEXT REFERENCES sops(id),
    name TEXT,
    kind TEXT,
    data TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX scenarios_by_sop ON scenarios(sop_id);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sop_id TEXT REFERENCES sops(id),
    version TEXT REFERENCES blobs(hash),
    scenario_id TEXT REFERENCES scenarios(id),
    agent TEXT,
    model TEXT,
    settings TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'running',
    outcome TEXT,
    metrics TEXT NOT NULL DEFAULT '{}',
    started TEXT,
    finished TEXT,
    created TEXT NOT NULL
);
CREATE INDEX runs_by_sop ON runs(sop_id, version);
CREATE INDEX runs_by_agent ON runs(agent);
CREATE INDEX runs_by_status ON runs(status);
-- One row per trace event; keys without a column of their own go to `extra` (JSON).
CREATE TABLE steps (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT,
    node TEXT,
    tool TEXT,
    arguments TEXT,
    result TEXT,
    text TEXT,
    extra TEXT,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
"""

# v2: a version may carry several tags (and a tag names one version per SOP); versions record
# their author. Existing single tags move to the new table.
_V2 = """
CREATE TABLE tags (
    sop_id TEXT NOT NULL REFERENCES sops(id),
    name TEXT NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    created TEXT NOT NULL,
    PRIMARY KEY (sop_id, name)
);
CREATE INDEX tags_by_version ON tags(version_id);
INSERT OR IGNORE INTO tags (sop_id, name, version_id, created)
    SELECT sop_id, tag, id, created FROM versions WHERE tag IS NOT NULL AND tag != ''
    ORDER BY id DESC;
ALTER TABLE versions ADD COLUMN author TEXT;
ALTER TABLE versions DROP COLUMN tag;
"""

# v3: a run's final trace state (path, memory, variables, ends, turns, meta; JSON) gets a column
# of its own. Until v2 it rode in the `extra` JSON of the run's last `steps` row under the key
# `final_state`; it moves out of there, and an `extra` left empty becomes NULL again.
_V3 = """
ALTER TABLE runs ADD COLUMN state TEXT;
UPDATE runs SET state = (
    SELECT json_extract(s.extra, '$.final_state') FROM steps AS s
    WHERE s.run_id = runs.id AND json_valid(s.extra)
        AND json_type(s.extra, '$.final_state') = 'object'
        AND s.seq = (SELECT MAX(seq) FROM steps WHERE run_id = runs.id));
UPDATE steps SET extra = json_remove(extra, '$.final_state')
    WHERE json_valid(extra) AND json_type(extra, '$.final_state') = 'object'
        AND seq = (SELECT MAX(seq) FROM steps AS last WHERE last.run_id = steps.run_id);
UPDATE steps SET extra = NULL WHERE extra = '{}';
"""


# v4: full-text search (FTS5) over run traces and version messages (store/search.py reads it).
# `step_search` holds one searchable text per `steps` row (STEP_BODY: event type, tool, text,
# arguments, result, and from `extra` the error/guardrail code, question, outcome and given
# values) and `step_search_fts` indexes it. New events are indexed explicitly, in one statement
# per batch, by `index_steps` (Runs.add_events): an FTS5 insert made by a per-row trigger is
# ~6x slower, as FTS5 flushes its pending terms at every trigger statement. Updates and deletes
# (a deleted run's steps go by cascade) are rare and follow through triggers. `versions_fts`
# indexes version messages through sqlite-utils' triggers. Existing runs are indexed here.
SEARCH_TOKENIZER = "unicode61 remove_diacritics 2"
STEP_BODY = """coalesce({row}.type, '') || coalesce(' ' || {row}.tool, '') ||
    coalesce(' ' || nullif({row}.text, ''), '') ||
    coalesce(' ' || nullif({row}.arguments, 'null'), '') ||
    coalesce(' ' || nullif({row}.result, 'null'), '') || CASE WHEN json_valid({row}.extra) THEN
        coalesce(' ' || json_extract({row}.extra, '$.code'), '') ||
        coalesce(' ' || json_extract({row}.extra, '$.question'), '') ||
        coalesce(' ' || json_extract({row}.extra, '$.outcome'), '') ||
        coalesce(' ' || json_extract({row}.extra, '$.values'), '') ELSE '' END"""
_STEP_TRIGGERS = f"""
CREATE TRIGGER steps_search_ad AFTER DELETE ON steps BEGIN
    DELETE FROM step_search WHERE run_id = old.run_id AND seq = old.seq;
END;
CREATE TRIGGER steps_search_au AFTER UPDATE ON steps BEGIN
    UPDATE step_search SET run_id = new.run_id, seq = new.seq,
        body = {STEP_BODY.format(row="new")}
        WHERE run_id = old.run_id AND seq = old.seq;
END;
"""


def index_steps(conn: sqlite3.Connection, run_id: int, first_seq: int) -> None:
    """Add the events of `run_id` from `first_seq` on (just inserted) to the search index."""
    conn.execute("INSERT INTO step_search (run_id, seq, body) SELECT run_id, seq, "
                 f"{STEP_BODY.format(row='steps')} FROM steps WHERE run_id = ? AND seq >= ? "
                 "ORDER BY seq", (run_id, first_seq))
    conn.execute("INSERT INTO step_search_fts (rowid, body) SELECT id, body FROM step_search "
                 "WHERE run_id = ? AND seq >= ?", (run_id, first_seq))


def _v4(conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(conn)
    table = db.table("step_search")
    table.create({"id": int, "run_id": int, "seq": int, "body": str}, pk="id",
                 not_null={"run_id", "seq", "body"})
    table.create_index(["run_id", "seq"], unique=True)
    conn.execute("INSERT INTO step_search (run_id, seq, body) SELECT run_id, seq, "
                 f"{STEP_BODY.format(row='steps')} FROM steps ORDER BY run_id, seq")
    for trigger in _triggers(_STEP_TRIGGERS):
        conn.execute(trigger)
    table.enable_fts(["body"], create_triggers=True, tokenize=SEARCH_TOKENIZER)
    conn.execute("DROP TRIGGER step_search_ai")  # inserts are indexed by index_steps
    db.table("versions").enable_fts(["message"], create_triggers=True,
                                    tokenize=SEARCH_TOKENIZER)


def _triggers(sql: str) -> list[str]:
    # A trigger body holds `;`, so split on the END that closes each one.
    return [part.strip() + "\nEND" for part in sql.split("END;") if part.strip()]


def _script(sql: str):
    def step(conn: sqlite3.Connection) -> None:
        # executescript() would COMMIT first; run statement by statement inside our transaction.
        for statement in _statements(sql):
            conn.execute(statement)
    return step


def _statements(sql: str) -> list[str]:
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


# v5: a version records the file it was committed from, so the store can refuse to merge the
# histories of two different documents that happen to share an id (store/versions.py).
_V5 = """
ALTER TABLE versions ADD COLUMN path TEXT;
"""

MIGRATIONS = [_script(_V1), _script(_V2), _script(_V3), _v4, _script(_V5)]
LATEST = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, target: int = LATEST) -> int:
    """Bring the database up to `target`; one transaction, safe against a concurrent opener."""
    if user_version(conn) >= target:
        return _check_not_newer(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        version = user_version(conn)
        while version < target:
            MIGRATIONS[version](conn)
            version += 1
        conn.execute(f"PRAGMA user_version = {version}")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return _check_not_newer(conn)


def _check_not_newer(conn: sqlite3.Connection) -> int:
    version = user_version(conn)
    if version > LATEST:
        raise StoreError(f"the store has schema version {version}, newer than this SOP Studio "
                         f"reads ({LATEST}); please upgrade")
    return version
