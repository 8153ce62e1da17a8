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
   tracked values the step asks for.
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

from ...core.model import Tool
from ..prompts import (STATE, STATE_FUNCTION, agent_s_action_prompt, agent_s_state_prompt,
                       render)
from .base import Action, AgentContext, finish, halt
from .dpa import ASK, FINISH, STOP, DpaAgent, control_functions, value_schema
from .llm_common import (FunctionNames, ask_model, ask_values, conversation, function_tool,
                         reply_action, tool_functions)

TOP_K = 3
_WORD = re.compile(r"[a-z0-9]+")


class AgentSAgent(DpaAgent):
    name = "agent-s"

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 repository: list[Tool] | None = None, top_k: int = TOP_K, **options):
        options.pop("guidance", None)  # Agent-S offers its retrieved actions, unguided
        super().__init__(compiled, client, settings, guidance="off", **options)
        self.repository = repository
        self.top_k = top_k
        self.state: dict = {}  # the tracked state: {"values": {...}, "complete": bool}

    def next_action(self, ctx: AgentContext) -> Action:
        names = FunctionNames([t.name for t in self._repository(ctx)], [ASK, FINISH, STOP])
        self.state = self.track_state(ctx, names)
        system = render(agent_s_action_prompt(ctx.sop, ctx.node), ctx.variables).replace(
            STATE, json.dumps(self.state, default=str))
        messages = [{"role": "system", "content": system}, *conversation(ctx, names)]
        tools = retrieve(self._repository(ctx), ctx, self.top_k)
        functions = tool_functions(tools, names) + control_functions(ctx)
        reply = ask_model(self.client, messages, functions)
        values = {k: v for k, v in (self.state.get("values") or {}).items()
                  if k in ctx.node.ask and k not in ctx.variables}
        controls = {ASK: lambda a: ask_values(a, [v for v in ctx.node.ask
                                                  if v not in ctx.variables]),
                    FINISH: lambda a: finish({**values, **(a.get("values") or {})} or None),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        return reply_action(reply, names, controls)

    def track_state(self, ctx: AgentContext, names: FunctionNames) -> dict:
        """The state-tracking call; an unusable reply keeps the previous state."""
        messages = [{"role": "system", "content": render(agent_s_state_prompt(ctx.sop, ctx.node),
                                                         ctx.variables)},
                    *conversation(ctx, names)]
        function = function_tool(STATE_FUNCTION, "Report the tracked state of this step.", {
            "type": "object", "required": ["complete"], "properties": {
                "values": {"type": "object", "properties": {
                    n: value_schema(ctx, n) for n in ctx.node.ask}},
                "complete": {"type": "boolean"}}})
        choice = {"type": "function", "function": {"name": STATE_FUNCTION}}
        reply = ask_model(self.client, messages, [function], choice)
        call = next((c for c in reply.tool_calls if c.name == STATE_FUNCTION), None)
        parsed = call.parsed()[0] if call is not None else None
        if not isinstance(parsed, dict):
            return self.state
        values = parsed.get("values") if isinstance(parsed.get("values"), dict) else {}
        return {"values": values, "complete": bool(parsed.get("complete"))}

    def _repository(self, ctx: AgentContext) -> list[Tool]:
        known = {t.name for t in ctx.sop.tools}
        return [*ctx.sop.tools, *(t for t in self.repository or [] if t.name not in known)]


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
