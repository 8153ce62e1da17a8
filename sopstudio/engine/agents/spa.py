"""The Static-Prompt Agent (JourneyBench §4, Appendix E): the whole SOP in one system prompt.

Every node becomes a section (description, steps, tools), sections are separated by long lines
and the edges are written as if-then statements; every SOP tool is offered at every turn. The
agent is `static`: the orchestrator does not confine it to a node nor evaluate edges, and
nothing is enforced — its violations (tools outside the node the oracle would be in,
ungrounded or schema-breaking arguments) are measured afterwards by `engine.audit`.

Control functions: ``ask_user``, ``finish_conversation(end_section)`` (where it believes the
procedure ended) and ``stop_conversation``; a plain-text reply is a message to the user.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ...core.model import SOP, Node
from .base import Action, AgentContext, halt
from .llm_common import (FunctionNames, ask_model, ask_values, build_client, conversation,
                         function_tool, known_values, reply_action, tool_functions)

ASK, FINISH, STOP = "ask_user", "finish_conversation", "stop_conversation"
SEPARATOR = "-" * 40

FORMAT_GUIDE = """Format Guide:
- Each section represents a node with its tools and description. Use only the tools listed in the section you are in.
- Conditions from the previous node must be satisfied before proceeding to the next section
- Sections are separated by long lines (-----)
- Do not make additional tool calls if not explicitly requested by user.
- Keep track of the section you are in and the tools available to you. Do not mix tools or descriptions from different sections.
- After every tool use, communicate the result to the user and proceed if user requests it.
- When you reach a final section, call finish_conversation with its section id. If required information cannot be obtained, call stop_conversation with reason "blocked"."""

SECTION_INTRO = ("Following contains a description of the node and the logical steps to be taken "
                 "within it. Proceed only if requested by the user. Do not consider it as an "
                 "instruction to carry out unless user request requires it.")


class SpaAgent:
    name = "spa"
    static = True
    checks: list = []  # the baseline: nothing is enforced, violations are audited afterwards

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 **options):
        self.compiled = compiled
        self.client = build_client(client, settings, **options)
        self._prompts: dict[str, str] = {}  # per SOP id: the prompt is static, build it once

    def next_action(self, ctx: AgentContext) -> Action:
        names = FunctionNames([t.name for t in ctx.sop.tools], [ASK, FINISH, STOP])
        prompt = self._prompts.get(ctx.sop.id) or self._prompts.setdefault(
            ctx.sop.id, static_prompt(ctx.sop))
        system = prompt + "\n\nKnown information:\n" + known_values(ctx)
        messages = [{"role": "system", "content": system}, *conversation(ctx, names)]
        functions = tool_functions(list(ctx.tools), names) + control_functions(ctx.sop)
        reply = ask_model(self.client, messages, functions)
        controls = {ASK: lambda a: ask_values(a, []),
                    FINISH: lambda a: Action("finish", end_node=str(a.get("end_section") or "")),
                    STOP: lambda a: halt("blocked" if a.get("reason") == "blocked" else "stopped",
                                         a.get("message") if isinstance(a.get("message"), str)
                                         else None)}
        return reply_action(reply, names, controls)


def bfs_nodes(sop: SOP) -> list[Node]:
    """Nodes in BFS order from the start, then any unreachable ones (kept for completeness)."""
    order, seen, queue = [], {sop.start}, deque([sop.start])
    targets: dict[str, list[str]] = {}
    for edge in sop.edges:
        targets.setdefault(edge.source, []).append(edge.target)
    while queue:
        node_id = queue.popleft()
        order.append(node_id)
        for target in targets.get(node_id, []):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    order += [n.id for n in sop.nodes if n.id not in seen]
    return [n for n in (sop.node(i) for i in order) if n is not None]


def static_prompt(sop: SOP) -> str:
    parts = [f"You are a customer-support agent for \"{sop.title or sop.id}\".", FORMAT_GUIDE]
    for node in bfs_nodes(sop):
        parts.append(section(sop, node))
    return "\n\n".join(parts)


def section(sop: SOP, node: Node) -> str:
    title = f"Section {node.id}: {node.title or node.id}"
    if node.kind == "end":
        title += f" (final section, outcome: {node.outcome or 'resolved'})"
    lines = [title, SECTION_INTRO, f"Description: {node.instructions or node.title or node.id}"]
    if node.steps:
        lines.append("Steps:\n" + "\n".join(f"- {s}" for s in node.steps))
    if node.say:
        lines.append(f"Tell the user: {node.say}")
    if node.ask:
        lines.append("Collect from the user: " + ", ".join(node.ask))
    if node.tools:
        lines.append("Tools:\n" + "\n".join(_tool_line(node, t) for t in node.tools))
    lines += [SEPARATOR, *pathways(sop, node)]
    return "\n".join(lines)


def _tool_line(node: Node, tool: str) -> str:
    guard = node.tool_when.get(tool)
    return f"- {tool}" + (f" (requires the following condition: {guard})" if guard else "")


def pathways(sop: SOP, node: Node) -> list[str]:
    lines = []
    for edge in sop.out_edges(node.id):
        target = sop.node(edge.target)
        label = f"section {edge.target}" + (f" ({target.title})" if target and target.title
                                            else "")
        when = (edge.when or "").strip()
        if edge.on == "failure":
            lines.append(f"If a tool fails{'' if not when or when == 'else' else ' and ' + when}:"
                         f" Then: {label} logic is accessible")
        elif when == "else":
            lines.append(f"Otherwise: Then: {label} logic is accessible")
        elif when:
            lines.append(f"If {when}: Then: {label} logic is accessible")
        else:
            lines.append(f"Then: {label} logic is accessible")
    return lines


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
