"""The Dynamic-Prompt Agent (JourneyBench §4): one node's prompt and tools at a time.

Each decision sends the model a system prompt holding only the current node (title,
instructions, steps, what to say, what to collect), the known variables, the conversation so
far, and as function tools only the current node's tools plus three control functions:

- ``ask_user(question, variables)``   ask the user (the reply comes back as a user message);
- ``finish_step(values)``             this node's work is done; ``values`` are variable values
                                      read from the conversation; the ORCHESTRATOR then
                                      evaluates the edges (the model never picks the next node);
- ``stop_conversation(reason, message)`` halt: "blocked" when required information cannot be
                                      obtained (JourneyBench Appendix G), else "user_request".

A plain-text reply is a message to the user (``say``). Guardrail reflections arrive as messages
(see llm_common.conversation). `DpaAgent.checks` lists the guardrails the orchestrator must
install (`Orchestrator(..., checks=agent.checks)`).
"""

from __future__ import annotations

from typing import Any

from ..guardrails import GUARDRAILS
from .base import Action, AgentContext, finish, halt
from .llm_common import (FunctionNames, ask_model, ask_values, build_client, conversation,
                         function_tool, known_values, reply_action, tool_functions)

ASK, FINISH, STOP = "ask_user", "finish_step", "stop_conversation"
CONTROLS = (ASK, FINISH, STOP)
TYPES = {"list": "array"}

RULES = """How to act (exactly one action per reply):
- To tell the user something, reply with plain text.
- To ask the user for information, call ask_user.
- To use a tool, call it with values the user gave or that are known. Never invent or guess
  a value; ask for it.
- If required information cannot be obtained (the user does not have it) or a tool failed and
  you cannot continue, call stop_conversation with reason "blocked" and tell the user why.
- When the work of this step is done, call finish_step with the values you learned from the
  conversation. You do not choose the next step: the system does."""


class DpaAgent:
    name = "dpa"
    static = False
    checks = GUARDRAILS  # what the orchestrator must enforce before executing an action

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 **options):
        # client: LLMClient or RecordedLLM (replay), anything with complete(messages, tools)
        self.compiled = compiled
        self.client = build_client(client, settings, **options)

    def next_action(self, ctx: AgentContext) -> Action:
        names = FunctionNames([t.name for t in ctx.sop.tools], list(CONTROLS))
        messages = [{"role": "system", "content": node_prompt(ctx)}, *conversation(ctx, names)]
        functions = tool_functions(ctx.tools, names) + control_functions(ctx)
        reply = ask_model(self.client, messages, functions)
        wanted = [v for v in ctx.node.ask if v not in ctx.variables]
        controls = {ASK: lambda a: ask_values(a, wanted),
                    FINISH: lambda a: finish(a.get("values") if "values" in a else None),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        return drop_unknown_parameters(reply_action(reply, names, controls), ctx)


def drop_unknown_parameters(action: Action, ctx: AgentContext) -> Action:
    """MARCO Algorithm 1, line 10: a parameter the tool does not declare is removed."""
    tool = next((t for t in ctx.tools if t.name == action.tool), None)
    declared = (tool.parameters.get("properties") or {}) if tool else {}
    if action.kind == "call" and isinstance(action.arguments, dict) and declared:
        dropped = sorted(set(action.arguments) - set(declared))
        if dropped:
            action.arguments = {k: v for k, v in action.arguments.items() if k in declared}
            action.raw = {**(action.raw or {}), "dropped_parameters": dropped}
    return action


def node_prompt(ctx: AgentContext) -> str:
    node, sop = ctx.node, ctx.sop
    parts = [f"You are a customer-support agent following the procedure \"{sop.title or sop.id}\""
             " one step at a time; the system moves you between steps.",
             f"Current step: {node.title or node.id}"]
    if node.instructions:
        parts.append("Instructions:\n" + node.instructions)
    if node.steps:
        parts.append("Steps:\n" + "\n".join(f"- {s}" for s in node.steps))
    if node.say:
        parts.append(f"Tell the user: {node.say}")
    if node.ask:
        parts.append("Information to collect from the user:\n" + "\n".join(
            _describe(ctx, name) for name in node.ask))
    parts.append("Known information:\n" + known_values(ctx))
    if node.kind == "end":
        parts.append("This is a final step: tell the user the outcome, then call finish_step.")
    parts.append(RULES)
    return "\n\n".join(parts)


def _describe(ctx: AgentContext, name: str) -> str:
    var = ctx.sop.variable(name)
    if var is None:
        return f"- {name}"
    extra = f" (one of {', '.join(map(str, var.enum))})" if var.enum else ""
    return f"- {name} ({var.type}){': ' + var.description if var.description else ''}{extra}"


def value_schema(ctx: AgentContext, name: str) -> dict:
    var = ctx.sop.variable(name)
    if var is None:
        return {}
    schema: dict = {"type": TYPES.get(var.type, var.type)}
    if var.description:
        schema["description"] = var.description
    if var.enum:
        schema["enum"] = list(var.enum)
    return schema


def control_functions(ctx: AgentContext) -> list[dict]:
    askable = list(dict.fromkeys([*ctx.node.ask, *(p for t in ctx.tools
                                                    for p in t.parameter_names())]))
    variables: dict = {"type": "array", "items": {"type": "string"},
                       "description": "names of the values asked for"}
    if askable:
        variables["items"]["enum"] = askable
    settable = list(dict.fromkeys(ctx.node.ask))  # the orchestrator refuses any other name
    return [
        function_tool(ASK, "Ask the user a question to obtain information.", {
            "type": "object", "required": ["question"],
            "properties": {"question": {"type": "string"}, "variables": variables}}),
        function_tool(FINISH, "The work of this step is done; the system moves on.", {
            "type": "object", "properties": {"values": {
                "type": "object", "description": "values learned from the conversation",
                "properties": {n: value_schema(ctx, n) for n in settable}}}}),
        function_tool(STOP, "Stop the conversation (required information is unavailable).", {
            "type": "object", "required": ["reason", "message"],
            "properties": {"reason": {"type": "string", "enum": ["blocked", "user_request"]},
                           "message": {"type": "string"}}}),
    ]
