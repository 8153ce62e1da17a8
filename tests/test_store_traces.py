"""Engine traces in a real store: save, query, load back equal, replay without a model call, batches."""

from __future__ import annotations

import sqlite3
import sys
import threading

import pytest

from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.batch import run_batch
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import listing_blocked
from sopstudio.engine.runner import orchestrator_for, run_scenario
from sopstudio.engine.scenarios import generate
from sopstudio.engine.tools import MockTools
from sopstudio.store import StoreError, hash_sop, open_store, schema
from sopstudio.store import events as store_events
from sopstudio.store.traces import (STATE_FIELDS, load_trace, replay_run, same_trace,
                                    save_batch, save_trace)

SECRET = "sk-test-0123456789abcdefXYZ"


@pytest.fixture
def sop():
    return listing_blocked()


@pytest.fixture
def compiled(sop):
    return CompiledSop(sop)


@pytest.fixture
def scenarios(compiled):
    return generate(compiled)


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "runs.sqlite") as opened:
        yield opened


def by_type(scenarios, kind):
    return next(s for s in scenarios if s.type == kind)


class FakeLlmAgent:
    """Stands in for an LLM agent: decides like the scripted agent, counts its 'model calls',
    and fails once `offline` is set, as a model endpoint that is gone would."""

    name = "dpa"
    static = False

    def __init__(self, compiled):
        self.inner = ScriptedAgent(compiled)
        self.calls = 0
        self.offline = False

    def next_action(self, ctx):
        if self.offline:
            raise AssertionError("the model was called during a replay")
        self.calls += 1
        return self.inner.next_action(ctx)


def test_save_load_replay_and_query(store, sop, compiled, scenarios):
    scenario = by_type(scenarios, "failing-function")
    trace = run_scenario(compiled, scenario)
    run_id = save_trace(store, sop, scenario, trace, agent="scripted",
                        settings={"seed": 0}, started=1_700_000_000, finished=1_700_000_002)
    record = store.runs.load(run_id)
    assert (record.sop_id, record.version, record.agent) == (sop.id, hash_sop(sop), "scripted")
    assert (record.status, record.outcome) == ("finished", trace.outcome)
    assert record.started.startswith("2023-11-14T22:13:20") and record.finished > record.started
    assert record.settings["seed"] == 0 and record.settings["meta"] == trace.meta
    assert record.metrics["scenario"] == scenario.id and record.metrics["correct"] is True
    assert record.event_count == len(trace.events) and len(trace.events) > 5
    assert [e["type"] for e in record.events] == [e.type for e in trace.events]
    stored_scenario = store.runs.scenario(record.scenario_id)
    assert stored_scenario["data"] == scenario.to_dict()
    assert (stored_scenario["name"], stored_scenario["kind"]) == (scenario.id, "failing-function")

    loaded = load_trace(store, run_id)
    assert loaded.to_dict() == trace.to_dict() and loaded.memory and loaded.tool_trace
    assert replay_run(store, run_id).to_dict() == trace.to_dict()

    for query in ({"sop_id": sop.id}, {"version": hash_sop(sop)[:10]}, {"agent": "scripted"},
                  {"status": "finished"}, {"sop_id": sop.id, "agent": "scripted",
                                           "status": "finished"}):
        assert [r.id for r in store.runs.list(**query)] == [run_id], query
    assert store.runs.list(agent="dpa") == [] and store.runs.list(status="stopped") == []


def test_query_separates_versions_agents_and_statuses(store, sop, compiled, scenarios):
    scenario = by_type(scenarios, "correct")
    first = save_trace(store, sop, scenario, run_scenario(compiled, scenario), agent="scripted")
    changed = sop.model_copy(update={"title": sop.title + " v2"})
    stopper = threading.Event()
    stopper.set()
    stopped = run_scenario(CompiledSop(changed), scenario, cancel=stopper)
    assert stopped.outcome == "stopped"
    second = save_trace(store, changed, scenario, stopped, agent="spa", model="m")
    assert [r.id for r in store.runs.list(version=hash_sop(changed))] == [second]
    assert [r.id for r in store.runs.list(version=hash_sop(sop))] == [first]
    assert [r.id for r in store.runs.list(status="stopped")] == [second]
    assert [r.id for r in store.runs.list(agent="spa")] == [second]
    assert [r.id for r in store.runs.list(sop_id=sop.id)] == [second, first]
    assert load_trace(store, second).to_dict() == stopped.to_dict()


