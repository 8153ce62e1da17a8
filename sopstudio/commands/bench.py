"""`sopstudio bench`: run generated scenarios (3 types x edge-covering journeys) and print metrics."""

from __future__ import annotations

import os

from ..core.journeys import JourneyGraph
from ..engine.batch import run_batch
from ..engine.compiled import CompiledSop
from ..engine.scenarios import generate
from ._common import load_or_exit, print_json

NAME = "bench"
HELP = "batch-run generated scenarios with an agent and print the metrics"


def add_model_arguments(parser) -> None:
    parser.add_argument("--model", help="model name for dpa/spa")
    parser.add_argument("--base-url", dest="base_url", help="OpenAI-compatible endpoint")


def agent_options(args) -> dict:
    if args.agent == "scripted":
        return {}
    return {k: v for k, v in (("model", args.model), ("base_url", args.base_url)) if v}


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--agent", default="scripted", help="scripted (default), dpa or spa")
    add_model_arguments(parser)
    parser.add_argument("--limit", type=int, help="run at most N scenarios")
    parser.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1))
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args) -> int:
    cs = CompiledSop(load_or_exit(args.file))
    scenarios = generate(cs)
    if args.limit is not None:
        scenarios = scenarios[:max(args.limit, 0)]
    options = agent_options(args)
    from ..engine.agents import make_agent
    make_agent(args.agent, cs, **options)  # fail fast, one clear line, before any thread starts
    result = run_batch(cs, scenarios, lambda c: make_agent(args.agent, c, **options),
                       workers=args.workers)
    covered = {e for r in result.results if r.trace for e in r.trace.edges}
    on_journeys = JourneyGraph(cs.sop).journey_edges()
    data = {"scenarios": len(scenarios), "metrics": result.metrics,
            "coverage": {"edges": len(on_journeys),
                         "covered": sum(1 for e in on_journeys if e in covered),
                         "missing": [e for e in on_journeys if e not in covered]},
            "unrealized": [s.id for s in scenarios if not s.realized],
            "errors": [f"{r.scenario.id}: {r.error}" for r in result.results if r.error],
            "runs": [r.metrics for r in result.results if r.metrics]}
    if args.json:
        print_json(data)
        return 0
    print(f"{len(scenarios)} scenarios, agent {args.agent}; edges covered "
          f"{data['coverage']['covered']}/{data['coverage']['edges']}")
    header = "  ".join(f"{k:>13}" for k in ("type", "ujcs", "tta", "path_acc", "tsr", "runs"))
    print(header)
    rows = [("overall", result.metrics["overall"]), *result.metrics["by_type"].items()]
    for name, m in rows:
        print("  ".join([f"{name:>13}"] + [f"{m[k]:>13.3f}" for k in
                                           ("ujcs", "tta", "path_accuracy", "tsr")]
                        + [f"{m['runs']:>13}"]))
    return 0
