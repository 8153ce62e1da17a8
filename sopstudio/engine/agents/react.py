"""SOP-Bench's ReAct baseline (Nandi et al., "SOP-Bench"; Yao et al., ReAct): the whole SOP in
the prompt and a Thought / Action / Action Input / Observation text protocol.

No function calling: the model writes text. `parse_react` reads the last `Action:` line and its
`Action Input:` JSON object: a tool name becomes a tool call, `ask_user` an ask, `finish` the end
of the procedure (`end_section`), `stop` a halt; a reply with no Action (or a `Final Answer:`) is
a message to the customer that hands the turn over. Results come back as `Observation: <json>`
user messages; guardrail reflections as `[GUARDRAILS]` messages. `requests(ctx)` is the one
request of a decision (no functions), the one `next_action` sends; `export --to react-prompt`
writes its template.

Like SPA the agent is static (the prompt is the whole SOP, every tool is named): the
orchestrator tracks where the run is in the SOP and its door refuses, without executing, any
tool outside the current node (`Orchestrator._door_admits`); violations are counted by metrics.

Deviations: SOP-Bench's ReAct runs a task to completion without a user; here it talks with the
simulated user (ask_user, Final Answer), as every agent in the comparison does. The tool list is
the SOP's copy of the tools, not a separate tool-specification file.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..prompts import react_prompt, render
from .base import Action, AgentContext, AgentError, call, halt, say
from .llm_common import Request, chat_message, framed, send

_ACTION = re.compile(r"^\s*Action\s*:\s*(.+?)\s*$", re.MULTILINE)
_INPUT = re.compile(r"Action\s+Input\s*:\s*", re.IGNORECASE)
_FINAL = re.compile(r"Final\s+Answer\s*:\s*", re.IGNORECASE)


class ReactAgent:
    name = "react"
    static = True
    checks: list = []  # the baseline: the door still refuses foreign tools, nothing else

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 **options):
        from .llm_common import build_client
        self.compiled = compiled
        self.client = build_client(client, settings, **options)
        self._prompts: dict[str, str] = {}

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The one model call of this decision (the GUI's prompt pane); `next_action` sends
        it."""
        prompt = self._prompts.get(ctx.sop.id) or self._prompts.setdefault(
            ctx.sop.id, react_prompt(ctx.sop))
        messages = [{"role": "system", "content": render(prompt, ctx.variables)},
                    *scratchpad(ctx)]
        return [Request("ReAct request (sent now; text protocol, no functions)", messages)]

    def next_action(self, ctx: AgentContext) -> Action:
        reply = send(self.client, self.requests(ctx)[0])
        action = parse_react(reply.text or "")
        action.raw = reply.to_dict()
        return action


def scratchpad(ctx: AgentContext) -> list[dict]:
    """The run so far as ReAct text: messages, Action lines and Observations."""
    messages: list[dict] = []
    for event in ctx.visit:
        chat = chat_message(event)
        if chat is not None:
            messages.append(chat)
        elif event.type == "tool_call":
            messages.append({"role": "assistant", "content": f"Action: {event.tool}\nAction "
                             f"Input: {json.dumps(event.arguments or {})}"})
        elif event.type == "tool_result":
            messages.append({"role": "user",
                             "content": "Observation: " + json.dumps(event.result or {})})
    return framed(messages, ctx)


def parse_react(text: str) -> Action:
    """One ReAct reply -> one Action (the last Action line wins; its input must be JSON)."""
    actions = _ACTION.findall(text)
    if not actions:
        final = _FINAL.split(text, maxsplit=1)
        message = (final[1] if len(final) > 1 else text).strip()
        if not message:
            raise AgentError("Your reply was empty. Write a Thought and an Action, or a Final "
                             "Answer.", "malformed-output")
        action = say(message)
        action.handover = True
        return action
    name = actions[-1].strip().strip("`'\"[]")
    arguments = _input(text)
    if name == "ask_user":
        variables = arguments.get("variables")
        return Action("ask", variables=[v for v in variables if isinstance(v, str)]
                      if isinstance(variables, list) else [],
                      text=str(arguments.get("question") or "") or None)
    if name == "finish":
        return Action("finish", end_node=str(arguments.get("end_section") or ""))
    if name == "stop":
        message = arguments.get("message")
        return halt("blocked" if arguments.get("reason") == "blocked" else "stopped",
                    message if isinstance(message, str) else None)
    return call(name, arguments)


def _input(text: str) -> dict:
    parts = _INPUT.split(text)
    if len(parts) < 2:
        return {}
    raw = parts[-1].strip()
    try:  # the first JSON value after "Action Input:", whatever follows it
        value, _ = json.JSONDecoder().raw_decode(raw)
    except json.JSONDecodeError as error:
        raise AgentError(f"Action Input is not valid JSON ({error.msg}); write a JSON object.",
                         "malformed-output") from None
    if not isinstance(value, dict):
        raise AgentError("Action Input must be a JSON object.", "malformed-output")
    return value
