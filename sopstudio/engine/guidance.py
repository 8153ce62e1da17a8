"""Guided function choice (DESIGN §6): what the current node still needs, worked out by the
orchestrator at each model turn so an LLM agent can be offered only the moves legal now.

The order mirrors the scripted oracle (agents/scripted.py): answer a pending knowledge question
or deliver the node's `say`, then collect the values the node asks for, then call the node's tools
(in SOP order, skipping those whose `tool_when` is false) once their inputs are known, then finish.
A value the user said they do not have makes `halt` the only legal move (JourneyBench Appendix G).

Moves are plain words: "say" (a text message), "ask", "finish", "halt", or "call:<tool>".
`Needs.expected` is the one move the oracle would make; `legal` lists every move allowed now.
Nothing here writes an argument or a message: the model still does (guardrails judge them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .compiled import CompiledSop, guard_holds, tool_arguments

SAY, ASK, FINISH, HALT = "say", "ask", "finish", "halt"
CALL = "call:"
MODES = ("auto", "strict", "off")


@dataclass
class Needs:
    legal: list[str]
    expected: str
    collect: list[str] = field(default_factory=list)  # values still to get from the user

    def tools(self) -> list[str]:
        """The tools among the legal moves."""
        return [move[len(CALL):] for move in self.legal if move.startswith(CALL)]


def node_needs(compiled: CompiledSop, ctx: Any) -> Needs:
    """What the node in `ctx` (an AgentContext) still needs, given this visit's events."""
    seen = _visit_facts(ctx.visit)
    if seen["question"] or (ctx.node.say and not seen["said"]):
        return Needs([SAY], SAY)
    wanted = [v for v in ctx.node.ask if v not in ctx.variables]
    if wanted:
        return _collect(wanted, seen["missing"])
    cnode = compiled.cnode(ctx.node.id)
    ready: list[str] = []
    for tool in ctx.tools:
        if tool.name in seen["done"] or not guard_holds(cnode, tool.name, ctx.variables):
            continue
        _, missing = tool_arguments(compiled, cnode, tool, ctx.variables)
        if missing and not ready:
            return _collect(missing, seen["missing"])
        if not missing:
            ready.append(CALL + tool.name)
    if ready:
        # after a failed call the model may retry or give up (the orchestrator bounds retries)
        return Needs(ready + ([HALT] if seen["failed"] else []), ready[0])
    return Needs([FINISH], FINISH)


def _collect(names: list[str], missing: set[str]) -> Needs:
    if any(name in missing for name in names):
        return Needs([HALT], HALT, list(names))
    return Needs([ASK], ASK, list(names))


def _visit_facts(visit: list) -> dict:
    """Said a message? A user question not yet answered? Values the user does not have?
    Tools that succeeded / failed in this visit?"""
    facts: dict = {"said": False, "question": None, "missing": set(), "done": set(),
                   "failed": False}
    for event in visit:
        if event.type == "say":
            facts["said"] = True
            facts["question"] = None
        elif event.type == "user":
            facts["missing"].update(event.missing or ())
            facts["question"] = event.question
        elif event.type == "tool_result":
            if "error" in (event.result or {}):
                facts["failed"] = True
            else:
                facts["done"].add(event.tool)
    return facts
