"""What the LLM agents share: their requests, function names, chat messages, reading replies.

- `Request`: one model call an agent makes at a decision (label, messages, functions,
  tool_choice). Every LLM agent's `requests(ctx)` lists the calls it would make now and its
  `next_action` sends those same objects (`send`), so the GUI's prompt pane shows what is sent.

- `FunctionNames`: SOP tool names made safe for the function-calling API (`^[A-Za-z0-9_-]{1,64}$`)
  and kept apart from our control functions; maps both ways. Every SOP tool is mapped, so a
  model naming a tool of another node is turned into an action on that tool, which the
  orchestrator then refuses (and never executes).
- `conversation(ctx, names)`: the chat so far as OpenAI messages: the transcript before this node
  visit as text, then this visit's messages, tool calls and tool results in order, then pending
  guardrail reflections (MARCO's [GUARDRAILS] role, sent as user messages since chat APIs have
  no such role).
- `reply_action(reply, names, controls)`: one model reply -> one `Action` (a text reply is a
  `say` that hands the turn to the user). Only the first tool
  call is taken (one action per decision; the model sees its result and is asked again).
  Unusable output raises AgentError (a rejection, MARCO's "output format" reflection).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..llm_client import LLMError, ModelReply
from .base import Action, AgentContext, AgentError, call, say

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
GUARDRAIL_PREFIX = "[GUARDRAILS] "
START_MESSAGE = "[The customer has just connected.]"

Control = Callable[[dict], Action]


@dataclass(frozen=True)
class Request:
    """One model call: what is sent (messages, functions, tool_choice) and, for a reader of the
    preview, when it is sent (`label`)."""
    label: str
    messages: list[dict]
    functions: list[dict] = field(default_factory=list)
    tool_choice: Any = None


def send(client: Any, request: Request) -> ModelReply:
    """Send one request (see `ask_model` for how failures surface)."""
    return ask_model(client, request.messages, request.functions, request.tool_choice)


class FunctionNames:
    def __init__(self, tool_names: list[str], reserved: list[str]):
        self.to_model: dict[str, str] = {}
        self.to_tool: dict[str, str] = {}
        taken = set(reserved)
        for name in tool_names:
            base = _UNSAFE.sub("_", name)[:60] or "tool"
            safe, n = base, 2
            while safe in taken:
                safe, n = f"{base}_{n}", n + 1
            taken.add(safe)
            self.to_model[name], self.to_tool[safe] = safe, name

    def model_name(self, tool: str) -> str:
        return self.to_model.get(tool, _UNSAFE.sub("_", tool)[:64])

    def tool_name(self, function: str) -> str:
        return self.to_tool.get(function, function)


def function_tool(name: str, description: str, parameters: dict) -> dict:
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


def tool_functions(tools: list, names: FunctionNames) -> list[dict]:
    return [function_tool(names.model_name(t.name), t.description or t.name,
                          t.parameters or {"type": "object", "properties": {}}) for t in tools]


def _visit_turns(ctx: AgentContext) -> int:
    return sum(1 for e in ctx.visit if e.type in ("say", "ask", "user"))


def conversation(ctx: AgentContext, names: FunctionNames) -> list[dict]:
    shown = _visit_turns(ctx)
    earlier = ctx.transcript[:len(ctx.transcript) - shown] if shown else list(ctx.transcript)
    messages = [{"role": "assistant" if t["role"] == "agent" else "user",
                 "content": t.get("text") or ""} for t in earlier]
    call_id = None
    for event in ctx.visit:
        chat = chat_message(event)
        if chat is not None:
            messages.append(chat)
        elif event.type == "tool_call":
            call_id = f"call_{event.index}"
            # "" not None: some servers (llama-cpp-python) require a string
            messages.append({"role": "assistant", "content": "", "tool_calls": [{
                "id": call_id, "type": "function",
                "function": {"name": names.model_name(event.tool or ""),
                             "arguments": json.dumps(event.arguments or {})}}]})
        elif event.type == "tool_result" and call_id is not None:
            messages.append({"role": "tool", "tool_call_id": call_id,
                             "content": json.dumps(event.result or {})})
            call_id = None
    return framed(messages, ctx)


def chat_message(event) -> dict | None:
    """A message of the conversation (the agent's say/ask, the user's turn), else None."""
    if event.type in ("say", "ask"):
        return {"role": "assistant", "content": event.text or ""}
    if event.type == "user":
        return {"role": "user", "content": event.text or ""}
    return None


def framed(messages: list[dict], ctx: AgentContext) -> list[dict]:
    """The messages opened by the customer (a connection note when nobody spoke yet: chat
    templates want a user turn) and closed by pending guardrail reflections."""
    if not any(m["role"] == "user" for m in messages):
        messages.insert(0, {"role": "user", "content": START_MESSAGE})
    return messages + [{"role": "user", "content": GUARDRAIL_PREFIX + r}
                       for r in ctx.reflections]


def ask_values(args: dict, default: list[str]) -> Action:
    variables = args.get("variables")
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        variables = default
    question = args.get("question")
    return Action("ask", variables=list(variables),
                  text=question if isinstance(question, str) else None)


def reply_action(reply: ModelReply, names: FunctionNames, controls: dict[str, Control]) -> Action:
    raw = reply.to_dict()
    if reply.tool_calls:
        first = reply.tool_calls[0]
        arguments, problem = first.parsed()
        if arguments is None:
            raise AgentError(f"Output of {first.name} is not as per required formatting "
                             f"guidelines: {problem}. Call the function again with a JSON "
                             f"object of arguments.", "malformed-output", raw)
        if first.name in controls:
            action = controls[first.name](arguments)
        else:
            action = call(names.tool_name(first.name), arguments)
    elif reply.text and reply.text.strip():
        action = say(reply.text.strip())
        action.handover = True  # a chat reply: the user answers before the agent acts again
    else:
        raise AgentError("Your reply was empty. Answer the user or call a function.",
                         "malformed-output", raw)
    action.raw = raw
    return action


def ask_model(client: Any, messages: list[dict], functions: list[dict],
              tool_choice: Any = None) -> ModelReply:
    """One model call; transport failures become AgentError (a rejection, then a retry), except
    an unreachable endpoint (code "connection"), which ends the run: retrying cannot help.
    The error's text is what the server said (llm_client keeps the body's message)."""
    try:
        if tool_choice is None:
            return client.complete(messages, functions)
        return client.complete(messages, functions, tool_choice=tool_choice)
    except LLMError as error:
        if error.code == "connection":
            raise
        raise AgentError(f"The model call failed ({error.code}): {error}", error.code) from None


def build_client(client: Any = None, settings: Any = None, **options) -> Any:
    """The model client of an LLM agent: given, or built from settings / CLI-style options
    (model, base_url, temperature, timeout, retries, api_key, api_key_env)."""
    if client is not None:
        return client
    from ..compiled import EngineError
    from ..llm_client import LLMClient, LLMSettings
    if settings is None:
        fields = LLMSettings.__dataclass_fields__
        known = {k: v for k, v in options.items() if v is not None and k in fields}
        known.setdefault("base_url", os.environ.get("SOPSTUDIO_BASE_URL")
                         or os.environ.get("OPENAI_BASE_URL"))
        known.setdefault("model", os.environ.get("SOPSTUDIO_MODEL"))
        if not known.get("base_url") or not known.get("model"):
            raise EngineError("an LLM agent needs --base-url and --model "
                              "(or SOPSTUDIO_BASE_URL and SOPSTUDIO_MODEL)")
        settings = LLMSettings(**known)
    return LLMClient(settings)
