"""MARCO (Shrimal et al., "MARCO: Multi-Agent Real-time Chat Orchestration"): an intent
classifier routes the conversation to a sub-procedure agent; deterministic guardrails and
reflection keep each agent's outputs in bounds.

The SOP's sub-procedures (`entry_points`): its sub-SOPs (nodes inlined from a subflow node share
the prefix `<subflow node>/`, core/subflows.py), else the branches of the first node that
branches. On the first decision after the customer's first message one call, `classify_intent`
(an enum of the entry ids plus `out_of_domain`, named in `tool_choice`), picks one; out of domain
ends the conversation politely (halt). Each sub-procedure then runs as a dynamic-prompt agent
(agents/dpa.py: one node's prompt and tools at a time) with MARCO's guardrails (agents/
guardrails.py: the orchestrator checks every action and sends the reflection back). When a node
with several branches finishes and exactly one branch leads into the chosen sub-procedure, the
finish carries it as the agent's branch: the orchestrator follows it and reports what the
conditions say (as for sop-agent).

`requests(ctx)` shows the `classify_intent` request while it is due (not yet classified, the
customer has spoken), then the DPA request; `prompt_bundle(sop)` (`export --to marco-prompts`)
holds the intent prompt, `classify_intent` and the entry points, then the DPA bundle's nodes.

Deviations: MARCO's RAG for informational intents is the SOP's knowledge answers (the
orchestrator's knowledge lookup); its multi-agent hierarchy is one DPA per sub-procedure node
rather than separately prompted agents; the intent is classified once, not at every turn.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from ...core.model import SOP
from ..prompts import INTENT_FUNCTION, OUT_OF_DOMAIN, marco_intent_prompt
from .base import Action, AgentContext, halt
from .dpa import DpaAgent, prompt_bundle as dpa_bundle
from .llm_common import Request, function_tool, send

SEPARATOR = "/"
INTENT_LABEL = "classify_intent request (sent first: the intent is not classified yet)"


class MarcoAgent(DpaAgent):
    name = "marco"

    def __init__(self, compiled: Any = None, client: Any = None, settings: Any = None,
                 **options):
        super().__init__(compiled, client, settings, **options)
        self.intent: str | None = None

    def requests(self, ctx: AgentContext) -> list[Request]:
        """The intent request while the intent is not classified and the customer has spoken,
        then the DPA request (not sent when the intent is out of domain)."""
        entries = entry_points(ctx.sop)
        if not self._classifies(ctx, entries):
            return [self.decision_request(ctx)]
        then = replace(self.decision_request(ctx),
                       label="DPA request (sent next, unless the intent is out of domain)")
        return [intent_request(ctx, entries, INTENT_LABEL), then]

    def next_action(self, ctx: AgentContext) -> Action:
        entries = entry_points(ctx.sop)
        if self._classifies(ctx, entries):
            self.intent = self.classify(ctx, entries)
            if self.intent == OUT_OF_DOMAIN:
                return halt("out-of-domain", "Sorry, I cannot help with that request here.")
        action = super().next_action(ctx)
        if action.kind == "finish" and self.intent and ctx.node.kind != "end":
            action.branch = route(ctx.sop, ctx.node.id, entries, self.intent)
        return action

    def _classifies(self, ctx: AgentContext, entries: list) -> bool:
        """Whether this decision starts with the intent call."""
        return self.intent is None and len(entries) > 1 and _customer_spoke(ctx)

    def classify(self, ctx: AgentContext, entries: list[tuple[str, str, set[str]]]) -> str:
        reply = send(self.client, intent_request(ctx, entries, INTENT_LABEL))
        call = next((c for c in reply.tool_calls if c.name == INTENT_FUNCTION), None)
        parsed = call.parsed()[0] if call is not None else None
        intent = parsed.get("intent") if isinstance(parsed, dict) else None
        known = {e for e, _, _ in entries} | {OUT_OF_DOMAIN}
        return intent if intent in known else ""  # unusable: no routing, the DPA goes on


def intent_function(entries: list[tuple[str, str, set[str]]]) -> dict:
    """`classify_intent`: an enum of the entry ids plus out of domain."""
    return function_tool(INTENT_FUNCTION, "The sub-procedure for this request.", {
        "type": "object", "required": ["intent"], "properties": {"intent": {
            "type": "string", "enum": [e for e, _, _ in entries] + [OUT_OF_DOMAIN]}}})


def intent_request(ctx: AgentContext, entries: list[tuple[str, str, set[str]]],
                   label: str) -> Request:
    """The intent call: the classifier prompt, the conversation as plain text, the function
    named in tool_choice."""
    pairs = [(entry, text) for entry, text, _ in entries]
    messages = [{"role": "system", "content": marco_intent_prompt(ctx.sop, pairs)},
                *({"role": "assistant" if t["role"] == "agent" else "user",
                   "content": t.get("text") or ""} for t in ctx.transcript)]
    return Request(label, messages, [intent_function(entries)],
                   {"type": "function", "function": {"name": INTENT_FUNCTION}})


def prompt_bundle(sop: SOP) -> dict:
    """`export --to marco-prompts`: the intent prompt (no placeholder), `classify_intent` and
    the entry points, then the DPA bundle's per-node prompts and functions."""
    entries = entry_points(sop)
    bundle = dpa_bundle(sop, "marco")
    intent = {"prompt": marco_intent_prompt(sop, [(e, text) for e, text, _ in entries]),
              "function": intent_function(entries),
              "entry_points": [{"id": e, "description": text, "nodes": sorted(nodes)}
                               for e, text, nodes in entries],
              "sent": "once, after the customer's first message" if len(entries) > 1 else
                      "never: the SOP has fewer than two entry points"}
    return {**{k: v for k, v in bundle.items() if k != "nodes"}, "intent": intent,
            "nodes": bundle["nodes"]}


