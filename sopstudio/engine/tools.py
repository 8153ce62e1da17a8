"""Mocked tools: answers from a scenario's response table, with an operator override hook.

The response table maps a tool name to the list of responses for its successive calls in a run;
each response is ``{"outputs": {...}}`` or ``{"error": "code"}``; calls beyond the list repeat
the last entry. A tool absent from the table answers with typed defaults (first enum value...), so
a hand-started simulation in the GUI always gets an answer. No network call is made here unless
the run passes `allow_live=True`: then a tool with `live: true` calls its real endpoint
(live_tools.py); with live calls off (the default) it is mocked and `live_note` says so (the
orchestrator records it as a `note` event).

Operator override (the GUI's "edit before it is returned"): a dict ``{tool: response}`` or a
callable ``(tool, arguments, response) -> response | None``; an overridden result is recorded on the
event as operator input together with the original.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping

from ..core.model import Tool
from .live_tools import call_with_reason

Override = Callable[[str, dict, dict], "dict | None"] | Mapping[str, dict] | None

TYPE_DEFAULTS = {"string": "ok", "integer": 0, "number": 0.0, "boolean": True,
                 "list": [], "object": {}}


def default_outputs(tool: Tool) -> dict:
    return {o.name: (o.enum[0] if o.enum else copy.copy(TYPE_DEFAULTS.get(o.type, "ok")))
            for o in tool.outputs}


def normalise(response: Any) -> dict:
    """Accept {"outputs": {...}}, {"error": code} or a bare outputs dict."""
    if isinstance(response, dict) and ("outputs" in response or "error" in response):
        if response.get("error") is not None:
            return {"error": str(response["error"])}
        return {"outputs": dict(response.get("outputs") or {})}
    return {"outputs": dict(response or {})}


class MockTools:
    def __init__(self, tools: Mapping[str, Tool], responses: Mapping[str, list] | None = None,
                 override: Override = None, allow_live: bool = False):
        self.tools = tools
        self.allow_live = allow_live
        self.responses = {name: list(entries) for name, entries in (responses or {}).items()}
        self.override = override
        self.calls: dict[str, int] = {}
        self.live_reasons: dict[str, str | None] = {}  # why the last live call of a tool failed

    def call(self, name: str, arguments: dict) -> tuple[dict, dict | None]:
        """(result, operator record or None) for the next call of `name`."""
        index = self.calls.get(name, 0)
        self.calls[name] = index + 1
        entries = self.responses.get(name)
        tool = self.tools.get(name)
        if tool is not None and tool.live and self.allow_live:
            result, self.live_reasons[name] = call_with_reason(tool, arguments)
        elif entries:
            result = normalise(entries[min(index, len(entries) - 1)])
        elif name in self.tools:
            result = {"outputs": default_outputs(self.tools[name])}
        else:
            result = {"error": "unknown_tool"}
        return self._apply_override(name, arguments, result)

    def live_note(self, name: str) -> str | None:
        """Why a live tool answered from the mock (live calls not allowed) or why its real call
        failed (refused destination, size cap, deadline...), else None."""
        tool = self.tools.get(name)
        if tool is not None and tool.live and not self.allow_live:
            return f"tool {name} is live but live calls are off: mocked response used"
        reason = self.live_reasons.get(name) if tool is not None and tool.live else None
        return f"live call of {name}: {reason}" if reason else None

    def _apply_override(self, name: str, arguments: dict, result: dict):
        if self.override is None:
            return result, None
        if callable(self.override):
            new = self.override(name, dict(arguments), copy.deepcopy(result))
        else:
            new = self.override.get(name)
        if new is None:
            return result, None
        new = normalise(new)
        return (result, None) if new == result else (new, {"original": result})
