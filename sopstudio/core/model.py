"""The SOP document model (DESIGN §2) as pydantic v2 models.

The model accepts documents whose references are broken (an edge to a missing node, a duplicate
id) so that the editor and `validate` can show them; `sopstudio.core.io.load_sop` is strict by
default and refuses such files with a clear message.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import expr as _expr

FORMAT_NAME = "sopstudio"
FORMAT_VERSION = 1
DEFAULT_MAX_ATTEMPTS = 3

ValueType = Literal["string", "integer", "number", "boolean", "list", "object"]
NodeKind = Literal["task", "end", "subflow"]

# C0/C1 control characters (and DEL): an id holding ESC sequences could rewrite the terminal line
# it is printed on (erase its own error, print a fake "0 errors"), so ids and names refuse them.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _no_control(value: str) -> str:
    found = _CONTROL.search(value)
    if found:
        raise ValueError(f"contains the control character {found.group()!r} "
                         f"(ids and names must be printable)")
    return value


def _printable(*fields: str) -> Any:
    """A pydantic validator refusing control characters in the given id/name fields."""
    return field_validator(*fields)(classmethod(lambda cls, value: _no_control(value)))


class _Base(BaseModel):
    # Unknown fields are kept (and written back) rather than dropped: a file written by a newer
    # minor build or edited by hand loses nothing when it passes through us.
    model_config = ConfigDict(extra="allow", validate_assignment=True)


class Variable(_Base):
    name: str = Field(min_length=1)
    type: ValueType = "string"
    description: str = ""
    pattern: str | None = None
    enum: list[Any] | None = None
    source: Literal["user", "tool", "set"] = "user"

    _printable_name = _printable("name")


class ToolOutput(_Base):
    name: str = Field(min_length=1)
    type: ValueType = "string"
    description: str = ""
    enum: list[Any] | None = None


class Tool(_Base):
    name: str = Field(min_length=1)
    description: str = ""
    method: str = "GET"
    url: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}, "required": []})
    outputs: list[ToolOutput] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    live: bool = False  # simulation calls the real endpoint only when switched on explicitly
    # Live-call safety (engine/live_tools.py), all opt-in: reach loopback/private/link-local
    # addresses (a shared SOP must not aim the app at an internal service), follow redirects to
    # the same origin, and per-tool limits (None: the defaults of live_tools).
    allow_private: bool = False
    redirects: Literal["off", "same-origin"] = "off"
    max_response_bytes: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)

    _printable_name = _printable("name")

    def required_parameters(self) -> list[str]:
        return list(self.parameters.get("required") or [])

    def parameter_names(self) -> list[str]:
        return list((self.parameters.get("properties") or {}).keys())


class Knowledge(_Base):
    question: str
    answer: str


class Node(_Base):
    id: str = Field(min_length=1)
    title: str = ""
    kind: NodeKind = "task"
    instructions: str = ""
    steps: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    # Per-tool guard evaluated after the node's earlier tools ran (JourneyBench tool `condition`).
    tool_when: dict[str, str] = Field(default_factory=dict)
    # Explicit parameter mapping: tool -> parameter -> expression; default is the same-named variable.
    tool_args: dict[str, dict[str, str]] = Field(default_factory=dict)
    say: str | None = None
    set: dict[str, str] = Field(default_factory=dict)
    max_attempts: int | None = Field(default=None, ge=1)
    branching: Literal["first", "all"] = "first"
    outcome: str | None = None
    subflow: str | None = None
    notes: list[str] = Field(default_factory=list)
    position: tuple[float, float] | None = None

    _printable_id = _printable("id")

    @property
    def attempts(self) -> int:
        return self.max_attempts or DEFAULT_MAX_ATTEMPTS

    def has_actions(self) -> bool:
        return bool(self.ask or self.tools or self.say or self.set)


class Edge(_Base):
    id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    when: str | None = None
    on: Literal["success", "failure"] = "success"
    label: str = ""

    _printable_id = _printable("id", "source", "target")

    @field_validator("when")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return None if value is not None and not value.strip() else value

    @property
    def is_else(self) -> bool:
        return _expr.is_else(self.when)


class SOP(_Base):
    id: str = Field(min_length=1)
    title: str = ""
    description: str = ""
    start: str | None = None
    variables: list[Variable] = Field(default_factory=list)
    tools: list[Tool] = Field(default_factory=list)
    knowledge: list[Knowledge] = Field(default_factory=list)
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    _printable_id = _printable("id")

    # Lookups are linear scans on purpose: the model stays a plain value; hot paths build indexes.
    def node(self, node_id: str) -> Node | None:
        return next((n for n in self.nodes if n.id == node_id), None)

    def edge(self, edge_id: str) -> Edge | None:
        return next((e for e in self.edges if e.id == edge_id), None)

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def variable(self, name: str) -> Variable | None:
        return next((v for v in self.variables if v.name == name), None)

    def out_edges(self, node_id: str) -> list[Edge]:
        return [e for e in self.edges if e.source == node_id]

    def in_edges(self, node_id: str) -> list[Edge]:
        return [e for e in self.edges if e.target == node_id]


class SOPFile(_Base):
    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    sop: SOP
