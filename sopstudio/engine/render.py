"""How a trace event reads to a person: the one renderer of events, used by the CLI and the GUI.

`EventRenderer(titles, style)` turns one event (an `Event` or its dict) into one line:
- style "chat" (the simulation dock): "Agent: …", "User (operator): …", "Tool call t({…})",
  "Result t → {…}", "→ Node title", "End: outcome at Node title — [code] reason";
- style "log" (`sopstudio simulate`): "[node] agent: …", "[node] call t({…})",
  "-> node (edge e1)", "end at node: outcome".
Every event type is described in one place (`_FORMS`), whatever the style.

A step inside a sub-SOP (an event with a `level`, its node id qualified as `verify/ask`) reads
by titles: the subflow step's title, then the child's ("Verify identity › Ask for the
customer id"; `node_titles`). In the log, its lines are indented by the level, brackets hold the
child's own id, and a transition or end names the titles then the qualified id in parentheses;
in the chat, `tooltip` gives the qualified id and `level` the indent.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..core.subflows import SEPARATOR

STYLES = ("chat", "log")
TRAIL = " › "  # between the title of a subflow step and the titles of its child's nodes
INDENT = "  "  # one level of sub-SOP in the log


def node_title(node) -> str:
    """How a person reads node `node`: its title (else its id); inlined from a sub-SOP, the
    titles of the subflow steps around it first, the child's own id for a missing title."""
    within, local = getattr(node, "within", None), getattr(node, "local", None)
    if within is None and getattr(node, "level", None):  # inlined before titles were kept
        *within, local = node.id.split(SEPARATOR)
    return TRAIL.join([*(within or []), node.title or local or node.id])


def node_titles(sop) -> dict[str, str]:
    """Node id -> `node_title` for every node of `sop` (expanded or not)."""
    return {n.id: node_title(n) for n in sop.nodes}


def path_label(node_ids, nodes: dict) -> str:
    """A journey in words: node titles joined by arrows, the steps of a sub-SOP in brackets
    after its subflow step's title ("Ask for the order → Verify identity [Ask for the customer
    id → verified] → Refund the order"), nested sub-SOPs likewise. `nodes`: id -> node of the
    SOP as it ran (`{n.id: n for n in sop.nodes}`, made once for many journeys)."""
    return _grouped([_place(nodes.get(i), i) for i in node_ids], 0)


def _place(node, node_id: str) -> tuple[tuple, str]:
    """((subflow id, title) of every sub-SOP around the node, outermost first), own title)."""
    if node is None:
        return (), node_id
    parts = node_id.split(SEPARATOR)
    within = getattr(node, "within", None) or parts[:-1]
    if len(parts) - 1 != len(within) or not getattr(node, "level", None):
        return (), node.title or node_id  # not an inlined node: itself
    prefixes = [SEPARATOR.join(parts[:k + 1]) for k in range(len(within))]
    own = node.title or getattr(node, "local", None) or parts[-1]
    return tuple(zip(prefixes, within)), own


def _grouped(places: list, depth: int) -> str:
    parts, k = [], 0
    while k < len(places):
        around, own = places[k]
        if len(around) <= depth:
            parts.append(own)
            k += 1
            continue
        end = k
        while end < len(places) and places[end][0][depth:depth + 1] == around[depth:depth + 1]:
            end += 1
        parts.append(f"{around[depth][1]} [{_grouped(places[k:end], depth + 1)}]")
        k = end
    return " → ".join(parts)


def _tag(e: dict) -> str:
    """The node in a log line's brackets: inside a sub-SOP, the child's own id."""
    node = e.get("node")
    return node.rsplit(SEPARATOR, 1)[-1] if e.get("level") and node else str(node)


def _named(e: dict, where: str) -> str:
    """A log's name of the step an event went to: its id, or inside a sub-SOP its titles and
    the qualified id."""
    return f"{where} ({e.get('node')}" if e.get("level") else f"{e.get('node')}"


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
        return f"[{_tag(e)}] {'user' if user else 'agent'}: {e.get('text')}"
    operator = " (operator)" if user and e.get("operator") else ""
    return f"{'User' if user else 'Agent'}{operator}: {e.get('text') or ''}"


def _tool_call(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{_tag(e)}] call {e.get('tool')}({e.get('arguments')})"
    return f"Tool call {e.get('tool')}({short_json(e.get('arguments') or {})})"


def _tool_result(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{_tag(e)}] result {e.get('tool')}: {e.get('result')}"
    result = e.get("result") or {}
    shown = f"error {result['error']}" if "error" in result \
        else short_json(result.get("outputs", {}))
    edited = " (edited by operator)" if e.get("operator") else ""
    return f"Result {e.get('tool')} → {shown}{edited}"


def _transition(e: dict, where: str, style: str) -> str:
    if style == "log":
        edge = f"edge {e['edge']}" if e.get("edge") else ""
        if e.get("level"):
            return f"-> {_named(e, where)}{', ' + edge if edge else ''})"
        return f"-> {e.get('node')}" + (f" ({edge})" if edge else "")
    return f"→ {where}"


def _guardrail(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"[{_tag(e)}] guardrail {e.get('code')}: {e.get('text')}"
    return f"Guardrail [{e.get('code')}]: {e.get('text') or ''}"


def _end(e: dict, where: str, style: str) -> str:
    if style == "log":
        return f"end at {_named(e, where)}{')' if e.get('level') else ''}: {e.get('outcome')}"
    return f"End: {e.get('outcome')} at {where}{end_reason(e)}"


def _other(e: dict, where: str, style: str) -> str:
    """Notes and warnings: the engine's own words."""
    if style == "log":
        return f"[{_tag(e)}] {e['type']}: {e.get('text') or ''}"
    return f"{e['type']}: {e.get('text') or ''}"


_FORMS: dict[str, Callable[[dict, str, str], str]] = {
    "say": _message, "ask": _message, "user": _message, "tool_call": _tool_call,
    "tool_result": _tool_result, "transition": _transition, "guardrail": _guardrail,
    "end": _end}


class EventRenderer:
    """One line per event; `titles` maps node ids to the titles the chat shows (`for_sop`: the
    SOP's `node_titles`)."""

    def __init__(self, titles: dict | None = None, style: str = "chat"):
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r} (choose from {', '.join(STYLES)})")
        self.titles, self.style = titles or {}, style

    @classmethod
    def for_sop(cls, sop, style: str = "chat") -> "EventRenderer":
        return cls(node_titles(sop), style)

    def line(self, event) -> str:
        data = _data(event)
        node = data.get("node")
        where = self.titles.get(node, node)
        text = _FORMS.get(str(data.get("type")), _other)(data, str(where), self.style)
        return INDENT * self.level(data) + text if self.style == "log" else text

    @staticmethod
    def level(event) -> int:
        """How deep in sub-SOPs the event happened (0: the SOP itself)."""
        level = _data(event).get("level")
        return level if isinstance(level, int) and level > 0 else 0

    def tooltip(self, event) -> str:
        """Where the event happened, by id (the chat's tooltip): "Step verify/ask_customer
        (sub-SOP level 1)"; empty for an event of no node."""
        data = _data(event)
        node, level = data.get("node"), self.level(data)
        if not node:
            return ""
        return f"Step {node}" + (f" (sub-SOP level {level})" if level else "")


def _data(event) -> dict:
    return event.to_dict() if hasattr(event, "to_dict") else event