def _customer_spoke(ctx: AgentContext) -> bool:
    return any(t["role"] == "user" for t in ctx.transcript)


def entry_points(sop: SOP) -> list[tuple[str, str, set[str]]]:
    """(id, description, nodes) of each sub-procedure: the sub-SOPs (their inlined nodes), else
    the branches of the first branching node (each its first node)."""
    prefixes: dict[str, set[str]] = {}
    for node in sop.nodes:
        if getattr(node, "level", None) == 1 and SEPARATOR in node.id:
            prefixes.setdefault(node.id.split(SEPARATOR, 1)[0], set()).add(node.id)
    if len(prefixes) > 1:
        return [(p, _title(sop, nodes), nodes) for p, nodes in prefixes.items()]
    fork = _first_fork(sop)
    if fork is None:
        return []
    return [(e.target, _title(sop, {e.target}) + (f" ({e.label})" if e.label else ""),
             {e.target}) for e in sop.out_edges(fork) if e.on == "success"]


def _title(sop: SOP, nodes: set[str]) -> str:
    first = next((n for n in sop.nodes if n.id in nodes), None)
    return (first.title or first.instructions or first.id) if first is not None else ""


def _first_fork(sop: SOP) -> str | None:
    seen, queue = set(), deque([sop.start])
    while queue:
        nid = queue.popleft()
        if nid is None or nid in seen:
            continue
        seen.add(nid)
        out = [e for e in sop.out_edges(nid) if e.on == "success"]
        if len(out) > 1:
            return nid
        queue.extend(e.target for e in out)
    return None


def _reach(sop: SOP, start: str) -> set[str]:
    seen, queue = set(), deque([start])
    while queue:
        nid = queue.popleft()
        if nid not in seen:
            seen.add(nid)
            queue.extend(e.target for e in sop.out_edges(nid))
    return seen


def route(sop: SOP, node_id: str, entries: list[tuple[str, str, set[str]]],
          intent: str) -> str | None:
    """The one branch of `node_id` leading into the chosen sub-procedure (None: not one)."""
    nodes = next((n for e, _, n in entries if e == intent), set())
    leading = [e.id for e in sop.out_edges(node_id)
               if e.on == "success" and _reach(sop, e.target) & nodes]
    others = [e.id for e in sop.out_edges(node_id) if e.on == "success" and e.id not in leading]
    return leading[0] if len(leading) == 1 and others else None
