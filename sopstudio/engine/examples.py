"""Built-in SOPs for tests, benchmarks and demos.

`listing_blocked()` is Agent-S's "why is my listing blocked" SOP (Table 1) with an invalid-id retry
loop, a knowledge entry and a computed score; `synthetic(n, seed)` generates a random valid SOP of
about n nodes (a tree of decisions over enum and numeric tool outputs with a few joins), used to
measure the engine at 50 / 500 / 5,000 nodes.
"""

from __future__ import annotations

import random
from typing import Any

from ..core.model import SOP


def listing_blocked() -> SOP:
    str_param = {"type": "string"}

    def tool(name, params, outputs, errors=("api_error",)):
        return {"name": name, "parameters": {"type": "object",
                                             "properties": {p: str_param for p in params},
                                             "required": list(params)},
                "outputs": outputs, "errors": list(errors)}

    return SOP.model_validate({
        "id": "listing-blocked", "title": "Why is my listing blocked", "start": "check_user",
        "variables": [{"name": "seller_id"}, {"name": "listing_id", "pattern": "^LST[A-Z0-9]+$"}],
        "tools": [
            tool("check_user_status", ["seller_id"],
                 [{"name": "user_status", "enum": ["onboarding", "active", "on-hold"]}]),
            tool("check_listing_status", ["listing_id"],
                 [{"name": "listing_status", "enum": ["active", "inactive", "blocked"]}],
                 ["api_error", "invalid_id"]),
            tool("check_block_reason", ["listing_id"],
                 [{"name": "block_reason", "enum": ["seller_state_change", "policy", "quality"]},
                  {"name": "sds_score", "type": "integer"}]),
            tool("create_ticket", ["listing_id"], [{"name": "ticket_id"}]),
        ],
        "knowledge": [{"question": "How do I find my listing ID?",
                       "answer": "Open Seller Hub > Listings; the ID starts with LST."}],
        "nodes": [
            {"id": "check_user", "ask": ["seller_id"], "tools": ["check_user_status"]},
            {"id": "ask_listing", "ask": ["listing_id"], "max_attempts": 3},
            {"id": "check_listing", "tools": ["check_listing_status"]},
            {"id": "check_block", "tools": ["check_block_reason"],
             "set": {"score_total": "sds_score + 2"}},
            {"id": "reactivate", "say": "Your listing can be reactivated.",
             "tools": ["create_ticket"]},
            {"id": "done_onboarding", "kind": "end", "say": "Still onboarding.",
             "outcome": "resolved"},
            {"id": "done_inactive", "kind": "end", "say": "Listing inactive.", "outcome": "resolved"},
            {"id": "done_active", "kind": "end", "say": "Listing active.", "outcome": "resolved"},
            {"id": "done_state", "kind": "end", "say": "State change.", "outcome": "escalated"},
            {"id": "done_ticket", "kind": "end", "say": "Ticket created.", "outcome": "resolved"},
            {"id": "done_reason", "kind": "end", "say": "Reason code.", "outcome": "informed"},
        ],
        "edges": [
            {"id": "e1", "source": "check_user", "target": "done_onboarding",
             "when": "user_status == 'onboarding'"},
            {"id": "e2", "source": "check_user", "target": "ask_listing", "when": "else"},
            {"id": "e3", "source": "ask_listing", "target": "check_listing"},
            {"id": "e4", "source": "check_listing", "target": "done_inactive",
             "when": "listing_status == 'inactive'"},
            {"id": "e5", "source": "check_listing", "target": "done_active",
             "when": "listing_status == 'active'"},
            {"id": "e6", "source": "check_listing", "target": "check_block",
             "when": "listing_status == 'blocked'"},
            {"id": "e7", "source": "check_listing", "target": "ask_listing", "on": "failure",
             "when": "error == 'invalid_id'"},
            {"id": "e8", "source": "check_block", "target": "done_state",
             "when": "block_reason == 'seller_state_change'"},
            {"id": "e9", "source": "check_block", "target": "reactivate",
             "when": "score_total >= 10 && block_reason in ['policy', 'quality']"},
            {"id": "e10", "source": "check_block", "target": "done_reason", "when": "else"},
            {"id": "e11", "source": "reactivate", "target": "done_ticket"},
        ],
    })


def synthetic(n_nodes: int, seed: int = 0) -> SOP:
    """A random SOP of ~n_nodes: each task asks or calls one tool and branches 2-3 ways."""
    rng = random.Random(seed)
    nodes: list[dict[str, Any]] = [{"id": "n0", "ask": ["customer_id"]}]
    edges: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    frontier, count = ["n0"], 1
    while frontier:
        source = frontier.pop(0)
        if count >= n_nodes - 1:
            edges.append({"id": f"e{len(edges)}", "source": source, "target": "end_default"})
            continue
        fan = rng.choice((2, 2, 3))
        tool_name = f"t{len(tools)}"
        numeric = rng.random() < 0.3
        output = {"name": f"o{len(tools)}", "type": "integer"} if numeric else \
            {"name": f"o{len(tools)}", "enum": [f"v{i}" for i in range(fan)]}
        tools.append({"name": tool_name, "outputs": [output], "errors": ["api_error"],
                      "parameters": {"type": "object", "properties": {
                          "customer_id": {"type": "string"}}, "required": ["customer_id"]}})
        decision = f"d{source}"
        nodes.append({"id": decision})
        for node in nodes:
            if node["id"] == source:
                node["tools"] = [tool_name]
        edges.append({"id": f"e{len(edges)}", "source": source, "target": decision})
        count += 1
        for i in range(fan):
            target = f"n{count}"
            count += 1
            last = i == fan - 1
            when = "else" if last else (f"{output['name']} > {10 * (fan - i)}" if numeric
                                        else f"{output['name']} == 'v{i}'")
            # the first child always continues, so the tree grows to n_nodes
            leaf = count >= n_nodes - 1 or (i > 0 and rng.random() < 0.6)
            nodes.append({"id": target, "kind": "end", "outcome": "resolved"} if leaf
                         else {"id": target})
            edges.append({"id": f"e{len(edges)}", "source": decision, "target": target,
                          "when": when})
            if not leaf:
                frontier.append(target)
    nodes.append({"id": "end_default", "kind": "end", "outcome": "resolved"})
    return SOP.model_validate({"id": f"synthetic-{n_nodes}", "start": "n0",
                               "variables": [{"name": "customer_id"}],
                               "tools": tools, "nodes": nodes, "edges": edges})
