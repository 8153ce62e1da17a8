"""A small set of journeys that together take every edge lying on some journey.

Greedy over dynamic programming: each round finds, in O(V + E), the journey that takes the most
still-uncovered edges (a maximum-weight path in the forward DAG, or a path through one uncovered
back edge), adds it and marks its edges covered. Every uncovered edge lies on some journey, so each
round covers at least one new edge and the loop ends after at most E rounds.
"""

from __future__ import annotations

from .journeys import Journey, JourneyGraph
from .model import SOP

NONE = -1  # "no completion" marker in the DP tables (weights are >= 0 otherwise)


def cover(graph: JourneyGraph) -> list[Journey]:
    uncovered = set(graph.useful_edges())
    result: list[Journey] = []
    while uncovered:
        edges = _best_journey(graph, uncovered)
        if not edges or not uncovered.intersection(edges):
            break  # cannot happen for a consistent graph; never loop forever
        uncovered.difference_update(edges)
        nodes = [graph.start] + [graph.edge_dst[k] for k in edges]
        result.append(graph.journey(nodes, edges))
    return result


def _best_from(graph: JourneyGraph, uncovered: set[int]) -> tuple[list[int], list[int]]:
    """Max uncovered edges on a DAG path node -> end, and the edge taken first."""
    best = [NONE] * len(graph.ids)
    choice = [-1] * len(graph.ids)
    for node in reversed(graph.order):
        value = 0 if graph.is_end[node] else NONE
        pick = -1
        for k in graph.out[node]:
            if k in graph.back:
                continue
            tail = best[graph.edge_dst[k]]
            if tail != NONE:
                gain = tail + (k in uncovered)
                if gain > value:
                    value, pick = gain, k
        best[node], choice[node] = value, pick
    return best, choice


def _best_to(graph: JourneyGraph, uncovered: set[int]) -> tuple[list[int], list[int]]:
    """Max uncovered edges on a DAG path start -> node, and the edge arriving last."""
    best = [NONE] * len(graph.ids)
    arrive = [-1] * len(graph.ids)
    best[graph.start] = 0
    for node in graph.order:
        if best[node] == NONE:
            continue
        for k in graph.out[node]:
            if k in graph.back:
                continue
            target = graph.edge_dst[k]
            gain = best[node] + (k in uncovered)
            if gain > best[target]:
                best[target], arrive[target] = gain, k
    return best, arrive


def _best_journey(graph: JourneyGraph, uncovered: set[int]) -> list[int]:
    best_from, choice = _best_from(graph, uncovered)
    top, via = best_from[graph.start], None
    back = [k for k in uncovered if k in graph.back]
    if back:
        best_to, arrive = _best_to(graph, uncovered)
        for k in sorted(back):
            u, v = graph.edge_src[k], graph.edge_dst[k]
            if best_to[u] != NONE and best_from[v] != NONE:
                gain = best_to[u] + 1 + best_from[v]
                if gain > top:
                    top, via = gain, k
    if via is None:
        return _follow(graph, graph.start, choice)
    prefix = []
    node = graph.edge_src[via]
    while node != graph.start:
        k = arrive[node]
        prefix.append(k)
        node = graph.edge_src[k]
    return prefix[::-1] + [via] + _follow(graph, graph.edge_dst[via], choice)


def _follow(graph: JourneyGraph, node: int, choice: list[int]) -> list[int]:
    edges = []
    while choice[node] != -1:
        k = choice[node]
        edges.append(k)
        node = graph.edge_dst[k]
    return edges


def edge_cover(sop: SOP) -> list[Journey]:
    """The covering set of `sop`'s journeys (builds the journey graph once)."""
    return cover(JourneyGraph(sop))
