"""Condition-driven values (DESIGN §5, JourneyBench Appendix D): user values and tool responses
that make a run follow a given journey.

Walk the journey node by node keeping an environment. Each value gets a typed default when it
appears (user answers, tool outputs; `set` is computed). At each node the constraint is: the
journey's edge holds and every sibling that would win instead is false (first match: earlier
non-else success edges; an `else` edge: all non-else edges; `branching: all`: all others; a
failure edge: the error code solves it against earlier failure edges). Names the constraint reads
that are not pinned yet (read by an earlier constraint or tool guard) are free, including the
inputs of `set`-computed names. The constructive `satisfy` is tried first; it is verified by
evaluating the conditions; a bounded search over candidate values is the fallback. A changed
value is written back to where it came from (the user seed or that tool call's response).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from ..core.journeys import Journey
from .compiled import CEdge, CNode, CompiledSop, guard_holds
from .values_gen import default_value
from .values_solve import candidates, satisfy

SEARCH_LIMIT = 4096
# Explicit work budget of one journey's value generation (steps of the free-name closure, trials
# of the search): a bound, not a tuning knob. A valid SOP never needs it; a pathological one
# (huge closures over many `set`s) is cut and the scenario says so (`JourneyValues.notes`).
WORK_BUDGET = 200_000


@dataclass
class JourneyValues:
    seed: dict = field(default_factory=dict)                # user variable -> value
    responses: dict = field(default_factory=dict)          # tool -> [response per call]
    unsolved: list = field(default_factory=list)           # edge ids whose constraint failed
    calls: list = field(default_factory=list)              # (tool, index) in journey order
    notes: list = field(default_factory=list)              # bounds that cut the generation


class _Solver:
    def __init__(self, cs: CompiledSop):
        self.cs = cs
        self.out = JourneyValues()
        self.env: dict = {}
        self.origin: dict = {}     # name -> ("user",) | ("tool", tool, index)
        self.pinned: set = set()
        self.derived: list = []    # (name, Expr) in execution order
        self.work = WORK_BUDGET    # steps left (see WORK_BUDGET)

    def spend(self, steps: int = 1) -> bool:
        """Use `steps` of the work budget; False (and a note, once) when it is exhausted."""
        self.work -= steps
        if self.work >= 0:
            return True
        note = f"value generation stopped: work budget of {WORK_BUDGET} steps exhausted"
        if note not in self.out.notes:
            self.out.notes.append(note)
        return False

    def spec(self, name: str):
        return self.cs.spec(name)

    def visit(self, cnode: CNode, edge: CEdge | None) -> None:
        for var in cnode.node.ask:
            if var not in self.out.seed:
                self.out.seed[var] = default_value(var, self.spec(var))
            self._assign(var, self.out.seed[var], ("user",))
        tools = [name for name in cnode.node.tools if name in self.cs.tools]
        if edge is not None and edge.edge.on == "failure":
            called = next((n for n in tools if guard_holds(cnode, n, self.env)), None)
            if called is not None:
                self._fail(cnode, called, edge)
            return
        # Guards are decided after the edge's constraint is solved: a guard must not pin a value
        # the journey needs (e.g. "create_ticket when can_reactivate == 'yes'" on the 'no' path).
        calls = [self._call(name) for name in tools]
        for name, expr in cnode.sets:
            self.derived.append((name, expr))
        self._recompute(None)
        if edge is not None:
            self._solve(*self._constraint(cnode, edge), edge.id)
        self._apply_guards(cnode, calls)

    def _apply_guards(self, cnode: CNode, calls: list) -> None:
        for tool_name, index in calls:
            guard = cnode.tool_when.get(tool_name)
            if guard is None:
                continue
            self.pinned.update(guard.roots())
            if guard_holds(cnode, tool_name, self.env):
                continue
            entries = self.out.responses[tool_name]
            if index == len(entries) - 1:  # the tool is not called: drop its planned response
                entries.pop()
                self.out.calls.remove((tool_name, index))
            for name, origin in list(self.origin.items()):
                if origin == ("tool", tool_name, index):
                    del self.origin[name]
                    self.env.pop(name, None)

    def _assign(self, name: str, value: Any, origin: tuple) -> None:
        self.env[name] = value
        self.origin[name] = origin

    def _call(self, tool_name: str) -> tuple[str, int]:
        tool = self.cs.tools[tool_name]
        entries = self.out.responses.setdefault(tool_name, [])
        outputs = {o.name: default_value(o.name, o) for o in tool.outputs}
        entries.append({"outputs": outputs})
        self.out.calls.append((tool_name, len(entries) - 1))
        for name, value in outputs.items():
            self._assign(name, value, ("tool", tool_name, len(entries) - 1))
            self.pinned.discard(name)  # a new call gives a new value, free again
        return tool_name, len(entries) - 1

    def _fail(self, cnode: CNode, tool_name: str, edge: CEdge) -> None:
        earlier = [c for c in cnode.failure[:cnode.failure.index(edge)] if not c.is_else]
        others = [c for c in cnode.failure if not c.is_else and c is not edge]
        negatives = others if edge.is_else else earlier
        tool = self.cs.tools[tool_name]
        asts = [c.cond.node for c in [edge, *negatives] if c.cond is not None]
        pool = list(tool.errors) + candidates("error", asts, "api_error", lambda n: None)
        env = dict(self.env, tool=tool_name)
        error = next((e for e in pool if self._holds(edge, negatives, {**env, "error": e})), None)
        if error is None:
            self.out.unsolved.append(edge.id)
            error = pool[0]
        entries = self.out.responses.setdefault(tool_name, [])
        entries.append({"error": error})
        self.out.calls.append((tool_name, len(entries) - 1))

    def _constraint(self, cnode: CNode, edge: CEdge) -> tuple[CEdge, list[CEdge]]:
        plain = [c for c in cnode.success if not c.is_else]
        if edge.is_else or cnode.node.branching == "all":
            return edge, [c for c in plain if c is not edge]
        return edge, plain[:plain.index(edge)]

    @staticmethod
    def _holds(edge: CEdge, negatives: list, env: dict) -> bool:
        return edge.holds(env) and not any(n.holds(env) for n in negatives)

    def _solve(self, edge: CEdge, negatives: list, edge_id: str) -> None:
        exprs = [c.cond for c in [edge, *negatives] if c.cond is not None]
        read = set().union(*(e.roots() for e in exprs))
        if self._holds(edge, negatives, self.env):
            self.pinned.update(read)
            return
        free = self._free(read)
        found = self._constructive(edge, negatives, free) or self._search(edge, negatives, free)
        if found is None:
            self.out.unsolved.append(edge_id)
        else:
            self._commit(found)
        self.pinned.update(read | set(free))

    def _free(self, read: set) -> list:
        """The pinnable names behind `read`: user values and tool outputs, through `set`s.

        Each name is expanded once: a `set` that reads its own name (a counter, `n = n + 1`)
        or a cycle of `set`s must not re-queue it forever (that hung `simulate`)."""
        names, seen, todo = [], set(), sorted(read)
        inputs_of: dict = {}
        for name, expr in self.derived:
            inputs_of.setdefault(name, set()).update(expr.roots())
        while todo and self.spend():
            name = todo.pop(0)
            if name in seen or name in self.pinned:
                continue
            seen.add(name)
            if name in inputs_of:
                todo.extend(sorted(inputs_of[name] - seen))
            elif name in self.origin:
                names.append(name)
        return names

    def _trial(self, changes: dict) -> dict:
        env = dict(self.env)
        env.update(changes)
        self._recompute(set(changes), env)
        return env

    def _recompute(self, changed: set | None, env: dict | None = None) -> None:
        env = self.env if env is None else env
        for name, expr in self.derived:
            if changed is None or changed & expr.roots():
                try:
                    env[name] = expr.evaluate(env)
                except Exception:  # noqa: BLE001 - an uncomputable set leaves the name as is
                    continue
                if changed is not None:
                    changed.add(name)

    def _constructive(self, edge: CEdge, negatives: list, free: list) -> dict | None:
        wanted: dict = {}
        parts = [(edge, True)] + [(n, False) for n in negatives]
        for cedge, truth in parts:
            if cedge.cond is None:
                continue
            got = satisfy(cedge.cond.node, truth, self.spec) or {}
            for key, value in got.items():
                if key in free and key not in wanted:
                    wanted[key] = _with_fields(self.env.get(key), value)
        if wanted and self._holds(edge, negatives, self._trial(wanted)):
            return wanted
        return None

    def _search(self, edge: CEdge, negatives: list, free: list) -> dict | None:
        if not free:
            return None
        asts = [c.cond.node for c in [edge, *negatives] if c.cond is not None]
        asts += [e.node for _, e in self.derived]
        pools = [candidates(n, asts, self.env.get(n), self.spec) for n in free]
        for combo in itertools.islice(itertools.product(*pools), SEARCH_LIMIT):
            if not self.spend(1 + len(self.derived)):
                return None
            changes = dict(zip(free, combo))
            if self._holds(edge, negatives, self._trial(changes)):
                return changes
        return None

    def _commit(self, changes: dict) -> None:
        for name, value in changes.items():
            origin = self.origin.get(name, ("user",))
            if origin[0] == "tool":
                self.out.responses[origin[1]][origin[2]]["outputs"][name] = value
            else:
                self.out.seed[name] = value
            self.env[name] = value
        self._recompute(set(changes))


def _with_fields(current: Any, value: Any) -> Any:
    """A nested value (fields a dotted condition needs) laid over the current object value, so
    the output keeps its other fields."""
    if isinstance(value, dict) and isinstance(current, dict):
        out = dict(current)
        for key, inner in value.items():
            out[key] = _with_fields(current.get(key), inner)
        return out
    return value


def journey_values(cs: CompiledSop, journey: Journey) -> JourneyValues:
    """User seed and per-call tool responses that drive a run along `journey`."""
    solver = _Solver(cs)
    for i, node_id in enumerate(journey.nodes):
        edge = cs.edges[journey.edges[i]] if i < len(journey.edges) else None
        solver.visit(cs.cnode(node_id), edge)
    return solver.out
