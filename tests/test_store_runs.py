"""Scenarios, runs and trace events; secrets never reach the database file."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import threading

import pytest

from sopstudio.core.model import SOP, Node
from sopstudio.store import StoreError, hash_sop, open_store
from sopstudio.store.redact import is_secret_key, scrub_text, strip_secrets, strip_userinfo

FAKE_KEY = "sk-test-FAKEkey0123456789abcdefXYZ"
FAKE_BEARER = "tok-FAKEbearer-9876543210zyx"

EVENTS = [
    {"type": "say", "node": "greet", "text": "Hello, how can I help?"},
    {"type": "user", "text": "My order 42 is late"},
    {"type": "ask", "node": "greet", "text": "Your order id?", "variable": "order_id"},
    {"type": "tool_call", "node": "lookup", "tool": "get_order", "arguments": {"id": 42}},
    {"type": "tool_result", "node": "lookup", "tool": "get_order",
     "result": {"status": "late", "eta": None, "items": [1, 2.5, "x"]}},
    {"type": "tool_result", "tool": "broken", "result": None, "error": "timeout"},
    {"type": "transition", "node": "lookup", "edge": "e1", "to": "apologise", "text": None},
    {"type": "guardrail", "node": "lookup", "text": "tool not in node", "retry": 1,
     "arguments": [], "nested": {"a": {"b": [True, False]}}},
    {"type": "end", "node": "done", "outcome": "resolved"},
    {"type": "custom-kind", "tool": 3, "node": ["odd"], "unicode": "café ✓"},
]


def sop() -> SOP:
    return SOP(id="orders", title="Orders", nodes=[Node(id="greet"), Node(id="done", kind="end")])


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "runs.sqlite") as opened:
        yield opened


def test_events_round_trip_losslessly_and_in_order(store):
    run_id = store.runs.save(sop=sop(), agent="scripted", model=None, status="running")
    store.runs.add_events(run_id, EVENTS[:4])
    assert store.runs.add_events(run_id, EVENTS[4:]) == len(EVENTS)
    record = store.runs.load(run_id)
    assert record.events == EVENTS
    assert record.event_count == len(EVENTS)
    assert [e["type"] for e in record.events] == [e["type"] for e in EVENTS]
    assert record.events_of("user", "tool_result") == [EVENTS[1], EVENTS[4], EVENTS[5]]
    columns = store.conn.execute("SELECT type, node, tool, arguments, extra FROM steps "
                                 "WHERE run_id = ? AND seq = 3", (run_id,)).fetchone()
    assert columns == ("tool_call", "lookup", "get_order", '{"id": 42}', None)


def test_run_fields_version_and_scenario(store):
    document = sop()
    scenario = store.runs.save_scenario({"journey": 0, "user": {"order_id": 42}}, sop_id="orders",
                                   name="late order", kind="correct")
    assert store.runs.save_scenario({"journey": 0, "user": {"order_id": 42}}) == scenario
    assert store.runs.scenario(scenario)["data"] == {"journey": 0, "user": {"order_id": 42}}
    assert [s["id"] for s in store.runs.scenarios("orders")] == [scenario]
    started = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    run_id = store.runs.save(sop=document, scenario_id=scenario, agent="dpa", model="gpt-x",
                            settings={"temperature": 0.2, "max_tokens": 300},
                            started=started, events=EVENTS[:2])
    store.runs.update(run_id, status="done", outcome="resolved", metrics={"ujcs": 1.0},
                     finished=started.timestamp() + 2.5)
    record = store.runs.load(run_id)
    assert record.version == hash_sop(document) and record.sop_id == "orders"
    assert store.history.load_hash(record.version) == document  # the exact document ran is kept
    assert store.history.versions("orders") == []  # ...without adding a history entry
    assert record.settings == {"temperature": 0.2, "max_tokens": 300}
    assert (record.status, record.outcome, record.metrics) == ("done", "resolved", {"ujcs": 1.0})
    assert record.started == "2025-01-02T03:04:05.000+00:00"
    assert record.finished == "2025-01-02T03:04:07.500+00:00"
    assert record.to_dict(events=False).keys() >= {"id", "version", "agent", "metrics"}
    with pytest.raises(StoreError, match="cannot update"):
        store.runs.update(run_id, settings={})
    with pytest.raises(StoreError):
        store.runs.update(9999, status="done")
    with pytest.raises(StoreError):
        store.runs.scenario("nope")


def test_run_state_is_stored_updated_and_left_out_of_listings(store):
    state = {"path": ["greet", "done"], "variables": {"order_id": 42, "note": None},
             "memory": [{"node": "greet", "observation": f"key {FAKE_KEY}"}], "turns": 2}
    with_state = store.runs.save(sop=sop(), agent="dpa", settings={"api_key": FAKE_KEY},
                                events=EVENTS[:2], state=state)
    without = store.runs.save(sop=sop(), agent="scripted", events=EVENTS[:2])
    record = store.runs.load(with_state)
    assert record.state["variables"] == {"order_id": 42, "note": None}
    assert record.state["memory"][0]["observation"] == "key [redacted]"  # scrubbed like events
    assert record.events == EVENTS[:2] and record.to_dict()["state"] == record.state
    assert store.runs.load(without).state is None  # NULL: no state recorded, not JSON null
    assert store.conn.execute("SELECT state FROM runs WHERE id = ?", (without,)).fetchone() == (
        None,)
    store.runs.update(without, state={"path": ["greet"]})
    assert store.runs.load(without).state == {"path": ["greet"]}
    store.runs.update(with_state, state=None)
    assert store.runs.load(with_state).state is None
    listed = store.runs.list()
    assert [r.state for r in listed] == [None, None]
    assert all("state" not in r.to_dict(events=False) for r in listed)


def test_runs_list_filters(store):
    first, second = sop(), sop().model_copy(update={"title": "Orders v2"})
    a = store.runs.save(sop=first, agent="scripted", status="done")
    b = store.runs.save(sop=second, agent="dpa", model="m", status="failed", events=EVENTS)
    c = store.runs.save(sop_id="other", agent="dpa", status="done")
    assert [r.id for r in store.runs.list()] == [c, b, a]
    assert [r.id for r in store.runs.list(sop_id="orders")] == [b, a]
    assert [r.id for r in store.runs.list(agent="dpa")] == [c, b]
    assert [r.id for r in store.runs.list(status="done", agent="dpa")] == [c]
    assert [r.id for r in store.runs.list(version=hash_sop(first)[:8])] == [a]
    assert [r.id for r in store.runs.list(version=hash_sop(second))] == [b]
    listed = store.runs.list(agent="dpa", status="failed")[0]
    assert listed.events == [] and listed.event_count == len(EVENTS)
    assert len(store.runs.list(limit=1)) == 1
    store.runs.delete(b)
    assert store.conn.execute("SELECT COUNT(*) FROM steps").fetchone()[0] == 0
    with pytest.raises(StoreError):
        store.runs.load(b)


def test_bad_events_are_refused_whole(store):
    run_id = store.runs.save(sop_id="x")
    with pytest.raises(StoreError, match="must be a dict"):
        store.runs.add_events(run_id, [{"type": "say"}, "not an event"])
    with pytest.raises(StoreError, match="cannot be stored"):
        store.runs.add_events(run_id, [{"type": "say", "result": object()}])
    assert store.runs.load(run_id).events == []  # the batch is one transaction
    with pytest.raises(StoreError, match="no run"):
        store.runs.add_events(12345, [{"type": "say"}])


def test_secret_keys_are_recognised():
    for name in ("api_key", "OPENAI_API_KEY", "X-Api-Key", "apiKey", "Authorization", "token",
                 "access_token", "client_secret", "password", "db_password", "key"):
        assert is_secret_key(name), name
    for name in ("max_tokens", "author", "model", "temperature", "base_url", "keyboard", "monkey"):
        assert not is_secret_key(name), name
    found = set()
    clean = strip_secrets({"a": [{"token": "t" * 10}, "Bearer abcdefghijk", 1]}, found)
    assert clean == {"a": [{}, 1]} and "t" * 10 in found


def test_no_secret_is_written_to_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "env-secret-value-424242")
    path = tmp_path / "secrets.sqlite"
    settings = {"model": "gpt-x", "api_key": FAKE_KEY, "temperature": 0,
                "client": {"base_url": "http://127.0.0.1:9/v1",
                           "headers": {"Authorization": f"Bearer {FAKE_BEARER}",
                                       "X-Trace": "ok"},
                           "default_headers": [f"Bearer {FAKE_BEARER}"]},
                "nested": [{"password": "hunter2-hunter2"}, {"apiKey": FAKE_KEY}]}
    with open_store(path) as store:
        scenario = store.runs.save_scenario({"user": {"name": "Ann"}, "token": FAKE_KEY})
        run_id = store.runs.save(sop=sop(), agent="dpa", settings=settings, scenario_id=scenario,
                                metrics={"note": f"used {FAKE_KEY}"})
        store.runs.add_events(run_id, [
            {"type": "say", "text": f"debug: key={FAKE_KEY}"},
            {"type": "tool_call", "tool": "t", "arguments": {"auth": FAKE_BEARER}},
            {"type": "user", "text": "env says env-secret-value-424242"}])
        record = store.runs.load(run_id)
        assert record.settings == {"model": "gpt-x", "temperature": 0,
                                   "client": {"base_url": "http://127.0.0.1:9/v1",
                                              "headers": {"X-Trace": "ok"},
                                              "default_headers": []},
                                   "nested": [{}, {}]}
        assert record.events[0]["text"] == "debug: key=[redacted]"
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("secrets.sqlite*"))
    assert len(raw) > 4096
    for secret in (FAKE_KEY, FAKE_BEARER, "hunter2-hunter2", "env-secret-value-424242"):
        assert secret.encode() not in raw, secret
    assert b"gpt-x" in raw  # the settings that are not secret are there


def test_url_userinfo_never_reaches_the_file(tmp_path, monkeypatch):
    for key in [k for k in os.environ if is_secret_key(k)]:
        monkeypatch.delenv(key)  # only the URL can make the store scrub events
    path = tmp_path / "url.sqlite"
    base_url = "http://alice:pw-S3cr3t-99@127.0.0.1:9/v1"
    settings = {"base_url": base_url, "mirrors": ["https://bob:hunter22x@example.test/a"]}
    with open_store(path) as store:
        run_id = store.runs.save(sop=sop(), agent="dpa", settings=settings)
        store.runs.add_events(run_id, [
            {"type": "say", "text": f"calling {base_url}/chat"},
            {"type": "tool_call", "tool": "t", "arguments": {"url": "ftp://x:y@h/f"}}])
        record = store.runs.load(run_id)
        assert record.settings == {"base_url": "http://127.0.0.1:9/v1",
                                   "mirrors": ["https://example.test/a"]}
        assert record.events[0]["text"] == "calling http://127.0.0.1:9/v1/chat"
        assert record.events[1]["arguments"] == {"url": "ftp://h/f"}
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("url.sqlite*"))
    for secret in (b"pw-S3cr3t-99", b"alice", b"hunter22x", b"x:y@"):
        assert secret not in raw, secret
    assert b"127.0.0.1:9/v1" in raw


def test_strip_userinfo_keeps_urls_without_it():
    assert strip_userinfo("see https://u:p@h.test:8/x?a=b@c and http://h/y") == \
        "see https://h.test:8/x?a=b@c and http://h/y"
    assert strip_userinfo("mail ann@example.test, http://h/x") == "mail ann@example.test, http://h/x"
    assert scrub_text('{"u": "http://a:b@h/"}', set()) == '{"u": "http://h/"}'
    found: set[str] = set()
    assert strip_secrets({"u": "http://user:longpassword@h/"}, found) == {"u": "http://h/"}
    assert "longpassword" in found


def test_one_store_shared_between_threads(store):
    run_id = store.runs.save(sop_id="threads")
    errors = []

    def writer(who: int) -> None:
        try:
            for batch in range(20):
                store.runs.add_events(run_id, [{"type": "say", "text": f"{who}:{batch}:{k}"}
                                          for k in range(10)])
                store.runs.list(sop_id="threads")
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    texts = [e["text"] for e in store.runs.load(run_id).events]
    assert len(texts) == len(set(texts)) == 4 * 20 * 10
    for who in range(4):  # each thread's batches stay in its own order
        mine = [t for t in texts if t.startswith(f"{who}:")]
        assert mine == [f"{who}:{b}:{k}" for b in range(20) for k in range(10)]


def test_url_userinfo_in_events_is_stripped_even_with_no_known_secrets(tmp_path, monkeypatch):
    for name in list(os.environ):
        if any(word in name.upper() for word in ("KEY", "TOKEN", "SECRET", "PASSWORD")):
            monkeypatch.delenv(name)
    path = tmp_path / "s.sqlite"
    with open_store(str(path)) as store:
        run = store.runs.save(sop_id=None, agent="x", settings={},
                             events=[{"type": "say", "text": "see https://bob:Hunter2-xyz@h.example/x"}])
        assert "Hunter2-xyz" not in store.runs.load(run).events[0]["text"]
    assert b"Hunter2-xyz" not in path.read_bytes()