def test_replay_makes_no_model_call(store, sop, compiled, scenarios, monkeypatch):
    scenario = by_type(scenarios, "missing-parameter")
    agent = FakeLlmAgent(compiled)
    trace = orchestrator_for(compiled, scenario, agent).run()
    assert agent.calls > 0 and trace.meta["agent"] == "dpa"
    run_id = save_trace(store, sop, scenario, trace, agent=agent, model="fake-model")
    assert store.runs.load(run_id).agent == "dpa"

    # Every way a model or a tool could be reached now fails loudly.
    agent.offline = True
    monkeypatch.setitem(sys.modules, "openai", None)  # `import openai` raises ImportError

    def no_agent(*args, **kwargs):
        raise AssertionError("an agent was built during a replay")

    def no_tool(*args, **kwargs):
        raise AssertionError("a tool was called during a replay")

    monkeypatch.setattr("sopstudio.engine.agents.make_agent", no_agent)
    monkeypatch.setattr("sopstudio.engine.runner.make_agent", no_agent)
    monkeypatch.setattr(MockTools, "call", no_tool)
    replayed = replay_run(store, run_id)
    assert same_trace(replayed, trace) and replayed.meta["agent"] == "dpa"
    assert agent.calls == sum(1 for e in trace.events if e.action is not None)


def test_replay_against_a_changed_sop_follows_the_change(store, sop, compiled, scenarios):
    scenario = by_type(scenarios, "correct")
    trace = run_scenario(compiled, scenario)
    run_id = save_trace(store, sop, scenario, trace, agent="scripted")
    # e2 (check_user -> ask_listing, the else branch this journey takes) now ends the call.
    edges = [e.model_copy(update={"target": "done_onboarding"}) if e.id == "e2" else e
             for e in sop.edges]
    replayed = replay_run(store, run_id, sop=sop.model_copy(update={"edges": edges}))
    assert replayed.path == ["check_user", "done_onboarding"] != trace.path
    assert not same_trace(replayed, load_trace(store, run_id))
    assert same_trace(replay_run(store, run_id), trace)  # the stored document still fits


def test_batch_is_stored_in_one_transaction(store, sop, compiled, scenarios):
    batch = run_batch(compiled, scenarios, "scripted", workers=3)
    begins = []
    store.conn.set_trace_callback(lambda sql: begins.append(sql)
                                  if sql.startswith("BEGIN IMMEDIATE") else None)
    ids = save_batch(store, sop, batch, "scripted", settings={"workers": 3},
                     started=1_700_000_000, finished=1_700_000_060)
    store.conn.set_trace_callback(None)
    assert len(begins) == 1 and len(ids) == len(scenarios) == len(set(ids))
    assert sorted(r.id for r in store.runs.list(sop_id=sop.id)) == sorted(ids)
    assert {s["kind"] for s in store.runs.scenarios(sop.id)} == {s.type for s in scenarios}
    for run_id, result in zip(ids, batch.results):
        record = store.runs.load(run_id)
        assert record.metrics == result.metrics and record.status == "finished"
        assert store.runs.scenario(record.scenario_id)["name"] == result.scenario.id
        assert load_trace(store, run_id).to_dict() == result.trace.to_dict()
    assert same_trace(replay_run(store, ids[-1]), batch.results[-1].trace)


def test_failed_and_cancelled_batch_runs_are_stored_too(store, sop, compiled, scenarios):
    cancel = threading.Event()
    cancel.set()
    batch = run_batch(compiled, scenarios[:3], "scripted", cancel=cancel)
    batch.results[0].error, batch.results[0].trace = "RuntimeError: endpoint down", None
    ids = save_batch(store, sop, batch, "dpa", model="m")
    records = [store.runs.load(i) for i in ids]
    assert [r.status for r in records] == ["failed", "cancelled", "cancelled"]
    assert records[0].metrics == {"error": "RuntimeError: endpoint down"}
    assert all(r.event_count == 0 and r.version == hash_sop(sop) for r in records)
    assert [r.id for r in store.runs.list(status="failed", agent="dpa")] == [ids[0]]


def test_no_secret_reaches_the_database(tmp_path, sop, compiled, scenarios):
    path = tmp_path / "secret.sqlite"
    scenario = by_type(scenarios, "correct")
    trace = run_scenario(compiled, scenario)
    trace.events[1].text = f"echoed key {SECRET}"  # a secret echoed into the conversation
    with open_store(path) as store:
        run_id = save_trace(store, sop, scenario, trace, agent="dpa", model="m",
                            settings={"api_key": SECRET, "base_url": "http://127.0.0.1:9/v1",
                                      "headers": {"Authorization": f"Bearer {SECRET}"}})
        batch = run_batch(compiled, scenarios[:2], "scripted")
        save_batch(store, sop, batch, "dpa", settings={"api_key": SECRET})
        record = store.runs.load(run_id)
        assert record.settings["base_url"] == "http://127.0.0.1:9/v1"
        assert "api_key" not in record.settings and record.settings["headers"] == {}
        assert "[redacted]" in load_trace(store, run_id).events[1].text
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(path.name))
    assert SECRET.encode() not in raw
    conn = sqlite3.connect(path)
    dumped = "\n".join(conn.iterdump())
    conn.close()
    assert SECRET not in dumped and "[redacted]" in dumped


