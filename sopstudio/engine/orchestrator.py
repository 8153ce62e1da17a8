"""The orchestrator: the state machine that runs one SOP conversation (DESIGN §2, §6).

State: current node, variables, Agent-S execution memory, visit counts, transcript, tool trace.
`step()` returns exactly one `Event` (None once finished); `run()` steps until an end node, a
halt/stop, or the turn limit. A **turn** is one message in the conversation: an agent `say` or
`ask`, or a user reply (tool calls, transitions and guardrail events are not turns); the default
limit is 40 (JourneyBench). It is checked before each agent decision, so an ask and its reply
may end one turn past the limit. `max_events` is a second, hard bound on events for runaway agents.

Semantics: the agent acts in the node (say/ask/call/finish/halt, see agents/base.py); on finish
the orchestrator evaluates `set`, then leaves by the first success edge whose `when` holds, else
the `else` edge (`branching: all`: every true edge, depth first; the outcome is that of the last
end reached). A tool error takes the first matching failure edge; without one, the agent may call
the tool again. Every call of a tool in one node visit, success or failure, counts against the
node's `max_attempts`: after `max_attempts` failed calls, or at a call beyond `max_attempts`
(a model repeating a successful call), the run ends with the grace message (outcome
technical-issue, code attempts-exhausted). A finished node none of whose success edges holds
(and no else) ends the same way, code no-matching-edge, the end text naming the node and the
values its conditions read. Entering a node more than `max_attempts` times ends
the run the same way. A static (SPA) agent is not confined to nodes, so it has a per-run cap
instead: at most 3 x (number of SOP tools) + 10 tool calls (`static_tool_cap`); the call beyond
ends the run the same way (code tool-call-cap). Tool calls are not turns (JourneyBench counts
messages), so the turn limit is unchanged; these bounds replace `max_events` as the real stop.
A user reply holding the "<quit>" token (users.QUIT) ends the run: outcome stopped, end text user-quit.
Turn-taking as in a chat: a `say` with `handover` (a chat model's plain-text reply) is answered
by the user before the agent acts again. An agent that sends the same message (say or ask) three
times in a row (only user replies, guardrail and note events between) is stopped: the third is
recorded but not answered, a note says why, outcome stopped, code repeated-message (never left
to the turn limit). An AgentError whose code is fatal (agents.base.FATAL_CODES: the
prompt cannot fit the model's context) ends the run at once (grace message, technical-issue).
For a non-static agent, `context()` carries `needs` (guidance.py): what the node still needs
(not worked out for an agent that says `wants_needs = False`, like the scripted oracle).
Deterministic for a given agent, user, response table and seed.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from typing import Any, Callable

from ..core.expr import ExprError, parse
from ..core.expr.errors import shorten
from .agents.base import ACTION_KINDS, Action, AgentContext, AgentError, Check
from .audit import Position
from .compiled import CEdge, CompiledSop, choose_failure, choose_success, run_sets
from .guidance import node_needs
from .knowledge import NO_ANSWER, find_answer
from .recording import RecordedInputs
from .tools import MockTools
from .trace import Event, MemoryEntry, Trace
from .users import UserTurn, is_quit

GRACE_MESSAGE = ("I'm sorry, I'm facing a technical issue and cannot complete your request "
                 "right now. Please try again later.")
TURN_EVENTS = frozenset(("say", "ask", "user"))
REPEAT_LIMIT, REPEATED = 3, "repeated-message"
STATIC_CAP_PER_TOOL, STATIC_CAP_EXTRA = 3, 10
UserOverride = Callable[[list, "str | None"], "UserTurn | str | None"]
NO_MATCHING_EDGE = "no-matching-edge"
NOT_IN_NODE = "tool-not-in-node"
MESSAGE_KINDS = ("say", "ask")  # actions that are messages to the user
WARNING_QUOTE = 120  # characters of an expression a run-time warning quotes
_MISSING = object()


def _lookup(env: dict, dotted: str) -> Any:
    """The value a dotted name reads in env (``_MISSING`` when it is not there)."""
    value: Any = env
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def no_branch_text(cnode, env: dict) -> str:
    """Why a finished node could not be left: the node and the values its conditions read,
    e.g. "no branch of 'Classify the issue' accepts issue_type='yes'"."""
    names: list[str] = []
    for cedge in cnode.success:
        for name in sorted(cedge.cond.names()) if cedge.cond is not None else ():
            if name not in names:
                names.append(name)
    shown = []
    for name in names:
        value = _lookup(env, name)
        shown.append(f"{name} unset" if value is _MISSING else f"{name}={value!r}")
    title = cnode.node.title or cnode.node.id
    if not cnode.success:
        return f"'{title}' has no outgoing edge"
    return f"no branch of '{title}' accepts " + (", ".join(shown) or "the current values")


def _squash(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def _message_text(action: Action) -> str:
    """The message an action sends (an ask without text says what it asks for)."""
    return action.text or ("Please provide: " + ", ".join(action.variables or [])
                           if action.kind == "ask" else "")


def static_tool_cap(sop) -> int:
    """Per-run bound on tool calls of a static (SPA) agent: 3 x the SOP's tools + 10."""
    return STATIC_CAP_PER_TOOL * len(sop.tools) + STATIC_CAP_EXTRA


