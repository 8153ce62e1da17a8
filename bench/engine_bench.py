"""Engine benchmark: orchestrator steps/s and scenarios/s of the scripted agent on generated SOPs
of 50, 500 and 5,000 nodes, and the time to count journeys and build the edge cover on 1,000 nodes.

Targets (issue 3): >= 20,000 steps/s on one core; counting + cover under 1 s.
Run: .venv/bin/python bench/engine_bench.py
"""

from __future__ import annotations

import time

from sopstudio.core.journeys import JourneyGraph
from sopstudio.core.journeys_cover import cover
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.examples import synthetic
from sopstudio.engine.runner import run_scenario
from sopstudio.engine.scenarios import generate

MAX_SCENARIOS = 300


def bench_runs(n_nodes: int) -> None:
    sop = synthetic(n_nodes, seed=1)
    cs = CompiledSop(sop)
    t0 = time.perf_counter()
    scenarios = generate(cs)[:MAX_SCENARIOS]
    generated = time.perf_counter() - t0
    steps = 0
    t0 = time.perf_counter()
    for scenario in scenarios:
        trace = run_scenario(cs, scenario, max_turns=100_000)
        steps += len(trace.events)
    elapsed = time.perf_counter() - t0
    print(f"{len(sop.nodes):>6} nodes: {len(scenarios):>4} scenarios, {steps:>7} steps in "
          f"{elapsed:.3f} s -> {steps / elapsed:>9,.0f} steps/s, "
          f"{len(scenarios) / elapsed:>8,.1f} scenarios/s (generation {generated:.3f} s)")


def bench_journeys(n_nodes: int = 1000) -> None:
    sop = synthetic(n_nodes, seed=2)
    t0 = time.perf_counter()
    graph = JourneyGraph(sop)
    count = graph.count()
    counted = time.perf_counter() - t0
    journeys = cover(graph)
    total = time.perf_counter() - t0
    print(f"{len(sop.nodes)} nodes, {len(sop.edges)} edges: {count} journeys counted in "
          f"{counted * 1000:.1f} ms; cover of {len(journeys)} journeys; count + cover "
          f"{total * 1000:.1f} ms")


if __name__ == "__main__":
    for size in (50, 500, 5000):
        bench_runs(size)
    bench_journeys()
