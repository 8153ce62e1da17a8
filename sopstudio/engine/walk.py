"""The reference walk: what a correct agent does with given user values and tool responses.

An independent, compact interpreter of DESIGN §2 used to compute a scenario's expected path, tool
trace (with arguments), end node and outcome; the orchestrator with the scripted agent must agree
with it (tests check that). It ignores conversation turns: an expected trace assumes the turn
limit is not reached.

With `journey` (edge ids) the walk FOLLOWS that journey instead of evaluating conditions: at each
node the journey's next edge is taken (a failure edge as soon as a tool fails), the attempts bound
and `branching: all` are ignored, and a tool whose required arguments cannot be filled is still
called with what is known (unless a value is withheld: then the run is blocked, as documented for
missing-parameter scenarios). Journey mode is only used for journeys the SOP cannot realise; a
journey through a `branching: all` node that the SOP does follow (as one of the branches of the
run, see scenarios.realises) is walked normally, every true branch included. A tool failure the
journey does not take is handled as the SOP says (failure edge or retries); leaving the journey that way ends the following. This gives the expected
run of a scenario whose journey the SOP itself cannot realise (a broken condition, contradictory
conditions): the journey, not a re-interpretation of the broken SOP, says what should happen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .compiled import (CompiledSop, choose_failure, choose_success, guard_holds, run_sets,
                       tool_arguments)
from .tools import MockTools

# The walk's work bound: node entries per walk. Visit counts (`max_attempts`) end every loop of
# a valid SOP long before; journey mode ignores them, so this explicit bound is what stops a walk
# there. Cutting a walk is reported in `Expected.notes` (outcome turn-limit).
MAX_NODES = 100_000


@dataclass
class Expected:
    path: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    tool_trace: list = field(default_factory=list)
    end_node: str | None = None
    outcome: str | None = None
    variables: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)          # bounds that cut the walk

    def to_dict(self) -> dict:
        return {"path": list(self.path), "edges": list(self.edges),
                "tool_trace": [dict(t) for t in self.tool_trace], "end_node": self.end_node,
                "outcome": self.outcome}


class _Stop(Exception):
    def __init__(self, outcome: str, end_node: str | None = None):
        self.outcome, self.end_node = outcome, end_node


def expected_run(cs: CompiledSop, seed: dict, responses: dict,
                 withheld: str | None = None, journey: list | tuple | None = None) -> Expected:
    walk = _Walk(cs, seed, responses, withheld, journey)
    try:
        walk.run()
    except _Stop as stop:
        walk.out.outcome, walk.out.end_node = stop.outcome, stop.end_node
    walk.out.variables = walk.env
    return walk.out


class _Walk:
    def __init__(self, cs, seed, responses, withheld, journey=None):
        self.cs, self.seed, self.withheld = cs, seed, withheld
        self.journey = list(journey) if journey is not None else None  # None: not following
        self.tools = MockTools(cs.tools, responses)
        self.env: dict = {}
        self.visits: dict = {}
        self.branches: list = []
        self.out = Expected()

    def run(self) -> None:
        node_id = self._enter(self.cs.sop.start, None)
        for _ in range(MAX_NODES):
            node_id = self._node(node_id)
        self.out.notes.append(f"reference walk stopped after {MAX_NODES} nodes")
        raise _Stop("turn-limit")

    def _next_edge(self, node_id: str, failure: bool = False):
        """The journey's next edge if it leaves `node_id` (of the given kind), else None."""
        if self.journey is None or len(self.out.edges) >= len(self.journey):
            return None
        cedge = self.cs.edges.get(self.journey[len(self.out.edges)])
        if cedge is None or cedge.edge.source != node_id:
            return None
        if failure and cedge.edge.on != "failure":
            return None
        return cedge

    def _enter(self, target: str, edge_id: str | None) -> str:
        if self.journey is not None and edge_id is not None and \
                self.journey[len(self.out.edges):len(self.out.edges) + 1] != [edge_id]:
            self.journey = None  # the scenario itself leads off the journey (a failing tool)
        count = self.visits.get(target, 0) + 1
        if count > self.cs.nodes[target].node.attempts and self.journey is None:
            raise _Stop("technical-issue")
        self.visits[target] = count
        self.out.path.append(target)
        if edge_id:
            self.out.edges.append(edge_id)
        return target

    def _node(self, node_id: str) -> str:
        cnode = self.cs.nodes[node_id]
        for var in cnode.node.ask:
            if var == self.withheld or var not in self.seed:
                raise _Stop("blocked")
            self.env[var] = self.seed[var]
        for name in cnode.node.tools:
            failure = self._tool(cnode, name)
            if failure is not None:
                return self._enter(failure.target, failure.id)
        if cnode.node.kind == "end" and self.journey is not None:
            raise _Stop(cnode.node.outcome or "resolved", node_id)
        if cnode.node.kind == "end":
            while self.branches and not self.branches[-1]:
                self.branches.pop()
            if not self.branches:
                raise _Stop(cnode.node.outcome or "resolved", node_id)
            edge = self.branches[-1].pop()
            return self._enter(edge.target, edge.id)
        run_sets(cnode, self.env)
        forced = self._next_edge(node_id)
        if forced is not None:
            return self._enter(forced.target, forced.id)
        chosen = choose_success(cnode, self.env)
        if not chosen:
            raise _Stop("technical-issue")
        if len(chosen) > 1:
            self.branches.append(list(reversed(chosen[1:])))
        return self._enter(chosen[0].target, chosen[0].id)

    def _tool(self, cnode, name: str):
        tool = self.cs.tools.get(name)
        if tool is None or not guard_holds(cnode, name, self.env):
            return None
        arguments, missing = tool_arguments(self.cs, cnode, tool, self.env)
        if missing and (self.journey is None or self.withheld is not None):
            raise _Stop("blocked")
        for _ in range(cnode.node.attempts):
            self.out.tool_trace.append({"tool": name, "arguments": arguments})
            result, _operator = self.tools.call(name, arguments)
            if "error" not in result:
                self.env.update(result.get("outputs") or {})
                return None
            edge = self._next_edge(cnode.node.id, failure=True) or \
                choose_failure(cnode, {**self.env, "error": result["error"], "tool": name})
            if edge is not None:
                return edge
        raise _Stop("technical-issue")
