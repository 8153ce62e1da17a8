"""Store: opening, schema migrations, and versions (record, list, load, restore, tags, revisions)."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3

import pytest

from sopstudio.core.io import canonical_json
from sopstudio.core.model import SOP, Edge, Node
from sopstudio.store import StoreError, open_store, resolve_path
from sopstudio.store import schema
from sopstudio.store.blobs import pack


def make_sop(sop_id: str = "refund", title: str = "Refund") -> SOP:
    return SOP(id=sop_id, title=title, start="a",
               nodes=[Node(id="a", title="Ask order", ask=["order_id"], position=(0, 0)),
                      Node(id="b", title="Done", kind="end")],
               edges=[Edge(id="e1", source="a", target="b")])


def edited(sop: SOP, **fields) -> SOP:
    return sop.model_copy(deep=True, update=fields)


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "store.sqlite") as opened:
        yield opened


def test_database_settings_and_schema(store):
    conn = store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert schema.user_version(conn) == schema.LATEST == store.schema_version
    tables = set(store.db.table_names())
    assert {"sops", "blobs", "versions", "tags", "tools", "scenarios", "runs", "steps"} <= tables
    assert store.integrity_check() == "ok"


def test_path_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("SOPSTUDIO_DB", str(tmp_path / "env.sqlite"))
    assert resolve_path(tmp_path / "flag.sqlite") == tmp_path / "flag.sqlite"
    assert resolve_path() == tmp_path / "env.sqlite"
    monkeypatch.delenv("SOPSTUDIO_DB")
    assert resolve_path().name == "sopstudio.sqlite"
    with open_store(tmp_path / "s.sqlite") as store:  # a missing file is created
        assert store.path.exists()


def test_missing_folders_are_created_only_at_the_default_location(tmp_path, monkeypatch):
    nested = tmp_path / "nested" / "dir" / "s.sqlite"
    with pytest.raises(StoreError, match="no folder"):  # a mistyped --db is not "fixed"
        open_store(nested)
    assert not (tmp_path / "nested").exists()
    monkeypatch.setenv("SOPSTUDIO_DB", str(nested))  # the same rule for the variable
    with pytest.raises(StoreError, match="no folder"):
        open_store()
    monkeypatch.delenv("SOPSTUDIO_DB")
    monkeypatch.setattr("sopstudio.store.db.default_path", lambda: nested)
    with open_store() as store:  # the user data folder is ours to create
        assert store.path == nested and nested.exists()


def test_must_exist_refuses_a_missing_file(tmp_path, monkeypatch):
    missing = tmp_path / "typo.sqlite"
    with pytest.raises(StoreError, match=f"^no store at {re.escape(str(missing))}$"):
        open_store(missing, must_exist=True)
    assert not missing.exists()
    monkeypatch.setenv("SOPSTUDIO_DB", str(missing))
    with pytest.raises(StoreError, match="no store at"):
        open_store(must_exist=True)
    open_store(missing).close()
    with open_store(must_exist=True) as store:
        assert store.path == missing


def test_record_is_content_addressed_and_deduplicated(store):
    sop = make_sop()
    first = store.history.record(sop, "first", author="ana")
    expected = hashlib.sha256(canonical_json(sop).encode()).hexdigest()
    assert first.hash == expected and first.short == expected[:12]
    assert first.parent is None and first.author == "ana" and first.message == "first"
    again = store.history.record(make_sop(), "nothing changed")
    assert again.id == first.id and len(store.history.versions("refund")) == 1
    second = store.history.record(edited(sop, title="Refunds"), "rename")
    assert second.parent == first.hash
    assert [v.message for v in store.history.versions("refund")] == ["rename", "first"]
    # A -> B -> A is a third history entry
    assert store.history.record(sop, "back").hash == first.hash
    assert len(store.history.versions("refund")) == 3
    assert store.conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 2


def test_default_author_is_the_os_user(store):
    import getpass

    assert store.history.record(make_sop()).author == getpass.getuser()


def test_load_restore_and_resolve(store):
    sop = make_sop()
    v1 = store.history.record(sop, tag="v1")
    sop2 = edited(sop, title="Second")
    v2 = store.history.record(sop2)
    v3 = store.history.record(edited(sop, title="Third"))
    assert store.history.load("refund", "v1") == sop
    assert store.history.load("refund", "@1") == sop2
    assert store.history.load("refund").title == "Third"
    history = store.history
    assert history.resolve("refund", "@0").id == v3.id == history.resolve("refund", "head").id
    assert store.history.resolve("refund", v2.short).id == v2.id
    assert store.history.resolve("refund", v1.hash[:6].upper()).id == v1.id
    assert store.history.resolve("refund", v1.hash).tags == ["v1"]
    restored = store.history.restore("refund", "v1")
    assert restored == sop and canonical_json(restored) == canonical_json(sop)
    assert len(store.history.versions("refund")) == 3  # restoring records nothing by itself


def test_revision_errors(store):
    store.history.record(make_sop())
    for bad, fragment in (("@5", "shorter"), ("nonsense", "unknown revision"),
                          ("ffffffff", "no version matches"), ("abc", "unknown revision")):
        with pytest.raises(StoreError, match=fragment):
            store.history.resolve("refund", bad)
    with pytest.raises(StoreError):
        store.history.resolve("other-sop", "@0")


def test_ambiguous_prefix(store):
    digest = store.history.record(make_sop()).hash
    # A second version sharing the first 4 hex digits would take ~65,000 saves to meet by
    # chance; plant one directly (same document under a crafted hash).
    twin = digest[:4] + "0" * 60 if digest[4] != "0" else digest[:4] + "1" * 60
    store.conn.execute("INSERT INTO blobs SELECT ?, sop_id, encoding, size, document FROM blobs "
                       "WHERE hash = ?", (twin, digest))
    store.conn.execute("INSERT INTO versions (sop_id, hash, message, created) "
                       "VALUES ('refund', ?, '', '2020-01-01')", (twin,))
    with pytest.raises(StoreError, match="ambiguous"):
        store.history.resolve("refund", digest[:4])
    assert store.history.resolve("refund", digest[:12]).hash == digest


def test_tags(store):
    sop = make_sop()
    v1 = store.history.record(sop, tag="v1")
    # unchanged SOP: no version, but the tag is added
    same = store.history.record(sop, tag="release")
    assert same.id == v1.id and same.tags == ["v1", "release"]
    assert store.history.versions("refund")[0].tags == ["v1", "release"]
    store.history.record(edited(sop, title="x"))
    with pytest.raises(StoreError, match="already names"):
        store.history.tag("refund", "@0", "v1")
    tagged = store.history.tag("refund", "@0", "v2")
    assert "v2" in tagged.tags and store.history.resolve("refund", "v2").id == tagged.id
    store.history.untag("refund", "v2")
    with pytest.raises(StoreError):
        store.history.resolve("refund", "v2")
    for reserved in ("@3", "working", " "):
        with pytest.raises(StoreError):
            store.history.tag("refund", "@0", reserved)


def test_a_failed_record_leaves_nothing_behind(store):
    store.history.record(make_sop())
    before = [store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("versions", "blobs", "tags")]
    with pytest.raises(StoreError):  # the tag is checked after the version rows are written
        store.history.record(edited(make_sop(), title="new"), tag="@1")
    after = [store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
             for t in ("versions", "blobs", "tags")]
    assert after == before
    assert store.history.head("refund").hash == store.history.record(make_sop()).hash


def test_sops_listing_and_limit(store):
    store.history.record(make_sop("a", "A"))
    store.history.record(edited(make_sop("a", "A"), title="A2"))
    store.history.record(make_sop("b", "B"))
    listing = {row["id"]: row for row in store.history.sops()}
    assert listing["a"]["versions"] == 2 and listing["a"]["title"] == "A2"
    assert listing["b"]["head"] == store.history.head("b").hash
    assert len(store.history.versions("a", limit=1)) == 1
    assert store.history.head("missing") is None


def test_stored_documents_are_compressed(store):
    sop = make_sop()
    store.history.record(sop)
    encoding, size, document = store.conn.execute(
        "SELECT encoding, size, document FROM blobs").fetchone()
    assert encoding == "zlib" and size == len(canonical_json(sop).encode())
    assert pack(sop).document == document


# -- migrations ---------------------------------------------------------------------------------

def _database_at(path, version: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=version)
    if version >= 1:  # data as a version-1 SOP Studio wrote it (a tag in versions.tag)
        content = pack(make_sop())
        conn.execute("INSERT INTO sops VALUES ('refund', 'Refund', '2024-01-01', '2024-01-01')")
        conn.execute("INSERT INTO blobs VALUES (?, 'refund', ?, ?, ?)",
                     (content.hash, content.encoding, content.size, content.document))
        columns = [row[1] for row in conn.execute("PRAGMA table_info(versions)")]
        tag_column = ", tag" if "tag" in columns else ""
        tag_value = ", 'v1'" if "tag" in columns else ""
        conn.execute(f"INSERT INTO versions (sop_id, hash, message, created{tag_column}) "
                     f"VALUES ('refund', ?, 'old', '2024-01-01T00:00:00+00:00'{tag_value})",
                     (content.hash,))
        if version >= 2:  # from v2 on, tags have a table of their own
            conn.execute("INSERT INTO tags VALUES ('refund', 'v1', 1, '2024-01-01')")
        _old_run(conn, content.hash, version)
        if version >= 4:  # from v4 on, stored events are indexed as they are added
            for run_id in (1, 2):
                schema.index_steps(conn, run_id, 0)
    assert schema.user_version(conn) == version
    conn.close()


OLD_EVENTS = [{"type": "say", "node": "a", "text": "Order?"},
              {"type": "end", "node": "b", "outcome": "resolved", "note": "kept"}]
OLD_STATE = {"path": ["a", "b"], "variables": {"order_id": "42"}, "turns": 1}


def _old_run(conn, version_hash: str, version: int) -> None:
    """Runs as schema `version` stored them: up to v2 the final state rode in the last event's
    `extra` JSON; from v3 on it has the `runs.state` column."""
    in_column = version >= 3
    conn.execute("INSERT INTO runs (sop_id, version, settings, status, outcome, metrics, created) "
                 "VALUES ('refund', ?, '{}', 'finished', 'resolved', '{}', '2024-01-01')",
                 (version_hash,))
    conn.execute("INSERT INTO steps (run_id, seq, type, node, text) "
                 "VALUES (1, 0, 'say', 'a', 'Order?')")
    extra = {"outcome": "resolved", "note": "kept"}
    if in_column:
        conn.execute("UPDATE runs SET state = ? WHERE id = 1", (json.dumps(OLD_STATE),))
    else:
        extra["final_state"] = OLD_STATE
    conn.execute("INSERT INTO steps (run_id, seq, type, node, extra) VALUES (1, 1, 'end', 'b', ?)",
                 (json.dumps(extra),))
    # A second run, without a final state and with an event whose extra holds only it.
    conn.execute("INSERT INTO runs (sop_id, settings, status, metrics, created) "
                 "VALUES ('refund', '{}', 'finished', '{}', '2024-01-02')")
    conn.execute("INSERT INTO steps (run_id, seq, type, extra) VALUES (2, 0, 'say', ?)",
                 (json.dumps({"final_state": OLD_STATE}),))
    conn.execute("INSERT INTO steps (run_id, seq, type) VALUES (2, 1, 'end')")


@pytest.mark.parametrize("version", range(schema.LATEST))
def test_opening_every_earlier_schema_version(tmp_path, version):
    path = tmp_path / f"v{version}.sqlite"
    _database_at(path, version)
    with open_store(path) as store:
        assert store.schema_version == schema.LATEST
        assert store.integrity_check() == "ok"
        if version >= 1:
            old = store.history.resolve("refund", "v1")  # the v1 tag column moved to the tags table
            assert old.message == "old" and old.author is None
            assert store.history.load("refund", "v1") == make_sop()
        store.history.record(edited(make_sop(), title="after upgrade"), author="bo", tag="v2")
        assert store.history.resolve("refund", "v2").author == "bo"
        assert len(store.history.versions("refund")) == (2 if version >= 1 else 1)
        if version >= 1:  # v3: the final state moved from the last event to runs.state
            old = store.runs.load(1)
            assert old.state == OLD_STATE and old.events == OLD_EVENTS
            assert store.runs.load(2).state is None  # only a last event carried a state
            assert store.runs.load(2).events[0] == {"type": "say", "final_state": OLD_STATE}
            # v4: runs stored before are in the full-text index, and so is the version message
            assert [h["run_id"] for h in store.runs.search("Order")] == [1]
            assert [h["match"] for h in store.runs.search("old")] == ["version"]


def test_upgrading_a_v2_store_to_v3_moves_final_states_to_their_column(tmp_path):
    path = tmp_path / "v2.sqlite"
    _database_at(path, 2)
    conn = sqlite3.connect(path, isolation_level=None)
    assert "state" not in [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    assert schema.migrate(conn, target=3) == 3 == schema.user_version(conn)
    assert "state" in [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    states = dict(conn.execute("SELECT id, state FROM runs").fetchall())
    assert json.loads(states[1]) == OLD_STATE and states[2] is None
    extras = conn.execute("SELECT extra FROM steps WHERE run_id = 1 ORDER BY seq").fetchall()
    assert extras == [(None,), ('{"outcome":"resolved","note":"kept"}',)]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.sqlite"
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.LATEST + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        open_store(path)


def test_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a usable"):
        open_store(path)
