"""Engine traces in the store (DESIGN §6-7): save a simulated run, load it back, replay it.

A run row records the exact SOP document (`runs.save(sop=...)` stores its content and hash without
adding a history entry), its scenario (a `scenarios` row), agent, model, settings without secrets
(plus the trace's `meta` under `settings["meta"]`, as the GUI saves it), status, outcome, metrics
and timings; every trace event is one `steps` row. The trace's final state (path, memory,
variables, ...; STATE_FIELDS) is not an event, so it has a column of its own (`runs.state`);
`load_trace` puts events and state together again into a Trace equal to the saved one. Runs saved
without a state are rebuilt from their events as far as those tell (a replay restores the rest).

The store imports the engine, never the other way round.
"""

from __future__ import annotations

from typing import Any

from ..core.model import SOP
from ..engine.batch import BatchResult, RunResult
from ..engine.compiled import CompiledSop
from ..engine.metrics import run_metrics
from ..engine.orchestrator import TURN_EVENTS
from ..engine.orchestrator_replay import replay
from ..engine.scenarios import Scenario
from ..engine.trace import Trace
from .blobs import hash_sop
from .db import StoreError
from .redact import strip_secrets
from .store import Store

STATE_FIELDS = ("end_node", "path", "edges", "tool_trace", "memory", "variables", "ends",
                "turns", "meta")


def run_status(trace: Trace) -> str:
    """`finished` once the run ended by itself or hit its limit, `stopped` when an operator or a
    cancellation stopped it, `running` while it has no outcome yet."""
    if trace.outcome is None:
        return "running"
    return "stopped" if trace.outcome == "stopped" else "finished"


def save_trace(store: Store, sop: SOP, scenario: Scenario | None, trace: Trace, *, agent: Any,
               model: str | None = None, settings: dict | None = None,
               metrics: dict | None = None, status: str | None = None,
               started: Any = None, finished: Any = None) -> int:
    """Store one run with every event in one transaction; returns the run id. `metrics`
    defaults to the engine's per-run metrics against `scenario`."""
    with store.tx.write():
        return _save_one(store, {"sop": sop}, sop.id, scenario, trace, agent=agent, model=model,
                         settings=settings, metrics=metrics, status=status, started=started,
                         finished=finished)


def save_batch(store: Store, sop: SOP, batch: BatchResult, agent: Any, *, model: str | None = None,
               settings: dict | None = None, started: Any = None,
               finished: Any = None) -> list[int]:
    """Store every run of a batch (failed and cancelled ones too, without events) in a single
    transaction; returns the run ids in the batch's order. `started`/`finished` are the batch's
    (the engine does not time single runs of a batch)."""
    ids: list[int] = []
    with store.tx.write():
        ref: dict = {"sop": sop}
        for result in batch.results:
            ids.append(_save_result(store, ref, sop.id, result, agent=agent, model=model,
                                    settings=settings, started=started, finished=finished))
            # The document is stored with the first run; the others only point at its hash.
            ref = {"sop_id": sop.id, "version": hash_sop(sop)} if "sop" in ref else ref
    return ids


def _save_result(store: Store, ref: dict, sop_id: str, result: RunResult, **options) -> int:
    if result.trace is not None and result.error is None:
        return _save_one(store, ref, sop_id, result.scenario, result.trace,
                         metrics=result.metrics, status=None, **options)
    status = "cancelled" if result.error == "cancelled" else "failed"
    scenario_id = _save_scenario(store, sop_id, result.scenario)
    agent = options["agent"]
    return store.runs.save(**ref, scenario_id=scenario_id, agent=_agent_name(agent, None),
                          model=options["model"], settings=_settings(options["settings"], None),
                          status=status, metrics={"error": result.error},
                          started=options["started"], finished=options["finished"])


