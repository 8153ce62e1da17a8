"""Scenarios, runs and their trace events (one `steps` row per event): `Runs`, reached as
`store.runs`.

A run points at the exact document it ran: `runs.save(sop=...)` stores the content (without
adding a history entry) and records its hash. Settings are stripped of secrets before writing.
A run may carry its final trace state (`state`: path, memory, variables, ...; JSON in
`runs.state`), which `runs.load` returns and `runs.list` leaves out, as it leaves out the events.
`runs.search` finds runs by their trace or version message (search.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlite_utils

from ..core.model import SOP
from . import events as ev
from .blobs import ensure_sop_row, pack, put_blob
from .db import StoreError, Transactions, now_iso, to_iso
from .redact import strip_secrets
from .schema import index_steps
from .search import DEFAULT_LIMIT, search_runs

_RUN_COLUMNS = ("id, sop_id, version, scenario_id, agent, model, settings, status, outcome, "
                "metrics, started, finished, created")
_UPDATABLE = {"status", "outcome", "metrics", "started", "finished", "model", "agent", "state"}


@dataclass
class RunRecord:
    id: int
    sop_id: str | None
    version: str | None
    scenario_id: str | None
    agent: str | None
    model: str | None
    settings: dict
    status: str
    outcome: str | None
    metrics: dict
    started: str | None
    finished: str | None
    created: str
    state: dict | None = None
    events: list[dict] = field(default_factory=list)
    event_count: int = 0

    def events_of(self, *types: str) -> list[dict]:
        """The recorded events of the given types, in order (e.g. what a replay re-feeds:
        `events_of("user", "tool_result")`)."""
        return [e for e in self.events if e.get("type") in types]

    def to_dict(self, events: bool = True) -> dict:
        """The record as JSON data; `events=False` (a listing) leaves out events and state."""
        data = asdict(self)
        if not events:
            data.pop("events")
            data.pop("state")
        return data


def _run(row: tuple[Any, ...], count: int = 0, state: str | None = None) -> RunRecord:
    (run_id, sop_id, version, scenario_id, agent, model, settings, status, outcome, metrics,
     started, finished, created) = row
    return RunRecord(run_id, sop_id, version, scenario_id, agent, model, json.loads(settings),
                     status, outcome, json.loads(metrics), started, finished, created,
                     state=json.loads(state) if state is not None else None, event_count=count)


def _dump_optional(value: Any, secrets: set[str]) -> str | None:
    # None stays SQL NULL ("no state recorded"), not the JSON text 'null'.
    return None if value is None else ev.dump(value, secrets)


def _ensure_refs(conn, sop: SOP | None, content, sop_id: str | None, now: str) -> None:
    """The SOP row (and the exact document, when given) that the run refers to."""
    if sop is not None and content is not None:
        ensure_sop_row(conn, sop.id, sop.title, now)
        put_blob(conn, sop.id, content)
    elif sop_id:
        conn.execute("INSERT OR IGNORE INTO sops (id, created, updated) VALUES (?, ?, ?)",
                     (sop_id, now, now))


def _check_refs(conn, version: str | None, scenario_id: str | None) -> None:
    if version and not conn.execute("SELECT 1 FROM blobs WHERE hash = ?", (version,)).fetchone():
        raise StoreError(f"no document with hash {version[:12]} in the store "
                         "(pass sop= to store it with the run)")
    if scenario_id and not conn.execute("SELECT 1 FROM scenarios WHERE id = ?",
                                        (scenario_id,)).fetchone():
        raise StoreError(f"no scenario {scenario_id!r} in the store")


class Runs:
    """Scenarios and runs (`Store.runs`), over the store's database and transactions.

    `secrets` is the store's set of secret values (shared, not copied: values found later are
    scrubbed too)."""

    def __init__(self, db: sqlite_utils.Database, tx: Transactions, secrets: set[str]):
        self.db, self.tx, self.secrets = db, tx, secrets

    def save_scenario(self, data: dict, sop_id: str | None = None, name: str | None = None,
                      kind: str | None = None, scenario_id: str | None = None) -> str:
        """Store a scenario (plain JSON data); its id defaults to a hash of its content."""
        text = ev.dump(strip_secrets(data), self.secrets)
        scenario_id = scenario_id or hashlib.sha256(text.encode()).hexdigest()[:16]
        now = now_iso()
        with self.tx.write() as conn:
            if sop_id:
                conn.execute("INSERT OR IGNORE INTO sops (id, created, updated) VALUES (?, ?, ?)",
                             (sop_id, now, now))
            conn.execute("INSERT INTO scenarios (id, sop_id, name, kind, data, created) "
                         "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                         "sop_id = COALESCE(excluded.sop_id, sop_id), name = COALESCE(excluded.name, name), "
                         "kind = COALESCE(excluded.kind, kind), "
                         "data = excluded.data", (scenario_id, sop_id, name, kind, text, now))
        return scenario_id

    def scenario(self, scenario_id: str) -> dict:
        with self.tx.read() as conn:
            row = conn.execute(f"SELECT {_SCENARIO_COLUMNS} FROM scenarios WHERE id = ?",
                               (scenario_id,)).fetchone()
        if row is None:
            raise StoreError(f"no scenario {scenario_id!r} in the store")
        return _scenario_dict(row)

    def scenarios(self, sop_id: str | None = None) -> list[dict]:
        where, params = ("WHERE sop_id = ? ", (sop_id,)) if sop_id else ("", ())
        with self.tx.read() as conn:
            rows = conn.execute(f"SELECT {_SCENARIO_COLUMNS} FROM scenarios {where}"
                                "ORDER BY created, id", params).fetchall()
        return [_scenario_dict(row) for row in rows]

    def save(self, *, sop: SOP | None = None, sop_id: str | None = None,
             version: str | None = None, scenario_id: str | None = None,
             agent: str | None = None, model: str | None = None,
             settings: dict | None = None, status: str = "running",
             outcome: str | None = None, metrics: dict | None = None,
             started: Any = None, finished: Any = None,
             events: list[dict] | None = None, state: dict | None = None) -> int:
        """Store a run (and optionally its events and final trace state) in one transaction;
        returns the run id."""
        clean = strip_secrets(settings or {}, self.secrets)
        content = pack(sop) if sop is not None else None
        sop_id = sop.id if sop is not None else sop_id
        version = content.hash if content else version
        now = now_iso()
        with self.tx.write() as conn:
            _ensure_refs(conn, sop, content, sop_id, now)
            _check_refs(conn, version, scenario_id)
            cursor = conn.execute(
                "INSERT INTO runs (sop_id, version, scenario_id, agent, model, settings, status, "
                "outcome, metrics, started, finished, created, state) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (sop_id, version, scenario_id, agent, model, ev.dump(clean, self.secrets),
                 status, outcome, ev.dump(metrics or {}, self.secrets), to_iso(started),
                 to_iso(finished), now, _dump_optional(state, self.secrets)))
            run_id = cursor.lastrowid
            if events:
                self.add_events(run_id, events)
        return run_id

    def update(self, run_id: int, **fields) -> None:
        """Set status, outcome, metrics, started, finished, agent, model or state of a stored
        run."""
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise StoreError(f"cannot update run field(s): {', '.join(sorted(unknown))}")
        values = {k: (ev.dump(v, self.secrets) if k == "metrics" else
                      _dump_optional(v, self.secrets) if k == "state" else
                      to_iso(v) if k in ("started", "finished") else v) for k, v in fields.items()}
        if not values:
            return
        assignments = ", ".join(f"{k} = ?" for k in values)
        with self.tx.write() as conn:
            cursor = conn.execute(f"UPDATE runs SET {assignments} WHERE id = ?",
                                  (*values.values(), run_id))
            if cursor.rowcount == 0:
                raise StoreError(f"no run {run_id} in the store")

    def add_events(self, run_id: int, events: list[dict]) -> int:
        """Append trace events to a run in one batch; returns the next sequence number."""
        with self.tx.write() as conn:
            row = conn.execute("SELECT (SELECT id FROM runs WHERE id = ?), "
                               "(SELECT MAX(seq) FROM steps WHERE run_id = ?)",
                               (run_id, run_id)).fetchone()
            if row[0] is None:
                raise StoreError(f"no run {run_id} in the store")
            start = 0 if row[1] is None else row[1] + 1
            rows = [ev.encode(run_id, start + i, e, self.secrets) for i, e in enumerate(events)]
            conn.executemany("INSERT INTO steps (run_id, seq, type, node, tool, arguments, "
                             "result, text, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            index_steps(conn, run_id, start)
        return start + len(rows)

    def load(self, run_id: int) -> RunRecord:
        with self.tx.read() as conn:
            row = conn.execute(f"SELECT {_RUN_COLUMNS}, state FROM runs WHERE id = ?",
                               (run_id,)).fetchone()
            if row is None:
                raise StoreError(f"no run {run_id} in the store")
            steps = conn.execute("SELECT type, node, tool, arguments, result, text, extra "
                                 "FROM steps WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
        record = _run(row[:-1], len(steps), row[-1])
        record.events = [ev.decode(step) for step in steps]
        return record

    def delete(self, run_id: int) -> None:
        with self.tx.write() as conn:
            if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise StoreError(f"no run {run_id} in the store")

    def search(self, text: str, sop_id: str | None = None,
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

    # Last in the class: annotations below a method named `list` would name the method.
    def list(self, sop_id: str | None = None, version: str | None = None,
             agent: str | None = None, status: str | None = None,
             scenario_id: str | None = None, limit: int | None = None) -> list[RunRecord]:
        """Runs newest first, without their events (`event_count` says how many there are)
        or state (`state` is None; `load` reads it). `version` may be a hash prefix."""
        where: list[str] = []
        params: list[Any] = []
        for column, value in (("sop_id", sop_id), ("agent", agent), ("status", status),
                              ("scenario_id", scenario_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if version:
            where.append("version >= ? AND version < ?")
            params += [version.lower(), version.lower() + "g"]
        sql = (f"SELECT {_RUN_COLUMNS}, (SELECT COUNT(*) FROM steps WHERE run_id = runs.id) "
               f"FROM runs {'WHERE ' + ' AND '.join(where) if where else ''} ORDER BY id DESC")
        if limit is not None:
            sql, params = sql + " LIMIT ?", params + [limit]
        with self.tx.read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_run(row[:-1], row[-1]) for row in rows]


_SCENARIO_COLUMNS = "id, sop_id, name, kind, data, created"


def _scenario_dict(row) -> dict:
    return {"id": row[0], "sop_id": row[1], "name": row[2], "kind": row[3],
            "data": json.loads(row[4]), "created": row[5]}
