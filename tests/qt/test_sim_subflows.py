"""Sub-SOPs in the GUI: the simulation dock and the batch dialog run a saved SOP with its
children inlined (as the CLI does), the run's marks land on the subflow node of the parent
canvas, and the problems dock reports a missing child."""

from __future__ import annotations

from sopstudio.core.document import Document
from sopstudio.core.io import load_sop

from qt_helpers import FIXTURES, TIMEOUT, journey_index, run_batch, step_once

SUBFLOWS = FIXTURES / "subflows"
PARENT = SUBFLOWS / "refund.sop.json"


def open_parent(open_main_window, name: str = "refund.sop.json"):
    path = SUBFLOWS / name
    return open_main_window(Document(load_sop(path), path), simulation=True, show=False)


def test_dock_runs_the_child_and_marks_the_subflow_node(qtbot, open_main_window):
    win = open_parent(open_main_window)
    sim = win.simulation
    journey = ("ask_order", "verify/ask_customer", "verify/verified", "refund", "refunded")
    sim.dock.select(journey=journey_index(sim.dock, *journey), scenario="correct",
                    agent="scripted")
    inside = []
    while True:
        event = step_once(qtbot, sim.dock)
        if (event.get("node") or "").startswith("verify/"):
            inside.append(event)
            # the child's node is drawn as the subflow node on the parent canvas
            assert sim.overlay.current_node == "verify"
            assert "verify" in sim.overlay.node_marks
        if event["type"] == "end":
            break
    assert inside and all(e["level"] == 1 for e in inside)
    assert sim.dock.snapshot["outcome"] == "refunded"
    assert set(sim.overlay.path_edges) == {"e1", "e2", "e4"}
    assert all(e in sim.overlay.edge_marks for e in sim.overlay.path_edges)


def test_batch_runs_expanded_and_folds_coverage_onto_the_parent(qtbot, open_main_window):
    win = open_parent(open_main_window)
    sim = win.simulation
    result = run_batch(qtbot, sim.open_batch(), store_runs=False, source="covering",
                       types=("correct",))
    assert result.results and result.metrics["overall"]["tsr"] == 1.0
    coverage = sim.overlay.coverage
    assert coverage["nodes"]["verify"] >= 1 and coverage["edges"]["e2"] >= 1
    assert not any("/" in key for key in coverage["nodes"])


def test_problems_dock_reports_a_missing_child(qtbot, open_main_window):
    win = open_parent(open_main_window, "missing_child.sop.json")
    win.problems.schedule(immediate=True)
    qtbot.waitUntil(lambda: any(i.code == "missing-subflow" for i in win.problems.issues),
                    timeout=TIMEOUT)
    win.simulation.dock.select(scenario="correct", agent="scripted")
    assert not win.simulation.dock.start()
    assert "Cannot run" in win.simulation.dock.status.text()


def test_problems_dock_reports_a_recursive_child(qtbot, open_main_window):
    win = open_parent(open_main_window, "loop_a.sop.json")
    win.problems.schedule(immediate=True)
    qtbot.waitUntil(lambda: any(i.code == "subflow-recursion" for i in win.problems.issues),
                    timeout=TIMEOUT)
