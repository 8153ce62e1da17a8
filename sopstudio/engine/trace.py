"""Run records as plain data: events, execution memory and the whole trace of a run.

Everything here converts to JSON-ready dicts (`to_dict`) and back (`from_dict`) so the store can
save a run row per event and the GUI and `sopstudio simulate --json` show the same records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

CONTRACT_KEYS = ("type", "node", "tool", "arguments", "result", "text")


@dataclass(slots=True)
class Event:
    """One step of a run. The first six fields are always present in `to_dict` (DESIGN §9);
    the others only when set.

    - say: text (knowledge: the question it answers); ask: variables, text;
      user: text, values (given), missing (withheld), question (a knowledge question);
    - tool_call: tool, arguments; tool_result: tool, result ({"outputs"} or {"error"}), attempt;
    - transition: node (the node entered), source, edge (None on entering the start);
    - guardrail: text (the reflection), code, tool/arguments of the rejected action;
    - note: text, tool (a live tool answered from the mock because live calls are off);
    - warning: text (the expression and its error), code "expression": a condition that failed
      at run time (taken as false) or an assignment that failed (its variable left unset);
    - end: node, outcome, text (the closing/grace message when there is one).
    `action` holds the agent action that produced the event (for replay); `operator` marks
    operator input (an edited tool result or text typed as the user) with what it replaced.
    """

    type: str
    node: str | None = None
    tool: str | None = None
    arguments: dict | None = None
    result: dict | None = None
    text: str | None = None
    edge: str | None = None
    source: str | None = None
    variables: list | None = None
    values: dict | None = None
    missing: list | None = None
    question: str | None = None
    knowledge: str | None = None
    attempt: int | None = None
    code: str | None = None
    outcome: str | None = None
    action: dict | None = None
    operator: dict | None = None
    level: int | None = None  # inside a sub-SOP: 1 for a child, 2 for a grandchild...
    index: int = 0

    def to_dict(self) -> dict:
        data = {k: getattr(self, k) for k in CONTRACT_KEYS}
        for f in _OPTIONAL:
            value = getattr(self, f)
            if value is not None:
                data[f] = value
        data["index"] = self.index
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Event":
        return cls(**{k: v for k, v in data.items() if k in _FIELDS})


_FIELDS = {f.name for f in fields(Event)}
_OPTIONAL = [f for f in _FIELDS - set(CONTRACT_KEYS) - {"index"}]
_OPTIONAL.sort()


@dataclass(slots=True)
class MemoryEntry:
    """Agent-S execution memory: an action, what came back, and success or fail."""

    action: str
    observation: Any
    feedback: str  # "success" | "fail"
    node: str | None = None

    def to_dict(self) -> dict:
        return {"action": self.action, "observation": self.observation,
                "feedback": self.feedback, "node": self.node}

    @classmethod
    def from_dict(cls, data: dict) -> "MemoryEntry":
        return cls(data["action"], data.get("observation"), data["feedback"], data.get("node"))


@dataclass
class Trace:
    """The record of one run."""

    events: list[Event] = field(default_factory=list)
    outcome: str | None = None
    end_node: str | None = None
    path: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    tool_trace: list[dict] = field(default_factory=list)
    memory: list[MemoryEntry] = field(default_factory=list)
    variables: dict = field(default_factory=dict)
    ends: list[str] = field(default_factory=list)
    turns: int = 0
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"outcome": self.outcome, "end_node": self.end_node,
                "events": [e.to_dict() for e in self.events], "path": list(self.path),
                "edges": list(self.edges), "tool_trace": [dict(t) for t in self.tool_trace],
                "memory": [m.to_dict() for m in self.memory], "variables": dict(self.variables),
                "ends": list(self.ends), "turns": self.turns, "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, data: dict) -> "Trace":
        return cls(events=[Event.from_dict(e) for e in data.get("events", [])],
                   outcome=data.get("outcome"), end_node=data.get("end_node"),
                   path=list(data.get("path", [])), edges=list(data.get("edges", [])),
                   tool_trace=[dict(t) for t in data.get("tool_trace", [])],
                   memory=[MemoryEntry.from_dict(m) for m in data.get("memory", [])],
                   variables=dict(data.get("variables", {})), ends=list(data.get("ends", [])),
                   turns=int(data.get("turns", 0)), meta=dict(data.get("meta", {})))