def _save_one(store: Store, ref: dict, sop_id: str, scenario: Scenario | None, trace: Trace, *,
              agent: Any, model: str | None, settings: dict | None, metrics: dict | None,
              status: str | None, started: Any, finished: Any) -> int:
    # Collect the secrets first, so that the scenario and the events are scrubbed of them too.
    strip_secrets(settings or {}, store.secrets)
    scenario_id = _save_scenario(store, sop_id, scenario)
    if metrics is None and scenario is not None:
        metrics = run_metrics(trace, scenario)
    return store.runs.save(**ref, scenario_id=scenario_id, agent=_agent_name(agent, trace),
                          model=model, settings=_settings(settings, trace),
                          status=status or run_status(trace), outcome=trace.outcome,
                          metrics=metrics or {}, started=started, finished=finished,
                          events=trace_events(trace), state=trace_state(trace))


def _save_scenario(store: Store, sop_id: str, scenario: Scenario | None) -> str | None:
    if scenario is None:
        return None
    # The id is a hash of the content: scenario names like "j0-correct" repeat across SOPs.
    return store.runs.save_scenario(scenario.to_dict(), sop_id=sop_id, name=scenario.id,
                               kind=scenario.type)


def _agent_name(agent: Any, trace: Trace | None) -> str | None:
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    return name or (trace.meta.get("agent") if trace is not None else None)


def _settings(settings: dict | None, trace: Trace | None) -> dict:
    data = dict(settings or {})
    if trace is not None:
        data["meta"] = dict(trace.meta)
    return data


def trace_events(trace: Trace) -> list[dict]:
    """The event dicts to store, one `steps` row each."""
    return [event.to_dict() for event in trace.events]


def trace_state(trace: Trace) -> dict:
    """The trace's final state to store in `runs.state` (everything but events and outcome)."""
    whole = trace.to_dict()
    return {k: whole[k] for k in STATE_FIELDS}


def load_trace(store: Store, run_id: int) -> Trace:
    """The stored run as the engine's Trace (equal to the one saved by `save_trace`)."""
    return trace_from_record(store.runs.load(run_id))


def trace_from_record(record) -> Trace:
    """The Trace of a loaded run record (`store.runs.load`), for callers that need the record's
    other fields too and so read it only once."""
    state = record.state
    if state is None:
        state = _state_from_events(record.events, record.settings)
    return Trace.from_dict({**state, "events": record.events, "outcome": record.outcome})


def _state_from_events(events: list[dict], settings: dict) -> dict:
    """What the events alone say about a run saved without its final state (memory and
    variables are not recoverable this way; a replay rebuilds them)."""
    moves = [e for e in events if e.get("type") == "transition"]
    ends = [e for e in events if e.get("type") == "end"]
    return {"path": [e.get("node") for e in moves],
            "edges": [e["edge"] for e in moves if e.get("edge")],
            "tool_trace": [{"tool": e.get("tool"), "arguments": e.get("arguments") or {}}
                           for e in events if e.get("type") == "tool_call"],
            "turns": sum(1 for e in events if e.get("type") in TURN_EVENTS),
            "end_node": ends[-1].get("node") if ends and ends[-1].get("outcome") not in
            ("blocked", "stopped", "turn-limit", "technical-issue") else None,
            "meta": dict((settings or {}).get("meta") or {})}


def load_run_sop(store: Store, run_id: int) -> SOP:
    """The exact SOP document a stored run ran against."""
    record = store.runs.load(run_id)
    if not record.version:
        raise StoreError(f"run {run_id} has no stored SOP document to replay against")
    return store.history.load_hash(record.version)


def replay_run(store: Store, run_id: int, sop: SOP | None = None) -> Trace:
    """Re-run a stored run from its recorded agent actions, user turns and tool results against
    the document it ran (or `sop`): no model call, no tool call. Raises ReplayExhausted (a
    SopStudioError) when the recording does not fit the SOP."""
    trace = load_trace(store, run_id)
    sop = sop if sop is not None else load_run_sop(store, run_id)
    return replay(CompiledSop(sop), trace)


def same_trace(a: Trace, b: Trace) -> bool:
    """Whether two traces record the same run (events, state, outcome and meta)."""
    return a.to_dict() == b.to_dict()
