"""`sopstudio simulate`: run one scenario of one journey and print the conversation (DESIGN §9).

The run is stored (SOP document, scenario, settings, every event) unless `--no-store`; `--json`
then carries its `run_id`. The expected result is the scenario's (from the journey: see
engine/scenarios.py); a scenario whose journey the SOP cannot follow is flagged. An SOP with
validation errors gets a warning on stderr. A model that cannot be reached stops the run: one
error line, exit 1, and the partial run is stored with status "error".
"""

from __future__ import annotations

from ..engine.batch import is_unreachable
from ..engine.compiled import CompiledSop
from ..engine.agents import AGENT_KINDS
from ..engine.render import EventRenderer
from ..engine.scenarios import SCENARIO_TYPES
from ..engine.session import (SimulationSession, agent_extras, agent_factory, nth_journey,
                              scenario_for)
from ._common import load_or_exit, print_json
from ._options import (runnable, add_model_arguments, add_store_arguments, add_turn_limit,
                       agent_options, now, open_store_unless, run_settings, warn_if_invalid)

NAME = "simulate"
HELP = "simulate one journey and scenario with an agent and print the trace"


def add_arguments(parser) -> None:
    parser.add_argument("file", help="the .sop.json file")
    parser.add_argument("--journey", type=int, default=0, help="journey number (BFS order)")
    parser.add_argument("--scenario", choices=SCENARIO_TYPES, default="correct")
    parser.add_argument("--agent", default="scripted", choices=AGENT_KINDS,
                        help="the agent (default scripted)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--allow-live", action="store_true",
                        help="tools marked live call their real endpoint (default: mocked)")
    add_model_arguments(parser)
    add_turn_limit(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_store_arguments(parser)


def run(args) -> int:
    sop = load_or_exit(args.file)
    warn_if_invalid(sop, args.file, args.max_turns)
    sop = runnable(sop, args.file)
    cs = CompiledSop(sop)
    journey, scenario = _pick(args, cs, sop)
    with open_store_unless(args) as store:
        trace, run_id = _run_and_store(store, args, cs, scenario)
    if args.json:
        data = trace.to_dict()
        data["scenario"] = scenario.to_dict()
        data["run_id"] = run_id
        print_json(data)
        return 0
    print(f"journey {args.journey} ({args.scenario}): {' -> '.join(journey.nodes)}")
    renderer = EventRenderer.for_sop(cs.sop, style="log")
    for event in trace.events:
        print("  " + renderer.line(event))
    if not scenario.realized:
        print("note: the SOP cannot follow this journey (scenario not realised); the expected "
              "result comes from the journey and the run counts as a failure in bench")
    print(f"outcome: {trace.outcome} (expected {scenario.expected['outcome']}), "
          f"end node: {end_node_text(trace)}")
    if run_id is not None:
        print(f"stored as run {run_id}")
    return 0


def _pick(args, cs, sop):
    """The journey asked for and its scenario of the asked type."""
    journey = nth_journey(sop, args.journey)
    return journey, scenario_for(cs, journey, args.journey, args.scenario)


def _run_and_store(store, args, cs, scenario):
    started = now()
    # Agent-S's action repository is the store's tool library (none with --no-store).
    extras = agent_extras(args.agent, store.library.list if store is not None else None)
    factory = agent_factory(args.agent, cs, options=agent_options(args), extras=extras)
    session = SimulationSession(cs, scenario, factory, seed=args.seed,
                                allow_live=args.allow_live, max_turns=args.max_turns)
    try:
        trace = session.run()
    except Exception as error:
        if is_unreachable(error):  # keep what happened, marked as an error, then report
            _store_run(store, args, cs.sop, scenario, session.trace, started,
                       status="error", metrics={"error": str(error)})
        raise
    return trace, _store_run(store, args, cs.sop, scenario, trace, started)


def end_node_text(trace) -> str:
    if trace.end_node is not None:
        return trace.end_node
    stopped = trace.path[-1] if trace.path else None
    return f"(none: the run stopped at {stopped})" if stopped else "(none)"


def _store_run(store, args, sop, scenario, trace, started, **extra) -> int | None:
    if store is None:
        return None
    from ..store.traces import save_trace
    settings = run_settings(args, journey=args.journey, scenario=args.scenario, seed=args.seed,
                            max_turns=args.max_turns)
    return save_trace(store, sop, scenario, trace, agent=args.agent, model=args.model,
                      settings=settings, started=started, finished=now(), **extra)

