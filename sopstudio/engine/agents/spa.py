"""The Static-Prompt Agent (JourneyBench §4, Appendix E): the whole SOP in one system prompt.

The prompt is `engine.prompts.spa_prompt` (the one `export --to spa-prompt` writes: every node a
section with description, steps and tools, separated by lines, each gated by the conditions
leading to it, then the control functions) rendered with the known values; every SOP tool is
offered at every turn. The agent is `static`: the orchestrator does not confine it to a node nor evaluate
edges, and nothing is enforced — its violations (tools outside the node the oracle would be in,
ungrounded or schema-breaking arguments) are measured afterwards by `engine.audit`.

Control functions: ``ask_user``, ``finish_conversation(end_section)`` (where it believes the
procedure ended) and ``stop_conversation``; a plain-text reply is a message to the user.
`requests(ctx)` is the one request of a decision, the one `next_action` sends.
"""

from __future__ import annotations

from typing import Any

from ...core.model import SOP
from ..prompts import render, spa_prompt
from .base import Action, AgentContext, halt
from .llm_common import (FunctionNames, Request, ask_values, build_client, conversation,
                         function_tool, reply_action, send, tool_functions)

ASK, FINISH, STOP = "ask_user", "finish_conversation", "stop_conversation"


class SpaAgent:
    name = "spa"
    static = True
    checks: list = []  # the baseline: nothing is enforced, violations are audited afterwards

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 **options):
        self.compiled = compiled
        self.client = build_client(client, settings, **options)
        self._prompts: dict[str, str] = {}  # per SOP id: the prompt is static, build it once

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The one model call of this decision (the GUI's prompt pane); `next_action` sends
        it."""
        prompt = self._prompts.get(ctx.sop.id) or self._prompts.setdefault(
            ctx.sop.id, static_prompt(ctx.sop))
        messages, functions = request(ctx, function_names(ctx.sop), prompt)
        return [Request("SPA request (sent now)", messages, functions)]

    def next_action(self, ctx: AgentContext) -> Action:
        reply = send(self.client, self.requests(ctx)[0])
        controls = {ASK: lambda a: ask_values(a, []),
                    FINISH: lambda a: Action("finish", end_node=str(a.get("end_section") or "")),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        return reply_action(reply, function_names(ctx.sop), controls)


def function_names(sop: SOP) -> FunctionNames:
    return FunctionNames([t.name for t in sop.tools], [ASK, FINISH, STOP])


def request(ctx: AgentContext, names: FunctionNames | None = None,
            prompt: str | None = None) -> tuple[list[dict], list[dict]]:
    """What the SPA sends at this turn: its one prompt rendered with the known values, the
    conversation, every SOP tool and its control functions (the GUI's prompt pane shows it)."""
    names = names or function_names(ctx.sop)
    system = render(prompt or static_prompt(ctx.sop), ctx.variables)
    messages = [{"role": "system", "content": system}, *conversation(ctx, names)]
    return messages, tool_functions(list(ctx.tools), names) + control_functions(ctx.sop)


def static_prompt(sop: SOP) -> str:
    """The SPA prompt template (`export --to spa-prompt`), placeholders unfilled."""
    return spa_prompt(sop)


def control_functions(sop: SOP) -> list[dict]:
    ends = [n.id for n in sop.nodes if n.kind == "end"]
    section_schema: dict = {"type": "string", "description": "id of the final section reached"}
    if ends:
        section_schema["enum"] = ends
    return [
        function_tool(ASK, "Ask the user a question to obtain information.", {
            "type": "object", "required": ["question"],
            "properties": {"question": {"type": "string"},
                           "variables": {"type": "array", "items": {"type": "string"}}}}),
        function_tool(FINISH, "The procedure reached a final section.", {
            "type": "object", "required": ["end_section"], "properties": {
                "end_section": section_schema}}),
        function_tool(STOP, "Stop the conversation (required information is unavailable).", {
            "type": "object", "required": ["reason", "message"],
            "properties": {"reason": {"type": "string", "enum": ["blocked", "user_request"]},
                           "message": {"type": "string"}}}),
    ]
