"""An SOP compiled for execution: lookups by id, per-node edge lists and parsed conditions.

Built once per SOP and shared (read-only) by the orchestrator, the reference walk that computes
expected traces, the value generator and the batch runner; this is what makes a step cheap.
Conditions that fail to evaluate (a name not set yet, a type mismatch) count as false at run time,
and an assignment that fails leaves its name unset; neither is silent when the caller passes a
`warn(expr, error)` callback (the orchestrator records a `warning` trace event, DESIGN §3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..core.errors import SopStudioError
from ..core.expr import Expr, ExprError, is_else, parse
from ..core.model import SOP, Edge, Node, Tool


Warn = Callable[[Expr, ExprError], None]


class EngineError(SopStudioError):
    """The SOP cannot be simulated as asked (no start, unknown journey, bad scenario...)."""


@dataclass(frozen=True)
class CEdge:
    """One edge with its condition parsed: `cond` None means "always holds" (or else)."""

    edge: Edge
    cond: Expr | None
    is_else: bool

    @property
    def id(self) -> str:
        return self.edge.id

    @property
    def target(self) -> str:
        return self.edge.target

    def holds(self, env: Mapping[str, Any], warn: Warn | None = None) -> bool:
        return self.cond is None or truth(self.cond, env, warn)


@dataclass
class CNode:
    node: Node
    success: list[CEdge] = field(default_factory=list)
    failure: list[CEdge] = field(default_factory=list)
    tool_when: dict[str, Expr] = field(default_factory=dict)
    tool_args: dict[str, dict[str, Expr]] = field(default_factory=dict)
    sets: list[tuple[str, Expr]] = field(default_factory=list)
    allowed: list[Tool] = field(default_factory=list)  # the node's tools, in order
    instructions: str = ""


def _parse(text: str, where: str) -> Expr:
    try:
        return parse(text)
    except ExprError as error:
        raise EngineError(f"{where}: bad expression {text!r}: {error}") from None


class CompiledSop:
    def __init__(self, sop: SOP):
        if not sop.start or sop.node(sop.start) is None:
            raise EngineError(f"SOP '{sop.id}' has no valid start node")
        self.sop = sop
        self.start: str = sop.start
        self.tools: dict[str, Tool] = {t.name: t for t in sop.tools}
        self.variables = {v.name: v for v in sop.variables}
        self.outputs = {o.name: o for t in sop.tools for o in t.outputs}
        self.edges: dict[str, CEdge] = {}
        self.nodes: dict[str, CNode] = {n.id: self._compile_node(n) for n in sop.nodes}
        # Nodes inlined from a sub-SOP (core/subflows.py) carry their nesting level.
        self.levels: dict[str, int] = {n.id: level for n in sop.nodes
                                       if isinstance(level := getattr(n, "level", None), int)}
        for edge in sop.edges:
            cedge = self._compile_edge(edge)
            self.edges[edge.id] = cedge
            owner = self.nodes.get(edge.source)
            if owner is not None:
                (owner.failure if edge.on == "failure" else owner.success).append(cedge)

    def _compile_edge(self, edge: Edge) -> CEdge:
        if edge.when is None or is_else(edge.when):
            return CEdge(edge, None, edge.when is not None)
        return CEdge(edge, _parse(edge.when, f"edge '{edge.id}'"), False)

    def _compile_node(self, node: Node) -> CNode:
        where = f"node '{node.id}'"
        return CNode(
            node,
            tool_when={t: _parse(w, f"{where} tool '{t}'") for t, w in node.tool_when.items()},
            tool_args={t: {p: _parse(x, f"{where} tool '{t}' argument '{p}'")
                           for p, x in args.items()} for t, args in node.tool_args.items()},
            sets=[(name, _parse(x, f"{where} set '{name}'")) for name, x in node.set.items()],
            allowed=[self.tools[t] for t in node.tools if t in self.tools],
            instructions="\n".join([node.instructions, *node.steps]).strip())

    def cnode(self, node_id: str) -> CNode:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise EngineError(f"unknown node '{node_id}'") from None

    def spec(self, name: str) -> Any:
        """The declaration of a value (tool output or variable) for typing generated values."""
        return self.outputs.get(name) or self.variables.get(name)


def choose_success(cnode: CNode, env: Mapping[str, Any], warn: Warn | None = None) -> list[CEdge]:
    """Edges leaving a node that finished: first match (else as fallback) or all that hold."""
    chosen, fallback = [], None
    for cedge in cnode.success:
        if cedge.is_else:
            fallback = fallback or cedge
        elif cedge.holds(env, warn):
            chosen.append(cedge)
            if cnode.node.branching != "all":
                break
    if not chosen and fallback is not None:
        chosen.append(fallback)
    return chosen


def choose_failure(cnode: CNode, env: Mapping[str, Any],
                   warn: Warn | None = None) -> CEdge | None:
    """The first failure edge whose condition holds for this error (env has `error`, `tool`)."""
    fallback = None
    for cedge in cnode.failure:
        if cedge.is_else:
            fallback = fallback or cedge
        elif cedge.holds(env, warn):
            return cedge
    return fallback


def tool_arguments(cs: CompiledSop, cnode: CNode, tool: Tool,
                   env: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Arguments as the SOP says (explicit mapping, else the same-named variable) and the
    required parameters that cannot be filled."""
    mapping = cnode.tool_args.get(tool.name, {})
    args: dict[str, Any] = {}
    for param in tool.parameter_names() or list(mapping):
        if param in mapping:
            try:
                args[param] = mapping[param].evaluate(env)
            except ExprError:
                pass
        elif param in env:
            args[param] = env[param]
    missing = [p for p in tool.required_parameters() if p not in args]
    return args, missing


def guard_holds(cnode: CNode, tool_name: str, env: Mapping[str, Any],
                warn: Warn | None = None) -> bool:
    guard = cnode.tool_when.get(tool_name)
    return guard is None or truth(guard, env, warn)


def truth(expr, env: Mapping[str, Any], warn: Warn | None = None) -> bool:
    """A condition's value; one that cannot be evaluated (unknown name, type error) is false
    (and reported to `warn` when given)."""
    try:
        return bool(expr.evaluate(env))
    except ExprError as error:
        if warn is not None:
            warn(expr, error)
        return False


def run_sets(cnode: CNode, env: dict[str, Any], warn: Warn | None = None) -> dict[str, Any]:
    """Evaluate the node's assignments in order into env; returns what was assigned."""
    assigned = {}
    for name, expr in cnode.sets:
        try:
            env[name] = assigned[name] = expr.evaluate(env)
        except ExprError as error:
            if warn is not None:
                warn(expr, error)
            continue  # a set that cannot be computed leaves the name unset (conditions see it)
    return assigned
