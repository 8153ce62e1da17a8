"""MARCO reflection guardrails (MARCO §3.2.3, Algorithm 1) as orchestrator checks.

Each check is `check(action, ctx) -> (code, reflection) | None` and plugs into
`Orchestrator.checks`; a rejection is fed back to the model as a reflection message, retried at
most twice, then the run ends with the technical-issue grace message (the orchestrator counts).
Checks run before anything executes, so a rejected tool call is never made.

- malformed output: an empty message, an ask without question, finish values that are not an
  object (unparseable JSON never reaches here: the LLM agents raise AgentError for it);
- tool not in the current node (a second line of defence behind the orchestrator's own check);
- ungrounded argument: a non-boolean value that is neither said by the user, nor a known
  variable, nor a tool output, nor the node's own argument expression, nor an enum member of
  the parameter (closed choices are judged by the schema check instead);
- schema: the tool's JSON Schema (and, for values given on finish, the declared variable rules).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Action, AgentContext
from ..schema_check import object_errors, schema_errors

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
VARIABLE_TYPES = {"list": "array"}


def check_format(action: Action, ctx: AgentContext):
    if action.kind == "say" and not (action.text or "").strip():
        return "malformed-output", "Your reply was empty. Answer the user or call a function."
    if action.kind == "ask" and not action.variables and not (action.text or "").strip():
        return "malformed-output", "ask_user needs a question for the user."
    if action.kind == "finish" and action.values is not None and not isinstance(action.values,
                                                                                dict):
        return "malformed-output", "finish_step values must be a JSON object."
    return None


def check_tool_in_node(action: Action, ctx: AgentContext):
    if action.kind != "call":
        return None
    allowed = [t.name for t in ctx.tools]
    if action.tool not in allowed:
        return "tool-not-in-node", (f"Function {action.tool} is not available in this step. "
                                    f"Available tools: {', '.join(allowed) or 'none'}.")
    return None


def check_schema(action: Action, ctx: AgentContext):
    if action.kind == "call" and isinstance(action.arguments, dict):
        tool = next((t for t in ctx.tools if t.name == action.tool), None)
        errors = object_errors(action.arguments, tool.parameters) if tool else []
    elif action.kind == "finish" and isinstance(action.values, dict):
        errors = [e for name, value in action.values.items()
                  for e in schema_errors(value, variable_schema(ctx, name), f"'{name}'")]
    else:
        return None
    if errors:
        return "schema-violation", ("Following rules are not satisfied: " + "; ".join(errors)
                                    + ". Ask the user for a valid value instead of guessing.")
    return None


def check_grounded(action: Action, ctx: AgentContext):
    if action.kind == "call" and isinstance(action.arguments, dict):
        tool = next((t for t in ctx.tools if t.name == action.tool), None)
        properties = (tool.parameters.get("properties") or {}) if tool else {}
        expressions = ctx.node.tool_args.get(action.tool or "", {})
        pairs = [(name, value, properties.get(name), expressions.get(name))
                 for name, value in action.arguments.items()]
    elif action.kind == "finish" and isinstance(action.values, dict):
        pairs = [(name, value, variable_schema(ctx, name), None)
                 for name, value in action.values.items()]
    else:
        return None
    evidence = Evidence(ctx)
    for name, value, schema, expression in pairs:
        if not evidence.grounds(value, schema, expression):
            return "ungrounded-argument", (f"Value of {name} ({json.dumps(value)}) was not "
                                           f"provided by the user. Ask the user for it instead "
                                           f"of guessing.")
    return None


GUARDRAILS = [check_format, check_tool_in_node, check_grounded, check_schema]


def variable_schema(ctx: AgentContext, name: str) -> dict | None:
    var = ctx.sop.variable(name)
    if var is None:
        return None
    schema: dict[str, Any] = {"type": VARIABLE_TYPES.get(var.type, var.type)}
    if var.enum:
        schema["enum"] = list(var.enum)
    if var.pattern:
        schema["pattern"] = var.pattern
    return schema


class Evidence:
    """What a value may be grounded in: user messages, known values, tool outputs."""

    def __init__(self, ctx: AgentContext):
        self.ctx = ctx
        said = [t.get("text") or "" for t in ctx.transcript if t.get("role") == "user"]
        observed = [json.dumps(m.observation) for m in ctx.memory
                    if m.feedback == "success" and m.action.startswith("api_call")]
        self.text = " ".join(_squash(s) for s in said + observed)
        self.numbers = {float(n.replace(",", "")) for n in _NUMBER.findall(self.text)
                        if n.replace(",", "").lstrip("-").replace(".", "", 1).isdigit()}
        self.known = list(ctx.variables.values())

    def grounds(self, value: Any, schema: Any, expression: str | None) -> bool:
        if value is None or isinstance(value, bool):
            return True  # MARCO grounds non-boolean parameters only
        if isinstance(value, list):
            items = schema.get("items") if isinstance(schema, dict) else None
            return all(self.grounds(v, items, None) for v in value)
        if isinstance(value, dict):
            return all(self.grounds(v, None, None) for v in value.values())
        if any(_same(value, k) for k in self.known):
            return True
        if isinstance(schema, dict) and value in (schema.get("enum") or []):
            return True
        if expression is not None and _same(value, self.ctx.evaluate(expression)):
            return True
        if isinstance(value, (int, float)):
            return float(value) in self.numbers
        return bool(_squash(str(value))) and _squash(str(value)) in self.text


def _squash(text: str) -> str:
    return " ".join(str(text).lower().split())


def _same(value: Any, known: Any) -> bool:
    if isinstance(known, (list, tuple)):
        return any(_same(value, k) for k in known)
    if isinstance(known, bool) or isinstance(value, bool):
        return value is known
    if isinstance(value, (int, float)) and isinstance(known, (int, float)):
        return float(value) == float(known)
    return isinstance(value, str) and isinstance(known, str) and _squash(value) == _squash(known)