class Orchestrator:
    def __init__(self, compiled: CompiledSop, agent, user, tools: MockTools | None = None, *,
                 seed: int = 0, max_turns: int = 40, max_events: int = 10_000,
                 max_rejections: int = 2, checks: list[Check] | None = None,
                 user_override: UserOverride | None = None, meta: dict | None = None,
                 recorded: RecordedInputs | None = None):
        self.compiled, self.sop, self.agent, self.user = compiled, compiled.sop, agent, user
        self.levels = compiled.levels  # sub-SOP nesting of inlined nodes (empty: no subflows)
        self.tools = tools or MockTools(compiled.tools)
        self.rng = random.Random(seed)
        self.max_turns, self.max_events, self.max_rejections = max_turns, max_events, max_rejections
        # An agent brings its own guardrails (DPA: MARCO checks; SPA: none, it is measured).
        self.checks: list[Check] = list(checks if checks is not None
                                        else getattr(agent, "checks", None) or [])
        self.user_override = user_override
        self.operator_inputs: deque[UserTurn] = deque()
        self.recorded = recorded
        self.static = bool(getattr(agent, "static", False))
        # what the node still needs is worked out per decision only for an agent that uses it
        self.needs_wanted = not self.static and getattr(agent, "wants_needs", True)
        self.variables: dict[str, Any] = {}
        self.trace = Trace(meta={"sop": self.sop.id, "agent": getattr(agent, "name", "?"),
                                 "seed": seed, "static": self.static, "max_turns": max_turns,
                                 "max_events": max_events, "max_rejections": max_rejections,
                                 **(meta or {})})
        self.transcript: list[dict] = []
        self.visits: dict[str, int] = {}
        self.branches: list[list] = []  # branching "all": stacks of edges still to follow
        self.pending: deque[Event] = deque()
        self.node_id = compiled.start
        self.visit: list[Event] = []
        # the visit's latest user turn and tool result, kept as events arrive (the agent's
        # context names them at every decision; scanning the visit each time cost more)
        self.last_user: Event | None = None
        self.last_result: Event | None = None
        self.calls: dict[str, int] = {}   # tool -> calls in this node visit
        self.trace_calls = 0               # tool calls in the whole run
        self.tool_cap = static_tool_cap(self.sop)
        self.reflections: list[str] = []
        self.rejections = 0
        self.started = self.done = False
        # action kind -> handler (agents/base.ACTION_KINDS); explicit so every caller is visible
        self.handlers: dict[str, Callable[[Action], None]] = {
            "say": self._do_say, "ask": self._do_ask, "call": self._do_call,
            "finish": self._do_finish, "halt": self._do_halt}

    # -- public -----------------------------------------------------------------------------
    def step(self) -> Event | None:
        if not self.pending and not self.done:
            self._advance()
        return self.pending.popleft() if self.pending else None

    def run(self, cancel: threading.Event | None = None) -> Trace:
        while self.step() is not None:
            if cancel is not None and cancel.is_set() and not self.done:
                self.stop()
        return self.trace

    def stop(self, text: str | None = None) -> None:
        """Operator stop: ends the run with outcome `stopped`."""
        if not self.done:
            self._end("stopped", text=text)

    def push_user_input(self, turn: UserTurn | str) -> None:
        """The operator types as the user: used for the next reply instead of the user."""
        self.operator_inputs.append(turn if isinstance(turn, UserTurn) else UserTurn(turn))

    @property
    def node(self):
        return self.compiled.nodes[self.node_id].node

    # -- machinery --------------------------------------------------------------------------
    def _emit(self, kind: str, **fields) -> Event:
        event = Event(kind, index=len(self.trace.events), **fields)
        if self.levels:
            self._mark_level(event)
        self.trace.events.append(event)
        self.visit.append(event)
        self.pending.append(event)
        if kind == "user":
            self.last_user = event
        elif kind == "tool_result":
            self.last_result = event
        if kind in TURN_EVENTS:
            self.trace.turns += 1
        return event

    def _mark_level(self, event: Event) -> None:
        """An event inside a sub-SOP carries its level (DESIGN §9); its node id is the child's
        id qualified by the subflow node (`verify/ask_customer`, see core/subflows.py)."""
        level = self.levels.get(event.node or "")
        if level:
            event.level = level

    def _advance(self) -> None:
        if not self.started:
            self._start()
        elif self.trace.turns >= self.max_turns or len(self.trace.events) >= self.max_events:
            self._end("turn-limit")
        else:
            self._act()

    def _start(self) -> None:
        self.started = True
        turn, operator = self._opening()
        if turn is not None:
            self._user_event(turn, operator)
        if not self.done:
            self._enter(self.compiled.start, None, None)

    def _act(self) -> None:
        ctx = self.context()
        try:
            action = self._next_action(ctx)
        except AgentError as error:
            self._reject(error.code, str(error), None)
            if error.fatal and not self.done:
                self._grace(error.code, str(error))
            return
        if getattr(action, "note", None):
            self._emit("note", node=self.node_id, text=action.note)
        problem = self._validate(action, ctx)
        if problem is not None:
            self._reject(problem[0], problem[1], action)
            return
        self.rejections = 0
        self.reflections.clear()
        first = len(self.trace.events)
        # the turn-taking checks only concern messages (most actions are calls and finishes)
        if action.kind in MESSAGE_KINDS and self._repeats_itself(action):
            self._stop_repeating(action)
        else:
            self.handlers[action.kind](action)
            if action.handover:
                self._hand_over(action)
        if len(self.trace.events) > first:  # the action is kept on its first event, for replay
            self.trace.events[first].action = action.to_dict()

    def _next_action(self, ctx: AgentContext) -> Action:
        if self.recorded is not None:
            return self.recorded.next_action()
        return self.agent.next_action(ctx)

    def context(self) -> AgentContext:
        """The agent's view of the current node (also shown by the GUI's prompt pane)."""
        nid = self.node_id
        ctx = AgentContext(
            sop=self.sop, node=self.node, instructions=self.compiled.nodes[nid].instructions,
            tools=list(self.compiled.tools.values()) if self.static
            else self.compiled.nodes[nid].allowed,
            variables=self.variables, memory=self.trace.memory, transcript=self.transcript,
            visit=self.visit, reflections=self.reflections, rng=self.rng,
            visit_number=self.visits.get(nid, 1), last_user=self.last_user,
            last_result=self.last_result,
            knowledge=self._knowledge, evaluate=self._evaluate)
        if self.needs_wanted:
            ctx.needs = node_needs(self.compiled, ctx)
        return ctx

    # -- turn-taking ------------------------------------------------------------------------
    def _hand_over(self, action: Action) -> None:
        """A chat agent's plain-text message hands the turn to the user (DESIGN §6)."""
        if action.kind == "say" and action.handover and not self.done:
            turn, operator = self._reply([], action.text or "")
            self._user_event(turn, operator)

    def _repeats_itself(self, action: Action) -> bool:
        """This message is the third same one in a row (user replies between do not count)."""
        text, same = _squash(_message_text(action)), 1
        for event in reversed(self.trace.events):
            if event.type in ("user", "guardrail", "note"):
                continue
            if event.type not in ("say", "ask") or _squash(event.text) != text:
                return False
            same += 1
            if same >= REPEAT_LIMIT:
                return True
        return False

    def _stop_repeating(self, action: Action) -> None:
        text = _message_text(action)
        self._emit(action.kind, node=self.node_id, text=text, variables=action.variables)
        self.transcript.append({"role": "agent", "text": text})
        self._emit("note", node=self.node_id, text=f"The agent sent the same message "
                   f"{REPEAT_LIMIT} times in a row; the run is stopped.")
        self._end("stopped", text="the agent repeated itself", code=REPEATED)

    def _knowledge(self, question: str) -> str:
        return find_answer(self.sop.knowledge, question) or NO_ANSWER

    def _evaluate(self, expr: Any) -> Any:
        try:
            return (parse(expr) if isinstance(expr, str) else expr).evaluate(self.variables)
        except ExprError:
            return None

    def _validate(self, action: Any, ctx: AgentContext) -> tuple[str, str] | None:
        if not isinstance(action, Action) or action.kind not in ACTION_KINDS:
            return "malformed-output", "The reply is not a valid action; answer with a tool " \
                                       "call or a message."
        if action.kind == "call":
            allowed = [t.name for t in ctx.tools]
            if action.tool not in allowed:
                return "tool-not-in-node", (f"Tool '{action.tool}' is not available in this "
                                            f"step. Available tools: {', '.join(allowed) or 'none'}.")
            if not isinstance(action.arguments, dict):
                return "malformed-output", "Tool arguments must be a JSON object."
        if action.kind == "ask" and not all(isinstance(v, str) for v in action.variables or []):
            return "malformed-output", "Ask for variables by name."
        if action.kind == "finish" and isinstance(action.values, dict):
            problem = self._unaskable(action.values)
            if problem is not None:
                return problem
        for check in self.checks:
            verdict = check(action, ctx)
            if verdict:
                return verdict if isinstance(verdict, tuple) else ("guardrail", str(verdict))
        return None

    def _unaskable(self, values: dict) -> tuple[str, str] | None:
        """Finish values may only carry what this node asks the user: anything else (a tool
        output, a routed-on status) would let the model steer the edges itself."""
        askable = list(self.node.ask)
        extra = sorted(str(k) for k in values if k not in askable)
        if not extra:
            return None
        allowed = ", ".join(askable) or "none"
        return "value-not-askable", (f"finish_step may only give values this step asks the user "
                                     f"for ({allowed}); not: {', '.join(extra)}. Use the tools "
                                     f"to obtain other values.")

    def _reject(self, code: str, message: str, action: Any) -> None:
        if isinstance(action, Action):
            tool, arguments, record = action.tool, action.arguments, action.to_dict()
        else:  # no usable action: replay raises the same AgentError again
            tool, arguments, record = None, None, {"kind": "error", "code": code, "text": message}
        self._emit("guardrail", node=self.node_id, code=code, text=message, tool=tool,
                   arguments=arguments if isinstance(arguments, dict) else None, action=record)
        self.reflections.append(message)
        self.rejections += 1
        if self.rejections > self.max_rejections:
            self._grace()

    def _grace(self, code: str | None = None, reason: str | None = None) -> None:
        """The grace message and outcome technical-issue; `reason` (the end event's text)
        says why for the operator, e.g. which branch conditions rejected which values."""
        self._emit("say", node=self.node_id, text=GRACE_MESSAGE)
        self.transcript.append({"role": "agent", "text": GRACE_MESSAGE})
        self._end("technical-issue", text=reason, code=code)

    def _end(self, outcome: str, end_node: str | None = None, text: str | None = None,
                code: str | None = None) -> None:
        self._emit("end", node=end_node or self.node_id, outcome=outcome, text=text, code=code)
        self.trace.outcome, self.trace.end_node = outcome, end_node
        self.trace.variables = dict(self.variables)
        self.done = True

    # -- conversation -----------------------------------------------------------------------
    def _do_say(self, action: Action) -> None:
        self._emit("say", node=self.node_id, text=action.text or "", knowledge=action.knowledge)
        self.transcript.append({"role": "agent", "text": action.text or ""})
        kind = "external_knowledge" if action.knowledge else "message_to_user"
        self._memory(kind, "done", True)

    def _do_ask(self, action: Action) -> None:
        variables = list(action.variables or [])
        text = action.text or ("Please provide: " + ", ".join(variables))
        self._emit("ask", node=self.node_id, variables=variables, text=text)
        self.transcript.append({"role": "agent", "text": text})
        turn, operator = self._reply(variables, text)
        self._user_event(turn, operator)
        if self.done:  # the user quit
            return
        ok = not turn.missing and not turn.question and all(v in turn.values for v in variables)
        self._memory("ask_user_input: " + ", ".join(variables), turn.text, ok)

    def _reply(self, variables: list, text: str) -> tuple[UserTurn, dict | None]:
        if self.recorded is not None:
            return self.recorded.next_user()
        if self.operator_inputs:
            return self.operator_inputs.popleft(), {"typed": True}
        if self.user_override is not None:
            typed = self.user_override(variables, text)
            if typed is not None:
                turn = typed if isinstance(typed, UserTurn) else UserTurn(str(typed))
                return turn, {"typed": True}
        return self.user.reply(variables, text, self), None

    def _opening(self) -> tuple[UserTurn | None, dict | None]:
        if self.recorded is not None:
            return self.recorded.opening()
        opening = getattr(self.user, "opening", None)
        return (opening(self.sop) if opening else None), None

    def _user_event(self, turn: UserTurn, operator: dict | None) -> None:
        self._emit("user", node=self.node_id, text=turn.text, values=dict(turn.values) or None,
                   missing=list(turn.missing) or None, question=turn.question, operator=operator)
        self.transcript.append({"role": "user", "text": turn.text})
        if is_quit(turn.text):  # the simulated user ended the conversation (Appendix F)
            self._end("stopped", text="user-quit")
            return
        self.variables.update(turn.values)

    # -- tools ------------------------------------------------------------------------------
    def _do_call(self, action: Action) -> None:
        name, arguments = action.tool or "", dict(action.arguments or {})
        if self._call_bound_reached(name):
            return
        if not self._door_admits(name):
            self._refuse_call(name, arguments)
            return
        self.calls[name] = self.calls.get(name, 0) + 1
        self.trace_calls += 1
        self._emit("tool_call", node=self.node_id, tool=name, arguments=arguments)
        self.trace.tool_trace.append({"tool": name, "arguments": arguments})
        if self.recorded is not None:
            result, operator = self.recorded.next_result()
            note = self.recorded.last_note()
        else:
            result, operator = self.tools.call(name, arguments)
            live_note = getattr(self.tools, "live_note", None)
            note = live_note(name) if live_note else None
        if note:
            self._emit("note", node=self.node_id, tool=name, text=note)
        attempt = self.calls[name]
        self._emit("tool_result", node=self.node_id, tool=name, result=result, attempt=attempt,
                   operator=operator)
        if "error" in result:
            self._memory("api_call: " + name, result["error"], False)
            self._on_failure(name, result["error"])
        else:
            outputs = result.get("outputs") or {}
            self._memory("api_call: " + name, outputs, True)
            self.variables.update(outputs)

    def _door_admits(self, name: str) -> bool:
        """The single door (DESIGN §6): only a tool bound to the current node executes, whatever
        the agent. A node-confined agent is at `node_id` (its guardrails already refuse other
        tools; this check holds even if they are off); a static agent (SPA) is not confined, so
        its current node is where the SOP is given the run so far (`audit.Position`)."""
        if not self.static:
            return name in self.compiled.nodes[self.node_id].node.tools
        position = getattr(self, "_position", None)
        if position is None:
            position = self._position = Position(self.compiled)
        position.observe(self.trace.events)
        return position.admit(name)

    def _refuse_call(self, name: str, arguments: dict) -> None:
        """A call outside the current node: recorded (the tool_call event and the run's tool
        trace keep the attempt, so audits and metrics still count it as a violation) and
        answered with the error `tool-not-in-node`, never executed, mocked or live. It counts
        against the static per-run call cap like any call, so a model insisting cannot loop."""
        self.trace_calls += 1
        self._emit("tool_call", node=self.node_id, tool=name, arguments=arguments,
                   code=NOT_IN_NODE)
        self.trace.tool_trace.append({"tool": name, "arguments": arguments})
        result: dict = {"error": NOT_IN_NODE}
        if self.recorded is not None:  # keep the recording's results in step
            result = self.recorded.next_result()[0]
        self._emit("tool_result", node=self.node_id, tool=name, result=result, code=NOT_IN_NODE)
        self._memory("api_call: " + name, NOT_IN_NODE, False)

    def _call_bound_reached(self, name: str) -> bool:
        """Ends the run (grace message) instead of a call beyond the bounds: per node visit, a
        tool is called at most `max_attempts` times, success or failure (Agent-S: an action
        repeated beyond the bound ends the flow); a static agent, never confined to a node, has
        a per-run cap on tool calls instead (see `static_tool_cap`)."""
        if self.static:
            if self.trace_calls >= self.tool_cap:
                self._grace("tool-call-cap")
                return True
            return False
        if self.calls.get(name, 0) >= self.compiled.nodes[self.node_id].node.attempts:
            self._grace("attempts-exhausted")
            return True
        return False

    def _on_failure(self, tool: str, error: str) -> None:
        if self.static:
            return
        cnode = self.compiled.nodes[self.node_id]
        edge = choose_failure(cnode, {**self.variables, "error": error, "tool": tool},
                              self._expression_warning)
        if edge is not None:
            self._follow(edge)
        elif self.calls.get(tool, 0) >= cnode.node.attempts:
            self._grace("attempts-exhausted")

    def _expression_warning(self, expr: Any, error: Exception) -> None:
        """A condition or assignment that failed at run time: never silent (DESIGN §3). A long
        expression is quoted as head … tail (the SOP file has it whole)."""
        self._emit("warning", node=self.node_id, code="expression",
                   text=f"{shorten(expr.text, WARNING_QUOTE)} — {error}")

    # -- leaving nodes ----------------------------------------------------------------------
    def _do_finish(self, action: Action) -> None:
        if action.values:
            self.variables.update(action.values)
        if self.static:
            self._finish_static(action)
            return
        cnode = self.compiled.nodes[self.node_id]
        if cnode.node.kind == "end":
            self._reach_end(action)
            return
        run_sets(cnode, self.variables, self._expression_warning)
        chosen = choose_success(cnode, self.variables, self._expression_warning)
        if action.branch is not None:
            chosen = self._branch_choice(action.branch, cnode, chosen)
        if not chosen:
            self._grace(NO_MATCHING_EDGE, no_branch_text(cnode, self.variables))
            return
        if len(chosen) > 1:
            self.branches.append(list(reversed(chosen[1:])))
        self._follow(chosen[0])

    def _branch_choice(self, branch: str, cnode, chosen: list[CEdge]) -> list[CEdge]:
        """An agent that picks the branch itself (SOP-Agent): its choice is followed when it
        names a success edge of the node, else the conditions decide. Both are reported: a note
        event (`edge` = the agent's choice, `code` branch-agree / branch-disagree, the text
        names what the conditions say) and counts in the trace's meta."""
        by_id = {cedge.id: cedge for cedge in cnode.success}
        said = chosen[0].id if chosen else None
        agree = branch == said
        meta = self.trace.meta
        meta["branch_choices"] = meta.get("branch_choices", 0) + 1
        meta["branch_agreements"] = meta.get("branch_agreements", 0) + int(agree)
        valid = branch in by_id
        conditions = self._way(by_id[said]) if said else "none"
        self._emit("note", node=self.node_id, edge=branch,
                   code="branch-agree" if agree else "branch-disagree",
                   text=(f"branch: the agent chose {self._way(by_id[branch])}" if valid else
                         f"branch: the agent chose {branch}, not an edge of this step (ignored)")
                        + ("; the conditions agree" if agree
                           else f"; the conditions choose {conditions}"))
        return [by_id[branch]] if valid else chosen

    def _way(self, cedge: CEdge) -> str:
        """An edge as a reader follows it: the step it leads to, its label, its id."""
        target = self.compiled.nodes.get(cedge.target)
        title = (target.node.title or target.node.id) if target is not None else cedge.target
        label = cedge.edge.label
        return f"→ {title} ({label + ', ' if label else ''}{cedge.id})"

    def _finish_static(self, action: Action) -> None:
        node = self.compiled.nodes.get(action.end_node or "")
        if node is not None and node.node.kind == "end":
            self.trace.path.append(node.node.id)
            self.trace.ends.append(node.node.id)
            self._end(node.node.outcome or "resolved", node.node.id)
        else:
            self._end("stopped")

    def _reach_end(self, action: Action) -> None:
        self.trace.ends.append(self.node_id)
        while self.branches and not self.branches[-1]:
            self.branches.pop()
        if self.branches:
            self._follow(self.branches[-1].pop())
            return
        node = self.node
        self._end(node.outcome or "resolved", node.id)

    def _halt_outcome(self, action: Action) -> str:
        return "blocked" if action.reason == "blocked" else "stopped"

    def _do_halt(self, action: Action) -> None:
        if action.text:
            self._emit("say", node=self.node_id, text=action.text)
            self.transcript.append({"role": "agent", "text": action.text})
        self._memory("halt: " + (action.reason or ""), action.text or "", False)
        self._end(self._halt_outcome(action), text=action.reason)

    def _follow(self, edge: CEdge) -> None:
        self._enter(edge.target, edge.id, self.node_id)

    def _enter(self, target: str, edge_id: str | None, source: str | None) -> None:
        count = self.visits.get(target, 0) + 1
        limit = self.compiled.nodes[target].node.attempts
        if count > limit:
            self._grace("attempts-exhausted")
            return
        self.visits[target] = count
        self.node_id = target
        self.visit = []
        self.last_user = self.last_result = None
        self.calls = {}
        self._emit("transition", node=target, edge=edge_id, source=source)
        self.trace.path.append(target)
        if edge_id is not None:
            self.trace.edges.append(edge_id)

    def _memory(self, action: str, observation: Any, ok: bool) -> None:
        self.trace.memory.append(MemoryEntry(action, observation, "success" if ok else "fail",
                                             self.node_id))
