"""Replay: re-feed a recorded run's agent actions, user turns and tool results.

Replaying makes no model call and no tool call; run against the same SOP it reproduces the trace
exactly (events, memory, outcome), which the store relies on to show and re-check old runs.
"""

from __future__ import annotations

from ..core.errors import SopStudioError
from .agents.base import Action, AgentError
from .trace import Event, Trace
from .users import UserTurn


class ReplayExhausted(SopStudioError):
    """The recorded run has no more inputs of the kind the replay asked for (SOP changed?)."""


class RecordedInputs:
    def __init__(self, trace: Trace | dict):
        trace = Trace.from_dict(trace) if isinstance(trace, dict) else trace
        events = trace.events
        self.actions = [e.action for e in events if e.action is not None]
        self.users = [e for e in events if e.type == "user"]
        self.results = [e for e in events if e.type == "tool_result"]
        # the note event (live tool mocked) that preceded each result, if any
        self.notes = [events[i - 1].text if i and events[i - 1].type == "note" else None
                      for i, e in enumerate(events) if e.type == "tool_result"]
        self.has_opening = bool(events) and events[0].type == "user"
        self._a = self._u = self._r = 0

    def next_action(self) -> Action:
        if self._a >= len(self.actions):
            raise ReplayExhausted("replay: the recording has no further agent action")
        data = self.actions[self._a]
        self._a += 1
        if data.get("kind") == "error":
            raise AgentError(data.get("text") or "", data.get("code") or "malformed-output")
        return Action.from_dict(data)

    def next_user(self) -> tuple[UserTurn, dict | None]:
        if self._u >= len(self.users):
            raise ReplayExhausted("replay: the recording has no further user turn")
        event = self.users[self._u]
        self._u += 1
        return _turn(event), event.operator

    def opening(self) -> tuple[UserTurn | None, dict | None]:
        return self.next_user() if self.has_opening else (None, None)

    def last_note(self) -> str | None:
        return self.notes[self._r - 1] if self._r else None

    def next_result(self) -> tuple[dict, dict | None]:
        if self._r >= len(self.results):
            raise ReplayExhausted("replay: the recording has no further tool result")
        event = self.results[self._r]
        self._r += 1
        return dict(event.result or {}), event.operator


def _turn(event: Event) -> UserTurn:
    return UserTurn(event.text or "", dict(event.values or {}), list(event.missing or []),
                    event.question)


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
    from .orchestrator import Orchestrator
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
