"""Scenarios (DESIGN §5): test cases derived from journeys, plain data ready for the store.

Per journey (JourneyBench phase 4):
- ``correct``: every user value present, tools answer with condition-driven values;
- ``missing-parameter``: the user does not have one value the journey asks for (among the asked
  values some tool call of the journey takes, else all asked: number i of the journey takes the
  i-th, cyclically, so a cover exercises different values); a correct agent halts
  there (outcome ``blocked``) instead of calling a tool without it (JourneyBench Appendix G);
- ``failing-function``: a successful tool call of the journey (the i-th, cyclically, for journey
  number i) fails persistently with an
  error no failure edge of its node catches when the tool declares one (else its first error, else
  ``api_error``); the outcome is that failure edge's path, or ``technical-issue`` after retries.
Expected path / tool trace / end node / outcome come from the reference walk (walk.py).
``realized`` says whether the correct scenario's walk follows its journey (see `realises` for
journeys through a ``branching: "all"`` node: one branch of the run). It may not: conditions
along the path contradict each other, or the SOP is broken (a condition reads a misspelt name).
Then the expectations come from the JOURNEY, never from re-interpreting the broken SOP: a correct
scenario expects the journey's path, edges and end node and that end node's outcome; the derived
scenarios follow the journey (walk.py's journey mode) up to where their documented rule stops
them (``blocked`` where the withheld value is asked; the failing tool's failure edge or
``technical-issue`` after retries). Unrealised scenarios count as failed runs (metrics.py).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from ..core.journeys import Journey, JourneyGraph
from .compiled import CompiledSop
from .values import journey_values
from .walk import expected_run

SCENARIO_TYPES = ("correct", "missing-parameter", "failing-function")


@dataclass
class Scenario:
    id: str
    type: str
    journey: dict
    user: dict                              # {"seed": {...}, "question"?, "question_at"?, "opening"?}
    responses: dict                         # tool -> [{"outputs": {...}} | {"error": code}]
    expected: dict                          # {"path", "edges", "tool_trace", "end_node", "outcome"}
    withheld: str | None = None
    failing: dict | None = None             # {"tool", "error", "call"}
    expected_values: dict = field(default_factory=dict)  # imported tests: variable -> value
    realized: bool = True
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Scenario":
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _copy_responses(responses: dict) -> dict:
    return {tool: [dict(e, outputs=dict(e["outputs"])) if "outputs" in e else dict(e)
                   for e in entries] for tool, entries in responses.items()}


def scenarios_for(cs: CompiledSop, journey: Journey, number: int = 0,
                  types: tuple = SCENARIO_TYPES) -> list[Scenario]:
    values = journey_values(cs, journey)
    base = Scenario(f"j{number}-correct", "correct", journey.to_dict(),
                    {"seed": dict(values.seed)}, _copy_responses(values.responses), {})
    if values.unsolved:
        base.notes.append("no values found for edges: " + ", ".join(values.unsolved))
    walked = expected_run(cs, base.user["seed"], base.responses)
    base.notes.extend(values.notes + walked.notes)  # bounds that cut generation or the walk
    base.expected = walked.to_dict()
    base.realized = realises(cs, base.expected, journey)
    if not base.realized:
        base.expected = _journey_expected(cs, journey, base)
        base.notes.append("the SOP cannot follow this journey with the generated values; "
                          "expected results come from the journey")
    built = {"correct": base}
    # Each derived scenario costs a reference walk: build only the types asked for.
    withheld = _withheld(cs, journey, base, number) if "missing-parameter" in types else None
    if withheld is not None:
        built["missing-parameter"] = _derive(cs, base, number, "missing-parameter",
                                             withheld=withheld)
    failing = _failing(cs, base, number) if "failing-function" in types else None
    if failing is not None:
        built["failing-function"] = _derive(cs, base, number, "failing-function", failing=failing)
    return [built[t] for t in types if t in built]


def realises(cs: CompiledSop, expected: dict, journey: Journey) -> bool:
    """Whether the walk (`expected`) follows `journey`.

    A journey is one path from the start to an end. Through a `branching: "all"` node the run
    follows EVERY true edge depth first, so it visits several ends; the journey is then realised
    when it is one of those branches: its edges appear, in order, among the walk's edges and its
    end is among the nodes the walk reached. The expected results stay the walk's (the whole
    run, outcome of the last end reached), which is what a correct agent does. Without a
    branching-all node on the journey, the walk's edges must equal the journey's."""
    walked = list(expected.get("edges") or [])
    if walked == list(journey.edges):
        return True
    if not any(cs.nodes[n].node.branching == "all" for n in journey.nodes if n in cs.nodes):
        return False
    remaining = iter(walked)
    in_order = all(edge in remaining for edge in journey.edges)  # subsequence test
    return in_order and journey.nodes[-1] in (expected.get("path") or [])


def _journey_expected(cs: CompiledSop, journey: Journey, base: Scenario) -> dict:
    """What a correct run of `journey` gives: its path and end node, that node's outcome (the tool
    trace is the journey-following walk's)."""
    walked = expected_run(cs, base.user["seed"], base.responses, journey=journey.edges).to_dict()
    end = journey.nodes[-1]
    node = cs.nodes[end].node
    return dict(walked, path=list(journey.nodes), edges=list(journey.edges), end_node=end,
                outcome=(node.outcome or "resolved") if node.kind == "end" else None)


