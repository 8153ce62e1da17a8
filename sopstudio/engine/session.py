"""One interactive simulation run: the stateful loop shared by the CLI and the GUI (no Qt).

`SimulationSession` wraps an `Orchestrator` and adds what a dry run needs:
- picking the journey's scenario (`SimulationSession.start`) and the journeys to offer
  (`journey_choices`: the edge-covering set first, then others in BFS order);
- what an agent takes beyond its endpoint, the same in every front end (`agent_extras`:
  Agent-S's Global Action Repository is the store's tool library);
- an **operator script**: text typed as the user (by ask number) and edited tool results (by
  call number), recorded in the trace as operator input by the engine's override hooks;
- **live hooks** a front end sets so a reply or a tool result can be asked from the operator;
- **step back**: a deterministic re-run to the previous event. The new orchestrator re-feeds the
  agent actions already taken (no model call), the same seed, and the same operator script;
- **replay** of a stored trace (recorded actions, user turns and tool results; no model call);
- what a front end shows: `snapshot()` (node, path, memory, prompt: the request(s) the agent
  would send now, each labelled; failures, why it ended), the values an asked variable accepts
  (`accepted_values`), and each event's line (`engine.render.EventRenderer`).
Every call happens on one thread; a GUI runs the session on its worker thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.expr import ExprError, parse
from ..core.expr import ast as A
from ..core.journeys import Journey, JourneyGraph
from ..core.journeys_cover import cover
from .compiled import CompiledSop, EngineError
from .guidance import node_needs
from .orchestrator import Orchestrator
from .orchestrator_replay import RecordedInputs, ReplayExhausted, replay_orchestrator
from .render import end_reason, path_label
from .runner import orchestrator_for
from .scenarios import Scenario, scenarios_for
from .trace import Event, Trace
from .users import UserTurn

log = logging.getLogger(__name__)

JOURNEY_LIST_LIMIT = 200
BAD_OUTCOMES = frozenset(("technical-issue", "blocked", "stopped", "turn-limit"))

UserHook = Callable[[list, str], "UserTurn | str | None"]
ToolHook = Callable[[str, dict, dict], "dict | None"]
AgentFactory = Callable[[], Any]


# -- choosing what to run ---------------------------------------------------------------------
@dataclass
class JourneyChoice:
    """A journey a front end offers, with its label (the path of node titles)."""

    journey: Journey
    covering: bool
    label: str


def journey_choices(sop, limit: int = JOURNEY_LIST_LIMIT) -> tuple[int, list[JourneyChoice]]:
    """(exact count, choices): the edge-covering set first, then others in BFS order."""
    graph = JourneyGraph(sop)
    covering = cover(graph) if graph.count() else []
    seen = set(covering)
    nodes = {n.id: n for n in sop.nodes}
    choices = [JourneyChoice(j, True, path_label(j.nodes, nodes)) for j in covering]
    for journey in graph.iter_journeys(limit):
        if len(choices) >= limit:
            break
        if journey not in seen:
            choices.append(JourneyChoice(journey, False, path_label(journey.nodes, nodes)))
    return graph.count(), choices


def nth_journey(sop, index: int) -> Journey:
    """Journey number `index` in BFS order; an EngineError names how many there are."""
    graph = JourneyGraph(sop)
    if index < 0 or index >= graph.count():
        raise EngineError(f"journey {index} does not exist ({graph.count()} journeys)")
    return graph.nth(index)


def scenario_for(compiled: CompiledSop, journey: Journey, index: int, kind: str) -> Scenario:
    """The scenario of type `kind` for journey number `index` (EngineError when it has none)."""
    found = scenarios_for(compiled, journey, index, (kind,))
    if not found:
        raise EngineError(f"journey {index} has no {kind} scenario "
                          "(nothing to withhold or no tool to fail)")
    return found[0]


def agent_extras(kind: str, library: Callable[[], list] | None) -> dict:
    """Options agent `kind` takes beyond its endpoint, the same for every front end: Agent-S's
    Global Action Repository is the store's tool library (`library()`, read only for Agent-S,
    at once: the caller's thread owns its store). No library (no store) or an empty one: the
    agent's repository is the SOP's own tools."""
    if kind != "agent-s" or library is None:
        return {}
    tools = list(library())
    return {"repository": tools} if tools else {}


def agent_factory(kind: str, compiled: CompiledSop,
                  llm_settings: Callable[[], Any] | None = None,
                  options: dict | None = None, extras: dict | None = None) -> AgentFactory:
    """A function making the chosen agent. Model agents take their endpoint from
    `llm_settings()` (called when the agent is made) or from `options` (model, base_url), and
    `extras` beside it (see `agent_extras`)."""
    extras = extras or {}

    def make():
        from .agents import make_agent
        if kind == "scripted":
            return make_agent(kind, compiled)
        if llm_settings is not None:
            return make_agent(kind, compiled, settings=llm_settings(), **extras)
        if options is None:
            raise ValueError(f"the {kind} agent needs an endpoint profile")
        return make_agent(kind, compiled, **options, **extras)
    return make


# -- the session ------------------------------------------------------------------------------
@dataclass
class OperatorScript:
    """Operator input so far: typed user turns by ask number, edited results by call number."""

    typed: dict[int, UserTurn] = field(default_factory=dict)
    edits: dict[int, dict] = field(default_factory=dict)
    type_ahead: list[str] = field(default_factory=list)


class _CachedAgent:
    """Re-feeds the actions a run already took (no model call), then asks the live agent."""

    def __init__(self, live, trace: Trace, limit: int):
        self.live, self.name, self.static = live, live.name, live.static
        self.recorded = RecordedInputs(Trace(events=trace.events[:limit]))

    def next_action(self, ctx):
        try:
            return self.recorded.next_action()
        except ReplayExhausted:
            return self.live.next_action(ctx)


class SimulationSession:
    """Step, run, step back and reset one scenario; every call happens on one thread."""

    def __init__(self, compiled: CompiledSop, scenario: Scenario | None,
                 agent_factory: AgentFactory, seed: int = 0, recorded: Trace | None = None,
                 allow_live: bool = False, max_turns: int = 40):
        self.compiled, self.scenario, self.seed = compiled, scenario, seed
        self.max_turns = max_turns
        self.recorded = recorded  # a stored trace: this session replays it
        self.allow_live = allow_live
        self.script = OperatorScript()
        self.user_hook: UserHook | None = None
        self.tool_hook: ToolHook | None = None
        self.replaying = False
        self.live_agent = agent_factory()
        self.orchestrator = self._build(self.live_agent)

    @classmethod
    def start(cls, sop, journey: Journey, index: int, kind: str, agent: str = "scripted",
              llm_settings: Callable[[], Any] | None = None, options: dict | None = None,
              seed: int = 0, allow_live: bool = False,
              extras: dict | None = None) -> "SimulationSession":
        """A live session on journey number `index` with its scenario of type `kind`
        (`extras`: the agent's options beyond its endpoint, see `agent_extras`)."""
        compiled = CompiledSop(sop)
        scenario = scenario_for(compiled, journey, index, kind)
        return cls(compiled, scenario,
                   agent_factory(agent, compiled, llm_settings, options, extras),
                   seed=seed, allow_live=allow_live)

    @classmethod
    def replay(cls, sop, trace: Trace, scenario: Scenario | None = None) -> "SimulationSession":
        """A session that re-feeds a stored trace (no model call, no tool call)."""
        return cls(CompiledSop(sop), scenario, lambda: None, recorded=trace)

    # -- construction -------------------------------------------------------------------------
    def _build(self, agent) -> Orchestrator:
        self._asks = self._calls = 0
        self.delivered: list[Event] = []  # events step() has returned (the trace may hold more)
        if self.recorded is not None:
            return replay_orchestrator(self.compiled, self.recorded)
        if self.scenario is None:
            raise EngineError("a run that is not a replay needs a scenario")
        checks = getattr(self.live_agent, "checks", None)  # LLM agents' guardrails
        return orchestrator_for(self.compiled, self.scenario, agent, seed=self.seed,
                                checks=list(checks) if checks else None,
                                allow_live=self.allow_live, override=self._tool_override,
                                user_override=self._user_override, max_turns=self.max_turns)

    def _user_override(self, variables: list, text: str | None) -> UserTurn | None:
        self._asks += 1
        number = self._asks
        if number in self.script.typed:
            return self.script.typed[number]
        if self.replaying:
            return None
        turn: UserTurn | str | None = \
            self.script.type_ahead.pop(0) if self.script.type_ahead else None
        if turn is None and self.user_hook is not None:
            turn = self.user_hook(list(variables), text or "")
        if isinstance(turn, str):
            turn = typed_turn(turn, variables)
        if turn is not None:
            self.script.typed[number] = turn
        return turn

    def _tool_override(self, tool: str, arguments: dict, response: dict) -> dict | None:
        self._calls += 1
        number = self._calls
        if number in self.script.edits:
            return self.script.edits[number]
        if self.replaying or self.tool_hook is None:
            return None
        edited = self.tool_hook(tool, arguments, response)
        if edited is not None and edited != response:
            self.script.edits[number] = edited
            return edited
        return None

    # -- driving ------------------------------------------------------------------------------
    @property
    def trace(self) -> Trace:
        return self.orchestrator.trace

    @property
    def done(self) -> bool:
        return self.orchestrator.done

    @property
    def sop(self):
        return self.compiled.sop

    def step(self) -> Event | None:
        """The next event, or None once the run has ended and said everything."""
        event = self.orchestrator.step()
        if event is not None:
            self.delivered.append(event)
        return event

    def run(self, cancel=None) -> Trace:
        """Step to the end (a set `cancel` event stops the run); returns the trace."""
        while self.step() is not None:
            if cancel is not None and cancel.is_set() and not self.done:
                self.stop()
        return self.trace

    def type_ahead(self, text: str) -> None:
        """Text typed while nobody asked: it answers the next question."""
        self.script.type_ahead.append(text)

    def stop(self) -> None:
        self.orchestrator.stop("stopped by the operator")

    def rewind(self, count: int) -> list[Event]:
        """Re-run deterministically until `count` events exist; returns them."""
        old = self.orchestrator.trace
        agent = self.live_agent if self.recorded else _CachedAgent(self.live_agent, old, count)
        self.orchestrator = self._build(agent)
        self.replaying = True
        try:
            while len(self.delivered) < count:
                if self.step() is None:
                    break
        finally:
            self.replaying = False
        # Questions typed after the cut are forgotten: the operator goes back in time.
        self.script.typed = {k: v for k, v in self.script.typed.items() if k <= self._asks}
        self.script.edits = {k: v for k, v in self.script.edits.items() if k <= self._calls}
        return list(self.delivered)

    def step_back(self) -> list[Event]:
        return self.rewind(max(0, len(self.delivered) - 1))

    def reset(self) -> None:
        self.script = OperatorScript()
        self.orchestrator = self._build(self.live_agent)

    # -- what a front end shows ---------------------------------------------------------------
    def snapshot(self) -> dict:
        """Plain data of the current state (a GUI takes it on the worker thread)."""
        orch = self.orchestrator
        trace = orch.trace
        failed_nodes, failed_edges = failures(trace)
        return {"node": orch.node_id, "path": list(trace.path), "edges": list(trace.edges),
                "memory": [m.to_dict() for m in trace.memory],
                "variables": dict(orch.variables), "done": orch.done,
                "outcome": trace.outcome, "end_reason": _end_reason(trace),
                "prompt": "" if orch.done else prompt_text(orch),
                "failed_nodes": failed_nodes, "failed_edges": failed_edges,
                "events": len(self.delivered)}

    def asking_node(self) -> str | None:
        """The node the run is on (while it waits for an answer: the node asking)."""
        return self.orchestrator.node_id


def _end_reason(trace: Trace) -> str:
    """The end event's code and text (why the run ended), for a status line."""
    end = next((e for e in reversed(trace.events) if e.type == "end"), None)
    return end_reason(end.to_dict()) if end is not None else ""


def typed_turn(text: str, variables: list) -> UserTurn:
    """What the operator typed as the user, with the values it gives: `name=value` pairs
    (separated by commas or semicolons), or the whole text when one value was asked for."""
    values = {}
    for part in text.replace(";", ",").split(","):
        name, sep, value = part.partition("=")
        if sep and name.strip() in variables and value.strip():
            values[name.strip()] = value.strip()
    if not values and len(variables) == 1 and text.strip():
        values[variables[0]] = text.strip()
    return UserTurn(text, values)


def failures(trace: Trace) -> tuple[list[str], list[str]]:
    """Nodes where a tool failed, a guardrail rejected or the run ended badly; failure edges."""
    nodes: list[str] = []
    for event in trace.events:
        bad = (event.type == "tool_result" and "error" in (event.result or {})) or \
              event.type == "guardrail" or \
              (event.type == "end" and event.outcome in BAD_OUTCOMES)
        if bad and event.node and event.node not in nodes:
            nodes.append(event.node)
    edges = [e.edge for e in trace.events
             if e.type == "transition" and e.edge and e.source in nodes]
    return nodes, [e for e in edges if e]


# -- the prompt pane: the request(s) the agent would send now ---------------------------------
def prompt_text(orchestrator: Orchestrator) -> str:
    """The request(s) the agent would send at this decision, each under its label: system
    prompt, conversation so far, functions offered and the named tool_choice. An LLM agent says
    itself (`requests(ctx)`, the very objects its `next_action` sends); for the scripted
    oracle (and a replayed run), what a guided DPA would be sent (an SPA for a static run)."""
    ctx = orchestrator.context()
    try:
        return "\n\n".join(_render_request(r) for r in _requests(orchestrator, ctx))
    except Exception:  # any failure of the prompt builders: show a plain summary
        log.exception("building the prompt of node %s failed", ctx.node.id)
        return _render_messages([{"role": "system", "content": _fallback_prompt(ctx)}],
                                ctx.tool_schemas())


def _requests(orchestrator: Orchestrator, ctx) -> list:
    requests = getattr(orchestrator.agent, "requests", None)
    if requests is not None:
        return requests(ctx)
    from .agents import dpa, spa
    from .agents.llm_common import Request
    if orchestrator.static:  # a replayed static run: its agent is not here, show an SPA's
        return [Request("what an SPA would be sent (a replay calls no model)",
                        *spa.request(ctx))]
    if ctx.needs is None:  # the scripted oracle does without: show what a DPA would get
        ctx.needs = node_needs(orchestrator.compiled, ctx)
    return [Request("what a guided DPA would be sent (the scripted oracle calls no model)",
                    *dpa.request(ctx, "auto"))]


def _render_request(request) -> str:
    return f"=== {request.label} ===\n" + _render_messages(
        request.messages, request.functions, request.tool_choice)


def _fallback_prompt(ctx) -> str:
    known = ", ".join(f"{k}={v!r}" for k, v in ctx.variables.items()) or "none"
    return (f"Current step: {ctx.node.title or ctx.node.id}\n"
            f"Instructions: {ctx.instructions or '(none)'}\nKnown variables: {known}")


def _render_message(message: dict) -> str:
    text = message.get("content") or ""
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        text += f"\n→ {function.get('name')}({function.get('arguments')})"
    return f"[{message.get('role', '?')}]\n{text}"


def _render_messages(messages: list, tools: list, choice: Any = None) -> str:
    parts = [_render_message(m) for m in messages]
    if tools:
        names = ", ".join(t.get("function", t).get("name", "?") for t in tools)
        parts.append(f"[tools]\n{names}")
    if isinstance(choice, dict):
        parts.append(f"[tool_choice]\n{choice.get('function', {}).get('name', choice)}")
    return "\n\n".join(parts)


# -- values an asked variable accepts ---------------------------------------------------------
def accepted_values(sop, node_id: str | None, variable: str) -> list[Any]:
    """Which values `variable` asked at `node_id` accepts: its `enum` when it has one, else the
    literals the node's outgoing success conditions compare it to (``plan in ['a', 'b']``), so
    an operator typing as the user sees what would let the run go on. Empty when nothing says."""
    spec = next((v for v in sop.variables if v.name == variable), None)
    if spec is not None and spec.enum:
        return list(spec.enum)
    found: list[Any] = []
    for edge in sop.edges:
        if edge.source != node_id or edge.on != "success" or not edge.when or edge.is_else:
            continue
        try:
            tree = parse(edge.when).node
        except ExprError:
            continue
        for value in _compared_literals(tree, variable):
            if value not in found:
                found.append(value)
    return found


def _compared_literals(tree, variable: str) -> list[Any]:
    """Literals on the other side of a comparison with the name `variable`."""
    values: list[Any] = []
    for node in A.walk(tree):
        if not isinstance(node, A.Compare) or node.op not in ("==", "in"):
            continue
        sides = [(node.left, node.right)] if node.op == "in" else \
            [(node.left, node.right), (node.right, node.left)]
        for name, other in sides:
            if isinstance(name, A.Name) and name.dotted == variable:
                values.extend(_literals(other))
    return values


def _literals(node) -> list[Any]:
    if isinstance(node, A.Literal):
        return [node.value]
    if isinstance(node, A.ListExpr):
        return [item.value for item in node.items if isinstance(item, A.Literal)]
    return []
