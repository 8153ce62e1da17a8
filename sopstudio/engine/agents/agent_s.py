"""Agent-S (Kulkarni, "Agent-S: LLM Agentic workflow to automate Standard Operating Procedures"):
a state-tracking LLM call and an action LLM call per decision, over a Global Action Repository.

1. State tracking (`update_state`, named in `tool_choice`): from the conversation and the execution
   memory, the values the customer gave for this step and whether the step is complete; kept as
   the tracked state of the run.
2. Action selection: the step's prompt (`prompts.agent_s_action_prompt`: the DPA prompt plus the
   tracked state) with, as functions, the control actions (ask_user, finish_step,
   stop_conversation) and the top-k tools of the action repository (every SOP tool; the store's
   library when the caller passes it as `repository`) retrieved by word overlap of their name and
   description with the step's title, instructions, steps and tool names. A finish carries the
   tracked values the step asks for. `--guidance` applies to this call as to the DPA's (only the
   legal moves among these functions are offered, one named when it is the only one; `off`:
   all of them, none named): without it a small model answers the action call with text only.
`requests(ctx)` shows both calls: the state request as it is sent, then the action request with
the tracked state known now (the state call's reply replaces it when sent). `prompt_bundle(sop)`
(`export --to agent-s-prompts`) holds per node both templates (placeholder `{tracked_state}` for
the state), `update_state`, the tools retrieved from the SOP's tools and the controls.
The existing simulated user (scripted or LLM) plays Agent-S's user; the orchestrator is the
door: a retrieved tool outside the current node is refused, never executed.

Deviations: Agent-S's state-decision LLM picks the next SOP state itself; here the orchestrator
evaluates the edges (the state tracker reports progress within the node). Retrieval is lexical
(no embedding model offline). The user-interaction LLM's acknowledgements are the action call's
plain-text replies.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...core.index import SopIndex
from ...core.model import SOP, Node, Tool
from ..prompts import (PLACEHOLDERS, STATE, STATE_FUNCTION, STATE_PLACEHOLDERS,
                       agent_s_action_prompt, agent_s_state_prompt, ordered_nodes, render)
from .base import Action, AgentContext, blank_context, finish, halt
from .dpa import (ASK, FINISH, STOP, DpaAgent, control_functions, ground_choices, guide,
                  value_schema)
from .llm_common import (FunctionNames, Request, ask_values, conversation, function_tool,
                         reply_action, send, tool_functions)

TOP_K = 3
_WORD = re.compile(r"[a-z0-9]+")
STATE_LABEL = "state-tracking request (sent first)"
ACTION_LABEL = ("action request (sent second, with the tracked state known now; the "
                "state-tracking reply replaces it)")


class AgentSAgent(DpaAgent):
    name = "agent-s"

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 repository: list[Tool] | None = None, top_k: int = TOP_K, **options):
        super().__init__(compiled, client, settings, **options)
        self.repository = repository
        self.top_k = top_k
        self.state: dict = {}  # the tracked state: {"values": {...}, "complete": bool}

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The state-tracking request, then the action request as it would be sent if the
        tracked state stayed as it is now (the state call's reply replaces it)."""
        names = self._names(ctx)
        return [state_request(ctx, names, STATE_LABEL),
                self.action_request(ctx, names, self.state, ACTION_LABEL)]

    def next_action(self, ctx: AgentContext) -> Action:
        names = self._names(ctx)
        self.state = self.track_state(ctx, names)
        reply = send(self.client, self.action_request(ctx, names, self.state, ACTION_LABEL))
        values = {k: v for k, v in (self.state.get("values") or {}).items()
                  if k in ctx.node.ask and k not in ctx.variables}
        controls = {ASK: lambda a: ask_values(a, [v for v in ctx.node.ask
                                                  if v not in ctx.variables]),
                    FINISH: lambda a: finish({**values, **(a.get("values") or {})} or None),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        return reply_action(reply, names, controls)

    def action_request(self, ctx: AgentContext, names: FunctionNames, state: dict,
                       label: str) -> Request:
        """The action call: the step's prompt with the tracked state, the retrieved tools and
        the control functions."""
        system = render(agent_s_action_prompt(ctx.sop, ctx.node), ctx.variables).replace(
            STATE, json.dumps(state, default=str))
        messages = [{"role": "system", "content": system}, *conversation(ctx, names)]
        tools = retrieve(self._repository(ctx), ctx, self.top_k)
        guided = self.guidance != "off" and ctx.needs is not None
        functions = tool_functions(tools, names) + control_functions(ctx, guided)
        functions, choice = guide(functions, ctx.needs, names, self.guidance)
        if guided:
            functions = [ground_choices(f, ctx.variables) for f in functions]
        return Request(label, messages, functions, choice)

    def track_state(self, ctx: AgentContext, names: FunctionNames) -> dict:
        """The state-tracking call; an unusable reply keeps the previous state."""
        reply = send(self.client, state_request(ctx, names, STATE_LABEL))
        call = next((c for c in reply.tool_calls if c.name == STATE_FUNCTION), None)
        parsed = call.parsed()[0] if call is not None else None
        if not isinstance(parsed, dict):
            return self.state
        values = parsed.get("values") if isinstance(parsed.get("values"), dict) else {}
        return {"values": values, "complete": bool(parsed.get("complete"))}

    def _names(self, ctx: AgentContext) -> FunctionNames:
        return FunctionNames([t.name for t in self._repository(ctx)], [ASK, FINISH, STOP])

    def _repository(self, ctx: AgentContext) -> list[Tool]:
        known = {t.name for t in ctx.sop.tools}
        return [*ctx.sop.tools, *(t for t in self.repository or [] if t.name not in known)]


def state_function(ctx: AgentContext) -> dict:
    """`update_state`: the values this step collects, and whether it is complete."""
    return function_tool(STATE_FUNCTION, "Report the tracked state of this step.", {
        "type": "object", "required": ["complete"], "properties": {
            "values": {"type": "object", "properties": {
                n: value_schema(ctx, n) for n in ctx.node.ask}},
            "complete": {"type": "boolean"}}})


def state_request(ctx: AgentContext, names: FunctionNames, label: str) -> Request:
    """The state-tracking call: its prompt rendered, the conversation, `update_state` named."""
    messages = [{"role": "system", "content": render(agent_s_state_prompt(ctx.sop, ctx.node),
                                                     ctx.variables)},
                *conversation(ctx, names)]
    return Request(label, messages, [state_function(ctx)],
                   {"type": "function", "function": {"name": STATE_FUNCTION}})


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def retrieve(repository: list[Tool], ctx: AgentContext, k: int) -> list[Tool]:
    """The k tools whose name and description share the most words with the step (ties keep
    repository order); tools sharing no word are not offered."""
    node = ctx.node
    query = _words(" ".join([node.title, node.instructions, *node.steps, *node.tools]))
    scored = [(len(query & _words(f"{t.name} {t.description}")), i, t)
              for i, t in enumerate(repository)]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return [t for _, _, t in ranked[:k]]


# -- the agent-s-prompts export ----------------------------------------------------------------
def _node_entry(sop: SOP, index: SopIndex, node: Node, names: FunctionNames) -> dict:
    ctx = blank_context(sop, node)
    return {"id": node.id, "title": node.title, "kind": node.kind,
            "state": {"prompt": agent_s_state_prompt(sop, node),
                      "function": state_function(ctx)},
            "action": {"prompt": agent_s_action_prompt(sop, node),
                       "tools": tool_functions(retrieve(list(sop.tools), ctx, TOP_K), names),
                       "controls": control_functions(ctx)},
            "transitions": [{"edge": e.id, "target": e.target, "when": e.when, "on": e.on}
                            for e in index.out_edges(node.id)]}


def prompt_bundle(sop: SOP) -> dict:
    """`export --to agent-s-prompts`: per node the state-tracking prompt and `update_state`,
    the action prompt, the top-k tools retrieved from the SOP's tools and the controls."""
    index = SopIndex(sop)
    names = FunctionNames([t.name for t in sop.tools], [ASK, FINISH, STOP])
    return {"sop": sop.id, "title": sop.title, "agent": "agent-s", "start": sop.start,
            "placeholders": {**PLACEHOLDERS, **STATE_PLACEHOLDERS}, "top_k": TOP_K,
            "repository": "the SOP's tools (a run may add the store's tool library)",
            "nodes": [_node_entry(sop, index, node, names)
                      for node in ordered_nodes(sop, index)]}
