"""Termination (issue 17, item 1): every command returns on valid SOPs with counters and cycles.

"Terminates" means the in-process call returns; no wall-clock assertion. The regression is the
counter SOP of the issue (a `set` that reads its own name, looping back to itself), which made
scenario value generation re-queue the counter forever.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sopstudio.cli_main import run as cli
from sopstudio.core.io import save_sop
from sopstudio.core.journeys import JourneyGraph
from sopstudio.core.model import SOP
from sopstudio.core.validate import validate
from sopstudio.engine import values as values_module
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.scenarios import generate


def counter_sop(step: str = "n + 1", limit: int = 3, attempts: int = 5) -> SOP:
    return SOP.model_validate({
        "id": "c", "title": "Counter", "start": "init",
        "nodes": [{"id": "init", "title": "init", "kind": "task", "set": {"n": "0"}},
                  {"id": "count", "title": "count", "kind": "task", "set": {"n": step},
                   "max_attempts": attempts},
                  {"id": "end", "title": "end", "kind": "end", "outcome": "resolved"}],
        "edges": [{"id": "e1", "source": "init", "target": "count"},
                  {"id": "e2", "source": "count", "target": "end", "when": f"n >= {limit}"},
                  {"id": "e3", "source": "count", "target": "count", "when": "else"}]})


def _commands(path: str) -> list[list[str]]:
    return [["validate", path, "--json"], ["journeys", path, "--json", "--cover"],
            ["simulate", path, "--json", "--no-store"],
            ["simulate", path, "--json", "--no-store", "--journey", "1",
             "--scenario", "failing-function"],
            ["bench", path, "--json", "--no-store"]]


def test_issue_counter_sop_simulates_and_is_explained(tmp_path, capsys):
    path = tmp_path / "counter.sop.json"
    save_sop(counter_sop(), path)
    assert cli(["simulate", str(path), "--json", "--no-store"]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["outcome"] == "resolved" and run["end_node"] == "end"
    codes = [issue.code for issue in validate(counter_sop())]
    assert codes == ["self-referencing-set"]
    message = next(i.message for i in validate(counter_sop()))
    assert "n = n + 1" in message and "max_attempts (5)" in message


def test_counter_without_a_loop_is_not_flagged():
    sop = counter_sop()
    sop.edges[2].target = "end"
    assert "self-referencing-set" not in [i.code for i in validate(sop)]


def test_work_budget_cuts_value_generation_and_says_so(monkeypatch):
    monkeypatch.setattr(values_module, "WORK_BUDGET", 0)
    cs = CompiledSop(counter_sop())
    scenarios = generate(cs, types=("correct",))
    assert any("work budget" in note for s in scenarios for note in s.notes)


@st.composite
def looping_sops(draw) -> SOP:
    """Small SOPs: a chain of task nodes with counters, random back edges and self loops, a
    tool with an error on some nodes, conditions on the counters, always an else edge."""
    size = draw(st.integers(2, 5))
    ids = [f"t{i}" for i in range(size)]
    nodes = [{"id": "start", "title": "start", "kind": "task", "set": {"n": "0", "m": "1"}}]
    edges = [{"id": "s", "source": "start", "target": ids[0]}]
    for i, ident in enumerate(ids):
        node = {"id": ident, "title": ident, "kind": "task",
                "max_attempts": draw(st.one_of(st.none(), st.integers(1, 4)))}
        counter = draw(st.sampled_from(["n", "m"]))
        node["set"] = {counter: draw(st.sampled_from([f"{counter} + 1", f"{counter} * 2",
                                                      f"{counter} - 1", "n + m"]))}
        if draw(st.booleans()):
            node["tools"] = ["probe"]
        nodes.append(node)
        forward = ids[i + 1] if i + 1 < size else "done"
        back = draw(st.sampled_from(ids[:i + 1]))
        limit = draw(st.integers(-2, 6))
        edges.append({"id": f"f{i}", "source": ident, "target": forward,
                      "when": f"{counter} >= {limit}"})
        edges.append({"id": f"b{i}", "source": ident, "target": back, "when": "else"})
        if node.get("tools") and draw(st.booleans()):
            edges.append({"id": f"x{i}", "source": ident, "target": back, "on": "failure"})
    nodes.append({"id": "done", "title": "done", "kind": "end", "outcome": "resolved"})
    tools = [{"name": "probe", "outputs": [{"name": "level", "type": "integer"}],
              "errors": ["api_error"]}]
    return SOP.model_validate({"id": "loops", "title": "Loops", "start": "start",
                               "tools": tools, "nodes": nodes, "edges": edges})


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sop=looping_sops())
def test_every_command_returns_on_looping_sops(sop, tmp_path, capsys):
    path = tmp_path / "loops.sop.json"
    save_sop(sop, path)
    for argv in _commands(str(path)):
        code = cli(argv)
        out = capsys.readouterr()
        assert code in (0, 1, 2), (argv, out.err)
        assert "internal error" not in out.err
    graph = JourneyGraph(sop)
    assert graph.count() >= 0
