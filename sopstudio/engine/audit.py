"""Measuring, after the fact, the violations of a run that nothing prevented (the SPA baseline).

`audit_trace(compiled, trace)` walks the recorded events alongside the scripted oracle's position
in the graph: the oracle stays in a node until its tools (those whose guard holds) have been
called, then follows the edge the SOP chooses with the values known at that moment. Each tool
call is then judged as the DPA guardrails would have judged it before execution:
``tool-not-in-node`` (not a tool of the node the oracle is in), ``schema-violation`` and
``ungrounded-argument``. Returns one dict per violation: index, tool, node, code, text.
"""

from __future__ import annotations

import random
from typing import Any

from .agents.base import AgentContext
from .compiled import CompiledSop, choose_success, guard_holds, run_sets
from .guardrails import Evidence
from .schema_check import object_errors
from .trace import Trace


class _Oracle:
    def __init__(self, compiled: CompiledSop):
        self.compiled = compiled
        self.node_id = compiled.start
        self.called: set[str] = set()

    def pending(self, env: dict) -> list[str]:
        cnode = self.compiled.nodes[self.node_id]
        return [t for t in cnode.node.tools
                if t not in self.called and guard_holds(cnode, t, env)]

    def locate(self, tool: str, env: dict) -> bool:
        """Advance while the node's work is done; True if `tool` belongs where it stops."""
        for _ in range(len(self.compiled.nodes) + 1):
            cnode = self.compiled.nodes[self.node_id]
            if tool in cnode.node.tools and tool not in self.called:
                return True
            if self.pending(env) or cnode.node.kind == "end":
                return tool in cnode.node.tools
            scratch = dict(env)
            run_sets(cnode, scratch)
            chosen = choose_success(cnode, scratch)
            if not chosen:
                return False
            env.update(scratch)
            self.node_id, self.called = chosen[0].target, set()
        return False


def audit_trace(compiled: CompiledSop, trace: Trace) -> list[dict]:
    oracle = _Oracle(compiled)
    env: dict[str, Any] = {}
    said: list[dict] = []
    found: list[dict] = []
    for event in trace.events:
        if event.type == "user":
            env.update(event.values or {})
            said.append({"role": "user", "text": event.text or ""})
        elif event.type == "tool_result":
            env.update((event.result or {}).get("outputs") or {})
        elif event.type == "tool_call":
            found += _judge(compiled, oracle, event, env, said)
    return found


def _judge(compiled: CompiledSop, oracle: _Oracle, event, env: dict, said: list) -> list[dict]:
    tool = compiled.tools.get(event.tool or "")
    where = {"index": event.index, "tool": event.tool}
    if not oracle.locate(event.tool or "", env):
        return [{**where, "node": oracle.node_id, "code": "tool-not-in-node",
                 "text": f"{event.tool} called while the SOP is at node {oracle.node_id}"}]
    oracle.called.add(event.tool)
    node = compiled.nodes[oracle.node_id].node
    found = []
    if tool is not None:
        errors = object_errors(event.arguments or {}, tool.parameters)
        if errors:
            found.append({**where, "node": node.id, "code": "schema-violation",
                          "text": "; ".join(errors)})
        # Grounding reads what the user said and the known values, nothing else.
        ctx = AgentContext(sop=compiled.sop, node=node, instructions="", tools=[tool],
                           variables=env, memory=[], transcript=said, visit=[], reflections=[],
                           rng=random.Random(0))
        evidence = Evidence(ctx)
        properties = tool.parameters.get("properties") or {}
        for name, value in (event.arguments or {}).items():
            if not evidence.grounds(value, properties.get(name), None):
                found.append({**where, "node": node.id, "code": "ungrounded-argument",
                              "text": f"{name}={value!r} was not provided by the user"})
    return found
