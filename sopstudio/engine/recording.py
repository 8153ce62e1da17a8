"""A recorded run's inputs (agent actions, user turns, tool results), handed out in order.

The orchestrator takes a `RecordedInputs` in place of the agent, the user and the tools to replay
a run (orchestrator_replay.py builds such an orchestrator); the GUI also uses one to step a stored
run. This module depends only on the trace types, so the orchestrator can use it without importing
the replay entry points (which import the orchestrator).
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
