"""How a trace event reads to a person: the one renderer of events, used by the CLI and the GUI.

`EventRenderer(titles, style)` turns one event (an `Event` or its dict) into one line:
- style "chat" (the simulation dock): "Agent: …", "User (operator): …", "Tool call t({…})",
  "Result t → {…}", "→ Node title", "End: outcome at Node title — [code] reason";
- style "log" (`sopstudio simulate`): "[node] agent: …", "[node] call t({…})",
  "-> node (edge e1)", "end at node: outcome".
Every event type is described in one place (`_FORMS`), whatever the style.
"""

from __future__ import annotations

import json
from typing import Any, Callable

STYLES = ("chat", "log")


def short_json(value: Any, limit: int = 160) -> str:
    """Compact JSON (strings as they are), cut to `limit` characters with an ellipsis."""
    text = value if isinstance(value, str) else \
        json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def end_reason(event: dict) -> str:
    """Why the run ended, when the engine says (e.g. " — [no-matching-edge] no branch of …")."""
    code, text = event.get("code"), event.get("text")
    shown = " ".join(part for part in (f"[{code}]" if code else "", text or "") if part)
    return f" — {shown}" if shown else ""


def _message(e: dict, where: str, style: str) -> str:
    user = e["type"] == "user"
    if style == "log":
        return f"[{e.get('node')}] {'user' if user else 'agent'}: {e.get('text')}"
    operator = " (operator)" if user and e.get("operator") else ""
    return f"{'User' if user else 'Agent'}{operator}: {e.get('text') or ''}"


def _tool_call(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{e.get('node')}] call {e.get('tool')}({e.get('arguments')})"
    return f"Tool call {e.get('tool')}({short_json(e.get('arguments') or {})})"


def _tool_result(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{e.get('node')}] result {e.get('tool')}: {e.get('result')}"
    result = e.get("result") or {}
    shown = f"error {result['error']}" if "error" in result \
        else short_json(result.get("outputs", {}))
    edited = " (edited by operator)" if e.get("operator") else ""
    return f"Result {e.get('tool')} → {shown}{edited}"


def _transition(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"-> {e.get('node')}" + (f" (edge {e['edge']})" if e.get("edge") else "")
    return f"→ {where}"


def _guardrail(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{e.get('node')}] guardrail {e.get('code')}: {e.get('text')}"
    return f"Guardrail [{e.get('code')}]: {e.get('text') or ''}"


def _end(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"end at {e.get('node')}: {e.get('outcome')}"
    return f"End: {e.get('outcome')} at {where}{end_reason(e)}"


def _other(e: dict, where: str, style: str) -> str:
    """Notes and warnings: the engine's own words."""
    if style == "log":
        return f"[{e.get('node')}] {e['type']}: {e.get('text') or ''}"
    return f"{e['type']}: {e.get('text') or ''}"


_FORMS: dict[str, Callable[[dict, str, str], str]] = {
    "say": _message, "ask": _message, "user": _message, "tool_call": _tool_call,
    "tool_result": _tool_result, "transition": _transition, "guardrail": _guardrail,
    "end": _end}


class EventRenderer:
    """One line per event; `titles` maps node ids to the titles the chat shows."""

    def __init__(self, titles: dict | None = None, style: str = "chat"):
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r} (choose from {', '.join(STYLES)})")
        self.titles, self.style = titles or {}, style

    @classmethod
    def for_sop(cls, sop, style: str = "chat") -> "EventRenderer":
        return cls({n.id: (n.title or n.id) for n in sop.nodes}, style)

    def line(self, event) -> str:
        data = event.to_dict() if hasattr(event, "to_dict") else event
        node = data.get("node")
        where = self.titles.get(node, node)
        return _FORMS.get(data.get("type"), _other)(data, str(where), self.style)
