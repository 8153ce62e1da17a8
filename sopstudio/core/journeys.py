"""Journeys (DESIGN §5): exact counting, lazy enumeration and a small edge-covering set.

A journey is a walk from `sop.start` to a node of kind `end`, over success and failure edges.

How cycles are handled: a depth-first search from the start (edges in document order) classifies
every edge reachable from the start; edges that close a cycle (back edges, e.g. "invalid id ->
ask again" retry loops, which the run bounds by `max_attempts`) are set aside, leaving a DAG of
forward edges. A journey is a DAG path from start to an end that may take **at most one back
edge, once** (start ... u -back-> v ... end, both parts DAG paths). So every edge that lies on
any start->end walk is on some journey, loops are exercised once, and the set stays finite.

Counts are exact Python integers computed by dynamic programming, never by enumeration; a
60-level diamond chain gives 2**60 instantly. Enumeration is lazy and in BFS order (shortest
first; equal lengths in edge order) without ever expanding a dead partial path: per node we keep a
bit mask of the lengths of its completions, so each DFS step for a fixed length leads to a result.
Edges out of end nodes and edges from nodes the start cannot reach are on no journey.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from .model import SOP


@dataclass(frozen=True)
class Journey:
    """A start->end walk: node ids (len = edges + 1) and edge ids, in order."""

    nodes: tuple[str, ...]
    edges: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": list(self.nodes), "edges": list(self.edges)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Journey":
        return cls(tuple(data["nodes"]), tuple(data["edges"]))


class JourneyGraph:
    """Precomputed journey structure of one SOP (build once, query many times)."""

    def __init__(self, sop: SOP):
        self.sop = sop
        self.ids = [n.id for n in sop.nodes]
        index = {nid: i for i, nid in enumerate(self.ids)}
        self.is_end = [n.kind == "end" for n in sop.nodes]
        self.edge_ids = [e.id for e in sop.edges]
        self.edge_src = [index.get(e.source, -1) for e in sop.edges]
        self.edge_dst = [index.get(e.target, -1) for e in sop.edges]
        self.out: list[list[int]] = [[] for _ in self.ids]
        for k, (s, d) in enumerate(zip(self.edge_src, self.edge_dst)):
            if s >= 0 and d >= 0 and not self.is_end[s]:
                self.out[s].append(k)
        self.start = index.get(sop.start, -1) if sop.start else -1
        self.back: set[int] = set()
        self.order: list[int] = []  # topological order of the forward DAG (reachable nodes)
        if self.start >= 0:
            self._classify()
        self._count()

    # -- structure ---------------------------------------------------------------------------
    def _classify(self) -> None:
        """Iterative DFS from start: mark back edges, record reverse postorder (a topo order)."""
        state = [0] * len(self.ids)  # 0 new, 1 on stack, 2 done
        post: list[int] = []
        stack = [(self.start, iter(self.out[self.start]))]
        state[self.start] = 1
        while stack:
            node, edges = stack[-1]
            for k in edges:
                target = self.edge_dst[k]
                if state[target] == 1:
                    self.back.add(k)
                elif state[target] == 0:
                    state[target] = 1
                    stack.append((target, iter(self.out[target])))
                    break
            else:
                stack.pop()
                state[node] = 2
                post.append(node)
        self.order = post[::-1]
        self.reachable = [s == 2 for s in state]

    def _count(self) -> None:
        n = len(self.ids)
        self.dag = [0] * n    # DAG paths node -> end
        self.walk = [0] * n   # journeys node -> end (at most one back edge)
        self.dmask = [0] * n  # bit L set: a DAG completion of length L exists
        self.wmask = [0] * n
        # Two passes: a back edge points at an ancestor, whose DAG count is only known after
        # the whole first pass.
        for node in reversed(self.order):
            base = 1 if self.is_end[node] else 0
            dag, dmask = base, base
            for k in self.out[node]:
                if k not in self.back:
                    dag += self.dag[self.edge_dst[k]]
                    dmask |= self.dmask[self.edge_dst[k]] << 1
            self.dag[node], self.dmask[node] = dag, dmask
        for node in reversed(self.order):
            walk = wmask = 1 if self.is_end[node] else 0
            for k in self.out[node]:
                t = self.edge_dst[k]
                if k in self.back:
                    walk += self.dag[t]
                    wmask |= self.dmask[t] << 1
                else:
                    walk += self.walk[t]
                    wmask |= self.wmask[t] << 1
            self.walk[node], self.wmask[node] = walk, wmask
        self.to_dag = self._paths_to()

    def _paths_to(self) -> list[int]:
        """DAG paths start -> node (for deciding which edges lie on a journey)."""
        counts = [0] * len(self.ids)
        if self.start >= 0:
            counts[self.start] = 1
        for node in self.order:
            if counts[node]:
                for k in self.out[node]:
                    if k not in self.back:
                        counts[self.edge_dst[k]] += counts[node]
        return counts

    # -- queries -----------------------------------------------------------------------------
    def count(self) -> int:
        """Exact number of journeys."""
        return self.walk[self.start] if self.start >= 0 else 0

    def journey_edges(self) -> list[str]:
        """Ids of edges that lie on at least one journey (what a cover must cover)."""
        return [self.edge_ids[k] for k in self.useful_edges()]

    def useful_edges(self) -> list[int]:
        useful = []
        for k, (s, d) in enumerate(zip(self.edge_src, self.edge_dst)):
            if s < 0 or d < 0 or self.is_end[s] or not self.to_dag[s]:
                continue
            if (self.dag[d] if k in self.back else self.walk[d]) > 0:
                useful.append(k)
        return useful

    def uncoverable_edges(self) -> list[str]:
        """Edges on no journey (unreachable, leading nowhere, or leaving an end node)."""
        useful = set(self.useful_edges())
        return [e for k, e in enumerate(self.edge_ids) if k not in useful]

    def iter_journeys(self, limit: int | None = None) -> Iterator[Journey]:
        """Journeys in BFS order (by length, then edge order), lazily, at most `limit`."""
        if self.start < 0 or (limit is not None and limit <= 0):
            return
        produced = 0
        mask, length = self.wmask[self.start], 0
        while mask:
            if mask & 1:
                for journey in self._of_length(length):
                    yield journey
                    produced += 1
                    if limit is not None and produced >= limit:
                        return
            mask >>= 1
            length += 1

    def _of_length(self, length: int) -> Iterator[Journey]:
        nodes: list[int] = [self.start]
        edges: list[int] = []
        stack = [self._choices(self.start, False, length)]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                if edges:
                    edges.pop()
                    nodes.pop()
                continue
            k, used = step
            edges.append(k)
            nodes.append(self.edge_dst[k])
            remaining = length - len(edges)
            if remaining == 0:
                yield self.journey(nodes, edges)
                edges.pop()
                nodes.pop()
                continue
            stack.append(self._choices(self.edge_dst[k], used, remaining))

    def _choices(self, node: int, used: bool, remaining: int) -> Iterator[tuple[int, bool]]:
        bit = remaining - 1
        for k in self.out[node]:
            t = self.edge_dst[k]
            if k in self.back:
                if not used and (self.dmask[t] >> bit) & 1:
                    yield k, True
            elif ((self.dmask[t] if used else self.wmask[t]) >> bit) & 1:
                yield k, used

    def journey(self, nodes: list[int], edges: list[int]) -> Journey:
        return Journey(tuple(self.ids[n] for n in nodes), tuple(self.edge_ids[k] for k in edges))

    def nth(self, index: int) -> Journey:
        """The journey at `index` (0-based) in BFS order."""
        for i, journey in enumerate(self.iter_journeys(index + 1)):
            if i == index:
                return journey
        raise IndexError(f"journey {index} does not exist ({self.count()} journeys)")


def count_journeys(sop: SOP) -> int:
    return JourneyGraph(sop).count()


def iter_journeys(sop: SOP, limit: int | None = None) -> Iterator[Journey]:
    return JourneyGraph(sop).iter_journeys(limit)
