"""Journeys: exact counts, BFS enumeration, cycles, edge cover."""

from __future__ import annotations

import random

import pytest

from sopstudio.core.journeys import Journey, JourneyGraph, count_journeys
from sopstudio.core.journeys_cover import cover, edge_cover
from sopstudio.core.model import SOP
from sopstudio.engine.examples import listing_blocked, synthetic


def diamond(levels: int) -> SOP:
    nodes, edges = [{"id": "n0"}], []
    for i in range(levels):
        nodes += [{"id": f"a{i}"}, {"id": f"b{i}"}, {"id": f"n{i + 1}"}]
        edges += [{"id": f"ea{i}", "source": f"n{i}", "target": f"a{i}", "when": "x == 1"},
                  {"id": f"eb{i}", "source": f"n{i}", "target": f"b{i}", "when": "else"},
                  {"id": f"ca{i}", "source": f"a{i}", "target": f"n{i + 1}"},
                  {"id": f"cb{i}", "source": f"b{i}", "target": f"n{i + 1}"}]
    nodes[-1]["kind"] = "end"
    return SOP(id="d", start="n0", nodes=nodes, edges=edges)


def random_dag(seed: int, size: int = 9) -> SOP:
    rng = random.Random(seed)
    nodes = [{"id": f"n{i}", "kind": "end" if i >= size - 2 else "task"} for i in range(size)]
    edges = []
    for i in range(size - 2):
        for j in rng.sample(range(i + 1, size), k=min(rng.randint(1, 3), size - i - 1)):
            edges.append({"id": f"e{len(edges)}", "source": f"n{i}", "target": f"n{j}"})
        if rng.random() < 0.3 and i > 0:  # a retry loop back to an earlier node
            edges.append({"id": f"e{len(edges)}", "source": f"n{i}", "target": f"n{rng.randrange(i)}",
                          "on": "failure"})
    return SOP(id="r", start="n0", nodes=nodes, edges=edges)


def brute_force(sop: SOP, graph: JourneyGraph) -> set[tuple]:
    """All start->end walks using at most one back edge, by plain DFS (small graphs only)."""
    back = {graph.edge_ids[k] for k in graph.back}
    ends = {n.id for n in sop.nodes if n.kind == "end"}
    found: set[tuple] = set()

    def dfs(node, edges, used, depth):
        if node in ends:
            found.add(tuple(edges))
            return
        if depth > 40:
            return
        for edge in sop.out_edges(node):
            is_back = edge.id in back
            if is_back and used:
                continue
            dfs(edge.target, edges + [edge.id], used or is_back, depth + 1)

    dfs(sop.start, [], False, 0)
    return found


def test_diamond_chain_of_60_levels_counts_two_to_the_sixty():
    graph = JourneyGraph(diamond(60))
    assert graph.count() == 2 ** 60
    first = next(graph.iter_journeys())
    assert len(first.edges) == 120 and first.nodes[0] == "n0" and first.nodes[-1] == "n60"


def test_diamond_cover_is_two_journeys_and_covers_every_edge():
    sop = diamond(60)
    journeys = edge_cover(sop)
    assert len(journeys) == 2
    assert {e for j in journeys for e in j.edges} == {e.id for e in sop.edges}


@pytest.mark.parametrize("seed", range(25))
def test_count_and_enumeration_agree_with_brute_force(seed):
    sop = random_dag(seed)
    graph = JourneyGraph(sop)
    expected = brute_force(sop, graph)
    listed = [j.edges for j in graph.iter_journeys()]
    assert graph.count() == len(expected) == len(listed)
    assert set(listed) == expected
    lengths = [len(e) for e in listed]
    assert lengths == sorted(lengths)  # BFS order: shortest first


@pytest.mark.parametrize("seed", range(25))
def test_cover_takes_every_journey_edge(seed):
    sop = random_dag(seed)
    graph = JourneyGraph(sop)
    journeys = cover(graph)
    on_journeys = {e for j in brute_force(sop, graph) for e in j}
    assert set(graph.journey_edges()) == on_journeys
    assert {e for j in journeys for e in j.edges} == on_journeys
    for journey in journeys:  # each is a real walk from start to an end
        assert journey.nodes[0] == sop.start and sop.node(journey.nodes[-1]).kind == "end"
        for a, b, e in zip(journey.nodes, journey.nodes[1:], journey.edges):
            assert (sop.edge(e).source, sop.edge(e).target) == (a, b)


def test_retry_loop_is_taken_at_most_once():
    graph = JourneyGraph(listing_blocked())
    journeys = list(graph.iter_journeys())
    assert graph.count() == len(journeys) == 11
    looped = [j for j in journeys if "e7" in j.edges]
    assert len(looped) == 5 and all(j.edges.count("e7") == 1 for j in looped)
    assert graph.uncoverable_edges() == []


def test_limit_nth_and_round_trip():
    graph = JourneyGraph(listing_blocked())
    assert len(list(graph.iter_journeys(3))) == 3
    assert list(graph.iter_journeys(0)) == []
    third = graph.nth(2)
    assert Journey.from_dict(third.to_dict()) == third
    with pytest.raises(IndexError):
        graph.nth(11)


def test_edges_off_every_journey_are_reported():
    sop = SOP.model_validate({"id": "x", "start": "a", "nodes": [
        {"id": "a"}, {"id": "b", "kind": "end"}, {"id": "orphan"}, {"id": "dead"}],
        "edges": [{"id": "ab", "source": "a", "target": "b"},
                  {"id": "ad", "source": "a", "target": "dead"},
                  {"id": "ob", "source": "orphan", "target": "b"}]})
    graph = JourneyGraph(sop)
    assert graph.count() == 1
    assert sorted(graph.uncoverable_edges()) == ["ad", "ob"]
    assert [j.edges for j in cover(graph)] == [("ab",)]


def test_no_start_means_no_journeys():
    sop = SOP(id="x", nodes=[{"id": "a", "kind": "end"}])
    assert count_journeys(sop) == 0 and edge_cover(sop) == []


def test_synthetic_thousand_nodes_cover_is_complete():
    sop = synthetic(1000, seed=3)
    graph = JourneyGraph(sop)
    journeys = cover(graph)
    assert {e for j in journeys for e in j.edges} == set(graph.journey_edges())
    assert graph.count() >= len(journeys) > 0
