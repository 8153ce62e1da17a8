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

`requests(ctx)` shows the DPA request and, at a node with several success edges, the branch
request as it is sent if the model finishes the step now; `prompt_bundle(sop)` (`export --to
sop-agent-prompts`) is the DPA bundle plus, at those nodes, the branch prompt, the question sent
with it and `choose_branch`.

Deviations from the paper: SOP-Agent evaluates the conditions of all sub-nodes in one call and
may take several branches (DFS over the selected ones); here one branch is chosen (the SOP's
`branching: first` semantics) and `branching: all` nodes still have one branch per choice. Node
actions are not parameterised by separate LLM calls; the DPA's function calls write them. The
orchestrator remains the door: only the current node's tools execute.
"""

from __future__ import annotations

from typing import Any

from ...core.index import SopIndex
from ...core.model import SOP, Node
from ..prompts import BRANCH_FUNCTION, branch_prompt, render
from .base import Action, AgentContext, AgentError
from .dpa import DpaAgent, prompt_bundle as dpa_bundle
from .llm_common import Request, function_tool, send

BRANCH_QUESTION = "Which branch comes next?"


class SopAgent(DpaAgent):
    name = "sop-agent"

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The DPA request, then (at a node with several success edges) the branch request
        that is sent if the model finishes the step now."""
        edges = branch_edges(ctx.sop, ctx.node)
        extra = [branch_request(ctx, edges, "choose_branch request (sent when the step "
                                "finishes)")] if edges else []
        return [self.decision_request(ctx), *extra]

    def next_action(self, ctx: AgentContext) -> Action:
        action = super().next_action(ctx)
        if action.kind == "finish":
            edges = branch_edges(ctx.sop, ctx.node)
            if edges:
                action.branch = self.choose_branch(ctx, edges)
        return action

    def choose_branch(self, ctx: AgentContext, edges: list[str]) -> str:
        """The model's branch: one call, the only function `choose_branch(branch: enum)`."""
        reply = send(self.client, branch_request(ctx, edges, "choose_branch request"))
        call = next((c for c in reply.tool_calls if c.name == BRANCH_FUNCTION), None)
        arguments: Any = call.parsed()[0] if call is not None else None
        branch = arguments.get("branch") if isinstance(arguments, dict) else None
        if not isinstance(branch, str):
            raise AgentError(f"Call {BRANCH_FUNCTION} with one of: {', '.join(edges)}.",
                             "malformed-output", reply.to_dict())
        return branch


def branch_edges(sop: SOP, node: Node) -> list[str]:
    """The success edges the model chooses among when `node` finishes (none: no branch call;
    a final node or a single success edge needs no choice)."""
    if node.kind == "end":
        return []
    edges = [e.id for e in sop.out_edges(node.id) if e.on == "success"]
    return edges if len(edges) > 1 else []


def branch_request(ctx: AgentContext, edges: list[str], label: str) -> Request:
    """SOP-Agent's branch call: the branch prompt rendered, one function, named."""
    messages = [{"role": "system", "content": render(branch_prompt(ctx.sop, ctx.node),
                                                     ctx.variables)},
                {"role": "user", "content": BRANCH_QUESTION}]
    return Request(label, messages, [branch_function(edges)],
                   {"type": "function", "function": {"name": BRANCH_FUNCTION}})


def branch_function(edges: list[str]) -> dict:
    return function_tool(BRANCH_FUNCTION, "The branch to take next.", {
        "type": "object", "required": ["branch"],
        "properties": {"branch": {"type": "string", "enum": list(edges)}}})


def prompt_bundle(sop: SOP) -> dict:
    """`export --to sop-agent-prompts`: the DPA bundle, and at each branching node the branch
    prompt, the question sent with it and the `choose_branch` function."""
    bundle = dpa_bundle(sop, "sop-agent")
    index = SopIndex(sop)
    for entry in bundle["nodes"]:
        node = index.nodes[entry["id"]]
        edges = branch_edges(sop, node)
        if edges:
            entry["branch"] = {"prompt": branch_prompt(sop, node), "user": BRANCH_QUESTION,
                               "function": branch_function(edges)}
    return bundle
