"""Replay: re-feed a recorded run's agent actions, user turns and tool results.

Replaying makes no model call and no tool call; run against the same SOP it reproduces the trace
exactly (events, memory, outcome), which the store relies on to show and re-check old runs. The
recorded inputs themselves live in recording.py (the orchestrator reads them; this module builds
the orchestrator, so the dependency runs one way).
"""

from __future__ import annotations

from .agents.base import Action
from .orchestrator import Orchestrator
from .recording import RecordedInputs, ReplayExhausted
from .trace import Trace

__all__ = ["RecordedInputs", "ReplayAgent", "ReplayExhausted", "replay", "replay_orchestrator"]


class ReplayAgent:
    """Stands in for the recorded agent (its name is kept in the trace's meta)."""

    static = False

    def __init__(self, name: str = "replay", static: bool = False):
        self.name = name
        self.static = static

    def next_action(self, ctx) -> Action:  # pragma: no cover - the orchestrator uses `recorded`
        raise ReplayExhausted("replay agent is driven by the recording")


def replay_orchestrator(compiled, trace: Trace | dict):
    """An orchestrator that re-feeds a recorded trace (no model call, no tool call), set up
    from the trace's meta (seed and limits); step it (the GUI) or run it (`replay`)."""
    recorded = RecordedInputs(trace)
    meta = (trace.meta if isinstance(trace, Trace) else trace.get("meta", {})) or {}
    agent = ReplayAgent(meta.get("agent", "replay"), bool(meta.get("static")))
    extra = {k: v for k, v in meta.items() if k not in ("sop", "agent", "seed")}
    return Orchestrator(compiled, agent, None, seed=meta.get("seed", 0),
                        max_turns=meta.get("max_turns", 40),
                        max_events=meta.get("max_events", 10_000),
                        max_rejections=meta.get("max_rejections", 2),
                        meta=extra, recorded=recorded)


def replay(compiled, trace: Trace | dict) -> Trace:
    """Re-run a recorded trace against `compiled`; returns the new (identical) trace."""
    return replay_orchestrator(compiled, trace).run()
