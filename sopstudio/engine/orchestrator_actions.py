"""Executing validated agent actions and moving between nodes (part of the Orchestrator).

Kept apart from orchestrator.py only to keep modules small; `NodeActions` is a mixin that
relies on the orchestrator's state (see Orchestrator.__init__).
"""

from __future__ import annotations

from typing import Any

from .agents.base import Action
from .audit import Position
from .compiled import CEdge, choose_failure, choose_success, run_sets
from .trace import MemoryEntry
from .users import UserTurn, is_quit

NO_MATCHING_EDGE = "no-matching-edge"
NOT_IN_NODE = "tool-not-in-node"
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


class NodeActions:
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
        name, arguments = action.tool, dict(action.arguments or {})
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

    def _expression_warning(self, expr, error) -> None:
        """A condition or assignment that failed at run time: never silent (DESIGN §3)."""
        self._emit("warning", node=self.node_id, code="expression",
                   text=f"{expr.text} — {error}")

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
        if not chosen:
            self._grace(NO_MATCHING_EDGE, no_branch_text(cnode, self.variables))
            return
        if len(chosen) > 1:
            self.branches.append(list(reversed(chosen[1:])))
        self._follow(chosen[0])

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
        self.calls = {}
        self._emit("transition", node=target, edge=edge_id, source=source)
        self.trace.path.append(target)
        if edge_id is not None:
            self.trace.edges.append(edge_id)

    def _memory(self, action: str, observation: Any, ok: bool) -> None:
        self.trace.memory.append(MemoryEntry(action, observation, "success" if ok else "fail",
                                             self.node_id))
