"""The scripted agent: the offline oracle that performs a node's actions exactly as the SOP says.

Stateless: every decision is derived from the context (what happened in this node visit), so a run
can be stepped, paused, replayed and resumed at any point. Order in a node: say, ask (all missing
answers at once; a knowledge question is answered, then the ask is repeated), tools in order
(skipping a tool whose `tool_when` is false; a failed tool is called again — the orchestrator
bounds the attempts), then finish. A value the user does not have, or a required tool parameter
that nothing supplies, makes it halt with reason "blocked" instead of calling the tool.
"""

from __future__ import annotations

from ..compiled import CompiledSop, guard_holds, tool_arguments
from .base import Action, AgentContext, ask, call, finish, halt, say

BLOCKED_TEXT = "I'm sorry, I can't continue without your {name}. Please come back when you have it."


class ScriptedAgent:
    name = "scripted"
    static = False

    def __init__(self, compiled: CompiledSop):
        self.compiled = compiled

    def next_action(self, ctx: AgentContext) -> Action:
        node = ctx.node
        said = False
        answered: set[str] = set()
        done_tools: set[str] = set()
        pending_question = None
        for event in ctx.visit:
            kind = event.type
            if kind == "say" and not event.knowledge:
                said = True
            elif kind == "user":
                if event.missing:
                    return halt("blocked", BLOCKED_TEXT.format(name=event.missing[0]))
                answered.update(event.values or ())
                pending_question = event.question
            elif kind == "say" and event.knowledge:
                pending_question = None
            elif kind == "tool_result" and "error" not in (event.result or {}):
                done_tools.add(event.tool)
        if node.say and not said:
            return say(node.say)
        if pending_question:
            answer = ctx.knowledge(pending_question)
            return say(answer, knowledge=pending_question)
        wanted = [v for v in node.ask if v not in answered]
        if wanted:  # a partial answer is asked again; the turn limit bounds a silent user
            return ask(wanted, "Could you give me your " + ", ".join(wanted) + "?")
        return self._tools_or_finish(ctx, done_tools)

    def _tools_or_finish(self, ctx: AgentContext, done: set[str]) -> Action:
        cnode = self.compiled.cnode(ctx.node.id)
        for tool in ctx.tools:
            if tool.name in done or not guard_holds(cnode, tool.name, ctx.variables):
                continue
            arguments, missing = tool_arguments(self.compiled, cnode, tool, ctx.variables)
            if missing:
                return halt("blocked", BLOCKED_TEXT.format(name=missing[0]))
            return call(tool.name, arguments)
        return finish()
