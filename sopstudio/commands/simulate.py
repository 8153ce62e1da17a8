"""`sopstudio simulate`: run one scenario of one journey and print the conversation (DESIGN §9).

The run is stored (SOP document, scenario, settings, every event) unless `--no-store`; `--json`
then carries its `run_id`.
"""

from __future__ import annotations

from ..core.journeys import JourneyGraph
from ..engine.compiled import CompiledSop, EngineError
from ..engine.runner import run_scenario
from ..engine.scenarios import TYPES, scenarios_for
from ._common import load_or_exit, print_json
from .bench import (add_model_arguments, add_store_arguments, agent_options, now,
                    open_store_unless, run_settings)

NAME = "simulate"
HELP = "simulate one journey and scenario with an agent and print the trace"


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--journey", type=int, default=0, help="journey number (BFS order)")
    parser.add_argument("--scenario", choices=TYPES, default="correct")
    parser.add_argument("--agent", default="scripted", help="scripted (default), dpa or spa")
    parser.add_argument("--seed", type=int, default=0)
    add_model_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_store_arguments(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    cs = CompiledSop(sop)
    graph = JourneyGraph(sop)
    if args.journey < 0 or args.journey >= graph.count():
        raise EngineError(f"journey {args.journey} does not exist ({graph.count()} journeys)")
    journey = graph.nth(args.journey)
    found = scenarios_for(cs, journey, args.journey, (args.scenario,))
    if not found:
        raise EngineError(f"journey {args.journey} has no {args.scenario} scenario "
                          "(nothing to withhold or no tool to fail)")
    scenario = found[0]
    with open_store_unless(args) as store:
        started = now()
        trace = run_scenario(cs, scenario, args.agent, seed=args.seed,
                             agent_options=agent_options(args))
        run_id = _store_run(store, args, sop, scenario, trace, started)
    if args.json:
        data = trace.to_dict()
        data["scenario"] = scenario.to_dict()
        data["run_id"] = run_id
        print_json(data)
        return 0
    print(f"journey {args.journey} ({args.scenario}): {' -> '.join(journey.nodes)}")
    for event in trace.events:
        print("  " + describe(event))
    print(f"outcome: {trace.outcome} (expected {scenario.expected['outcome']}), "
          f"end node: {trace.end_node}")
    if run_id is not None:
        print(f"stored as run {run_id}")
    return 0


def _store_run(store, args, sop, scenario, trace, started) -> int | None:
    if store is None:
        return None
    from ..store.traces import save_trace
    settings = run_settings(args, journey=args.journey, scenario=args.scenario, seed=args.seed)
    return save_trace(store, sop, scenario, trace, agent=args.agent, model=args.model,
                      settings=settings, started=started, finished=now())


def describe(event) -> str:
    kind = event.type
    if kind in ("say", "ask", "user"):
        who = "user" if kind == "user" else "agent"
        return f"[{event.node}] {who}: {event.text}"
    if kind == "tool_call":
        return f"[{event.node}] call {event.tool}({event.arguments})"
    if kind == "tool_result":
        return f"[{event.node}] result {event.tool}: {event.result}"
    if kind == "transition":
        return f"-> {event.node}" + (f" (edge {event.edge})" if event.edge else "")
    if kind == "guardrail":
        return f"[{event.node}] guardrail {event.code}: {event.text}"
    return f"end at {event.node}: {event.outcome}"
