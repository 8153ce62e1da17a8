"""Graph checks: ids, start, dangling and duplicate edges, dead ends, reachability, cycles.

All run in linear time on indexes and networkx graphs: BFS from the start for `unreachable`,
reverse BFS from the end nodes for `no-end`, strongly connected components for `unbounded-cycle`
and `self-referencing-set` (`check_counters`, run once expressions are parsed).
"""

from __future__ import annotations

from collections import Counter

import networkx as nx

from ..expr import shorten
from .context import Context
from .expressions import node_key


def check_structure(ctx: Context) -> None:
    _check_duplicate_ids(ctx)
    _check_start(ctx)
    _check_dangling_edges(ctx)
    _check_duplicate_edges(ctx)
    dead = _check_exits(ctx)
    _check_unreachable(ctx)
    _check_no_end(ctx, dead)
    _check_cycles(ctx)


def _check_duplicate_ids(ctx: Context) -> None:
    sop = ctx.sop
    groups = (("node", "node", [n.id for n in sop.nodes]), ("edge", "edge", [e.id for e in sop.edges]),
              ("tool", "tool", [t.name for t in sop.tools]),
              ("variable", "variable", [v.name for v in sop.variables]))
    for label, key, ids in groups:
        for ident, count in Counter(ids).items():
            if count > 1:
                ctx.add("duplicate-id", f"{count} {label}s share the id '{ident}'; ids must be "
                        "unique", **{key: ident})


def _check_start(ctx: Context) -> None:
    start = ctx.sop.start
    if not start:
        ctx.add("no-start", "the SOP has no start node")
    elif start not in ctx.nodes:
        ctx.add("no-start", f"the start node '{start}' does not exist")


def _check_dangling_edges(ctx: Context) -> None:
    for edge in ctx.sop.edges:
        for end in ("source", "target"):
            ident = getattr(edge, end)
            if ident not in ctx.nodes:
                owner = edge.source if edge.source in ctx.nodes else None
                ctx.add("unknown-node", f"edge {edge.id}: {end} '{ident}' is not a node",
                        edge=edge.id, node=owner)


def _check_duplicate_edges(ctx: Context) -> None:
    seen: dict[tuple[str, str, str, str | None], str] = {}
    for edge in ctx.edges:
        when = " ".join(edge.when.split()) if edge.when else None
        key = (edge.source, edge.target, edge.on, when)
        if key in seen:
            ctx.add("duplicate-edge", f"edge {edge.id} repeats edge {seen[key]} "
                    f"({edge.source} -> {edge.target}, same condition)",
                    edge=edge.id, node=edge.source)
        else:
            seen[key] = edge.id


def _check_exits(ctx: Context) -> set[str]:
    """Flag end nodes with exits and other nodes with no success exit; return the dead ends."""
    dead = set()
    for node in ctx.nodes.values():
        edges = ctx.out_edges.get(node.id, [])
        if node.kind == "end":
            if edges:
                ctx.add("end-has-exits", f"end node {node.id} has outgoing edges "
                        f"({', '.join(e.id for e in edges)}); a run stops at an end node",
                        node=node.id, edge=edges[0].id)
        elif not any(e.on == "success" for e in edges):
            dead.add(node.id)
            detail = "only failure edges leave it" if edges else "no edge leaves it"
            ctx.add("dead-end", f"node {node.id} is not an end node but {detail}; "
                    "add an edge to the next step or make it an end node", node=node.id)
    return dead


def _check_unreachable(ctx: Context) -> None:
    if ctx.start is None:
        return
    reached = nx.descendants(ctx.graph, ctx.start) | {ctx.start}
    for ident in ctx.nodes:
        if ident not in reached:
            ctx.add("unreachable", f"node {ident} cannot be reached from the start node "
                    f"{ctx.start}", node=ident)


def _check_no_end(ctx: Context, dead: set[str]) -> None:
    ends = [i for i, n in ctx.nodes.items() if n.kind == "end"]
    if not ends:
        if ctx.nodes:
            ctx.add("no-end", "the SOP has no end node, so no run can finish")
        return
    # One multi-source reverse BFS: per-end nx.ancestors would cost O(ends x edges).
    finishing, queue = set(ends), list(ends)
    while queue:
        for edge in ctx.in_edges.get(queue.pop(), ()):
            if edge.source not in finishing:
                finishing.add(edge.source)
                queue.append(edge.source)
    for ident in ctx.nodes:
        # A dead end is already reported; saying it also cannot reach an end adds nothing.
        if ident not in finishing and ident not in dead:
            ctx.add("no-end", f"no end node can be reached from node {ident}", node=ident)


def _check_cycles(ctx: Context) -> None:
    """A cycle avoiding every node with max_attempts exists iff the graph of the other nodes
    has one: so take the SCCs of that subgraph (linear, no cycle enumeration)."""
    order = {ident: index for index, ident in enumerate(ctx.nodes)}
    unbounded = [i for i, n in ctx.nodes.items() if n.max_attempts is None]
    graph = ctx.graph.subgraph(unbounded)
    for component in nx.strongly_connected_components(graph):
        members = sorted(component, key=order.__getitem__)
        if len(members) == 1 and not graph.has_edge(members[0], members[0]):
            continue
        shown = ", ".join(members[:8]) + (", ..." if len(members) > 8 else "")
        ctx.add("unbounded-cycle", f"the cycle through {shown} has no node with max_attempts; "
                "set max_attempts on one of them to bound the loop", node=members[0])


def check_counters(ctx: Context) -> None:
    """`self-referencing-set` (warning): a node on a cycle assigns a name from itself (a counter,
    `n = n + 1`). How often the loop runs then depends on arithmetic that validation does not
    prove reaches the exit condition, and scenario generation cannot choose the counter's value
    to steer the loop; only `max_attempts` bounds it (a cycle without it is `unbounded-cycle`).
    One linear pass: SCCs of the whole graph, then the `set`s of the nodes on cycles."""
    looping: set[str] = set()
    for component in nx.strongly_connected_components(ctx.graph):
        if len(component) > 1:
            looping |= component
        else:
            ident = next(iter(component))
            if ctx.graph.has_edge(ident, ident):
                looping.add(ident)
    for ident in (i for i in ctx.nodes if i in looping):
        node = ctx.nodes[ident]
        for name, text in node.set.items():
            parsed = ctx.parsed.get(node_key(node, "set", name))
            if parsed is None or name not in parsed.roots():
                continue
            bound = (f"only max_attempts ({node.max_attempts}) bounds it"
                     if node.max_attempts else "nothing bounds it")
            ctx.add("self-referencing-set",
                    f"node {ident} sets {name} from itself ({name} = {shorten(text)}) inside a loop: "
                    f"validation cannot prove the loop reaches its exit; {bound}, and "
                    f"generated scenarios may not follow every turn of the loop",
                    node=ident, variable=name)
