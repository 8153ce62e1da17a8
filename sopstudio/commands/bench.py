"""`sopstudio bench`: run generated scenarios (3 types x edge-covering journeys) and print metrics.

Every run of the batch is stored (DESIGN §6) unless `--no-store`; `--db` picks the database.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime, timezone

from ..core.journeys import JourneyGraph
from ..engine.batch import run_batch
from ..engine.compiled import CompiledSop
from ..engine.scenarios import generate
from ._common import load_or_exit, print_json
from ._store import add_db_argument, open_from_args

NAME = "bench"
HELP = "batch-run generated scenarios with an agent and print the metrics"


def add_model_arguments(parser) -> None:
    parser.add_argument("--model", help="model name for dpa/spa")
    parser.add_argument("--base-url", dest="base_url", help="OpenAI-compatible endpoint")


def agent_options(args) -> dict:
    if args.agent == "scripted":
        return {}
    return {k: v for k, v in (("model", args.model), ("base_url", args.base_url)) if v}


def add_store_arguments(parser) -> None:
    add_db_argument(parser)
    parser.add_argument("--no-store", dest="no_store", action="store_true",
                        help="do not store the run(s) in the database")


def run_settings(args, **extra) -> dict:
    """What the store keeps about how a run was made (secrets are stripped by the store)."""
    return {"agent": args.agent, **agent_options(args), **extra}


def now() -> datetime:
    return datetime.now(timezone.utc)


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--agent", default="scripted", help="scripted (default), dpa or spa")
    add_model_arguments(parser)
    parser.add_argument("--limit", type=int, help="run at most N scenarios")
    parser.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1))
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_store_arguments(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    cs = CompiledSop(sop)
    scenarios = generate(cs)
    if args.limit is not None:
        scenarios = scenarios[:max(args.limit, 0)]
    options = agent_options(args)
    from ..engine.agents import make_agent
    make_agent(args.agent, cs, **options)  # fail fast, one clear line, before any thread starts
    # The store opens before the batch: a bad --db fails now, not after a long LLM batch.
    with open_store_unless(args) as store:
        started = now()
        result = run_batch(cs, scenarios, lambda c: make_agent(args.agent, c, **options),
                           workers=args.workers)
        run_ids = _store_batch(store, args, sop, result, started)
    covered = {e for r in result.results if r.trace for e in r.trace.edges}
    on_journeys = JourneyGraph(cs.sop).journey_edges()
    data = {"scenarios": len(scenarios), "metrics": result.metrics,
            "coverage": {"edges": len(on_journeys),
                         "covered": sum(1 for e in on_journeys if e in covered),
                         "missing": [e for e in on_journeys if e not in covered]},
            "unrealized": [s.id for s in scenarios if not s.realized],
            "errors": [f"{r.scenario.id}: {r.error}" for r in result.results if r.error],
            "runs": [r.metrics for r in result.results if r.metrics],
            "run_ids": run_ids}
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
    if run_ids:
        print(f"stored {len(run_ids)} runs (ids {run_ids[0]}-{run_ids[-1]})")
    return 0


def open_store_unless(args):
    """The store named by --db / $SOPSTUDIO_DB, or a context giving None with --no-store."""
    return contextlib.nullcontext(None) if args.no_store else open_from_args(args)


def _store_batch(store, args, sop, result, started) -> list[int]:
    if store is None:
        return []
    from ..store.traces import save_batch
    return save_batch(store, sop, result, args.agent, model=args.model,
                      settings=run_settings(args, workers=args.workers),
                      started=started, finished=now())
