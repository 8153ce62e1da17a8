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

A plain-text reply is a message to the user (``say``) and hands the turn to the user. Guardrail
reflections arrive as messages (see llm_common.conversation). `DpaAgent.checks` lists the
guardrails the orchestrator must install (`Orchestrator(..., checks=agent.checks)`).

The system prompt is `engine.prompts.dpa_prompt` rendered with the known values. `requests(ctx)`
is the one request of a decision (what `next_action` sends; sop-agent, agent-s and marco extend
it), and `prompt_bundle(sop)` is what `export --to dpa-prompts` writes: per node the template,
the node's tools and the control functions, as offered unguided.

Guidance (`guidance="auto" | "strict" | "off"`, default from the client's settings, else auto):
the orchestrator's `ctx.needs` (engine/guidance.py) says which moves are legal now; only those
functions are offered (a message turn offers none: the model writes text). `auto` names the
function in `tool_choice` when exactly one is legal, `strict` always names the expected one,
`off` offers every function and names none. The model still writes every argument and message.
A server that refuses named choice is handled by llm_client (remembered per endpoint); the first
time that happens in a run the action carries a note for the trace.
"""

from __future__ import annotations

from typing import Any, Mapping

from .guardrails import GUARDRAILS
from ..schema_check import schema_errors
from ..guidance import ASK as NEED_ASK, CALL, FINISH as NEED_FINISH, HALT, MODES, SAY, Needs
from ..prompts import PLACEHOLDERS, dpa_prompt, ordered_nodes, render
from ...core.index import SopIndex
from ...core.model import SOP, Node
from .base import Action, AgentContext, blank_context, finish, halt
from .llm_common import (FunctionNames, Request, ask_values, build_client, conversation,
                         function_tool, reply_action, send, tool_functions)

ASK, FINISH, STOP = "ask_user", "finish_step", "stop_conversation"
CONTROLS = (ASK, FINISH, STOP)
MOVE_FUNCTIONS = {NEED_ASK: ASK, NEED_FINISH: FINISH, HALT: STOP}
TYPES = {"list": "array"}


class DpaAgent:
    name = "dpa"
    static = False
    checks = GUARDRAILS  # what the orchestrator must enforce before executing an action

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 guidance: str | None = None, **options):
        # client: LLMClient or RecordedLLM (replay), anything with complete(messages, tools)
        self.compiled = compiled
        self.client = build_client(client, settings, guidance=guidance, **options)
        chosen = guidance or getattr(getattr(self.client, "settings", None), "guidance", None)
        if chosen not in MODES:
            chosen = "auto"
        self.guidance = chosen
        self._degraded_noted = False

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The model call(s) this agent would make at this decision, in order (the GUI's
        prompt pane); `next_action` sends these very requests."""
        return [self.decision_request(ctx)]

    def decision_request(self, ctx: AgentContext) -> Request:
        messages, functions, choice = request(ctx, self.guidance, function_names(ctx.sop))
        return Request("DPA request (sent now)", messages, functions, choice)

    def next_action(self, ctx: AgentContext) -> Action:
        reply = send(self.client, self.decision_request(ctx))
        wanted = [v for v in ctx.node.ask if v not in ctx.variables]
        controls = {ASK: lambda a: ask_values(a, wanted),
                    FINISH: lambda a: finish(a.get("values") if "values" in a else None),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        action = reply_action(reply, function_names(ctx.sop), controls)
        action = drop_unknown_parameters(action, ctx)
        if reply.note and not self._degraded_noted:
            self._degraded_noted = True
            action.note = reply.note
        return action


def function_names(sop: SOP) -> FunctionNames:
    """The model's names of the SOP's tools, kept apart from the control functions."""
    return FunctionNames([t.name for t in sop.tools], list(CONTROLS))


def request(ctx: AgentContext, guidance: str,
            names: FunctionNames | None = None) -> tuple[list[dict], list[dict], Any]:
    """What the DPA sends at this turn: messages, the functions offered, the tool_choice (the
    GUI's prompt pane shows exactly this)."""
    names = names or function_names(ctx.sop)
    messages = [{"role": "system", "content": node_prompt(ctx)}, *conversation(ctx, names)]
    guided = guidance != "off" and ctx.needs is not None
    functions = tool_functions(ctx.tools, names) + control_functions(ctx, guided)
    functions, choice = guide(functions, ctx.needs, names, guidance)
    if guided:
        functions = [ground_choices(f, ctx.variables) for f in functions]
    return messages, functions, choice


def guide(functions: list[dict], needs: Needs | None, names: FunctionNames,
          mode: str) -> tuple[list[dict], Any]:
    """The functions to offer and the tool_choice to send, for the guidance mode."""
    if mode == "off" or needs is None:
        return functions, None
    if needs.legal == [SAY]:
        return [], None  # a message turn: no function, the model writes the text
    legal = [_function_name(move, names) for move in needs.legal if move != SAY]
    offered = [f for f in functions if f["function"]["name"] in legal]
    named = _function_name(needs.expected, names) if mode == "strict" else (
        legal[0] if len(legal) == 1 else None)
    if named is None or not any(f["function"]["name"] == named for f in offered):
        return offered or functions, None
    return offered, {"type": "function", "function": {"name": named}}


SCALARS: dict[str, type | tuple[type, ...]] = {"string": str, "number": (int, float),
                                                "integer": int}


def ground_choices(function: dict, known: Mapping[str, Any]) -> dict:
    """Guided, a scalar parameter of an SOP tool may only take a known value that fits its
    schema: the grounding guardrail's rule applied while the model writes the call (a server
    with grammar-constrained decoding then cannot run off into an invented value). The model
    still chooses among the known values; a parameter with no known candidate is left free."""
    name = function["function"]["name"]
    parameters = function["function"].get("parameters") or {}
    if name in CONTROLS or not parameters.get("properties"):
        return function
    properties = {}
    for param, schema in parameters["properties"].items():
        candidates = _candidates(schema, known, param) if isinstance(schema, dict) else []
        properties[param] = {**schema, "enum": candidates} if candidates else schema
    return {"type": "function", "function": {**function["function"],
                                             "parameters": {**parameters,
                                                            "properties": properties}}}


def _candidates(schema: dict, known: Mapping[str, Any], param: str) -> list:
    """Known values that fit the schema, the same-named one first (the SOP's binding)."""
    kind = SCALARS.get(str(schema.get("type")))
    if kind is None or "enum" in schema:
        return []
    found = []
    for _, value in sorted(known.items(), key=lambda item: item[0] != param):
        if isinstance(value, kind) and not isinstance(value, bool) and value not in found \
                and not schema_errors(value, schema, "value"):
            found.append(value)
    return found


def _function_name(move: str, names: FunctionNames) -> str:
    if move.startswith(CALL):
        return names.model_name(move[len(CALL):])
    return MOVE_FUNCTIONS.get(move, move)
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
    """The system prompt at the current node: the exported template, rendered."""
    return render(dpa_prompt(ctx.sop, ctx.node), ctx.variables)


def _describe(ctx: AgentContext, name: str) -> str:
    var = ctx.sop.variable(name)
    text = var.description if var is not None and var.description else name
    return f"{name} ({text})" if text != name else name


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


def control_functions(ctx: AgentContext, guided: bool = False) -> list[dict]:
    """ask_user, finish_step, stop_conversation for this node. Guided, they are narrowed to
    what the node still needs: ask_user names the values to collect, finish_step takes only
    values not known yet (none left: no argument to write)."""
    askable = list(dict.fromkeys([*ctx.node.ask, *(p for t in ctx.tools
                                                    for p in t.parameter_names())]))
    collect = list(ctx.needs.collect) if guided and ctx.needs is not None else []
    variables: dict = {"type": "array", "items": {"type": "string"},
                       "description": "names of the values asked for"}
    if collect or askable:
        variables["items"]["enum"] = collect or askable
    question: dict = {"type": "string"}
    if collect:
        question["description"] = "a question asking the user for " + "; ".join(
            _describe(ctx, name) for name in collect)
    settable = list(dict.fromkeys(ctx.node.ask))  # the orchestrator refuses any other name
    if guided:
        settable = [n for n in settable if n not in ctx.variables]
    return [
        function_tool(ASK, "Ask the user a question to obtain information.", {
            "type": "object", "required": ["question"],
            "properties": {"question": question, "variables": variables}}),
        function_tool(FINISH, "The work of this step is done; the system moves on.", {
            "type": "object", "properties": {"values": {
                "type": "object", "description": "values learned from the conversation",
                "properties": {n: value_schema(ctx, n) for n in settable}}} if settable else {}}),
        function_tool(STOP, "Stop the conversation (required information is unavailable).", {
            "type": "object", "required": ["reason", "message"],
            "properties": {"reason": {"type": "string", "enum": ["blocked", "user_request"]},
                           "message": {"type": "string"}}}),
    ]


# -- the dpa-prompts export --------------------------------------------------------------------
def node_entry(sop: SOP, index: SopIndex, node: Node) -> dict:
    """One node of a prompt bundle: its prompt template, the SOP tools and the control
    functions the DPA offers there unguided (as sent), and its transitions."""
    ctx = blank_context(sop, node)
    return {"id": node.id, "title": node.title, "kind": node.kind,
            "prompt": dpa_prompt(sop, node),
            "tools": tool_functions(ctx.tools, function_names(sop)),
            "controls": control_functions(ctx),
            "transitions": [{"edge": e.id, "target": e.target, "when": e.when, "on": e.on}
                            for e in index.out_edges(node.id)]}


def prompt_bundle(sop: SOP, agent: str = "dpa") -> dict:
    """`export --to dpa-prompts`: every node's prompt template and functions."""
    index = SopIndex(sop)
    return {"sop": sop.id, "title": sop.title, "agent": agent, "start": sop.start,
            "placeholders": dict(PLACEHOLDERS),
            "nodes": [node_entry(sop, index, node) for node in ordered_nodes(sop, index)]}
