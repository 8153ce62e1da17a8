"""The agent interface: how any agent (scripted oracle, replay, the LLM agents) plugs into a run.

Protocol, one call per agent decision:

    action = agent.next_action(ctx)      # ctx: AgentContext for the current node
    # the orchestrator validates the action (built-in checks + guardrail checks), executes it,
    # records events and execution memory, then asks again, until the agent returns FINISH.
    requests = agent.requests(ctx)       # LLM agents: the model call(s) next_action would make

Actions (`Action.kind`):
- ``say``     text to the user (``knowledge`` = the user question it answers, if any); with
              ``handover`` (a chat model's plain-text reply) the turn passes to the user, who
              answers as in a chat; without it (the scripted oracle announcing the node's
              ``say``) the agent goes on;
- ``ask``     ask the user for ``variables`` (text optional); the simulated user replies at once
              and the reply is visible in ``ctx.last_user`` and ``ctx.transcript``;
- ``call``    call ``tool`` with ``arguments``; the result is in ``ctx.last_result`` and memory;
- ``finish``  the node's work is done: the orchestrator evaluates ``set`` and the edges (DPA
              contract: the model never picks the next node). ``values`` may carry variable values
              the agent extracted from the conversation (an LLM reading free text does this),
              only for names the node asks (anything else is rejected: "value-not-askable");
              a static agent (SPA) may name ``end_node`` to say where it believes it ended;
- ``halt``    stop the run: ``reason`` "blocked" (a required value cannot be obtained — JourneyBench
              Appendix G) or anything else (outcome "stopped"); ``text`` is said to the user.

Validation: the orchestrator runs its built-in checks (a ``call`` must name a tool of the current
node — never executed otherwise; unknown kinds are malformed) and then every function in
``Orchestrator.checks`` (the guardrail hook: ``check(action, ctx)`` returns None to accept, or a
rejection: a message string (code "guardrail") or a ``(code, message)`` tuple). A rejection records a ``guardrail``
event, appends the message to ``ctx.reflections`` for the agent's next call, and after
``max_rejections`` (2) consecutive retries the run ends gracefully with outcome technical-issue.
An agent may raise ``AgentError`` (timeout, unusable model output): it counts as a rejection;
one whose code is in ``FATAL_CODES`` (a prompt that cannot fit the model's context) ends the run at
once with the grace message, since asking again cannot help. ``Action.note`` is a remark for the
trace (e.g. guidance degraded), emitted as a ``note`` event before the action.
An unreachable model (``llm_client.ModelUnreachable``) is not an AgentError: it ends the run.

Agents with ``static = True`` (SPA) are not confined to a node: every SOP tool is offered and
allowed, edges are not evaluated, and ``finish`` ends the run (violations are measured by metrics,
not prevented). Agents should be deterministic for a given ``ctx.rng`` so runs can be replayed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from ...core.errors import SopStudioError
from ...core.model import SOP, Node, Tool
from ..trace import Event, MemoryEntry

ACTION_KINDS = ("say", "ask", "call", "finish", "halt")
FATAL_CODES = frozenset({"context-too-long"})  # retrying the same prompt cannot help


class AgentError(SopStudioError):
    """The agent could not produce an action (model timeout, malformed output...)."""

    def __init__(self, message: str, code: str = "malformed-output", raw: Any = None):
        super().__init__(message)
        self.code = code
        self.raw = raw

    @property
    def fatal(self) -> bool:
        return self.code in FATAL_CODES


@dataclass
class Action:
    kind: str
    text: str | None = None
    variables: list[str] | None = None
    tool: str | None = None
    arguments: dict | None = None
    values: dict | None = None
    reason: str | None = None
    knowledge: str | None = None
    end_node: str | None = None
    handover: bool | None = None  # a say that hands the turn to the user (chat agents)
    note: str | None = None       # a remark for the trace, emitted before the action
    branch: str | None = None     # finish: the edge the agent chose (SOP-Agent), see orchestrator
    raw: Any = None  # the model output it came from (kept in the trace for replay/debugging)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict) -> "Action":
        return cls(**{k: v for k, v in data.items() if k in _ACTION_FIELDS})


_ACTION_FIELDS = set(Action.__dataclass_fields__)


def say(text: str, knowledge: str | None = None) -> Action:
    return Action("say", text=text, knowledge=knowledge)


def ask(variables: list[str], text: str | None = None) -> Action:
    return Action("ask", variables=list(variables), text=text)


def call(tool: str, arguments: dict) -> Action:
    return Action("call", tool=tool, arguments=dict(arguments))


def finish(values: dict | None = None) -> Action:
    return Action("finish", values=values)


def halt(reason: str, text: str | None = None) -> Action:
    return Action("halt", reason=reason, text=text)


@dataclass
class AgentContext:
    """What an agent may see when deciding in the current node (read, do not mutate)."""

    sop: SOP
    node: Node
    instructions: str
    tools: list[Tool]                   # tools allowed now (with JSON Schemas), in node order
    variables: Mapping[str, Any]        # known values (user answers, tool outputs, set)
    memory: list[MemoryEntry]           # Agent-S execution memory of the whole run
    transcript: list[dict]              # [{"role": "agent"|"user", "text": ...}]
    visit: list[Event]                  # events since the agent entered this node (this visit)
    reflections: list[str]              # guardrail messages not yet answered by a valid action
    rng: random.Random
    visit_number: int = 1
    last_user: Event | None = None
    last_result: Event | None = None
    # the SOP's answer to a user question (the orchestrator's says when there is none)
    knowledge: Callable[[str], str] = lambda q: ""
    evaluate: Callable[[Any], Any] = lambda expr: None
    extra: dict = field(default_factory=dict)
    needs: Any = None  # guidance.Needs: what the node still needs (None for a static agent)

    def tool_schemas(self) -> list[dict]:
        """OpenAI function-tool form of the allowed tools."""
        return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                  "parameters": t.parameters}} for t in self.tools]


def blank_context(sop: SOP, node: Node) -> AgentContext:
    """The context of a first decision at `node` with nothing known: what the prompt exports
    build their (unguided, run-independent) function definitions from."""
    by_name = {t.name: t for t in sop.tools}
    return AgentContext(sop=sop, node=node, instructions="\n".join([node.instructions, *node.steps]).strip(),
                        tools=[by_name[n] for n in node.tools if n in by_name], variables={},
                        memory=[], transcript=[], visit=[], reflections=[],
                        rng=random.Random(0))


class Agent(Protocol):
    name: str
    static: bool

    def next_action(self, ctx: AgentContext) -> Action: ...


Check = Callable[[Action, AgentContext], "str | None"]