def test_runs_saved_without_final_state_load_from_their_events(store, sop, compiled, scenarios):
    """The GUI's older saves keep only events and meta: the trace is rebuilt from the events
    and a replay restores the rest (memory, variables)."""
    scenario = by_type(scenarios, "correct")
    trace = run_scenario(compiled, scenario)
    run_id = store.runs.save(sop=sop, agent="scripted", settings={"meta": dict(trace.meta)},
                            status="finished", outcome=trace.outcome,
                            events=[e.to_dict() for e in trace.events])
    assert store.runs.load(run_id).state is None
    loaded = load_trace(store, run_id)
    assert loaded.memory == [] and loaded.variables == {}  # not recoverable from events alone
    assert (loaded.path, loaded.edges, loaded.tool_trace) == (trace.path, trace.edges,
                                                               trace.tool_trace)
    assert (loaded.turns, loaded.end_node, loaded.meta) == (trace.turns, trace.end_node,
                                                             trace.meta)
    assert replay_run(store, run_id).to_dict() == trace.to_dict()


def test_final_state_is_a_run_column_not_part_of_an_event(store, sop, compiled, scenarios):
    scenario = by_type(scenarios, "correct")
    trace = run_scenario(compiled, scenario)
    assert trace.variables and trace.memory
    run_id = save_trace(store, sop, scenario, trace, agent="scripted")
    record = store.runs.load(run_id)
    assert record.events == [e.to_dict() for e in trace.events]  # nothing rides along
    whole = trace.to_dict()
    assert record.state == {k: whole[k] for k in STATE_FIELDS}
    assert record.state["variables"] == trace.variables
    assert record.to_dict()["state"] == record.state
    extras = [row[0] for row in store.conn.execute(
        "SELECT extra FROM steps WHERE run_id = ? AND extra IS NOT NULL", (run_id,))]
    assert all("final_state" not in extra for extra in extras)
    # A listing leaves the state out, as it leaves out the events.
    listed = store.runs.list(sop_id=sop.id)[0]
    assert listed.state is None and "state" not in listed.to_dict(events=False)


def test_replaying_a_run_without_document_is_a_clear_error(store, sop, compiled, scenarios):
    scenario = by_type(scenarios, "correct")
    trace = run_scenario(compiled, scenario)
    run_id = store.runs.save(sop_id=sop.id, agent="scripted", outcome=trace.outcome,
                            events=[e.to_dict() for e in trace.events])
    with pytest.raises(StoreError, match="no stored SOP document"):
        replay_run(store, run_id)
    assert replay_run(store, run_id, sop=sop).outcome == trace.outcome


def test_a_run_stored_by_a_v2_store_loads_equal_after_the_upgrade(tmp_path, sop, compiled,
                                                                   scenarios):
    """Schema v2 kept the final state in the last event's extra data (`final_state`); opening
    the file upgrades it to v3 and the run loads back equal, its events free of that key."""
    scenario = by_type(scenarios, "failing-function")
    trace = run_scenario(compiled, scenario)
    whole = trace.to_dict()
    events = [e.to_dict() for e in trace.events]
    events[-1]["final_state"] = {k: whole[k] for k in STATE_FIELDS}  # what v2 wrote
    path = tmp_path / "v2.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=2)
    conn.execute("INSERT INTO runs (sop_id, agent, settings, status, outcome, metrics, created) "
                 "VALUES (?, 'scripted', ?, 'finished', ?, '{}', '2024-01-01')",
                 (None, store_events.dump({"meta": trace.meta}, set()), trace.outcome))
    conn.executemany("INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [store_events.encode(1, i, e, set()) for i, e in enumerate(events)])
    conn.close()
    with open_store(path) as store:
        assert store.schema_version == schema.LATEST
        record = store.runs.load(1)
        assert record.events == [e.to_dict() for e in trace.events]
        assert record.state == events[-1]["final_state"]
        assert load_trace(store, 1).to_dict() == whole
        assert same_trace(replay_run(store, 1, sop=sop), trace)
        assert [h["run_id"] for h in store.runs.search(scenario.failing["error"])] == [1]
