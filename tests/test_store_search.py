"""Full-text search over stored runs (schema v4): trace events and version messages, the index
kept in step with inserts and deletes, safe with any text, and built for runs stored before v4."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.core.model import SOP, Node
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import generate
from sopstudio.store import open_store, schema
from sopstudio.store.blobs import pack
from sopstudio.store.search import SNIPPET_CLOSE, SNIPPET_OPEN, VERSION_PREFIX
from sopstudio.store.traces import save_trace

KEYS = {"run_id", "sop_id", "version", "agent", "scenario", "outcome", "created", "snippet"}


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "search.sqlite") as opened:
        yield opened


def _store_runs(store, kinds=("correct", "failing-function")):
    """One stored run of each scenario type (of the first covering journey); their ids."""
    compiled = CompiledSop(listing_blocked())
    ids = {}
    for scenario in generate(compiled):
        if scenario.type in kinds and scenario.type not in ids:
            trace = run_scenario(compiled, scenario, "scripted")
            ids[scenario.type] = save_trace(store, compiled.sop, scenario, trace,
                                            agent="scripted")
    return ids


def test_a_tool_name_an_error_code_and_agent_words_find_their_runs(store):
    ids = _store_runs(store)
    by_tool = store.runs.search("check_user_status")
    assert [h["run_id"] for h in by_tool] == sorted(ids.values(), reverse=True)  # newest first
    assert KEYS <= set(by_tool[0])
    failing = store.runs.search("api_error")
    assert [h["run_id"] for h in failing] == [ids["failing-function"]]
    hit = failing[0]
    assert (hit["scenario"], hit["outcome"], hit["agent"]) == (
        "failing-function", "technical-issue", "scripted")
    assert f"{SNIPPET_OPEN}api_error{SNIPPET_CLOSE}" in hit["snippet"] and hit["match"] == "trace"
    words = store.runs.search("technical issue")  # the grace message the agent said
    assert [h["run_id"] for h in words] == [ids["failing-function"]]
    assert store.runs.load(hit["run_id"]).events[hit["event"]]["result"] == {"error": "api_error"}


def test_every_word_must_occur_and_the_last_may_be_a_prefix(store):
    ids = _store_runs(store)
    assert store.runs.search("api_error resolved") == []
    assert [h["run_id"] for h in store.runs.search("technical iss")] == [ids["failing-function"]]
    assert store.runs.search("zebra") == []


def test_version_messages_find_the_runs_of_that_version(store):
    store.history.record(listing_blocked(), message="Tighter refund loop after the audit")
    ids = _store_runs(store, kinds=("correct",))
    hits = store.runs.search("refund audit")
    assert [h["run_id"] for h in hits] == [ids["correct"]]
    assert hits[0]["match"] == "version" and hits[0]["event"] is None
    assert hits[0]["snippet"].startswith(VERSION_PREFIX)
    assert f"{SNIPPET_OPEN}audit{SNIPPET_CLOSE}" in hits[0]["snippet"]


def test_sop_filter_and_limit(store):
    ids = _store_runs(store)
    other = SOP(id="other", title="Other", start="a",
                nodes=[Node(id="a", kind="end", say="check_user_status is down")])
    other_run = store.runs.save(sop=other, agent="scripted", status="finished",
                               events=[{"type": "say", "node": "a",
                                        "text": "check_user_status is down"}])
    everything = store.runs.search("check_user_status")
    assert everything[0]["run_id"] == other_run and len(everything) == 3
    mine = store.runs.search("check_user_status", sop_id="listing-blocked")
    assert {h["run_id"] for h in mine} == set(ids.values())
    assert len(store.runs.search("check_user_status", limit=1)) == 1
    assert store.runs.search("check_user_status", limit=0) == []


def test_the_index_follows_appended_events_and_deleted_runs(store):
    run_id = store.runs.save(sop_id="s", status="running")
    assert store.runs.search("quokka") == []
    store.runs.add_events(run_id, [{"type": "user", "text": "my pet quokka"}])
    store.runs.add_events(run_id, [{"type": "guardrail", "code": "tool-not-in-node", "text": "no"}])
    assert [h["run_id"] for h in store.runs.search("quokka")] == [run_id]
    assert [h["event"] for h in store.runs.search("tool-not-in-node")] == [1]
    store.runs.delete(run_id)
    assert store.runs.search("quokka") == []
    assert store.conn.execute("SELECT COUNT(*) FROM step_search").fetchone()[0] == 0
    assert store.integrity_check() == "ok"


@pytest.mark.parametrize("text", ['"', 'NOT', 'a OR b', '(', 'col:x', '*', 'x"y', '^start',
                                  'NEAR(a b)', "'; DROP TABLE runs; --", '', '   ', '-', '""'])
def test_fts_syntax_in_the_text_never_raises(store, text):
    _store_runs(store, kinds=("correct",))
    assert isinstance(store.runs.search(text), list)


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("fts") / "s.sqlite") as opened:
        _store_runs(opened)
        yield opened


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=30))
def test_any_text_is_a_safe_query(shared_store, text):
    for hit in shared_store.runs.search(text):
        assert KEYS <= set(hit)


# -- v3 -> v4 --------------------------------------------------------------------------------

def test_upgrading_a_v3_store_indexes_its_runs_and_messages(tmp_path):
    path = tmp_path / "v3.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=3)
    content = pack(listing_blocked())
    conn.execute("INSERT INTO sops VALUES ('listing-blocked', 'L', '2024-01-01', '2024-01-01')")
    conn.execute("INSERT INTO blobs VALUES (?, 'listing-blocked', ?, ?, ?)",
                 (content.hash, content.encoding, content.size, content.document))
    conn.execute("INSERT INTO versions (sop_id, hash, message, created) VALUES "
                 "('listing-blocked', ?, 'before the walrus fix', '2024-01-01')", (content.hash,))
    conn.execute("INSERT INTO runs (sop_id, version, settings, status, outcome, metrics, created) "
                 "VALUES ('listing-blocked', ?, '{}', 'finished', 'resolved', '{}', '2024-01-01')",
                 (content.hash,))
    conn.execute("INSERT INTO steps (run_id, seq, type, tool, arguments, result) VALUES "
                 "(1, 0, 'tool_result', 'check_listing_status', ?, ?)",
                 (json.dumps({"listing_id": "LST9"}), json.dumps({"error": "invalid_id"})))
    conn.execute("INSERT INTO steps (run_id, seq, type, extra) VALUES (1, 1, 'end', ?)",
                 (json.dumps({"outcome": "technical-issue", "code": "attempts-exhausted"}),))
    assert schema.migrate(conn, target=4) == 4 == schema.user_version(conn)
    conn.close()
    with open_store(path) as store:
        for text, event in (("invalid_id", 0), ("LST9", 0), ("attempts-exhausted", 1)):
            hits = store.runs.search(text)
            assert [(h["run_id"], h["event"]) for h in hits] == [(1, event)], text
        assert store.runs.search("walrus")[0]["match"] == "version"
        store.history.record(listing_blocked().model_copy(update={"title": "New"}),
                             message="narwhal")
        assert store.conn.execute("SELECT COUNT(*) FROM versions_fts WHERE versions_fts "
                                  "MATCH 'narwhal'").fetchone()[0] == 1
        assert store.integrity_check() == "ok"
