"""`long-journey` (issue 13 item 5): validation warns when a journey needs more conversation
turns than a run is allowed, counted the way the orchestrator counts them."""

from __future__ import annotations

from sopstudio.core.validate import DEFAULT_MAX_TURNS, validate
from sopstudio.engine.agents.scripted import ScriptedAgent
from sopstudio.engine.compiled import CompiledSop
from sopstudio.engine.orchestrator import Orchestrator
from sopstudio.engine.tools import MockTools
from sopstudio.engine.users import ScriptedUser

from helpers import sop_of


def questionnaire(questions: int, branch_at: int | None = None):
    """A chain of nodes each asking one value, ending with a message (one more turn)."""
    nodes = [{"id": f"q{i}", "ask": [f"v{i}"]} for i in range(questions)]
    nodes.append({"id": "done", "kind": "end", "say": "Thanks.", "outcome": "done"})
    edges = [{"id": f"e{i}", "source": f"q{i}", "target": f"q{i + 1}" if i + 1 < questions
              else "done"} for i in range(questions)]
    if branch_at is not None:  # a short way out early: the long journey still counts
        nodes.append({"id": "early", "kind": "end", "outcome": "early"})
        edges[branch_at]["when"] = f"v{branch_at} == 'stop'"
        edges.append({"id": "short", "source": f"q{branch_at}", "target": f"q{branch_at + 1}",
                      "when": "else"})
        edges[branch_at]["target"] = "early"
    variables = [{"name": f"v{i}"} for i in range(questions)]
    return sop_of(nodes, edges, variables=variables, start="q0")


def long_journeys(sop, **kwargs):
    return [i for i in validate(sop, **kwargs) if i.code == "long-journey"]


def test_a_journey_past_the_limit_is_a_warning_and_really_ends_with_turn_limit():
    sop = questionnaire(20)  # 20 questions x 2 turns + 1 message = 41 turns
    [issue] = long_journeys(sop)
    assert issue.severity == "warning" and "needs 41 conversation turns" in issue.message
    cs = CompiledSop(sop)
    user = ScriptedUser({f"v{i}": "x" for i in range(20)})
    trace = Orchestrator(cs, ScriptedAgent(cs), user, MockTools(cs.tools)).run()
    assert trace.outcome == "turn-limit" and trace.turns == DEFAULT_MAX_TURNS


def test_a_journey_at_the_limit_is_fine_and_runs_to_its_end():
    sop = questionnaire(19)  # 39 turns
    assert long_journeys(sop) == []
    cs = CompiledSop(sop)
    user = ScriptedUser({f"v{i}": "x" for i in range(19)})
    assert Orchestrator(cs, ScriptedAgent(cs), user, MockTools(cs.tools)).run().outcome == "done"


def test_the_heaviest_journey_counts_and_the_limit_is_a_parameter():
    sop = questionnaire(22, branch_at=1)
    assert len(long_journeys(sop)) == 1
    assert long_journeys(sop, max_turns=60) == []


def test_bench_and_simulate_warn_with_the_limit_they_run_under(tmp_path, capsys):
    from sopstudio.cli_main import run
    from sopstudio.core.io import save_sop
    path = tmp_path / "long.sop.json"
    save_sop(questionnaire(20), path)
    assert run(["simulate", str(path), "--no-store"]) == 0
    assert "needs 41 conversation turns" in capsys.readouterr().err
    assert run(["bench", str(path), "--no-store", "--max-turns", "50", "--limit", "1"]) == 0
    assert "conversation turns" not in capsys.readouterr().err
