"""SOP-Agent (Ye et al., "SOP-Agent: Empower General Purpose AI Agent with Domain-Specific SOPs"):
the SOP as a decision graph, the LLM choosing the branch through a function call.

Within a node it acts as the dynamic-prompt agent (agents/dpa.py: the node's prompt, its tools and
the control functions: the "filtered set of valid function callings" of SOP-Agent §3.2). When it
finishes a node that has several success edges, a second call sends `prompts.branch_prompt` (the
branches' conditions as a structural prompt) and offers one function, `choose_branch`, whose
`branch` parameter is an enum of the node's edge ids, named in `tool_choice`. The choice rides on
the finish action; the orchestrator follows it when it is an edge of the node and records what the
conditions say beside it (a `note` event coded branch-agree/branch-disagree, and the counts
`branch_choices` / `branch_agreements` in the trace's meta), so both are reported.

Deviations from the paper: SOP-Agent evaluates the conditions of all sub-nodes in one call and
may take several branches (DFS over the selected ones); here one branch is chosen (the SOP's
`branching: first` semantics) and `branching: all` nodes still have one branch per choice. Node
actions are not parameterised by separate LLM calls; the DPA's function calls write them. The
orchestrator remains the door: only the current node's tools execute.
"""

from __future__ import annotations

from typing import Any

from ..prompts import BRANCH_FUNCTION, branch_prompt, render
from .base import Action, AgentContext, AgentError
from .dpa import DpaAgent
from .llm_common import ask_model, function_tool


class SopAgent(DpaAgent):
    name = "sop-agent"

    def next_action(self, ctx: AgentContext) -> Action:
        action = super().next_action(ctx)
        if action.kind == "finish" and ctx.node.kind != "end":
            edges = [e.id for e in ctx.sop.out_edges(ctx.node.id) if e.on == "success"]
            if len(edges) > 1:
                action.branch = self.choose_branch(ctx, edges)
        return action

    def choose_branch(self, ctx: AgentContext, edges: list[str]) -> str:
        """The model's branch: one call, the only function `choose_branch(branch: enum)`."""
        function = branch_function(edges)
        messages = [{"role": "system", "content": render(branch_prompt(ctx.sop, ctx.node),
                                                         ctx.variables)},
                    {"role": "user", "content": "Which branch comes next?"}]
        choice = {"type": "function", "function": {"name": BRANCH_FUNCTION}}
        reply = ask_model(self.client, messages, [function], choice)
        call = next((c for c in reply.tool_calls if c.name == BRANCH_FUNCTION), None)
        arguments: Any = call.parsed()[0] if call is not None else None
        branch = arguments.get("branch") if isinstance(arguments, dict) else None
        if not isinstance(branch, str):
            raise AgentError(f"Call {BRANCH_FUNCTION} with one of: {', '.join(edges)}.",
                             "malformed-output", reply.to_dict())
        return branch


def branch_function(edges: list[str]) -> dict:
    return function_tool(BRANCH_FUNCTION, "The branch to take next.", {
        "type": "object", "required": ["branch"],
        "properties": {"branch": {"type": "string", "enum": list(edges)}}})