def _derive(cs: CompiledSop, base: Scenario, number: int, kind: str, withheld=None,
            failing=None) -> Scenario:
    responses = _copy_responses(base.responses)
    seed = dict(base.user["seed"])
    if failing is not None:
        entries = responses[failing["tool"]]
        del entries[failing["call"]:]
        entries.append({"error": failing["error"]})
    if withheld is not None:
        seed.pop(withheld, None)
    follow = None if base.realized else base.journey["edges"]
    expected = expected_run(cs, seed, responses, withheld, journey=follow).to_dict()
    return Scenario(f"j{number}-{kind}", kind, base.journey, {"seed": seed}, responses, expected,
                    withheld=withheld, failing=failing, realized=base.realized)


def _withheld(cs: CompiledSop, journey: Journey, base: Scenario, number: int) -> str | None:
    asked = list(dict.fromkeys(v for n in journey.nodes for v in cs.nodes[n].node.ask))
    used = {k for call in base.expected["tool_trace"] for k in call["arguments"]}
    pool = [v for v in asked if v in used] or asked
    return pool[number % len(pool)] if pool else None


def _failing(cs: CompiledSop, base: Scenario, number: int) -> dict | None:
    seen: dict = {}
    ok_calls = []
    for call in base.expected["tool_trace"]:
        name = call["tool"]
        index = seen.get(name, 0)
        seen[name] = index + 1
        entries = base.responses.get(name) or [{}]
        if "error" not in entries[min(index, len(entries) - 1)]:
            ok_calls.append((name, index))
    if not ok_calls:
        return None
    name, index = ok_calls[number % len(ok_calls)]
    return {"tool": name, "error": _uncaught_error(cs, base, name), "call": index}


def _uncaught_error(cs: CompiledSop, base: Scenario, tool: str) -> str:
    errors = list(cs.tools[tool].errors) if tool in cs.tools else []
    nodes = [n for n in base.expected["path"] if tool in cs.nodes[n].node.tools]
    failure_edges = [e for n in nodes for e in cs.nodes[n].failure]
    for error in errors:
        env = {"error": error, "tool": tool}
        if not any(e.is_else or e.holds(env) for e in failure_edges):
            return error
    return errors[0] if errors else "api_error"


def generate(cs: CompiledSop, journeys: list[Journey] | None = None,
             types: tuple = SCENARIO_TYPES) -> list[Scenario]:
    """Scenarios of the given types for each journey (default: the edge-covering set)."""
    if journeys is None:
        from ..core.journeys_cover import cover
        journeys = cover(JourneyGraph(cs.sop))
    result: list[Scenario] = []
    for number, journey in enumerate(journeys):
        result.extend(scenarios_for(cs, journey, number, types))
    return result


def sampled_scenarios(cs: CompiledSop, journeys: list[Journey], types: tuple) -> list[Scenario]:
    """One scenario per drawn journey (DESIGN §5: N balanced random *scenarios*): the types
    take turns; a journey that cannot have its turn's type (nothing to withhold or to fail)
    gives the first type it can."""
    chosen = []
    for number, journey in enumerate(journeys):
        turn = types[number % len(types):] + types[:number % len(types)]
        found = scenarios_for(cs, journey, number, turn)
        if found:
            chosen.append(found[0])
    return chosen


def sample_journeys(graph: JourneyGraph, count: int, seed: int = 0) -> list[Journey]:
    """Balanced random journeys (SOP-Agent Appendix D): at each node a branch is drawn with
    probability proportional to the journeys (leaves) below it, so every journey is equally
    likely however unbalanced the graph."""
    rng = random.Random(seed)
    if graph.count() == 0:
        return []
    return [_sample_one(graph, rng) for _ in range(count)]


def _sample_one(graph: JourneyGraph, rng: random.Random) -> Journey:
    node, used, nodes = graph.start, False, [graph.start]
    edges: list[int] = []
    while True:
        # (edge, weight); edge None: stop here (the node is an end)
        weights: list[tuple[int | None, int]] = [] if not graph.is_end[node] else [(None, 1)]
        for k in graph.out[node]:
            back = k in graph.back
            if back and used:
                continue
            t = graph.edge_dst[k]
            weight = graph.dag[t] if (back or used) else graph.walk[t]
            if weight:
                weights.append((k, weight))
        pick = rng.randrange(sum(w for _, w in weights))
        for choice, weight in weights:
            if pick < weight:
                break
            pick -= weight
        if choice is None:
            return graph.journey(nodes, edges)
        used = used or choice in graph.back
        edges.append(choice)
        node = graph.edge_dst[choice]
        nodes.append(node)
