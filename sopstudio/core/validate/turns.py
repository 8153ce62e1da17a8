"""`long-journey`: a journey that needs more conversation turns than a run is allowed.

A run stops with `turn-limit` after `max_turns` turns (40 unless `simulate` / `bench` are told
otherwise); a turn is a message, a question or an answer (engine TURN_EVENTS). A node that asks
takes two turns (the question and the answer, however many values it asks at once) and a node
that says something one. The heaviest journey (a path from the start to an end without going
round a loop, as `journeys` counts them) is found by dynamic programming over the journey DAG,
so the check is linear; a journey at the limit is fine, one past it is reported once.
"""

from __future__ import annotations

from ..journeys import JourneyGraph
from ..model import Node
from .context import Context

DEFAULT_MAX_TURNS = 40


def turns_of(node: Node) -> int:
    return (2 if node.ask else 0) + (1 if node.say else 0)


def check_turns(ctx: Context, max_turns: int = DEFAULT_MAX_TURNS) -> None:
    if ctx.start is None:
        return
    graph = JourneyGraph(ctx.sop)
    if graph.start < 0:
        return
    weight = [turns_of(node) for node in ctx.sop.nodes]
    best: list[int | None] = [None] * len(graph.ids)  # heaviest completion node -> end
    for node in reversed(graph.order):
        options = [best[graph.edge_dst[k]] for k in graph.out[node] if k not in graph.back]
        reachable = [o for o in options if o is not None]
        if graph.is_end[node] or reachable:
            best[node] = weight[node] + max(reachable, default=0)
    need = best[graph.start]
    if need is not None and need > max_turns:
        ctx.add("long-journey", f"a journey from {ctx.sop.start} needs {need} conversation "
                f"turns (questions, answers and messages), more than the {max_turns} a run is "
                f"allowed: it would end with turn-limit (simulate and bench take --max-turns)",
                node=ctx.sop.start)
